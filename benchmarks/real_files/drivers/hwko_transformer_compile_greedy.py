"""Corpus driver (kx's code): greedy decoding with hyunwoongko/transformer's Transformer under
torch.compile (models/model/transformer.py: every call rebuilds the source padding mask and the
target mask (pad mask & a ByteTensor lower triangle made on the CPU and moved to the device),
runs the full encoder and the decoder over the whole prefix; the repository has no incremental
decoding, so a greedy loop calls the model with the target prefix growing by one token per step).
The driver trains the model for 4 compiled epochs with train.py's loop (as in
hwko_transformer_compile_train, shared code) on kx's toy translation task, then decodes held-out
batches greedily in eval mode with the compiled model (prefix length 1 .. T: the length changes
every call, so dynamo specialises then goes dynamic; batch sizes 64 and a last smaller batch).
Checked: exact-match rate of the decoded sequences against the targets, token accuracy, and the
compiled model's last-step logits against the eager forward."""

import _corpus23_support as S
import torch

torch.manual_seed(0)
dev = S.device()
VOCAB, D, LAYERS, HEADS, N, B, EPOCHS, LO, HI = S.pick(
    (500, 256, 2, 8, 3072, 64, 4, 4, 16), (40, 32, 1, 4, 32, 8, 1, 3, 5)
)
model, cmodel, losses, src, trg = S.train_toy_transformer(
    VOCAB, D, LAYERS, HEADS, 128, N, 200, B, EPOCHS, (LO, HI), dev, seed=1
)

model.eval()
exact = tok = tok_total = n_seq = 0
with torch.no_grad():
    for lo, hi in ((N, N + 64), (N + 64, N + 128), (N + 128, N + 200)):
        s, t = src[lo:hi].to(dev), trg[lo:hi].to(dev)
        s = s[:, : int((s != S.PAD).sum(1).max())]
        ys = torch.full((len(s), 1), S.SOS, dtype=torch.long, device=dev)
        for _ in range(t.shape[1] - 1):
            logits = cmodel(s, ys)
            ys = torch.cat([ys, logits[:, -1].argmax(-1, keepdim=True)], 1)
        keep = t[:, 1:] != S.PAD
        hit = (ys[:, 1:] == t[:, 1:]) | ~keep
        exact += int(hit.all(1).sum())
        tok += int((hit & keep).sum())
        tok_total += int(keep.sum())
        n_seq += len(s)
    err = S.rel_err(cmodel(s, ys[:, :-1]), model(s, ys[:, :-1]))
S.sync()
print(
    f"hyunwoongko/transformer compiled greedy decode after {EPOCHS} epochs (loss {losses[0]:.3f} -> {losses[-1]:.3f}): "
    f"exact match {exact}/{n_seq}, token accuracy {tok / max(1, tok_total):.3f}; last-step compiled vs eager rel err {err:.1e}"
)
