"""Corpus driver (kx's code): cloneofsimo/minRF's text-to-image MMDiT (advanced/mmdit.py: MMDiT with
MMDiTBlock's joint attention over text and image tokens (DoubleAttention, separate projections
per stream, MultiHeadLayerNorm QK-norm), DiTBlock single-stream layers after them, register
tokens, Fp32LayerNorm, MMDiTBlock.forward itself under @torch.compile(), adaLN-Zero modulation from TimestepEmbedder, a learned positional
encoding over max_seq patches) trained with rectified flow as advanced/main_t2i.py trains it,
without DeepSpeed: its defaults (hidden_dim 256, 16 heads, 12 layers, vaeres 32: 4-channel 32 x 32
VAE latents, T5-XL conditioning of 64 tokens x 2048 as `conds = {"c_seq": ...}`), rf.py's RF
(logit-normal t, the velocity MSE, the per-sample losses to the host with `.tolist()`), AdamW
lr 3e-3 weight decay 0.1, bf16 autocast (main_t2i runs DeepSpeed bf16), per-device batch 128, and
`torch.compile(model)`: 4 steps of forward + backward + clip_grad_norm + step with random latents
and T5 embeddings (the script streams precomputed ones from MDS shards), then RF.sample's 10
guided Euler steps with a null (zero) condition. A torch.compile program with a backward pass."""

import _corpus7_support as S
import torch
from mmdit import MMDiT
from rf import RF

torch.manual_seed(0)
dev = "cuda"
hidden, heads, layers, vaeres, cond_dim, ctoks = S.pick((256, 16, 12, 32, 2048, 64), (32, 2, 2, 8, 48, 5))
model = MMDiT(
    in_channels=4,
    out_channels=4,
    dim=hidden,
    global_conddim=hidden,
    n_layers=layers,
    n_heads=heads,
    cond_seq_dim=cond_dim,
    max_seq=(vaeres // 2) ** 2,
    **({"n_double_layers": 1} if S.small() else {}),
).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
rf = RF(torch.compile(model), True)
batch = S.pick(128, 2)
for step in range(4):
    x = torch.randn(batch, 4, vaeres, vaeres, device=dev) * 0.8
    cond = {"c_seq": torch.randn(batch, ctoks, cond_dim, device=dev) * 0.2}
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss, info = rf.forward(x, cond)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    print("step", step, round(loss.item(), 4), len(info))

with torch.autocast("cuda", dtype=torch.bfloat16):
    z = torch.randn(4, 4, vaeres, vaeres, device=dev)
    cond = {"c_seq": torch.randn(4, ctoks, cond_dim, device=dev) * 0.2}
    null = {"c_seq": torch.zeros(4, ctoks, cond_dim, device=dev)}
    images = rf.sample(z, cond, null, sample_steps=S.pick(10, 2), cfg=2.0)
torch.cuda.synchronize()
print("minrf mmdit train ok", len(images), tuple(images[-1].shape))
