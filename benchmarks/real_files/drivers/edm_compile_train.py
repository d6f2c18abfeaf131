"""Corpus driver (kx's code): NVlabs/edm's EDM training step (training/loss.py EDMLoss: log-normal
sigma (P_mean -1.2, P_std 1.2), loss weight (sigma^2 + sigma_data^2) / (sigma sigma_data)^2;
training/networks.py EDMPrecond (c_skip / c_out / c_in / c_noise preconditioning) around
SongUNet, the DDPM++ architecture (positional noise embedding, class-label embedding with
label dropout, UNetBlocks with adaptive scale / shift, resample filters [1, 1] done as
conv_transpose / conv with a fixed FIR kernel, self-attention at 16 x 16, the "Conv2d" /
"Linear" layers with their own weight init)) with the preconditioned network torch.compile'd: the
paper's class-conditional CIFAR-10 config (model_channels 128, channel_mult [2, 2, 2], 4 blocks
per resolution, dropout 0.13), batch 64 random 32 x 32 images with one-hot labels, Adam (lr 1e-3,
as train.py), loss summed and scaled by 1 / batch as training_loop.py does, 4 steps of compiled
forward + backward + step, then the compiled vs the eager network in eval mode on fixed noise."""

import _corpus13_support as S
import torch

S.install_requests_standin()
from training.loss import EDMLoss  # noqa: E402
from training.networks import EDMPrecond  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
CH, MULT, BLOCKS, B, RES, STEPS = S.pick((128, [2, 2, 2], 4, 64, 32, 4), (16, [1, 2], 1, 4, 16, 2))
net = EDMPrecond(
    img_resolution=RES,
    img_channels=3,
    label_dim=10,
    model_type="SongUNet",
    embedding_type="positional",
    encoder_type="standard",
    decoder_type="standard",
    channel_mult_noise=1,
    resample_filter=[1, 1],
    model_channels=CH,
    channel_mult=MULT,
    num_blocks=BLOCKS,
    attn_resolutions=[RES // 2],
    dropout=0.13,
).to(dev)
net.train().requires_grad_(True)
compiled = torch.compile(net)
loss_fn = EDMLoss()
opt = torch.optim.Adam(net.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)


def batch():
    images = torch.randn(B, 3, RES, RES, device=dev).clamp(-1, 1)
    labels = torch.eye(10, device=dev)[torch.randint(0, 10, (B,), device=dev)]
    return images, labels


for step in range(STEPS):
    images, labels = batch()
    loss = loss_fn(net=compiled, images=images, labels=labels)
    opt.zero_grad(set_to_none=True)
    loss.sum().mul(1 / B).backward()
    for p in net.parameters():
        if p.grad is not None:
            torch.nan_to_num(p.grad, nan=0, posinf=1e5, neginf=-1e5, out=p.grad)
    opt.step()
    print(f"step {step} loss {loss.mean().item():.4f}")

net.eval()
images, labels = batch()
sigma = torch.logspace(-2, 1.9, B, device=dev).view(B, 1, 1, 1)
noisy = images + torch.randn_like(images) * sigma
with torch.no_grad():
    got, want = compiled(noisy, sigma, labels), net(noisy, sigma, labels)
print(f"compiled vs eager denoised rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("edm_compile_train ok")
