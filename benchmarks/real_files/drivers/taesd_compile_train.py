"""Corpus driver (kx's code): madebyollin/taesd's Tiny AutoEncoder (taesd.py: TAESD's Encoder and
Decoder) trained under torch.compile as a user distilling it would: the SD-variant encoder and
decoder (random init, no checkpoints) trained end to end on an L1 + MSE image reconstruction
loss with a latent-range penalty, bf16 autocast, AdamW, forward + backward + step per compiled
step on 256 x 256 crops; then the compiled vs eager reconstruction in eval mode."""

import _corpus16_support as S
import torch
import torch.nn.functional as F
from taesd import TAESD

torch.manual_seed(0)
dev = "cuda"
BATCH, SIZE, STEPS = S.pick((8, 256, 3), (1, 32, 2))

model = TAESD(encoder_path=None, decoder_path=None, latent_channels=4).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)


def train_loss(im):
    with torch.autocast(dev, dtype=torch.bfloat16, enabled=not S.small()):
        lat = model.encoder(im)
        rec = model.decoder(lat)
    rec = rec.float()
    return F.l1_loss(rec, im) + F.mse_loss(rec, im) + 1e-2 * F.relu(lat.float().abs() - TAESD.latent_magnitude).mean()


compiled_loss = torch.compile(train_loss)
model.train()
for step in range(STEPS):
    im = torch.rand(BATCH, 3, SIZE, SIZE, device=dev)
    loss = compiled_loss(im)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
    assert torch.isfinite(loss)

model.eval()
im = torch.rand(BATCH, 3, SIZE, SIZE, device=dev)
with torch.no_grad():
    got = compiled_loss(im)
    with torch.autocast(dev, dtype=torch.bfloat16, enabled=not S.small()):
        want = train_loss(im)
err = abs(got.item() - want.item()) / abs(want.item())
print(f"compiled vs eager loss rel err {err:.1e}")
assert err < 1e-2, err
torch.cuda.synchronize()
print("taesd_compile_train ok")
