"""Corpus driver (kx's code): openai/CLIP's model (clip/model.py: CLIP with its VisionTransformer
(conv1 patchify, class embedding, LayerNorm subclass computing in fp32, ResidualAttentionBlocks of
nn.MultiheadAttention + QuickGELU MLP, a projection) and text Transformer (token + position
embeddings, a causal attn_mask buffer from build_attention_mask, features taken at each row's
text.argmax(-1) (the end-of-text token), text_projection), initialize_parameters, logit_scale)
trained contrastively with torch.compile as CLIP-style trainers do: ViT-B/32 (image 224, width
768, 12 layers; text width 512, 8 heads, 12 layers, context 77, vocab 49,408), batch 128
image-text pairs with captions of 8..76 tokens ending in the end-of-text id, bf16 autocast, the
symmetric cross-entropy over logits_per_image / logits_per_text, AdamW (lr 5e-4, wd 0.2,
betas 0.9 / 0.98, eps 1e-6), logit_scale clamped to ln(100) after each step, 5 steps; then
encode_image / encode_text of the compiled and eager models on a new batch of 32."""

import math

import _corpus11_support as S
import torch
import torch.nn.functional as F

S.bare_package("clip")  # not its __init__ (clip.py: torchvision transforms, the checkpoint download)
from clip.model import CLIP  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
cfg = S.pick(
    dict(embed_dim=512, image_resolution=224, vision_layers=12, vision_width=768, vision_patch_size=32,
         context_length=77, vocab_size=49408, transformer_width=512, transformer_heads=8, transformer_layers=12),
    dict(embed_dim=32, image_resolution=64, vision_layers=2, vision_width=64, vision_patch_size=16,
         context_length=16, vocab_size=500, transformer_width=32, transformer_heads=4, transformer_layers=2),
)
BATCH, STEPS = S.pick((128, 5), (4, 2))
EOT = cfg["vocab_size"] - 1

model = CLIP(**cfg).to(dev)
compiled = torch.compile(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.2, betas=(0.9, 0.98), eps=1e-6)


def batch(n):
    images = torch.randn(n, 3, cfg["image_resolution"], cfg["image_resolution"], device=dev)
    ctx = cfg["context_length"]
    lengths = torch.randint(min(8, ctx - 1), ctx, (n,), device=dev)
    text = torch.randint(1, EOT - 1, (n, ctx), device=dev)
    pos = torch.arange(ctx, device=dev)[None]
    text = torch.where(pos < lengths[:, None] - 1, text, 0)  # zero padding after the caption
    text.scatter_(1, (lengths - 1)[:, None], EOT)  # the end-of-text token (the row's argmax)
    return images, text


labels = torch.arange(BATCH, device=dev)
for step in range(STEPS):
    images, text = batch(BATCH)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits_per_image, logits_per_text = compiled(images, text)
        loss = (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        model.logit_scale.clamp_(0, math.log(100))
    print(f"step {step} loss {loss.item():.4f} logit scale {model.logit_scale.exp().item():.2f}")

model.eval()
images, text = batch(32)
with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
    gi, gt = compiled.encode_image(images), compiled.encode_text(text)
    wi, wt = model.encode_image(images), model.encode_text(text)
print("features", tuple(gi.shape), tuple(gt.shape), f"image rel err {S.rel_err(gi, wi):.1e} text {S.rel_err(gt, wt):.1e}")
torch.cuda.synchronize()
print("clip compile train ok")
