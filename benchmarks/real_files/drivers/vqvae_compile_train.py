"""Corpus driver (kx's code): ritheshkumar95/pytorch-vqvae's VQ-VAE trained with torch.compile
(modules.py: VectorQuantizedVAE = strided-conv encoder with ResBlocks (in-place ReLUs,
BatchNorm), VQEmbedding.straight_through (permute / contiguous, then functions.py's
VectorQuantizationStraightThrough: a torch.autograd.Function whose forward calls the
non-differentiable VectorQuantization Function (codebook distances by torch.addmm with alpha -2
under no_grad, argmin, mark_non_differentiable) and index_select, and whose backward passes the
gradient straight through and scatters the codebook gradient with index_add_), a separate
index_select for the codebook loss, ConvTranspose decoder with tanh; weights_init by class
name). The model is torch.compile'd and trained with vqvae.py's own train() (reconstruction MSE
+ VQ loss + beta * commitment, Adam 2e-4, writer.add_scalar(... .item())) and evaluated with its
test() and generate_samples(), hidden 256, K 512, batch 128, on kx's CIFAR-shaped toy images
scaled to [-1, 1], 3 epochs. torchvision, datasets.MiniImagenet and tensorboardX are stand-ins
(a SummaryWriter that records scalars). Checked: reconstruction loss first vs last steps, test
losses, codebook usage, and compiled vs eager reconstructions in eval mode."""

from types import SimpleNamespace

import _corpus23_support as S

S.install_vqvae_standins()
import torch  # noqa: E402
import vqvae  # noqa: E402
from modules import VectorQuantizedVAE  # noqa: E402

torch.manual_seed(0)
dev = S.device()
N, HID, K, B, EPOCHS = S.pick((6144, 256, 512, 128, 3), (32, 16, 16, 8, 1))
x, train_loader, valid_loader = S.split_loaders(N, max(N // 6, B), B, S.pick(32, 16), seed=0, to_range=True)

model = VectorQuantizedVAE(3, HID, K).to(dev)
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=2e-4)
args = SimpleNamespace(device=dev, beta=1.0, steps=0)
writer = S.ScalarWriter()
tests = []
for _ in range(EPOCHS):
    vqvae.train(train_loader, cmodel, opt, args, writer)
    tests.append(vqvae.test(valid_loader, cmodel, args, writer))
recon = vqvae.generate_samples(x[N : N + 16], cmodel, args)
model.eval()
with torch.no_grad():
    imgs = x[N : N + 64].to(dev)
    err = S.rel_err(cmodel(imgs)[0], model(imgs)[0])
    used = model.encode(imgs).unique().numel()
S.sync()
first, last = S.first_last([v for _, v in writer.scalars["loss/train/reconstruction"]])
print(
    f"pytorch-vqvae compiled VQ-VAE (hidden {HID}, K {K}) {args.steps} steps: recon loss first {first:.4f} -> "
    f"last {last:.4f}; test (recon, vq) per epoch {[(round(a, 4), round(b, 4)) for a, b in tests]}; "
    f"codes used on 64 images {used}; samples {tuple(recon.shape)}; compiled vs eager eval recon rel err {err:.1e}"
)
