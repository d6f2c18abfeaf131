"""Corpus driver (kx's code): stanford-futuredata/stk, the block-sparse matrix library under
MegaBlocks (stk/backend/triton_kernels.py: _sdd_kernel (dense x dense -> block-sparse, one
program per nonzero 128x128 block, block coordinates loaded from row / column index tensors),
_dsd_kernel and _dds_kernel (block-sparse x dense and dense x block-sparse, walking CSR offsets
and, for transposed operands, the transposed index / block-offset tensors), each behind
@triton.autotune and an int16 / int32 topology; stk/backend/sputnik.py's autograd Functions
route every gradient to another of the three kernels) used as a dMoE-style block-sparse FFN:
h = sdd(x, w1, topology) on a random 50%-dense 128-blocked topology (stk.random.mask), GELU on
the nonzero blocks (a new stk.Matrix on the same topology), y = dsd(h, w2), then backward; output
and the three gradients checked against the dense masked computation in float32."""

import _corpus18_support as S
import numpy as np
import stk
import torch
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)
dev = "cuda"
TOK, HID, FFN, SPARSITY = S.pick((4096, 1024, 8192, 0.5), (256, 128, 384, 0.5))

topo = stk.random.mask(TOK, FFN, SPARSITY, blocking=128).to(dev)
x = (torch.randn(TOK, HID, device=dev) * 0.5).half().requires_grad_()
w1 = (torch.randn(HID, FFN, device=dev) / HID**0.5).half().requires_grad_()
w2 = (torch.randn(FFN, HID, device=dev) / FFN**0.5).half().requires_grad_()

h = stk.ops.sdd(x, w1, topo)
act = stk.Matrix(
    h.size(),
    F.gelu(h.data),
    h.row_indices,
    h.column_indices,
    h.offsets,
    h.column_indices_t,
    h.offsets_t,
    h.block_offsets_t,
)
y = stk.ops.dsd(act, w2)
dy = torch.randn_like(y)
y.backward(dy)
got = [y.detach(), x.grad, w1.grad, w2.grad]

mask = stk.ops.to_dense(topo).float() != 0
xf, w1f, w2f = (t.detach().float().requires_grad_() for t in (x, w1, w2))
y_ref = F.gelu((xf @ w1f) * mask) @ w2f
y_ref.backward(dy.float())
want = [y_ref.detach(), xf.grad, w1f.grad, w2f.grad]
print(
    f"{TOK} tokens, {HID} -> {FFN} -> {HID}, {topo.nnz // 128**2} nonzero 128x128 blocks ({1 - SPARSITY:.0%} dense)"
)
for name, a, b in zip(("y", "dx", "dw1", "dw2"), got, want):
    err = S.rel_err(a, b)
    print(f"{name}: rel err {err:.1e}")
    assert a.shape == b.shape and err < 1e-2, (name, err)
torch.cuda.synchronize()
print("stk_block_sparse_matmul ok")
