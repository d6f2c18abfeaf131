"""Corpus driver (kx's code): sooftware/conformer's Conformer (conformer/model.py: the
convolution-subsampling front end, Conformer blocks of half-step feed-forward modules, multi-head
self-attention with Transformer-XL relative positional encoding (RelPositionalEncoding's cached
table), the depthwise-convolution module with GLU / BatchNorm / Swish, and a log-softmax head)
trained as its README shows, with CTC loss, under torch.compile: a Conformer-S-like encoder
(encoder_dim 144, 4 heads, 80 mel features, a 32-symbol vocabulary) on batches of 8 utterances of
800 frames with fixed lengths, AdamW, forward + loss.backward() + step per compiled step; then the
compiled vs the eager log-probabilities in eval mode."""

import _corpus15_support as S
import torch
import torch.nn as nn
from conformer import Conformer

torch.manual_seed(0)
dev = "cuda"
B, T, FEAT, DIM, LAYERS, VOCAB, TGT, STEPS = S.pick(
    (8, 800, 80, 144, 4, 32, 60, 6), (2, 64, 16, 32, 2, 8, 5, 2)
)

model = Conformer(
    num_classes=VOCAB, input_dim=FEAT, encoder_dim=DIM, num_encoder_layers=LAYERS, num_attention_heads=4
).to(dev)
print(f"Conformer: {model.count_parameters()} parameters")
criterion = nn.CTCLoss().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
compiled = torch.compile(model)

lengths = torch.full((B,), T, dtype=torch.long)
target_lengths = torch.full((B,), TGT, dtype=torch.long)

model.train()
for step in range(STEPS):
    x = torch.randn(B, T, FEAT, device=dev)
    targets = torch.randint(1, VOCAB, (B, TGT), device=dev)
    outputs, output_lengths = compiled(x, lengths.to(dev))
    loss = criterion(outputs.transpose(0, 1), targets, output_lengths, target_lengths.to(dev))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} output frames {outputs.shape[1]}")

model.eval()
x = torch.randn(B, T, FEAT, device=dev)
with torch.no_grad():
    got, _ = compiled(x, lengths.to(dev))
    want, _ = model(x, lengths.to(dev))
err = S.rel_err(got, want)
print(f"compiled vs eager log-probabilities rel err {err:.1e}")
assert err < 1e-2, err
torch.cuda.synchronize()
print("conformer_compile_train ok")
