"""Corpus driver (kx's code): crowsonkb/k-diffusion's samplers (k_diffusion/sampling.py) over a
compiled Hourglass Diffusion Transformer, as train.py's demo() / sample.py do: the
config_oxford_flowers_shifted_window.json HDiT (K.config.make_model, `inner_model.compile()`,
eval, wrapped by make_denoiser_wrapper's Karras Denoiser), then step-by-step generation under
no_grad: get_sigmas_karras(50, sigma_min, sigma_max, rho=7), x = randn * sigma_max, and
sample_dpmpp_2m (DPM-Solver++(2M): one denoiser call per step, the multistep update with the
previous denoised output, `sigmas[i + 1] == 0` read on the host each step) for 50 steps, then
sample_euler for 25 steps with s_churn 0 and sample_heun for 10 (two model calls per step, the
last step Euler). The model's small torch.compile'd functions (flags.compile_wrap: rms_norm,
linear_geglu, scale_for_cosine_sim, apply_rotary_emb) run inside the compiled module; bf16
autocast, a batch of 4 256 x 256 images. Random weights (the trained model is a download).
A sampling loop of compiled steps (sample_dpmpp_2m_sde, train.py's own, needs torchsde's
BrownianTree: not used)."""

import os

import _corpus6_support as S
import torch

S.k_diffusion_package()
import k_diffusion as K  # noqa: E402

torch.manual_seed(0)
device = "cuda"
config = K.config.load_config(
    os.path.join(S.find_on_path("configs"), "config_oxford_flowers_shifted_window.json")
)
if S.small():
    config["model"].update(input_size=[32, 32], depths=[1, 1, 1], widths=[32, 64, 128], d_ffs=[64, 128, 256])
    config["model"]["self_attns"] = [
        {"type": "shifted-window", "d_head": 32, "window_size": 4},
        {"type": "shifted-window", "d_head": 32, "window_size": 4},
        {"type": "global", "d_head": 32},
    ]
    config["model"]["mapping_width"] = 64
    config["model"]["mapping_d_ff"] = 128
mc = config["model"]
inner_model = K.config.make_model(config).to(device)
inner_model.compile()
inner_model.eval()
model = K.config.make_denoiser_wrapper(config)(inner_model)

n, size = S.pick(4, 2), mc["input_size"]
sigma_min, sigma_max = mc["sigma_min"], mc["sigma_max"]
extra_args = {"aug_cond": torch.zeros(n, 9, device=device)}
with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
    sigmas = K.sampling.get_sigmas_karras(S.pick(50, 6), sigma_min, sigma_max, rho=7.0, device=device)
    x = torch.randn([n, mc["input_channels"], size[0], size[1]], device=device) * sigma_max
    x_0 = K.sampling.sample_dpmpp_2m(model, x, sigmas, extra_args=extra_args, disable=True)
    print("dpmpp_2m", tuple(x_0.shape), x_0.float().abs().mean().item())
    sigmas = K.sampling.get_sigmas_karras(S.pick(25, 4), sigma_min, sigma_max, rho=7.0, device=device)
    x_1 = K.sampling.sample_euler(model, x, sigmas, extra_args=extra_args, disable=True)
    sigmas = K.sampling.get_sigmas_karras(S.pick(10, 3), sigma_min, sigma_max, rho=7.0, device=device)
    x_2 = K.sampling.sample_heun(model, x, sigmas, extra_args=extra_args, disable=True)
torch.cuda.synchronize()
print("k-diffusion hdit sample ok", tuple(x_1.shape), tuple(x_2.shape))
