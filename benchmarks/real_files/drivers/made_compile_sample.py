"""Corpus driver (kx's code): autoregressive sampling from MADE under torch.compile
(karpathy/pytorch-made, made.py: MADE with a random input ordering model.m[-1] and masked
linears; the file has no sampler, so the driver writes the standard MADE one: start from zeros
and, for each of the D inputs in the model's ordering, run the whole network on the partial
sample and set that input to 1 where a fixed uniform draw is below the sigmoid of its logit: a
D-step decode loop calling the torch.compile'd model (one graph, same shapes every step, the
partial sample mutated in place between calls)). The model is first trained eagerly for a few
hundred steps as run.py trains it (hidden 500, Adam lr 1e-3 weight decay 1e-4, BCE-with-logits
sum / B) on kx's toy binarised images. Two batch sizes of samples (dynamic shapes). Checked: the
compiled decode equals an eager decode with the same uniforms (all but a handful of bits, where a
logit sits on the threshold), and the samples' mean pixel is near the data's."""

import _corpus21_support as S
import numpy as np
import torch
import torch.nn.functional as F
from made import MADE  # noqa: E402

np.random.seed(42)
torch.manual_seed(42)
dev = S.device()
SIDE, HID, NTR, STEPS, B, COUNTS = S.pick(
    (28, [500], 20000, 400, 100, [64, 200]), (5, [12], 60, 6, 10, [3, 5])
)
D = SIDE * SIDE
xtr = torch.from_numpy(S.toy_binary_images(NTR, SIDE, seed=0)).to(dev)

model = MADE(D, HID, D, num_masks=1).to(dev)
opt = torch.optim.Adam(model.parameters(), 1e-3, weight_decay=1e-4)
for step in range(STEPS):
    i = (step * B) % (NTR - B)
    xb = xtr[i : i + B]
    loss = F.binary_cross_entropy_with_logits(model(xb), xb, reduction="sum") / B
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
order = torch.as_tensor(
    model.m[-1].argsort().copy(), device=dev
)  # input index at each position of the ordering


def decode(net, u):
    x = torch.zeros_like(u)
    with torch.no_grad():
        for k in range(D):
            d = order[k]
            p = torch.sigmoid(net(x)[:, d])
            x[:, d] = (u[:, d] < p).float()
    return x


cnet = torch.compile(model)
g = torch.Generator().manual_seed(3)
diffs, means = [], []
for n in COUNTS:
    u = torch.rand(n, D, generator=g).to(dev)
    got = decode(cnet, u)
    want = decode(model, u)
    diffs.append((got != want).float().mean().item())
    means.append(got.mean().item())
print(
    f"pytorch-made MADE {D} -> {HID} -> {D} (loss {loss.item():.2f} after {STEPS} eager steps): compiled {D}-step decode of "
    f"{COUNTS} samples: bits differing from eager {max(diffs):.1e}, sample mean pixel {np.mean(means):.3f} (data {xtr.mean().item():.3f})"
)
assert max(diffs) < 1e-2, diffs
assert S.small() or abs(np.mean(means) - xtr.mean().item()) < 0.15, means
S.sync()
print("made_compile_sample ok")
