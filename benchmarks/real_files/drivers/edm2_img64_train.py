"""Corpus driver (kx's code): NVlabs/edm2's magnitude-preserving diffusion U-Net (training/
networks_edm2.py: Precond over UNet / Block / MPConv with forced weight normalisation (each
training-mode forward renormalises the weights in place under no_grad), mp_silu, mp_sum, mp_cat,
MPFourier noise embedding, pixel-norm, cosine attention at 16x16 and 8x8, the learned
uncertainty logvar head, fp16 execution on CUDA) trained as training/training_loop.py trains it,
on one process and with `torch.compile(net)`: train_edm2.py's edm2-img64-xs preset (ImageNet-64
pixels, `Precond(img_resolution=64, img_channels=3, label_dim=1000, model_channels=128,
dropout=0, use_fp16=True)`), training_loop's EDM2Loss(P_mean=-0.8, P_std=1.6) (log-normal
sigmas, the loss weighted by the learned logvar), Adam(betas=(0.9, 0.99)) with
learning_rate_schedule(ref_lr=0.012, ref_batches=35000), `loss.sum().mul(1 / batch).backward()`,
gradients made finite with nan_to_num, optimizer.step(), training/phema.py's PowerFunctionEMA
update; batch 32 of random images in [-1, 1] with one-hot labels (the run reads ImageNet
through the pixel encoder), 4 steps, `loss.item()`. Then a no_grad eval-mode denoise of a noised
batch through the EMA copy (compiled too). A torch.compile program with a backward pass."""

import importlib.util

import _corpus7_support as S
import torch

# dnnlib/util.py imports requests (only for URL downloads) and training_loop.py psutil (only for
# its memory statistics): stand-ins, neither is called here.
S.stub_module("requests")
if importlib.util.find_spec("psutil") is None:
    S.stub_module("psutil")
from training.networks_edm2 import Precond  # noqa: E402
from training.phema import PowerFunctionEMA  # noqa: E402
from training.training_loop import EDM2Loss, learning_rate_schedule  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
res, channels = S.pick((64, 128), (16, 32))
net = Precond(
    img_resolution=res, img_channels=3, label_dim=1000, model_channels=channels, dropout=0.0, use_fp16=True
)
if S.small():
    net = Precond(
        img_resolution=res,
        img_channels=3,
        label_dim=1000,
        model_channels=channels,
        dropout=0.0,
        use_fp16=True,
        channel_mult=[1, 2],
        num_blocks=1,
        attn_resolutions=[8],
    )
net.train().requires_grad_(True).to(dev)
ema = PowerFunctionEMA(net=net, stds=[0.050, 0.100])
loss_fn = EDM2Loss(P_mean=-0.8, P_std=1.6)
optimizer = torch.optim.Adam(net.parameters(), betas=(0.9, 0.99))
cnet = torch.compile(net)
batch = S.pick(32, 2)
cur_nimg = 0
for step in range(4):
    optimizer.zero_grad(set_to_none=True)
    images = torch.rand(batch, 3, res, res, device=dev) * 2 - 1
    labels = torch.nn.functional.one_hot(torch.randint(0, 1000, (batch,), device=dev), 1000).float()
    loss = loss_fn(net=cnet, images=images, labels=labels)
    loss.sum().mul(1 / batch).backward()
    lr = learning_rate_schedule(cur_nimg=max(cur_nimg, 1), batch_size=batch, ref_lr=0.012, ref_batches=35000)
    for g in optimizer.param_groups:
        g["lr"] = lr
    for param in net.parameters():
        if param.grad is not None:
            torch.nan_to_num(param.grad, nan=0, posinf=0, neginf=0, out=param.grad)
    optimizer.step()
    cur_nimg += batch
    ema.update(cur_nimg=cur_nimg, batch_size=batch)
    print("step", step, round(loss.mean().item(), 4), "lr", lr)

ema_net = ema.get()[0][0].eval().requires_grad_(False)
with torch.no_grad():
    sigma = torch.full((batch,), 2.5, device=dev)
    denoised = torch.compile(ema_net)(images + torch.randn_like(images) * 2.5, sigma, labels)
torch.cuda.synchronize()
print("edm2 img64 train ok", tuple(denoised.shape), denoised.dtype)
