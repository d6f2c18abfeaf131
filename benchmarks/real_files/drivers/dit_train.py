"""Corpus driver (kx's code): DiT's training step (facebookresearch/DiT train.py) for
--model DiT-S/2 --image-size 256 --num-classes 1000 on one GPU, with the model compiled by
torch.compile (DiT's train.py runs it eagerly under DDP; compiling the DiT is what its users
do for speed, e.g. fast-DiT), on random latents in place of the VAE-encoded ImageNet batches
(the VAE is diffusers' AutoencoderKL, downloaded: its output, x = vae.encode(x).latent_dist
.sample().mul_(0.18215), is stood in by a random (B, 4, 32, 32) tensor; the one stand-in is the
diffusers import). train.py itself is imported (its module-level TF32 switches, update_ema
and requires_grad run unchanged; its main() needs DDP / NCCL and is not called): model =
DiT_models["DiT-S/2"](input_size=32, num_classes=1000) (timm PatchEmbed / Attention / Mlp,
adaLN-Zero modulation, label embedding with class dropout 0.1 via torch.rand), ema = deepcopy,
requires_grad(ema, False), diffusion = create_diffusion(timestep_respacing="") (1000 linear
steps, learned sigma: the hybrid MSE + VB loss with the frozen-output lambda model, numpy
schedules indexed by t on the GPU), AdamW(lr 1e-4, weight_decay 0), update_ema(decay=0), then
per step: t = torch.randint(0, 1000, (B,)), loss_dict = diffusion.training_losses(model, x, t,
dict(y=y)), loss.mean().backward(), opt.step(), update_ema(ema, model). Batch 16, 4 steps."""

import _corpus_support
import torch

_corpus_support.stub_module("diffusers.models", AutoencoderKL=None)
from copy import deepcopy  # noqa: E402

import train as dit_train  # noqa: E402  (DiT's train.py: TF32 switches, update_ema, requires_grad)
from diffusion import create_diffusion  # noqa: E402
from models import DiT_models  # noqa: E402

torch.manual_seed(0)
device = "cuda"
latent_size = 256 // 8
model = DiT_models["DiT-S/2"](input_size=latent_size, num_classes=1000)
ema = deepcopy(model).to(device)
dit_train.requires_grad(ema, False)
model = model.to(device)
diffusion = create_diffusion(timestep_respacing="")
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0)
dit_train.update_ema(ema, model, decay=0)
model.train()
ema.eval()
compiled = torch.compile(model)

B = 16
for _step in range(4):
    x = torch.randn(
        B, 4, latent_size, latent_size, device=device
    )  # stands in for vae.encode(x)...mul_(0.18215)
    y = torch.randint(0, 1000, (B,), device=device)
    t = torch.randint(0, diffusion.num_timesteps, (x.shape[0],), device=device)
    model_kwargs = dict(y=y)
    loss_dict = diffusion.training_losses(compiled, x, t, model_kwargs)
    loss = loss_dict["loss"].mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    dit_train.update_ema(ema, model)
torch.cuda.synchronize()
print("dit train ok", round(loss.item(), 4))
