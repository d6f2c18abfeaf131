"""Corpus driver (kx's code): DPM-Solver++ sampling (LuChengTHU/dpm-solver, dpm_solver_pytorch.py:
NoiseScheduleVP('discrete') with its piecewise-linear log-alpha interpolation (interpolate_fn),
model_wrapper turning a discrete-time noise-prediction network into a continuous-time one,
DPM_Solver(algorithm_type="dpmsolver++") with dynamic thresholding off, multistep order 2,
time-uniform steps, lower_order_final) driving the repository's own DDPM UNet
(examples/ddpm_and_guided-diffusion/models/diffusion.py: the CIFAR-10 configuration of
ermongroup's port of Ho et al.: ch 128, ch_mult (1, 2, 2, 2), two ResnetBlocks a level,
self-attention at 16x16, sinusoidal timestep embedding) with random weights, the UNet wrapped in
torch.compile as a user would before sampling: 64 images at 32x32 in 20 steps, then 10 steps
with the data-prediction 'dpmsolver' type; the compiled samples are checked against the eager
model's from the same noise. The extracted UNet file is the module ddpm_diffusion."""

import _corpus17_support as S
import torch
from ddpm_diffusion import Model
from dpm_solver_pytorch import DPM_Solver, NoiseScheduleVP, model_wrapper

torch.manual_seed(0)
dev = "cuda"
cfg = S.pick(S.ddpm_config(32, 128, (1, 2, 2, 2), 2, (16,)), S.ddpm_config(8, 32, (1, 2), 1, (4,)))
BATCH, STEPS = S.pick((64, 20), (2, 4))
unet = Model(cfg).to(dev).eval()
cunet = torch.compile(unet)
betas = torch.linspace(
    cfg.diffusion.beta_start, cfg.diffusion.beta_end, cfg.diffusion.num_diffusion_timesteps, device=dev
)
ns = NoiseScheduleVP("discrete", betas=betas)
x_T = torch.randn(BATCH, 3, cfg.data.image_size, cfg.data.image_size, device=dev)


def sample(net, steps, algorithm_type, order):
    model_fn = model_wrapper(net, ns, model_type="noise", model_kwargs={})
    solver = DPM_Solver(model_fn, ns, algorithm_type=algorithm_type)
    with torch.no_grad():
        return solver.sample(
            x_T,
            steps=steps,
            order=order,
            skip_type="time_uniform",
            method="multistep",
            lower_order_final=True,
        )


for steps, algo, order in ((STEPS, "dpmsolver++", 2), (S.pick(10, 3), "dpmsolver", 3)):
    x0 = sample(cunet, steps, algo, order)
    x0_e = sample(unet, steps, algo, order)
    err = S.rel_err(x0, x0_e)
    print(
        f"{algo} order {order}, {steps} steps: sample {tuple(x0.shape)} std {x0.std().item():.3f}, compiled vs eager rel err {err:.1e}"
    )
    assert torch.isfinite(x0).all() and err < 3e-2, err
torch.cuda.synchronize()
print("dpmsolver_multistep_compile_sample ok")
