"""Corpus driver (kx's code): triton-lang/kernels' block-sparse matmul and softmax
(kernels/blocksparse/matmul.py and softmax.py: the former triton.ops.blocksparse) used as
test/test_blocksparse.py uses them: `matmul(layout, BLOCK, MODE, trans_a, trans_b, device)` for
MODE 'sdd' (dense x dense -> block-sparse), 'dsd' and 'dds' with and without transposes, fp16,
forward and backward (the autograd Function runs the other two modes for the gradients), and
`softmax(layout, BLOCK, device, is_dense)` with scale and is_causal, forward and backward; then
the test's triton_attention: block-sparse causal attention (sdd q @ k^T, sparse softmax, dsd
@ v) over a tril block layout, loss.backward(). Sizes: Z 4, H 8, 1024 x 1024 x 64 (BLOCK 16 / 32
/ 64), a 2048-token attention with BLOCK 64 and 64-dim heads. Exercises the _sdd_kernel /
_dsd_kernel (look-up tables built on the device from the layout: sdd_lut / dsd_lut with
torch ops, cumsum, nonzero), @heuristics-chosen TILE sizes, the softmax kernels with
look-up-table-driven rows, causal masks and scale."""

import _corpus6_support as S
import torch
from kernels.blocksparse.matmul import matmul as bs_matmul
from kernels.blocksparse.softmax import softmax as bs_softmax

torch.manual_seed(0)
dev = "cuda"
Z, H, M, N, K = S.pick((4, 8, 1024, 1024, 64), (1, 2, 64, 64, 32))
dtype = torch.float16

for BLOCK in S.pick((16, 32, 64), (16, 32)):
    for MODE in ("sdd", "dsd", "dds"):
        for trans_a, trans_b in ((False, False), (False, True), (True, False)):
            shape = {
                "sdd": (M, N),
                "dsd": (K, M) if trans_a else (M, K),
                "dds": (N, K) if trans_b else (K, N),
            }[MODE]
            layout = torch.randint(2, (H, shape[0] // BLOCK, shape[1] // BLOCK))
            layout[:, 0, 0] = 1
            op = bs_matmul(layout, BLOCK, MODE, trans_a=trans_a, trans_b=trans_b, device=dev)
            nnz = int(layout.sum())
            a_shape = (Z, H, K, M) if trans_a else (Z, H, M, K)
            b_shape = (Z, H, N, K) if trans_b else (Z, H, K, N)
            if MODE == "dsd":
                a_shape = (Z, nnz, BLOCK, BLOCK)
            if MODE == "dds":
                b_shape = (Z, nnz, BLOCK, BLOCK)
            a = (torch.randn(a_shape, device=dev) * 0.1).to(dtype).requires_grad_()
            b = (torch.randn(b_shape, device=dev) * 0.1).to(dtype).requires_grad_()
            c = op(a, b)
            c.backward(torch.randn_like(c))
            print(MODE, BLOCK, trans_a, trans_b, tuple(c.shape), tuple(a.grad.shape), tuple(b.grad.shape))

W = S.pick(1024, 64)
for BLOCK in S.pick((16, 64), (16,)):
    for is_dense in (False, True):
        layout = torch.randint(2, (H, W // BLOCK, W // BLOCK))
        if is_dense:
            layout[:] = 1
        layout[:, :, 0] = 1
        x = torch.randn(Z, int(layout.sum()), BLOCK, BLOCK, device=dev, dtype=torch.float32).requires_grad_()
        out = bs_softmax(layout, BLOCK, device=dev, is_dense=is_dense)(x, scale=0.4, is_causal=True)
        out.backward(torch.randn_like(out))
        print("softmax", BLOCK, is_dense, tuple(out.shape), tuple(x.grad.shape))

n_ctx, block, heads, hd = S.pick((2048, 64, 8, 64), (64, 16, 2, 64))
n_blocks = n_ctx // block
layout = torch.tril(torch.ones([heads, n_blocks, n_blocks], dtype=torch.long))
qkv = [torch.randn(2, heads, n_ctx, hd, device=dev, dtype=dtype).requires_grad_() for _ in range(3)]
q, k, v = qkv
sdd_nt = bs_matmul(layout, block, "sdd", trans_a=False, trans_b=True, device=dev)
dsd_nn = bs_matmul(layout, block, "dsd", trans_a=False, trans_b=False, device=dev)
sm = bs_softmax(layout, block, device=dev)
w = sdd_nt(q, k)
w = sm(w, scale=hd**-0.5, is_causal=True)
o = dsd_nn(w, v)
loss = (o.float() ** 2).mean()
loss.backward()
torch.cuda.synchronize()
print(
    "triton-lang kernels blocksparse ok",
    tuple(o.shape),
    round(loss.item(), 5),
    [tuple(t.grad.shape) for t in qkv][0],
)
