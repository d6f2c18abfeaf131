"""Corpus driver (kx's code): facebookresearch/ConvNeXt's model (models/convnext.py: ConvNeXt with
a 4x4 patchify stem, its own LayerNorm for channels_first tensors (mean / variance over dim 1 by
hand) in the stem and downsampling layers, Blocks of a 7x7 depthwise conv, a permute to channels
last, LayerNorm, a 4x MLP with GELU, layer scale (gamma) and timm's DropPath stochastic depth, then
global average pooling, LayerNorm and a head scaled by head_init_scale) trained with torch.compile:
ConvNeXt-T (depths 3-3-9-3, dims 96-768) on 224 x 224 images, 1000 classes, batch 64,
drop_path_rate 0.1, bf16 autocast, AdamW with a cosine schedule and label smoothing as the repo's
main.py trains it, 6 steps of forward + backward + step on random images (labels from a fixed
random teacher), then evaluation mode (stochastic depth off: a recompile) on a batch of 32 (a new
batch size) compared with the eager model."""

import math

import _corpus10_support as S
import torch
import torch.nn.functional as F

with S.quiet_warnings():  # timm warns that it already has convnext_* registered (overwritten here)
    from models.convnext import ConvNeXt

torch.manual_seed(0)
dev = "cuda"
IMG, NCLS, BATCH, EVAL_BATCH, STEPS = S.pick((224, 1000, 64, 32, 6), (32, 10, 4, 3, 2))
DEPTHS, DIMS = S.pick(([3, 3, 9, 3], [96, 192, 384, 768]), ([1, 1, 2, 1], [8, 16, 32, 64]))

model = ConvNeXt(num_classes=NCLS, depths=DEPTHS, dims=DIMS, drop_path_rate=0.1).to(dev)
model = model.to(memory_format=torch.channels_last)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=4e-3 * BATCH / 4096, weight_decay=0.05)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / STEPS)))
teacher = torch.randn(3 * IMG * IMG, NCLS, device=dev) / (3 * IMG * IMG) ** 0.5

for step in range(STEPS):
    img = torch.randn(BATCH, 3, IMG, IMG, device=dev).to(memory_format=torch.channels_last)
    labels = (img.flatten(1) @ teacher).argmax(-1)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(compiled(img), labels, label_smoothing=0.1)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    sched.step()
    print(f"step {step} loss {loss.item():.4f}")

model.eval()
with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
    img = torch.randn(EVAL_BATCH, 3, IMG, IMG, device=dev).to(memory_format=torch.channels_last)
    got = compiled(img)
    want = model(img)
print("eval", tuple(got.shape), f"compiled vs eager rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("convnext compile train ok")
