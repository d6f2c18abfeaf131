"""Corpus driver (kx's code): DPM-Solver's singlestep and adaptive samplers
(LuChengTHU/dpm-solver, dpm_solver_pytorch.py: get_orders_and_timesteps_for_singlestep_solver
mixing orders 3 / 2 / 1 to spend exactly `steps` evaluations, singlestep_dpm_solver_third_update
with its intermediate r1 / r2 points, logSNR-uniform steps, and dpm_solver_adaptive's embedded
order-2/3 error control with an accept / reject loop, the 'taylor' solver type too) driving the
repository's DDPM UNet (examples/ddpm_and_guided-diffusion/models/diffusion.py in the CelebA 64x64
configuration: ch 128, ch_mult (1, 2, 2, 2, 4), attention at 16x16) with random weights wrapped
in torch.compile: 16 images at 64x64, DPM-Solver-fast order 3 in 20 evaluations, then the
adaptive solver; the compiled samples are checked against the eager model's from the same noise (the adaptive
run's only for finiteness: its step acceptance may differ).
The extracted UNet file is the module ddpm_diffusion."""

import _corpus17_support as S
import torch
from ddpm_diffusion import Model
from dpm_solver_pytorch import DPM_Solver, NoiseScheduleVP, model_wrapper

torch.manual_seed(0)
dev = "cuda"
cfg = S.pick(S.ddpm_config(64, 128, (1, 2, 2, 2, 4), 2, (16,)), S.ddpm_config(8, 32, (1, 2), 1, (4,)))
BATCH, STEPS = S.pick((16, 20), (2, 6))
unet = Model(cfg).to(dev).eval()
cunet = torch.compile(unet)
betas = torch.linspace(
    cfg.diffusion.beta_start, cfg.diffusion.beta_end, cfg.diffusion.num_diffusion_timesteps, device=dev
)
ns = NoiseScheduleVP("discrete", betas=betas)
x_T = torch.randn(BATCH, 3, cfg.data.image_size, cfg.data.image_size, device=dev)


def sample(net, **kw):
    model_fn = model_wrapper(net, ns, model_type="noise", model_kwargs={})
    solver = DPM_Solver(model_fn, ns, algorithm_type="dpmsolver")
    with torch.no_grad():
        return solver.sample(x_T, **kw)


RUNS = [
    dict(steps=STEPS, order=3, skip_type="logSNR", method="singlestep"),
    dict(steps=STEPS, order=2, skip_type="logSNR", method="singlestep", solver_type="taylor"),
    dict(order=3, method="adaptive", atol=S.pick(0.0078, 0.05), rtol=0.05),
]
for kw in RUNS:
    x0 = sample(cunet, **kw)
    x0_e = sample(unet, **kw)
    err = S.rel_err(x0, x0_e)
    print(f"{kw}: sample std {x0.std().item():.3f}, compiled vs eager rel err {err:.1e}")
    # the adaptive solver's accept / reject decisions may differ between the two runs: only finiteness
    assert torch.isfinite(x0).all() and (err < 3e-2 or kw["method"] == "adaptive"), err
torch.cuda.synchronize()
print("dpmsolver_singlestep_compile_sample ok")
