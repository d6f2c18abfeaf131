"""Corpus driver (kx's code): lucidrains/vit-pytorch's ViT (vit_pytorch/vit.py: patch embedding by
einops Rearrange + LayerNorm + Linear, a learnt position embedding, a cls token, pre-norm
Attention (softmax(q k^T) v with einops rearranges, dropout) and FeedForward (GELU) blocks, cls
pooling and a linear head) trained with torch.compile as its README suggests for speed: ViT-B/16
(d 768, depth 12, 12 heads, MLP 3072) on 224 x 224 images, 1000 classes, batch 64, dropout 0.1,
bf16 autocast, AdamW with a cosine schedule, 6 steps of forward + backward + step on random
images (labels from a fixed random teacher, so the loss falls), then evaluation mode (dropout
off: a recompile) on a batch of 128 (a new batch size: dynamic-shape recompile) and a comparison
of the compiled model's eval logits with the eager model's."""

import math

import _corpus9_support as S
import torch
import torch.nn.functional as F
from vit_pytorch.vit import ViT

torch.manual_seed(0)
dev = "cuda"
IMG, PATCH, DIM, DEPTH, HEADS, MLP, NCLS = S.pick((224, 16, 768, 12, 12, 3072, 1000), (32, 8, 64, 2, 2, 128, 10))
BATCH, EVAL_BATCH, STEPS = S.pick((64, 128, 6), (4, 6, 2))

model = ViT(
    image_size=IMG,
    patch_size=PATCH,
    num_classes=NCLS,
    dim=DIM,
    depth=DEPTH,
    heads=HEADS,
    mlp_dim=MLP,
    dropout=0.1,
    emb_dropout=0.1,
).to(dev)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.05)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / STEPS)))
teacher = torch.randn(3 * IMG * IMG, NCLS, device=dev) / (3 * IMG * IMG) ** 0.5

for step in range(STEPS):
    img = torch.randn(BATCH, 3, IMG, IMG, device=dev)
    labels = (img.flatten(1) @ teacher).argmax(-1)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(compiled(img), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    print(f"step {step} loss {loss.item():.4f}")

model.eval()
with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
    img = torch.randn(EVAL_BATCH, 3, IMG, IMG, device=dev)
    got = compiled(img)
    want = model(img)
print("eval", tuple(got.shape), f"compiled vs eager rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("vit compile train ok")
