"""Corpus driver (kx's code): BLK-SPRS block-sparse Flash attention with a learned relative
position term (FelixSchoen/blksprs, blksprs/ops/relative_flash_attention.py: the query is
projected against a bounded relation table by a matmul, the tiled forward / backward Triton
kernels (each @triton.autotune with prune_configs_by early_config_prune) gather the projected
scores for active blocks only, clip(query_relation - key_relation) indexes the table, and the
table's gradient is scattered back with or without atomics depending on
key_relations_are_unique; recomputed projection in backward) used for causal self-attention
with clipped relative positions (Shaw et al. / Music Transformer style): token positions as the
relation coordinates, a per-(batch x head) embedding table for offsets in
[-MAXREL, MAXREL], a block-causal attention layout and in-kernel causal refinement
(causal_lengths). Output and Q / K / V / table gradients checked against a dense PyTorch
reference (scores + einsum with the gathered relative table, causal softmax)."""

import math

import _corpus19_support as S
import blksprs as bs
import torch

torch.manual_seed(0)
dev = "cuda"
BH, SEQ, HD, BLK, MAXREL = S.pick((16, 1024, 64, 32, 32), (2, 64, 32, 16, 4))
nq, nd = SEQ // BLK, HD // BLK
R = 2 * MAXREL + 1

q, k, v = (torch.randn(BH, SEQ, HD, device=dev, requires_grad=True) for _ in range(3))
table = (0.3 * torch.randn(BH, R, HD, device=dev)).requires_grad_(True)
pos = torch.arange(SEQ, device=dev).unsqueeze(0).expand(BH, SEQ).contiguous()
lengths = torch.full((BH,), SEQ, device=dev)
lay = torch.ones(BH, nq, nd, dtype=torch.bool, device=dev)
att_layout = bs.layouting.build_causal_self_attention_layout(lengths, BLK)

o_s = bs.ops.flash_attention_relative_embedding(
    bs.ops.to_sparse(q, lay, BLK),
    lay,
    bs.ops.to_sparse(k, lay, BLK),
    lay,
    bs.ops.to_sparse(v, lay, BLK),
    lay,
    att_layout,
    BLK,
    pos,
    pos,
    table,
    -MAXREL,
    MAXREL,
    key_relations_are_unique=True,
    causal_lengths=lengths,
    sparsity_layout_o=lay,
)
out = bs.ops.to_dense(o_s, lay, BLK)
g_out = torch.randn_like(out)
(out * g_out).sum().backward()
got = [out.detach()] + [t.grad.clone() for t in (q, k, v, table)]
for t in (q, k, v, table):
    t.grad = None

idx = (pos[:, :, None] - pos[:, None, :]).clamp(-MAXREL, MAXREL) + MAXREL  # (BH, SEQ, SEQ)
rel_scores = torch.einsum("bid,brd->bir", q, table).gather(2, idx)  # q . R[clip(i - j)]
scores = q @ k.transpose(-1, -2) / math.sqrt(HD) + rel_scores
causal = torch.triu(torch.ones(SEQ, SEQ, dtype=torch.bool, device=dev), diagonal=1)
ref = torch.softmax(scores.masked_fill(causal, float("-inf")), -1) @ v
(ref * g_out).sum().backward()
want = [ref.detach()] + [t.grad for t in (q, k, v, table)]
errs = [S.rel_err(a, b) for a, b in zip(got, want)]
print(
    f"{BH} x {SEQ} x {HD}, blocks {BLK}, relative offsets +-{MAXREL} ({int(att_layout.sum())} attention blocks): "
    "out / dq / dk / dv / dtable rel err " + " / ".join(f"{e:.1e}" for e in errs)
)
assert max(errs) < 2e-2, errs
torch.cuda.synchronize()
print("blksprs_relative_attention ok")
