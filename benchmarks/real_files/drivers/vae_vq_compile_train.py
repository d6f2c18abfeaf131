"""Corpus driver (kx's code): AntixK/PyTorch-VAE's VQVAE (models/vq_vae.py: a strided-conv
encoder with residual layers, VectorQuantizer's nearest-codebook search by squared distance,
argmin, a one-hot scatter and the commitment / embedding losses with the straight-through
estimator, and a ConvTranspose2d decoder) trained as configs/vq_vae.yaml trains it (embedding
dim 64, 512 codes, 64 x 64 RGB, batch 64, beta 0.25; Adam at lr 1e-3, not the config's 0.005, which diverged in a toy check) under torch.compile: forward +
loss_function + loss.backward() + step per step; then the compiled vs the eager reconstruction
in eval mode."""

import _corpus15_support as S
import torch

S.install_torchvision_models_standin()
from models import VQVAE  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, IMG, DIM, CODES, STEPS = S.pick((64, 64, 64, 512, 8), (2, 16, 8, 16, 2))

model = VQVAE(in_channels=3, embedding_dim=DIM, num_embeddings=CODES, img_size=IMG, beta=0.25).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
compiled = torch.compile(model)

model.train()
for step in range(STEPS):
    x = torch.rand(B, 3, IMG, IMG, device=dev) * 2 - 1
    out = compiled(x)
    losses = model.loss_function(*out)
    opt.zero_grad(set_to_none=True)
    losses["loss"].backward()
    opt.step()
    print(f"step {step} loss {losses['loss'].item():.4f} vq {losses['VQ_Loss'].item():.4f}")

model.eval()
x = torch.rand(B, 3, IMG, IMG, device=dev) * 2 - 1
with torch.no_grad():
    got = compiled(x)[0]
    want = model(x)[0]
err = S.rel_err(got, want)
print(f"compiled vs eager reconstruction rel err {err:.1e}")
assert err < 5e-2, err
torch.cuda.synchronize()
print("vae_vq_compile_train ok")
