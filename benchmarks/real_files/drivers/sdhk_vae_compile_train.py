"""Corpus driver (kx's code): hkproj/pytorch-stable-diffusion's Stable Diffusion VAE
(sd/encoder.py VAE_Encoder and sd/decoder.py VAE_Decoder, random init) fine-tuned under
torch.compile as an autoencoder: encode with fresh noise (the reparameterization inside the
encoder), decode, L1 + MSE reconstruction loss, AdamW, forward + backward + step per step of one
compiled function, 2-3 steps on 128 x 128 images with bf16 autocast; then the compiled vs eager
loss with fixed noise."""

import _corpus16_support as S
import torch
import torch.nn.functional as F
from decoder import VAE_Decoder
from encoder import VAE_Encoder

torch.manual_seed(0)
dev = "cuda"
BATCH, SIZE, STEPS = S.pick((4, 128, 3), (1, 16, 2))

encoder, decoder = VAE_Encoder().to(dev), VAE_Decoder().to(dev)
opt = torch.optim.AdamW(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-5)


def vae_loss(im, noise):
    with torch.autocast(dev, dtype=torch.bfloat16, enabled=not S.small()):
        rec = decoder(encoder(im, noise))
    rec = rec.float()
    return F.l1_loss(rec, im) + F.mse_loss(rec, im)


compiled = torch.compile(vae_loss)
for step in range(STEPS):
    im = torch.rand(BATCH, 3, SIZE, SIZE, device=dev) * 2 - 1
    noise = torch.randn(BATCH, 4, SIZE // 8, SIZE // 8, device=dev)
    loss = compiled(im, noise)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
    assert torch.isfinite(loss)

im = torch.rand(BATCH, 3, SIZE, SIZE, device=dev) * 2 - 1
noise = torch.randn(BATCH, 4, SIZE // 8, SIZE // 8, device=dev)
with torch.no_grad():
    got, want = compiled(im, noise), vae_loss(im, noise)
err = abs(got.item() - want.item()) / abs(want.item())
print(f"compiled vs eager loss rel err {err:.1e}")
assert err < 2e-2, err
torch.cuda.synchronize()
print("sdhk_vae_compile_train ok")
