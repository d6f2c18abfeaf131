"""Corpus driver (kx's code): DDIM (ermongroup/ddim: models/diffusion.py's DDPM UNet (timestep
sinusoidal embedding, ResnetBlocks with GroupNorm / swish / dropout and a timestep projection,
self-attention blocks at chosen resolutions, strided-conv down / nearest-neighbour up sampling
with skip concatenations), functions/losses.py's noise_estimation_loss, functions/denoising.py's
generalized_steps DDIM sampler (a Python loop over the skipped timestep sequence, alphas
gathered per step with cumprod / index_select, host copies of every x0 prediction), models/ema.py's
EMAHelper) run as runners/diffusion.py runs it on the CIFAR-10 config: linear beta schedule,
antithetic timestep sampling, Adam with gradient clipping, EMA update each step; then EMA weights
copied in and a uniform-skip DDIM (eta = 0) sampling pass. The UNet is wrapped in kx's
torch.compile for both. Data: random images in [-1, 1] (no dataset on the GPU machine). Checked:
losses finite, and in eval mode the compiled UNet and the DDIM trajectory from the same noise
against the eager UNet with the same (EMA) weights."""

import _corpus19_support as S
import numpy as np
import torch
from functions import get_optimizer
from functions.denoising import generalized_steps
from functions.losses import loss_registry
from models.diffusion import Model
from models.ema import EMAHelper

torch.manual_seed(0)
dev = "cuda"
RES, CH, MULT, NRB, ATTN, BATCH, STEPS, SAMPLE_N, DDIM_STEPS = S.pick(
    (32, 128, [1, 2, 2, 2], 2, [16], 64, 6, 16, 20), (16, 32, [1, 2], 1, [8], 4, 2, 2, 4)
)
config = S.namespace_tree(
    {
        "data": {"image_size": RES, "channels": 3},
        "model": {
            "type": "simple",
            "in_channels": 3,
            "out_ch": 3,
            "ch": CH,
            "ch_mult": MULT,
            "num_res_blocks": NRB,
            "attn_resolutions": ATTN,
            "dropout": 0.1,
            "var_type": "fixedlarge",
            "ema_rate": 0.9999,
            "ema": True,
            "resamp_with_conv": True,
        },
        "diffusion": {
            "beta_schedule": "linear",
            "beta_start": 0.0001,
            "beta_end": 0.02,
            "num_diffusion_timesteps": 1000,
        },
        "optim": {
            "weight_decay": 0.0,
            "optimizer": "Adam",
            "lr": 0.0002,
            "beta1": 0.9,
            "amsgrad": False,
            "eps": 1e-8,
            "grad_clip": 1.0,
        },
    }
)
T = config.diffusion.num_diffusion_timesteps
b = (
    torch.from_numpy(np.linspace(0.0001, 0.02, T, dtype=np.float64)).float().to(dev)
)  # get_beta_schedule("linear")

model = Model(config).to(dev)
compiled = torch.compile(model)
optimizer = get_optimizer(config, model.parameters())
ema_helper = EMAHelper(mu=config.model.ema_rate)
ema_helper.register(model)

losses = []
model.train()
for step in range(STEPS):
    x = torch.rand(BATCH, 3, RES, RES, device=dev) * 2 - 1
    n = x.size(0)
    e = torch.randn_like(x)
    t = torch.randint(low=0, high=T, size=(n // 2 + 1,), device=dev)
    t = torch.cat([t, T - t - 1], dim=0)[:n]
    loss = loss_registry[config.model.type](compiled, x, t, e, b)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), config.optim.grad_clip)
    optimizer.step()
    ema_helper.update(model)
    losses.append(loss.item())

ema_helper.ema(model)
model.eval()
eager = Model(config).to(dev)
eager.load_state_dict(model.state_dict())
eager.eval()
with torch.no_grad():
    xt = torch.randn(SAMPLE_N, 3, RES, RES, device=dev)
    tt = torch.full((SAMPLE_N,), 500.0, device=dev)
    e_fwd = S.rel_err(compiled(xt, tt), eager(xt, tt))
seq = range(0, T, T // DDIM_STEPS)
xs_c, x0_c = generalized_steps(xt, seq, compiled, b, eta=0.0)
xs_e, x0_e = generalized_steps(xt, seq, eager, b, eta=0.0)
e_traj = max(S.rel_err(p, q) for p, q in zip(xs_c, xs_e))
print(
    f"UNet ch {CH} x {MULT} at {RES}px: {STEPS} compiled train steps, loss {losses[0]:.1f} -> {losses[-1]:.1f}; "
    f"eval forward compiled vs eager {e_fwd:.1e}; DDIM {len(seq)} steps x {SAMPLE_N} samples, trajectory rel err {e_traj:.1e}"
)
assert all(np.isfinite(losses)) and e_fwd < 1e-3 and e_traj < 1e-2, (e_fwd, e_traj)
torch.cuda.synchronize()
print("ddim_compile_train_sample ok")
