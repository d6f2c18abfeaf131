"""Corpus driver (kx's code): karpathy/makemore's character-level Transformer (makemore.py:
Transformer with CausalSelfAttention (a masked softmax(q k^T) v over a registered tril buffer),
NewGELU MLP blocks, a weight-tied-free lm_head, cross-entropy with ignore_index=-1 on the padded
names) trained with torch.compile on the repo's names.txt (32k names) as makemore's training loop
does (its AdamW settings, its InfiniteDataLoader, its evaluate on the test split), a larger
configuration than the default (6 layers, 8 heads, d 256, batch 512, 60 steps); then makemore's
generate() samples 64 names token by token through the compiled model (the sequence grows by one
each step: dynamic-shape recompiles) and counts how many are new."""

import _corpus10_support as S
from _makemore_common import run

run(
    "transformer",
    dict(n_layer=S.pick(6, 2), n_head=S.pick(8, 2), n_embd=S.pick(256, 32), n_embd2=S.pick(256, 32)),
    batch=S.pick(512, 8),
    steps=S.pick(60, 2),
    samples=S.pick(64, 3),
)
print("makemore transformer compile train ok")
