"""Corpus driver (kx's code): openai/guided-diffusion's class-conditional ADM UNet and Gaussian
diffusion (guided_diffusion/unet.py: UNetModel with timestep embedding, scale-shift-norm
ResBlocks with up/down-sampling resblocks, QKVAttention at 16x16 and 8x8 (64-channel heads),
GroupNorm32 in fp32, class embedding; gaussian_diffusion.py: training_losses with learned
sigmas (hybrid loss: MSE on eps plus the variational-bound term, _vb_terms_bpd with
normal_kl / discretized_gaussian_log_likelihood), cosine schedule; resample.UniformSampler for
t) trained as TrainLoop.run_step does (no MPI / logger: the loss and the step written out), with
the UNet compiled by torch.compile: the ImageNet-64 configuration shrunk to 128 channels,
channel_mult (1, 2, 3, 4), 2 res blocks, 1000 classes, batch 16 x 3 x 64 x 64 random images,
AdamW (lr 1e-4), 4 steps of compiled forward + backward + step, then the compiled vs eager
training loss on one batch with fixed t and noise."""

import _corpus12_support as S
import torch

S.bare_package("guided_diffusion")
from guided_diffusion.resample import UniformSampler  # noqa: E402
from guided_diffusion.script_util import create_model_and_diffusion, model_and_diffusion_defaults  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, RES, CH, MULT, STEPS = S.pick((16, 64, 128, "", 4), (2, 16, 32, "1,2", 2))

cfg = model_and_diffusion_defaults()
cfg.update(
    image_size=RES,
    num_channels=CH,
    channel_mult=MULT,
    num_res_blocks=2,
    num_head_channels=64 if CH >= 64 else 8,
    attention_resolutions="16,8" if RES >= 32 else "8",
    class_cond=True,
    learn_sigma=True,
    resblock_updown=True,
    use_scale_shift_norm=True,
    diffusion_steps=1000,
    noise_schedule="cosine",
)
model, diffusion = create_model_and_diffusion(**cfg)
model.to(dev).train()
sampler = UniformSampler(diffusion)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.0)
compiled = torch.compile(model)


def batch():
    x = torch.randn(B, 3, RES, RES, device=dev).clamp(-1, 1)
    return x, {"y": torch.randint(0, 1000, (B,), device=dev)}


for step in range(STEPS):
    x, kw = batch()
    t, weights = sampler.sample(B, dev)
    losses = diffusion.training_losses(compiled, x, t, model_kwargs=kw)
    loss = (losses["loss"] * weights).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(
        f"step {step} loss {loss.item():.4f} mse {losses['mse'].mean().item():.4f} vb {losses['vb'].mean().item():.4f}"
    )

x, kw = batch()
t = torch.randint(0, 1000, (B,), device=dev)
noise = torch.randn_like(x)
with torch.no_grad():
    got = diffusion.training_losses(compiled, x, t, model_kwargs=kw, noise=noise)["loss"]
    want = diffusion.training_losses(model, x, t, model_kwargs=kw, noise=noise)["loss"]
print(f"compiled vs eager per-sample loss rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("guided_diffusion_compile_train ok")
