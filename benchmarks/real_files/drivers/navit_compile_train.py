"""Corpus driver (kx's code): lucidrains/vit-pytorch's NaViT ("Patch n' Pack",
vit_pytorch/na_vit.py: images of any resolution cut into patches and packed into sequences up to
group_max_seq_len (group_images_by_max_seq_len, host-side grouping by patch counts), factorised
height / width position embeddings, token dropout, a block-diagonal attention mask built from
per-image ids so packed images do not attend to each other, a key-padding mask, attention pooling
per image with its own mask, and per-image logits gathered out of the packed batch) trained with
torch.compile: d 768, depth 12, 12 heads, MLP 3072, patch 16, up to 256 x 256 images, token
dropout 0.1, 1000 classes, bf16 autocast, AdamW. Every step draws 48 images of random sizes
(multiples of the patch, 64..256 per side), so the packed sequence lengths and the number of
sequences change each step (the data-dependent shapes the grouping produces); 5 training steps,
then eval (no token dropout) and a compiled-vs-eager comparison of the logits."""

import random

import _corpus9_support as S
import torch
import torch.nn.functional as F
from vit_pytorch.na_vit import NaViT

torch.manual_seed(0)
random.seed(0)
dev = "cuda"
IMG, PATCH, DIM, DEPTH, HEADS, MLP, NCLS = S.pick((256, 16, 768, 12, 12, 3072, 1000), (32, 8, 64, 2, 2, 128, 10))
N_IMAGES, STEPS, MAX_LEN = S.pick((48, 5, 1024), (5, 2, 24))

model = NaViT(
    image_size=IMG,
    patch_size=PATCH,
    num_classes=NCLS,
    dim=DIM,
    depth=DEPTH,
    heads=HEADS,
    mlp_dim=MLP,
    dropout=0.1,
    emb_dropout=0.1,
    token_dropout_prob=0.1,
).to(dev)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)


def random_images(n):
    sizes = [(random.randrange(PATCH * 4, IMG + 1, PATCH), random.randrange(PATCH * 4, IMG + 1, PATCH)) for _ in range(n)]
    return [torch.randn(3, h, w, device=dev) for h, w in sizes]


for step in range(STEPS):
    images = random_images(N_IMAGES)
    labels = torch.tensor([(h * 7 + w) % NCLS for _, h, w in (im.shape for im in images)], device=dev)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = compiled(images, group_images=True, group_max_seq_len=MAX_LEN)
        loss = F.cross_entropy(logits, labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} images {len(images)} logits {tuple(logits.shape)} loss {loss.item():.4f}")

model.eval()
with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
    images = random_images(S.pick(16, 3))
    got = compiled(images, group_images=True, group_max_seq_len=MAX_LEN)
    want = model(images, group_images=True, group_max_seq_len=MAX_LEN)
print("eval", tuple(got.shape), f"compiled vs eager rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("navit compile train ok")
