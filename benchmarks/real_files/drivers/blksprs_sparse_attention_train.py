"""Corpus driver (kx's code): BLK-SPRS (FelixSchoen/blksprs, blksprs/ops/matmul.py,
softmax.py, conversion.py: Triton block-sparse kernels registered as torch triton_ops with
register_autograd, each behind @triton.autotune over (block, stages, warps) profiles with
prune_configs_by early_config_prune, keys on the block sizes, and layout caches of precomputed
block indices) composed into block-causal sparse attention the way the library's README builds
its operations: dense Q / K^T / V of (batch * heads, seq, head_dim) to compressed form with
to_sparse, scores = matmul(Q, K^T) onto a lower-triangular block layout, row-wise block-sparse
softmax (fused and regular), output = matmul(P, V), back to dense with to_dense; then backward
through the whole chain. Output and Q / K / V gradients checked against dense PyTorch attention
with the same block-causal mask."""

import math

import _corpus19_support as S
import blksprs as bs
import torch

torch.manual_seed(0)
dev = "cuda"
BH, SEQ, HD, BLK = S.pick((32, 1024, 64, 32), (2, 64, 32, 16))
nq, nd = SEQ // BLK, HD // BLK
scale = 1.0 / math.sqrt(HD)

q = torch.randn(BH, SEQ, HD, device=dev, requires_grad=True)
k = torch.randn(BH, SEQ, HD, device=dev, requires_grad=True)
v = torch.randn(BH, SEQ, HD, device=dev, requires_grad=True)
lay_qv = torch.ones(BH, nq, nd, dtype=torch.bool, device=dev)
lay_kt = torch.ones(BH, nd, nq, dtype=torch.bool, device=dev)
lay_s = torch.tril(torch.ones(nq, nq, dtype=torch.bool, device=dev)).expand(BH, nq, nq).contiguous()


def sparse_attention(q, k, v, fused):
    cache_s, cache_o = {}, {}
    q_s = bs.ops.to_sparse(q, lay_qv, BLK)
    kt_s = bs.ops.to_sparse(k.transpose(-1, -2).contiguous(), lay_kt, BLK)
    v_s = bs.ops.to_sparse(v, lay_qv, BLK)
    s = bs.ops.matmul(q_s, lay_qv, kt_s, lay_kt, lay_s, BLK, layout_cache=cache_s)
    s = torch.mul(s, scale)
    p = bs.ops.softmax(s, lay_s, BLK) if fused else bs.ops.softmax(s, lay_s, BLK, flag_fused=False)
    o = bs.ops.matmul(p, lay_s, v_s, lay_qv, lay_qv, BLK, layout_cache=cache_o)
    return bs.ops.to_dense(o, lay_qv, BLK)


mask = S.causal_block_mask(nq, BLK, dev)
g_out = torch.randn(BH, SEQ, HD, device=dev)
ref = torch.softmax((q @ k.transpose(-1, -2) * scale).masked_fill(~mask, float("-inf")), -1) @ v
(ref * g_out).sum().backward()
want = [t.grad.clone() for t in (q, k, v)]
for fused in (True, False):
    for t in (q, k, v):
        t.grad = None
    out = sparse_attention(q, k, v, fused)
    (out * g_out).sum().backward()
    errs = [S.rel_err(out, ref)] + [S.rel_err(t.grad, w) for t, w in zip((q, k, v), want)]
    print(
        f"{BH} x {SEQ} x {HD}, blocks {BLK} ({int(lay_s[0].sum())} of {nq * nq} score blocks), "
        f"softmax {'fused' if fused else 'regular'}: out / dq / dk / dv rel err "
        + " / ".join(f"{e:.1e}" for e in errs)
    )
    assert max(errs) < 2e-2, errs
torch.cuda.synchronize()
print("blksprs_sparse_attention_train ok")
