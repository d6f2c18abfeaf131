"""Corpus driver (kx's code): pix2pix from Erik Linder-Norén's PyTorch-GAN
(eriklindernoren/PyTorch-GAN, implementations/pix2pix/models.py: GeneratorUNet, an 8-level U-Net
of strided-conv UNetDown blocks (InstanceNorm, LeakyReLU, dropout) and ConvTranspose UNetUp
blocks concatenating skips, Tanh output; a PatchGAN Discriminator over the channel-concatenated
image pair with InstanceNorm and a ZeroPad2d before its last conv; weights_init_normal applied
through Module.apply) trained as pix2pix.py trains it: generator step (MSE adversarial loss on
the patch map + 100 x L1 pixel loss), then discriminator step on real and detached fake pairs,
two Adam optimizers (lr 2e-4, betas (0.5, 0.999)), host reads of the four losses each batch.
Both networks are wrapped in kx's torch.compile. Data: random smooth 256 x 256 image pairs
(the facades dataset is not on the GPU machine). Checked: losses finite and the eval-mode
generator / discriminator compiled vs eager twins on the trained weights (training mode
draws dropout masks, so no lockstep compare)."""

import _corpus19_support as S
import numpy as np
import torch
import torch.nn.functional as F
from pix2pix_models import Discriminator, GeneratorUNet, weights_init_normal

torch.manual_seed(0)
dev = "cuda"
BATCH, STEPS = S.pick((8, 20), (1, 2))
H = W = 256
patch = (1, H // 2**4, W // 2**4)


def pairs(n):
    z = torch.randn(n, 6, 16, 16, device=dev)
    x = torch.tanh(F.interpolate(z, size=(H, W), mode="bilinear", align_corners=False))
    return x[:, :3], x[:, 3:]


criterion_GAN = torch.nn.MSELoss()
criterion_pixelwise = torch.nn.L1Loss()
lambda_pixel = 100
generator, discriminator = GeneratorUNet().to(dev), Discriminator().to(dev)
generator.apply(weights_init_normal)
discriminator.apply(weights_init_normal)
optimizer_G = torch.optim.Adam(generator.parameters(), lr=0.0002, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=0.0002, betas=(0.5, 0.999))
gen_c, disc_c = torch.compile(generator), torch.compile(discriminator)

hist = []
for i in range(STEPS):
    real_A, real_B = pairs(BATCH)
    valid = torch.tensor(np.ones((real_A.size(0), *patch)), dtype=torch.float32, device=dev)
    fake = torch.tensor(np.zeros((real_A.size(0), *patch)), dtype=torch.float32, device=dev)

    optimizer_G.zero_grad()
    fake_B = gen_c(real_A)
    pred_fake = disc_c(fake_B, real_A)
    loss_GAN = criterion_GAN(pred_fake, valid)
    loss_pixel = criterion_pixelwise(fake_B, real_B)
    loss_G = loss_GAN + lambda_pixel * loss_pixel
    loss_G.backward()
    optimizer_G.step()

    optimizer_D.zero_grad()
    pred_real = disc_c(real_B, real_A)
    loss_real = criterion_GAN(pred_real, valid)
    pred_fake = disc_c(fake_B.detach(), real_A)
    loss_fake = criterion_GAN(pred_fake, fake)
    loss_D = 0.5 * (loss_real + loss_fake)
    loss_D.backward()
    optimizer_D.step()
    hist.append((loss_D.item(), loss_G.item(), loss_pixel.item(), loss_GAN.item()))

g_e, d_e = GeneratorUNet().to(dev), Discriminator().to(dev)
g_e.load_state_dict(generator.state_dict())
d_e.load_state_dict(discriminator.state_dict())
for m in (generator, discriminator, g_e, d_e):
    m.eval()
with torch.no_grad():
    real_A, real_B = pairs(BATCH)
    out_c, out_e = gen_c(real_A), g_e(real_A)
    e_g = S.rel_err(out_c, out_e)
    e_d = S.rel_err(disc_c(out_c, real_A), d_e(out_c, real_A))
print(
    f"pix2pix {H}x{W} x {BATCH}: {STEPS} compiled G/D steps, [D {hist[0][0]:.3f} -> {hist[-1][0]:.3f}] "
    f"[G {hist[0][1]:.2f} -> {hist[-1][1]:.2f}]; eval compiled vs eager: generator {e_g:.1e}, discriminator {e_d:.1e}"
)
assert np.isfinite(hist).all() and e_g < 1e-3 and e_d < 1e-3, (e_g, e_d)
torch.cuda.synchronize()
print("pix2pix_compile_train ok")
