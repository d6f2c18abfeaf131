"""Corpus driver (kx's code): FoundationVision/VAR's training step (trainer.py's train_step
written out: the VQVAE's multi-scale quantiser turns images into per-scale token maps
(quant.py VectorQuantizer2.img_to_idxBl: encoder, then for each of the 10 scales an area
downsample of the residual, nearest-code lookup, bicubic upsample through the phi conv, residual
update), idxBl_to_var_input builds the teacher-forcing input, VAR.forward runs with the
block-causal attention mask and random label dropout, cross-entropy over all 680 tokens) with
VAR.forward torch.compile'd: VAR-d12 (768 wide, 12 heads) with random weights, batch 8 images of
256 x 256 (tokens from a randomly initialised VQVAE, which stays frozen), bf16 autocast, AdamW
(lr 1e-4, betas 0.9 / 0.95), gradient clipping 2.0, 4 steps, then the compiled vs the eager
loss (label dropout off)."""

import _corpus13_support as S
import torch
import torch.nn.functional as F

S.install_hf_hub_standin()
from models import build_vae_var  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
DEPTH, CH, PATCH_NUMS, B, RES = S.pick(
    (12, 160, (1, 2, 3, 4, 5, 6, 8, 10, 13, 16), 8, 256), (2, 32, (1, 2, 4), 2, 64)
)
STEPS = S.pick(4, 2)
vae, var = build_vae_var(dev, patch_nums=PATCH_NUMS, ch=CH, depth=DEPTH, num_classes=1000)
with torch.no_grad():  # build_vae_var turns off nn init (it expects a checkpoint): random VQVAE weights
    for n, p in vae.named_parameters():
        if p.dim() > 1:
            p.normal_(0, 0.02)
        else:
            p.fill_(1.0 if n.endswith("weight") else 0.0)
vae.eval().requires_grad_(False)
var.train()
opt = torch.optim.AdamW(var.parameters(), lr=1e-4, betas=(0.9, 0.95), weight_decay=0.05)
compiled = torch.compile(var)


def loss_fn(model, labels, x_in, target):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(labels, x_in)
    return F.cross_entropy(logits.float().flatten(0, 1), target.flatten())


def batch():
    imgs = torch.rand(B, 3, RES, RES, device=dev) * 2 - 1
    labels = torch.randint(0, 1000, (B,), device=dev)
    with torch.no_grad():
        idx = vae.img_to_idxBl(imgs)
        return labels, vae.quantize.idxBl_to_var_input(idx), torch.cat(idx, 1)


for step in range(STEPS):
    labels, x_in, target = batch()
    loss = loss_fn(compiled, labels, x_in, target)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(var.parameters(), 2.0)
    opt.step()
    print(f"step {step} loss {loss.item():.4f} ({target.shape[1]} tokens)")

var.cond_drop_rate = 0.0
labels, x_in, target = batch()
with torch.no_grad():
    got, want = loss_fn(compiled, labels, x_in, target), loss_fn(var, labels, x_in, target)
print(f"compiled {got.item():.4f} eager {want.item():.4f} rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("var_compile_train ok")
