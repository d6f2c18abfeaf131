"""Corpus driver (kx's code): training lucidrains/CoLT5-attention's ConditionalRoutedViT (its
README's ViT example: colt5_attention/vit.py) with router_use_triton=True, so that every
CoordinateDescentRouter (the routed feedforward's token router, the routed image attention's
query and key/value routers) runs triton_coor_descent: the Triton coordinate-descent top-k
(forward kernel, then its autograd backward kernel, with n_iters 20 recomputed in
checkpoint segments of n_iters // 5, eps-scaling 4.0 -> eps with decay 0.7, the kernels under
custom_fwd / custom_bwd and autocast disabled). Shapes: 256x256 images, patch 16 (256 tokens),
dim 512, depth 4, heavy attention on 32 routed queries / 64 routed keys (8 heads of 64), light
attention 4 heads of 32 with window 64, routed feedforward on 64 tokens (heavy mult 4, light
0.5), 1000 classes, batch 8; 3 AdamW steps with cross-entropy and backward under
torch.autocast("cuda", dtype=torch.bfloat16), then an eval forward under no_grad. einops,
packaging and local-attention are stood in where absent (colt5_package())."""

import _corpus_support
import torch
import torch.nn.functional as F

_corpus_support.colt5_package()
from colt5_attention import ConditionalRoutedViT  # noqa: E402

torch.manual_seed(0)
vit = ConditionalRoutedViT(
    image_size=256,
    patch_size=16,
    num_classes=1000,
    dim=512,
    depth=4,
    attn_num_heavy_tokens_q=32,
    attn_num_heavy_tokens_kv=64,
    attn_heavy_dim_head=64,
    attn_heavy_heads=8,
    attn_light_dim_head=32,
    attn_light_heads=4,
    attn_light_window_size=64,
    ff_num_heavy_tokens=64,
    ff_heavy_mult=4,
    ff_light_mult=0.5,
    router_use_triton=True,
).cuda()
opt = torch.optim.AdamW(vit.parameters(), lr=3e-4)

for _step in range(3):
    images = torch.randn(8, 3, 256, 256, device="cuda")
    labels = torch.randint(0, 1000, (8,), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = vit(images)
        loss = F.cross_entropy(logits.float(), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
vit.eval()
with torch.no_grad():
    preds = vit(torch.randn(4, 3, 256, 256, device="cuda"))
torch.cuda.synchronize()
print("colt5 routed vit ok", tuple(logits.shape), tuple(preds.shape), float(loss))
