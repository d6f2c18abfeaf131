"""Corpus driver (kx's code): AntixK/PyTorch-VAE's VanillaVAE (models/vanilla_vae.py: a
five-stage strided Conv2d / BatchNorm / LeakyReLU encoder to mu / log-variance heads, the
reparameterization trick, a ConvTranspose2d decoder with a Tanh output layer, and its
loss_function: MSE reconstruction + the KL term weighted by M_N) trained as configs/vae.yaml
trains it (latent 128, 64 x 64 RGB, batch 64, Adam lr 0.005, kld_weight 0.00025) under
torch.compile: forward + loss_function + loss.backward() + step per step; then the compiled vs
the eager encode-decode path (mu through the decoder) in eval mode."""

import _corpus15_support as S
import torch

S.install_torchvision_models_standin()
from models import VanillaVAE  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, IMG, LATENT, STEPS = S.pick((64, 64, 128, 8), (2, 64, 16, 2))

model = VanillaVAE(in_channels=3, latent_dim=LATENT).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=0.005)
compiled = torch.compile(model)

model.train()
for step in range(STEPS):
    x = torch.rand(B, 3, IMG, IMG, device=dev) * 2 - 1
    out = compiled(x)
    losses = model.loss_function(*out, M_N=0.00025)
    opt.zero_grad(set_to_none=True)
    losses["loss"].backward()
    opt.step()
    print(f"step {step} loss {losses['loss'].item():.4f} recon {losses['Reconstruction_Loss'].item():.4f}")

model.eval()
recon = torch.compile(lambda x: model.decode(model.encode(x)[0]))
x = torch.rand(B, 3, IMG, IMG, device=dev) * 2 - 1
with torch.no_grad():
    got = recon(x)
    want = model.decode(model.encode(x)[0])
err = S.rel_err(got, want)
print(f"compiled vs eager reconstruction rel err {err:.1e}")
assert err < 1e-2, err
torch.cuda.synchronize()
print("vae_vanilla_compile_train ok")
