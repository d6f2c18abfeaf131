"""Corpus driver (kx's code): DDPM ancestral sampling (w86763777/pytorch-ddpm, diffusion.py:
GaussianDiffusionSampler registers the float64 posterior coefficient buffers and in forward runs
the T-step reverse loop on the host: per step a timestep tensor from new_ones * time_step,
p_mean_variance (the 'fixedlarge' log-variance table built with torch.cat, extract() gathers,
the epsilon-parameterised x_0 prediction, q_mean_variance), randn_like noise except at t = 0;
model.py: the CIFAR-10 UNet). The UNet is first trained briefly (eagerly, Adam, main.py's
GaussianDiffusionTrainer loss) on kx's toy disc images, then compiled in place
(nn.Module.compile) in eval mode and the file's sampler runs all 1000 steps through it (one
graph, same shapes each step, the timestep a tensor input); an eager sampler over the same
noise (seeded) gives the reference. Checked: compiled vs eager samples, and the samples' pixel
mean / std against the data's."""

import _corpus22_support as S
import torch
from diffusion import GaussianDiffusionSampler, GaussianDiffusionTrainer  # noqa: E402
from model import UNet  # noqa: E402

torch.manual_seed(0)
dev = S.device()
CH, MULT, NRES, B, STEPS, N, T, NS = S.pick(
    (128, [1, 2, 2, 2], 2, 64, 150, 4096, 1000, 16), (32, [1, 2], 1, 4, 3, 16, 20, 2)
)
side = 32 if not S.small() else 16
x_data = S.toy_blobs(N, side, seed=1).to(dev)

net = UNet(T=T, ch=CH, ch_mult=MULT, attn=[1], num_res_blocks=NRES, dropout=0.1).to(dev)
trainer = GaussianDiffusionTrainer(net, 1e-4, 0.02, T).to(dev)
optim = torch.optim.Adam(net.parameters(), lr=2e-4)
for step in range(STEPS):
    i = (step * B) % (N - B + 1)
    loss = trainer(x_data[i : i + B]).mean()
    optim.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    optim.step()

net.eval()
sampler = GaussianDiffusionSampler(
    net, 1e-4, 0.02, T, img_size=side, mean_type="epsilon", var_type="fixedlarge"
).to(dev)
x_T = torch.randn(NS, 3, side, side, device=dev)
with torch.no_grad():
    torch.manual_seed(7)
    eager = sampler(x_T)
    net.compile()
    torch.manual_seed(7)
    got = sampler(x_T)
S.sync()
print(
    f"pytorch-ddpm GaussianDiffusionSampler, {T} steps through the compiled UNet (ch {CH}, trained {STEPS} eager steps, "
    f"loss {loss.item():.4f}): {NS} samples, rel err vs eager sampler {S.rel_err(got, eager):.1e}; sample mean/std "
    f"{got.mean().item():.3f}/{got.std().item():.3f} (data {x_data.mean().item():.3f}/{x_data.std().item():.3f})"
)
