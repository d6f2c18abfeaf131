"""Corpus driver (kx's code): sooftware/conformer's Conformer (conformer/model.py) for
inference under torch.compile with bf16 autocast: a Conformer-M-like encoder (encoder_dim 256,
4 heads, 80 mel features, 4 layers here, a 128-symbol vocabulary) in eval mode (BatchNorm running
statistics, no dropout) over two fixed utterance shapes (batch 4 x 1200 frames and batch 16 x 400
frames: two compiled graphs), then greedy CTC decoding on the host (argmax, collapse repeats,
drop blanks); the compiled log-probabilities checked against eager ones."""

import _corpus15_support as S
import torch
from conformer import Conformer

torch.manual_seed(0)
dev = "cuda"
FEAT, DIM, LAYERS, VOCAB = S.pick((80, 256, 4, 128), (16, 32, 2, 8))
SHAPES = S.pick(((4, 1200), (16, 400)), ((2, 64), (3, 32)))

model = Conformer(
    num_classes=VOCAB, input_dim=FEAT, encoder_dim=DIM, num_encoder_layers=LAYERS, num_attention_heads=4
)
model = model.to(dev).eval()
compiled = torch.compile(model)

for B, T in SHAPES:
    x = torch.randn(B, T, FEAT, device=dev)
    lengths = torch.full((B,), T, dtype=torch.long, device=dev)
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        got, out_lengths = compiled(x, lengths)
        want, _ = model(x, lengths)
    err = S.rel_err(got.float(), want.float())
    best = got.argmax(-1).tolist()
    hyps = []
    for seq, n in zip(best, out_lengths.tolist()):
        hyp, prev = [], None
        for tok in seq[:n]:
            if tok != prev and tok != 0:
                hyp.append(tok)
            prev = tok
        hyps.append(hyp)
    print(
        f"batch {B} x {T} frames: {got.shape[1]} output frames, hypothesis lengths {[len(h) for h in hyps]}, rel err {err:.1e}"
    )
    assert err < 3e-2, err

torch.cuda.synchronize()
print("conformer_compile_eval ok")
