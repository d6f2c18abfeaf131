"""Corpus driver (kx's code): ritheshkumar95/pytorch-vqvae's class-conditional gated PixelCNN
prior over VQ-VAE codes (modules.py: GatedPixelCNN = code embedding, 15 GatedMaskedConv2d layers
(vertical and horizontal stacks with cropped asymmetric kernels, class-embedding bias, tanh *
sigmoid GatedActivation via chunk, residual 1 x 1 convs; the mask-A layer re-zeroes its last
kernel row / column through .weight.data[...].zero_() at every forward), 1 x 1 output convs to
K logits; generate() samples the 8 x 8 code grid pixel by pixel (64 full forwards,
softmax + multinomial, x.data[...].copy_)). The driver trains a small VQ-VAE eagerly, replaces the
prior's forward by its torch.compile'd self (so pixelcnn_prior.py's train() / test() and the
prior's own generate() all run the compiled graph), trains the prior with pixelcnn_prior.py's
train() (codes from model.encode under no_grad, cross entropy over K 512, Adam 3e-4) for 2
epochs on kx's CIFAR-shaped toy classes, evaluates with test(), samples 64 code grids for 10
classes and decodes them. torchvision, datasets and tensorboardX are stand-ins. Checked: prior
loss first vs last, test loss, and the compiled prior's logits against the eager forward."""

from types import SimpleNamespace

import _corpus23_support as S

S.install_vqvae_standins()
import pixelcnn_prior  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from modules import GatedPixelCNN, VectorQuantizedVAE  # noqa: E402

torch.manual_seed(0)
dev = S.device()
N, HID, K, B, VQ_STEPS, EPOCHS, DIM, LAYERS = S.pick(
    (4096, 128, 512, 128, 150, 2, 64, 15), (32, 16, 16, 8, 2, 1, 8, 3)
)
_, train_loader, valid_loader = S.split_loaders(N, max(N // 8, B), B, S.pick(32, 16), seed=4, to_range=True)

vae = VectorQuantizedVAE(3, HID, K).to(dev)
vopt = torch.optim.Adam(vae.parameters(), lr=2e-4)
for step in range(VQ_STEPS):
    imgs = train_loader[step % len(train_loader)][0].to(dev)
    x_tilde, z_e_x, z_q_x = vae(imgs)
    loss = F.mse_loss(x_tilde, imgs) + F.mse_loss(z_q_x, z_e_x.detach()) + F.mse_loss(z_e_x, z_q_x.detach())
    vopt.zero_grad()
    loss.backward()
    vopt.step()
vae.eval()

prior = GatedPixelCNN(K, DIM, LAYERS, n_classes=10).to(dev)
eager_forward = prior.forward
prior.forward = torch.compile(prior.forward)
opt = torch.optim.Adam(prior.parameters(), lr=3e-4)
args = SimpleNamespace(device=dev, k=K, steps=0)
writer = S.ScalarWriter()
for _ in range(EPOCHS):
    pixelcnn_prior.train(train_loader, vae, prior, opt, args, writer)
valid = pixelcnn_prior.test(valid_loader, vae, prior, args, writer)
with torch.no_grad():
    labels = torch.arange(10, device=dev).repeat_interleave(S.pick(7, 1))[: S.pick(64, 8)]
    codes = prior.generate(labels, shape=(S.pick(8, 4), S.pick(8, 4)), batch_size=len(labels))
    samples = vae.decode(codes)
    lat = vae.encode(valid_loader[0][0].to(dev))
    lab = valid_loader[0][1].to(dev)
    err = S.rel_err(prior(lat, lab), eager_forward(lat, lab))
S.sync()
first, last = S.first_last([v for _, v in writer.scalars["loss/train"]])
print(
    f"pytorch-vqvae compiled GatedPixelCNN prior ({LAYERS} layers, K {K}) {args.steps} steps: loss first "
    f"{first:.3f} -> last {last:.3f}; valid {valid:.3f}; sampled codes {tuple(codes.shape)} "
    f"({codes.unique().numel()} distinct) decoded to {tuple(samples.shape)}; compiled vs eager logits rel err {err:.1e}"
)
