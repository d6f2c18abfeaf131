"""Corpus driver (kx's code): FasterDecoding/TEAL's Triton sparse GEMVs for training-free
activation sparsity (kernels/sparse_gemv.py: splitk_sparse_gemv -> splitk_sparse_gemv_kernel and
qkv_gemv -> qkv_kernel, both autotuned over 16 tile configs with a pre_hook zeroing the output,
keyed on size buckets, the batch size and a sparsity bin; each program loads only the weight rows
whose input activation passes |x| > threshold and split-K accumulates with atomic adds; the QKV
kernel picks one of three thresholds by output row) as TEAL's decode step calls them: a
Llama-2-7B layer at batch 1 (d 4096, MLP 11008, column-major fp16 weights), the gate/up and
down projections at 40% / 50% sparsity for 8 decode steps, and the fused QKV projection (three
thresholds, 4096 + 2 x 1024 GQA rows), vs the same thresholded products in fp32 PyTorch."""

import _corpus12_support as S
import torch

S.install_msgspec_standin()
from kernels.sparse_gemv import qkv_gemv, splitk_sparse_gemv  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
D, FF, KV, STEPS = S.pick((4096, 11008, 1024, 8), (256, 384, 128, 2))  # toy sizes keep whole tiles per q/k/v


def column_major(w):  # (N, Z) with stride(1) > 1, as TEAL stores its sparse weights
    return w.t().contiguous().t()


def threshold_for(x, sparsity):
    return x.float().abs().flatten().kthvalue(max(1, int(sparsity * x.numel()))).values.item()


w_up = column_major(torch.randn(FF, D, device=dev, dtype=dt) / D**0.5)
w_down = column_major(torch.randn(D, FF, device=dev, dtype=dt) / FF**0.5)
w_qkv = column_major(torch.randn(D + 2 * KV, D, device=dev, dtype=dt) / D**0.5)

errs = []
for step in range(STEPS):
    x = torch.randn(1, 1, D, device=dev, dtype=dt)
    t_in = threshold_for(x, 0.4)
    h = splitk_sparse_gemv(x, w_up, t_in, 4)
    h = torch.nn.functional.silu(h)
    t_mid = threshold_for(h, 0.5)
    y = splitk_sparse_gemv(h, w_down, t_mid, 5)

    xs = torch.where(x.abs() > t_in, x, 0).float()
    rh = torch.nn.functional.silu(xs @ w_up.float().t()).to(dt)
    ry = torch.where(rh.abs() > t_mid, rh, 0).float() @ w_down.float().t()
    errs += [S.rel_err(h, torch.nn.functional.silu(xs @ w_up.float().t())), S.rel_err(y, ry)]
print(f"mlp d{D} ff{FF} {STEPS} steps: worst rel err {torch.tensor(errs).max().item():.1e}")  # NaN shows

x = torch.randn(1, 1, D, device=dev, dtype=dt)
tq, tk, tv = threshold_for(x, 0.3), threshold_for(x, 0.5), threshold_for(x, 0.4)
qkv = qkv_gemv(x, w_qkv, tq, tk, tv, 4, KV)
ref = torch.cat(
    [
        torch.where(x.abs() > t, x, 0).float() @ w.float().t()
        for t, w in ((tq, w_qkv[:D]), (tk, w_qkv[D : D + KV]), (tv, w_qkv[D + KV :]))
    ],
    -1,
)
print(f"qkv {D}+2x{KV}: rel err {S.rel_err(qkv, ref):.1e}")
torch.cuda.synchronize()
print("teal_sparse_gemv ok")
