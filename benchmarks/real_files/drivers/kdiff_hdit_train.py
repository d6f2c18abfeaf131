"""Corpus driver (kx's code): crowsonkb/k-diffusion's Hourglass Diffusion Transformer (HDiT,
k_diffusion/models/image_transformer_v2.py) trained as train.py does with `--compile`, on one
process: K.config.load_config of configs/config_oxford_flowers_shifted_window.json (256 x 256
RGB, patch 4, levels of width 128 / 256 / 512 with shifted-window attention (window 8) on the
two outer levels and global attention in the middle, soft-min-snr weighting, cosine-interpolated
sigma density), K.config.make_model, `inner_model.compile()` (nn.Module.compile), its
param_groups into AdamW (betas 0.9 / 0.95, wd 1e-3), make_denoiser_wrapper (the Karras
preconditioner Denoiser), make_sample_density, then per step: noise, sigma =
sample_density([B]), `losses = model.loss(reals, noise, sigma, aug_cond=aug_cond)`,
losses.mean().backward(), clip_grad_norm_ 1.0, opt.step(), zero_grad, K.utils.ema_update into
an EMA copy. With K_DIFFUSION_USE_COMPILE=1 (its default) the model's small functions are
torch.compile'd one by one through flags.compile_wrap (linear_geglu, rms_norm,
scale_for_cosine_sim(_qkv), apply_rotary_emb and the in-place rotary used inside a custom
autograd Function), besides the whole-module compile; K_DIFFUSION_USE_FLASH_2 is irrelevant
(flash_attn absent: SDPA). bf16 autocast, batch 8 of random images in [-1, 1] (the dataset is
a Hugging Face download), 3 steps. A torch.compile program with a backward pass."""

import copy
import os

import _corpus6_support as S
import torch

S.k_diffusion_package()
import k_diffusion as K  # noqa: E402

torch.manual_seed(0)
device = "cuda"
path = os.path.join(S.find_on_path("configs"), "config_oxford_flowers_shifted_window.json")
config = K.config.load_config(path)
if S.small():
    config["model"].update(input_size=[32, 32], depths=[1, 1, 1], widths=[32, 64, 128], d_ffs=[64, 128, 256])
    config["model"]["self_attns"] = [
        {"type": "shifted-window", "d_head": 32, "window_size": 4},
        {"type": "shifted-window", "d_head": 32, "window_size": 4},
        {"type": "global", "d_head": 32},
    ]
    config["model"]["mapping_width"] = 64
    config["model"]["mapping_d_ff"] = 128
model_config = config["model"]
size = model_config["input_size"]

inner_model = K.config.make_model(config).to(device)
inner_model_ema = copy.deepcopy(inner_model)
inner_model.compile()
opt_config = config["optimizer"]
groups = inner_model.param_groups(opt_config["lr"])
opt = torch.optim.AdamW(
    groups,
    lr=opt_config["lr"],
    betas=tuple(opt_config["betas"]),
    eps=opt_config["eps"],
    weight_decay=opt_config["weight_decay"],
)
sample_density = K.config.make_sample_density(model_config)
model = K.config.make_denoiser_wrapper(config)(inner_model)
model_ema = K.config.make_denoiser_wrapper(config)(inner_model_ema)

B = S.pick(8, 2)
for step in range(3):
    reals = torch.rand(B, model_config["input_channels"], size[0], size[1], device=device) * 2 - 1
    aug_cond = torch.zeros(B, 9, device=device)
    noise = torch.randn_like(reals)
    sigma = sample_density([B], device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        losses = model.loss(reals, noise, sigma, aug_cond=aug_cond)
    loss = losses.mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad()
    K.utils.ema_update(model, model_ema, 0.999)
    print("step", step, round(loss.item(), 5))
torch.cuda.synchronize()
print("k-diffusion hdit train ok")
