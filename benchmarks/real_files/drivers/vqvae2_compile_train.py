"""Corpus driver (kx's code): Kim Seonghyeon's VQ-VAE-2 (rosinality/vq-vae-2-pytorch, vqvae.py:
two-level VQVAE with strided-conv encoders / transposed-conv decoders and ResBlocks whose
residual add is in place, and Quantize layers that pick codes with an argmax over a distance
matrix, look them up with F.embedding, and in training mode update their codebook by
exponential moving averages written through .data.mul_ / add_ / copy_ on registered buffers,
after the repo's distributed.all_reduce (world size 1 here); a straight-through estimator for
the gradient) trained as train_vqvae.py's train() trains it: MSE reconstruction + 0.25 x latent
loss, Adam with scheduler.py's CycleScheduler (linear warm-up then cosine over a 20x longer run than the steps taken here, stepped before
optimizer.step), host reads of the losses every step. The model is wrapped in kx's
torch.compile with the two Quantize layers left eager (torch._dynamo.disable): compiled with
Inductor their buffer updates diverged from eager on this CPU after one call (aot_eager matched). Data: random smooth images (no dataset on the GPU machine). Checked: an eager
twin (deep copy before training) run on the same batches: reconstruction losses, parameters and
codebook buffers close (the argmax code choice can flip on near-ties, so the tolerances are
loose), and the eval-mode reconstruction compiled vs eager on the same weights."""

import copy

import _corpus19_support as S
import torch
import torch.nn.functional as F
from scheduler import CycleScheduler
from torch import nn, optim
from vqvae import VQVAE

torch.manual_seed(0)
dev = "cuda"
BATCH, RES, STEPS, CH, NEMB = S.pick((32, 256, 30, 128, 512), (4, 32, 4, 32, 64))


def smooth_images(n):
    x = torch.randn(n, 3, RES // 8, RES // 8, device=dev)
    return torch.tanh(F.interpolate(x, size=(RES, RES), mode="bilinear", align_corners=False))


model = VQVAE(channel=CH, n_embed=NEMB).to(dev)
twin = copy.deepcopy(model)
for qm in (model.quantize_t, model.quantize_b):
    # Quantize's EMA codebook update (.data.mul_ / add_ / copy_ on buffers) kept out of the graph:
    # Inductor-compiled, its buffers diverged from eager after one training call (found here;
    # aot_eager matched), so the compiled regions are the encoders, decoders and 1x1 / transposed convs
    qm.forward = torch._dynamo.disable(qm.forward)
compiled = torch.compile(model)
criterion = nn.MSELoss()
latent_loss_weight = 0.25
runs = {}
for name, net, m in (("compiled", compiled, model), ("eager", twin, twin)):
    optimizer = optim.Adam(m.parameters(), lr=3e-4)
    scheduler = CycleScheduler(optimizer, 3e-4, n_iter=20 * STEPS, momentum=None, warmup_proportion=0.05)
    torch.manual_seed(1)
    mse = []
    for i in range(STEPS):
        img = smooth_images(BATCH)
        m.zero_grad()
        out, latent_loss = net(img)
        recon_loss = criterion(out, img)
        latent_loss = latent_loss.mean()
        loss = recon_loss + latent_loss_weight * latent_loss
        loss.backward()
        scheduler.step()
        optimizer.step()
        mse.append(recon_loss.item())
    runs[name] = mse

model.eval()
twin.eval()
with torch.no_grad():
    img = smooth_images(BATCH)
    e_eval = S.rel_err(compiled(img)[0], twin(img)[0])
e_par = max(S.rel_err(p, q) for p, q in zip(model.parameters(), twin.parameters()))
e_buf = max(S.rel_err(p, q) for p, q in zip(model.buffers(), twin.buffers()))
e_mse = max(abs(a - b) / b for a, b in zip(runs["compiled"], runs["eager"]))
print(
    f"VQ-VAE-2 ch {CH}, {NEMB} codes, {RES}px x {BATCH}: {STEPS} compiled steps, mse {runs['compiled'][0]:.4f} -> "
    f"{runs['compiled'][-1]:.4f}; compiled vs eager: mse curve {e_mse:.1e}, params {e_par:.1e}, codebooks {e_buf:.1e}, eval recon {e_eval:.1e}"
)
assert e_mse < 5e-2 and e_par < 5e-2 and e_buf < 5e-2 and e_eval < 5e-2, (e_mse, e_par, e_buf, e_eval)
torch.cuda.synchronize()
print("vqvae2_compile_train ok")
