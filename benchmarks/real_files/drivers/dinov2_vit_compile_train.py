"""Corpus driver (kx's code): facebookresearch/dinov2's vision transformer
(dinov2/models/vision_transformer.py: DinoVisionTransformer as vit_small builds it: patch 14,
4 register tokens, LayerScale (init 1e-5), stochastic depth 0.1, NestedTensorBlock /
MemEffAttention and Mlp from dinov2/layers on their PyTorch paths, xFormers switched off by
XFORMERS_DISABLED as on a machine without it) fine-tuned end to end with torch.compile as
dinov2's linear evaluation reads it (class token concatenated with the mean patch token into a
1000-way linear head): batch 32 of random 224 x 224 images, bf16 autocast, AdamW with
weight decay, 4 steps of compiled forward + loss.backward() + step; then the compiled vs the
eager logits in eval mode."""

import os

# the GPU machine has no xFormers: take dinov2's PyTorch paths everywhere
os.environ["XFORMERS_DISABLED"] = "1"

import _corpus14_support as S  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from dinov2.models.vision_transformer import vit_small  # noqa: E402
from torch import nn  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
IMG, B, STEPS = S.pick((224, 32, 4), (28, 2, 2))


class Classifier(nn.Module):  # kx's own head, in the layout of dinov2's linear evaluation
    def __init__(self):
        super().__init__()
        self.backbone = vit_small(
            patch_size=14,
            img_size=IMG,
            init_values=1e-5,
            block_chunks=0,
            num_register_tokens=4,
            drop_path_rate=0.1,
        )
        self.head = nn.Linear(2 * self.backbone.embed_dim, 1000)

    def forward(self, x):
        f = self.backbone.forward_features(x)
        return self.head(torch.cat([f["x_norm_clstoken"], f["x_norm_patchtokens"].mean(1)], -1))


model = Classifier().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.05)
compiled = torch.compile(model)
model.train()
for step in range(STEPS):
    x = torch.randn(B, 3, IMG, IMG, device=dev)
    y = torch.randint(0, 1000, (B,), device=dev)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

model.eval()
x = torch.randn(B, 3, IMG, IMG, device=dev)
with torch.no_grad():
    got, want = compiled(x), model(x)
print(f"compiled vs eager logits (eval, fp32) rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("dinov2_vit_compile_train ok")
