"""Corpus driver (kx's code): gashon/rms-norm-triton-kernel's RMSNorm (main.py:
RMSNormTritonAutogradFuncClass, whose forward launches triton_util.py's rmsnorm_fwd_kernel on a
(rows, sequence) grid with a fixed 128-wide block looping over the features, and whose backward
launches rmsnorm_bwd_kernel one row per program with the whole row in one block (num_warps 16)
and sums the per-row weight-gradient partials on the host; main.py imports the kernels through
the course package path it was written in (cs336_systems.kernel.triton_util), which the driver
points at the repository's own triton_util.py; main.py is loaded from its file under another
module name, since kx's checkout has a main.py of its own). Run at the repository's benchmark widths (1024 to
8192) in fp32; forward and backward checked against main.py's own PyTorch autograd.Function
(RMSNormAutogradFuncClass) and against torch autograd."""

import _corpus15_support as S
import torch
import triton_util

S.alias_module("cs336_systems.kernel.triton_util", triton_util)
upstream = S.load_file_module("gashon_rmsnorm_main", "main.py", beside="triton_util.py")
RMSNormAutogradFuncClass = upstream.RMSNormAutogradFuncClass
RMSNormTritonAutogradFuncClass = upstream.RMSNormTritonAutogradFuncClass

torch.manual_seed(0)
dev = "cuda"
M, L = S.pick((16, 512), (2, 4))
WIDTHS = S.pick((1024, 2048, 4096, 8192), (64, 200))

for N in WIDTHS:
    x = torch.randn(M, L, N, device=dev, requires_grad=True)
    g = torch.randn(N, device=dev, requires_grad=True)
    dy = torch.randn(M, L, N, device=dev)
    y = RMSNormTritonAutogradFuncClass.apply(x, g)
    y.backward(dy)

    xr = x.detach().clone().requires_grad_(True)
    gr = g.detach().clone().requires_grad_(True)
    yr = xr * torch.rsqrt(xr.pow(2).mean(-1, keepdim=True) + 1e-5) * gr
    yr.backward(dy)

    xp = x.detach().clone().requires_grad_(True)
    gp = g.detach().clone().requires_grad_(True)
    yp = RMSNormAutogradFuncClass.apply(xp.view(-1, N), gp)
    yp.backward(dy.view(-1, N))

    errs = (
        S.rel_err(y, yr),
        S.rel_err(x.grad, xr.grad),
        S.rel_err(g.grad, gr.grad),
        S.rel_err(y.view(-1, N), yp),
    )
    print(
        f"N {N}: rel err y {errs[0]:.1e} dx {errs[1]:.1e} dg {errs[2]:.1e} vs main.py's torch Function {errs[3]:.1e}"
    )
    assert max(errs) < 1e-4, errs

torch.cuda.synchronize()
print("gashon_rmsnorm ok")
