"""Corpus driver (kx's code): karpathy/makemore's GRU language model (makemore.py: RNN with
cell_type="gru": a learnt start state, GRUCell (update / reset gates from linear layers on
[x_t, h]), a Python loop over the 16 characters of a padded name, an lm_head) trained with
torch.compile on the repo's names.txt as makemore's training loop does (its AdamW settings,
InfiniteDataLoader, evaluate on the test split): embedding 64, hidden 512, batch 512, 60 steps
(the time loop unrolled into one graph, forward + backward); then makemore's generate() samples 64
names one character at a time through the compiled model (a growing sequence length each step)."""

import _corpus10_support as S
from _makemore_common import run

run(
    "gru",
    dict(n_embd=S.pick(64, 16), n_embd2=S.pick(512, 32)),
    batch=S.pick(512, 8),
    steps=S.pick(60, 2),
    samples=S.pick(64, 3),
)
print("makemore gru compile train ok")
