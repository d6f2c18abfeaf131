"""Corpus driver (kx's code): BLK-SPRS block-sparse Flash Attention (FelixSchoen/blksprs,
blksprs/ops/flash_attention.py: a forward kernel and three backward kernels (preprocess,
dK/dV, dQ), each under @triton.autotune with prune_configs_by early_config_prune over the
"flash_attention" profile, launched from a torch.autograd.Function over compressed
(n_blocks, block, block) tensors with a layout cache of segmented block indices) used as the
README shows for padded causal self-attention: Q / K / V of (batch * heads, seq, head_dim) to
compressed form, a block-causal attention layout from build_causal_self_attention_layout, the
in-kernel causal and padding refinement from per-sequence valid lengths (causal_lengths), then
backward. Output and Q / K / V gradients (valid rows) checked against PyTorch SDPA with the same
causal + padding mask."""

import _corpus19_support as S
import blksprs as bs
import torch
import torch.nn.functional as F

torch.manual_seed(0)
dev = "cuda"
B, H, SEQ, HD, BLK = S.pick((4, 8, 2048, 64, 64), (1, 2, 64, 32, 16))
BH, nq, nd = B * H, SEQ // BLK, HD // BLK

q = torch.randn(BH, SEQ, HD, device=dev, requires_grad=True)
k = torch.randn(BH, SEQ, HD, device=dev, requires_grad=True)
v = torch.randn(BH, SEQ, HD, device=dev, requires_grad=True)
lengths = torch.tensor([SEQ - (i * SEQ) // (2 * BH) - (i % 3) for i in range(BH)], device=dev)
lay_qkv = torch.ones(BH, nq, nd, dtype=torch.bool, device=dev)
att_layout = bs.layouting.build_causal_self_attention_layout(lengths, BLK)

cache = {}
o_s = bs.ops.flash_attention(
    bs.ops.to_sparse(q, lay_qkv, BLK),
    lay_qkv,
    bs.ops.to_sparse(k, lay_qkv, BLK),
    lay_qkv,
    bs.ops.to_sparse(v, lay_qkv, BLK),
    lay_qkv,
    att_layout,
    BLK,
    layout_cache=cache,
    causal_lengths=lengths,
)
lay_o = cache.get("sparsity_layout_o", bs.layouting.build_sparsity_layout_matmul(att_layout, lay_qkv))
out = bs.ops.to_dense(o_s, lay_o, BLK)
pos = torch.arange(SEQ, device=dev)
valid = pos[None, :] < lengths[:, None]  # (BH, SEQ)
g_out = torch.randn(BH, SEQ, HD, device=dev) * valid[..., None]
(out * g_out).sum().backward()
got = [out.detach()] + [t.grad.clone() for t in (q, k, v)]

for t in (q, k, v):
    t.grad = None
allowed = (pos[None, :, None] >= pos[None, None, :]) & valid[:, None, :] & valid[:, :, None]
allowed = allowed | ~valid[:, :, None]  # padded query rows: any finite pattern, masked out below
ref = F.scaled_dot_product_attention(q[:, None], k[:, None], v[:, None], attn_mask=allowed[:, None])[:, 0]
ref = ref * valid[..., None]
(ref * g_out).sum().backward()
want = [ref.detach()] + [t.grad for t in (q, k, v)]
errs = [S.rel_err(a * valid[..., None], b * valid[..., None]) for a, b in zip(got, want)]
print(
    f"{BH} x {SEQ} x {HD}, blocks {BLK}, valid lengths {lengths.min().item()}..{lengths.max().item()}, "
    f"{int(att_layout.sum())} attention blocks: out / dq / dk / dv rel err "
    + " / ".join(f"{e:.1e}" for e in errs)
)
assert max(errs) < 2e-2, errs
torch.cuda.synchronize()
print("blksprs_flash_attention ok")
