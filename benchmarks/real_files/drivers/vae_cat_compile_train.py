"""Corpus driver (kx's code): AntixK/PyTorch-VAE's CategoricalVAE (models/cat_vae.py: a conv
encoder to latent_dim x categorical_dim logits, the Gumbel-softmax reparameterization (rand_like,
double log, softmax at temperature self.temp), a ConvTranspose2d decoder, and a loss_function that
anneals the temperature on the host every anneal_interval batches (numpy) before the
reconstruction + categorical KL terms) trained as configs/cat_vae.yaml trains it (latent 512,
40 categories, temperature 0.5, alpha 1, 64 x 64 RGB, batch 64, Adam lr 0.005, kld_weight
0.00025) with the model under torch.compile and loss_function in eager with its host-side
annealing (batch_idx = step, anneal_interval 4: it runs at steps 0 and 4; the constructor sets
min_temp to the starting temperature, so the temperature stays 0.5, but from step 0 on self.temp
is a numpy float64 that the compiled forward reads), loss.backward() + step; then the compiled vs
the eager reconstruction of the encoder's softmax codes in eval mode."""

import _corpus15_support as S
import torch
import torch.nn.functional as F

S.install_torchvision_models_standin()
from models import CategoricalVAE  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, IMG, LATENT, CATS, STEPS = S.pick((64, 64, 512, 40, 8), (2, 64, 8, 4, 2))

model = CategoricalVAE(
    in_channels=3, latent_dim=LATENT, categorical_dim=CATS, temperature=0.5, anneal_interval=4, alpha=1.0
).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=0.005)
compiled = torch.compile(model)

model.train()
for step in range(STEPS):
    x = torch.rand(B, 3, IMG, IMG, device=dev) * 2 - 1
    out = compiled(x)
    losses = model.loss_function(*out, M_N=0.00025, batch_idx=step)
    opt.zero_grad(set_to_none=True)
    losses["loss"].backward()
    opt.step()
    print(f"step {step} loss {losses['loss'].item():.4f} temperature {float(model.temp):.4f}")

model.eval()


def codes_to_image(x):
    q = model.encode(x)[0]
    return model.decode(F.softmax(q, dim=-1).view(-1, LATENT * CATS))


recon = torch.compile(codes_to_image)
x = torch.rand(B, 3, IMG, IMG, device=dev) * 2 - 1
with torch.no_grad():
    got = recon(x)
    want = codes_to_image(x)
err = S.rel_err(got, want)
print(f"compiled vs eager reconstruction rel err {err:.1e}")
assert err < 1e-2, err
torch.cuda.synchronize()
print("vae_cat_compile_train ok")
