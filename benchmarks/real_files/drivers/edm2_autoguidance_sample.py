"""Corpus driver (kx's code): NVlabs/edm2's sampler (generate_images.py: edm_sampler, Heun's 2nd-
order deterministic sampler over the rho=7 Karras time steps, with autoguidance: each denoise
runs the main net and a guiding net, `ref_Dx.lerp(Dx, guidance)`) driving two compiled
training/networks_edm2.py Precond U-Nets, as generate_images.py's presets pair them (e.g.
edm2-img512-s-autog-dino: guidance 2.0 with an XS net as gnet; here at ImageNet-64 pixel size:
`Precond(64, 3, 1000, model_channels=192)` guided by `model_channels=128`, the EMA nets in eval
mode, fp16 on CUDA), `net = torch.compile(net)` for both: 32 steps (63 evaluations of each net),
class labels one-hot, batch 16 of seeded noise, then the same with guidance 1 (gnet unused) and
S_churn 40 (stochastic noise increase). The weights are the networks' random initialisation (the
presets download pickles). generate_images.py's module imports click, tqdm and PIL for its
command line and image files: click is the real package where installed, else a stand-in whose
decorators pass through; tqdm and PIL are stand-ins (not called). A denoising loop calling two
compiled models each step."""

import importlib.util

import _corpus7_support as S
import torch

S.stub_module("requests")
if importlib.util.find_spec("psutil") is None:
    S.stub_module("psutil")
if importlib.util.find_spec("click") is None:
    S.passthrough_module("click")
S.stub_module("tqdm", tqdm=lambda it=None, *a, **k: it)
S.stub_module("PIL")
S.stub_module("PIL.Image")
from generate_images import edm_sampler  # noqa: E402
from training.networks_edm2 import Precond  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
res = S.pick(64, 16)
extra = {} if not S.small() else dict(channel_mult=[1, 2], num_blocks=1, attn_resolutions=[8])
net = Precond(res, 3, 1000, model_channels=S.pick(192, 32), **extra).eval().requires_grad_(False).to(dev)
gnet = Precond(res, 3, 1000, model_channels=S.pick(128, 32), **extra).eval().requires_grad_(False).to(dev)
cnet, cgnet = torch.compile(net), torch.compile(gnet)
batch = S.pick(16, 2)
gen = torch.Generator(device="cpu").manual_seed(1)
noise = torch.randn(batch, 3, res, res, generator=gen).to(dev)
labels = torch.eye(1000, device=dev)[torch.randint(0, 1000, (batch,), generator=gen).to(dev)]
steps = S.pick(32, 3)
with torch.no_grad():
    img = edm_sampler(cnet, noise, labels, gnet=cgnet, num_steps=steps, guidance=2.0)
    print("autoguided", tuple(img.shape), round(img.float().std().item(), 3))
    img = edm_sampler(cnet, noise, labels, num_steps=steps, guidance=1, S_churn=40, S_min=0.05, S_max=50)
    print("churn", tuple(img.shape), round(img.float().std().item(), 3))
torch.cuda.synchronize()
print("edm2 autoguidance sample ok")
