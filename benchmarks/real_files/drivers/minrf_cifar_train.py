"""Corpus driver (kx's code): cloneofsimo/minRF's rectified-flow trainer (rf.py: RF.forward's
logit-normal timestep sampling, the interpolation zt = (1 - t) x + t z1, the velocity MSE and the
per-sample loss list it pulls to the host with `.cpu().tolist()`; RF.sample's Euler sampler with
classifier-free guidance) over its DiT (dit.py: DiT_Llama, patchify, adaLN-modulated blocks with
2D-free 1D RoPE (precompute_freqs_cis / apply_rotary_emb in complex arithmetic), QK-norm,
SwiGLU FeedForward, SDPA, label dropout for CFG), used as rf.py's __main__ does with --cifar:
`DiT_Llama(3, 32, dim=256, n_layers=10, n_heads=8, num_classes=10)`, Adam lr 5e-4, batch 256,
here with `model = torch.compile(model)`. 5 training steps on random CIFAR-shaped images and labels
(the script downloads CIFAR-10; the driver makes its own), loss.backward(), optimizer.step(),
`loss.item()` and the per-timestep-bin losses as the script bins them; then, as the script does
after each epoch, `rf.model.eval()` and rf.sample(init_noise, cond, uncond) for 16 images with
the null class 10 (50 guided Euler steps, two compiled forwards each: a recompile for eval mode).
A torch.compile program with a backward pass."""

import _corpus7_support as S
import torch
from dit import DiT_Llama
from rf import RF

torch.manual_seed(0)
dev = "cuda"
dim, layers, heads = S.pick((256, 10, 8), (64, 2, 2))
model = DiT_Llama(3, 32, dim=dim, n_layers=layers, n_heads=heads, num_classes=10).to(dev)
model = torch.compile(model)
rf = RF(model)
optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
batch = S.pick(256, 4)
lossbin = {i: 0 for i in range(10)}
losscnt = {i: 1e-6 for i in range(10)}
for step in range(S.pick(5, 2)):
    x = torch.randn(batch, 3, 32, 32, device=dev).clamp(-1, 1)
    c = torch.randint(0, 10, (batch,), device=dev)
    optimizer.zero_grad()
    loss, blsct = rf.forward(x, c)
    loss.backward()
    optimizer.step()
    for t, lv in blsct:
        lossbin[int(t * 10)] += lv
        losscnt[int(t * 10)] += 1
    print("step", step, round(loss.item(), 4))
print("bins", [round(lossbin[i] / losscnt[i], 3) for i in range(10)])

rf.model.eval()
with torch.no_grad():
    cond = torch.arange(0, 16, device=dev) % 10
    uncond = torch.ones_like(cond) * 10
    init_noise = torch.randn(16, 3, 32, 32, device=dev)
    images = rf.sample(init_noise, cond, uncond, sample_steps=S.pick(50, 3))
torch.cuda.synchronize()
print("minrf cifar train ok", len(images), tuple(images[-1].shape))
