"""Corpus driver (kx's code): hyunwoongko/transformer (a widely read from-scratch "Attention Is
All You Need": models/model/transformer.py builds the padding source mask and the target mask as
pad mask & a lower-triangular torch.ones(...).type(torch.ByteTensor).to(device); encoder /
decoder layers of the repository's own MultiHeadAttention (split / concat by view and transpose),
ScaleDotProductAttention (q @ k^T / sqrt(d), masked_fill(mask == 0, -10000), nn.Softmax),
hand-written LayerNorm (mean / var with unbiased=False), position-wise FFN with dropout, and a
sinusoidal PositionalEncoding held as a plain tensor attribute sliced to the sequence length)
trained with torch.compile: the Transformer is compiled as one module and trained with
train.py's loop (teacher forcing on trg[:, :-1], CrossEntropyLoss(ignore_index=pad),
clip_grad_norm_ 1.0, Adam with conf.py's eps 5e-9 and weight decay 5e-4, kaiming_uniform_ init)
on kx's toy translation task (reverse and relabel), batches trimmed to their longest sequence so
source and target lengths change from batch to batch (dynamic shapes). d_model 256, 3 layers,
8 heads, vocab 1000, 5 epochs. Checked: train loss first vs last epoch, held-out
teacher-forced token accuracy, and the compiled model's logits against the eager forward in
eval mode."""

import _corpus23_support as S
import torch

torch.manual_seed(0)
dev = S.device()
VOCAB, D, LAYERS, HEADS, N, B, EPOCHS, LO, HI = S.pick(
    (1000, 256, 3, 8, 3072, 64, 5, 6, 24), (40, 32, 1, 4, 32, 8, 1, 3, 6)
)
model, cmodel, losses, src, trg = S.train_toy_transformer(
    VOCAB, D, LAYERS, HEADS, 256, N, max(N // 8, B), B, EPOCHS, (LO, HI), dev, seed=0
)
held = S.seq2seq_batches(src[N:], trg[N:], B, dev)

model.eval()
correct = total = 0
with torch.no_grad():
    for bt in held:
        out = cmodel(bt.src, bt.trg[:, :-1])
        tgt = bt.trg[:, 1:]
        keep = tgt != S.PAD
        correct += int(((out.argmax(-1) == tgt) & keep).sum())
        total += int(keep.sum())
    err = S.rel_err(cmodel(held[0].src, held[0].trg[:, :-1]), model(held[0].src, held[0].trg[:, :-1]))
S.sync()
print(
    f"hyunwoongko/transformer compiled ({LAYERS} layers, d {D}) {EPOCHS} epochs x {N // B} batches: "
    f"train loss {losses[0]:.3f} -> {losses[-1]:.3f}; held-out token accuracy {correct / max(1, total):.3f}; "
    f"compiled vs eager logits rel err {err:.1e}"
)
