"""Corpus driver (kx's code): DDPM training (w86763777/pytorch-ddpm, diffusion.py:
GaussianDiffusionTrainer registers float64 beta / alpha-bar buffers and in forward draws
timesteps with torch.randint and noise with randn_like, gathers the coefficients with
extract() (torch.gather + view) and returns the per-pixel MSE of the predicted noise; model.py:
the CIFAR-10 UNet (sinusoidal TimeEmbedding, ResBlocks with time projections and GroupNorm,
AttnBlock self-attention via bmm at the 16 x 16 level, Down / UpSample, Swish, dropout 0.1, its
own initialize() schemes)) trained as main.py trains it: the trainer torch.compile'd as one
module (forward sampling and loss, backward through the UNet), Adam lr 2e-4 with main.py's
linear warmup LambdaLR, clip_grad_norm_ 1.0 and an EMA copy of the weights (decay 0.9999, as
main.py's ema()). Data: kx's 32 x 32 toy images of coloured discs. Checked: loss first vs last
steps (the compiled graph draws its own t and noise, so no eager twin is compared)."""

import copy

import _corpus22_support as S
import torch
from diffusion import GaussianDiffusionTrainer  # noqa: E402
from model import UNet  # noqa: E402

torch.manual_seed(0)
dev = S.device()
CH, MULT, NRES, B, STEPS, N, WARMUP = S.pick(
    (128, [1, 2, 2, 2], 2, 64, 200, 4096, 50), (32, [1, 2], 1, 4, 4, 16, 2)
)
x_data = S.toy_blobs(N, 32 if not S.small() else 16, seed=0).to(dev)

net = UNet(T=1000, ch=CH, ch_mult=MULT, attn=[1], num_res_blocks=NRES, dropout=0.1).to(dev)
ema = copy.deepcopy(net)
trainer = GaussianDiffusionTrainer(net, 1e-4, 0.02, 1000).to(dev)
ctrainer = torch.compile(trainer)
optim = torch.optim.Adam(net.parameters(), lr=2e-4)
sched = torch.optim.lr_scheduler.LambdaLR(optim, lr_lambda=lambda step: min(step, WARMUP) / WARMUP)

losses = []
for step in range(STEPS):
    i = (step * B) % (N - B + 1)
    loss = ctrainer(x_data[i : i + B]).mean()
    optim.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    optim.step()
    sched.step()
    with torch.no_grad():
        for pe, p in zip(ema.parameters(), net.parameters()):
            pe.mul_(0.9999).add_(p, alpha=1 - 0.9999)
    losses.append(loss.item())

q = max(1, STEPS // 10)
S.sync()
print(
    f"pytorch-ddpm compiled GaussianDiffusionTrainer, UNet ch {CH} x {MULT}: loss first {sum(losses[:q]) / q:.4f} -> "
    f"last {sum(losses[-q:]) / q:.4f} over {STEPS} steps of {B}"
)
