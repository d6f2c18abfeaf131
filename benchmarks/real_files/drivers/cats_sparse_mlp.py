"""Corpus driver (kx's code): ScalingIntelligence/CATS's Triton contextually-sparse MLP GEMVs
(flash_gemv/flash_gemv/kernels.py: gather_gemv_elemul_flag_3d -> gather_gemv_elemul_flag_kernel
(up projection only for the rows whose gate activation passes the threshold, times the gate)
and gather_transposed_gemv_flag_3d -> gather_transposed_gemv_flag_atomicadd_kernel (down
projection over the kept rows, atomic adds); both autotuned (12 / 20 configs, pre_hook zeroing
the output, keyed on size buckets and the beam width), EVEN_N heuristics, a constexpr
BATCHSIZE branch for 1-4 beams) as the package's flag_gemv_gemv_triton composes them for a
Mistral-7B MLP (d 4096, 14336 hidden, fp16) in decode: the SiLU gate computed densely, its
magnitude thresholded at the 50% quantile, then the two sparse GEMVs, for beam widths 1, 2 and
4 over 4 decode steps each, vs the same masked MLP in fp32 PyTorch. The package's __init__
loads its CUDA extension, so the kernels module is imported bare and the composition (four
lines) is written here."""

import _corpus12_support as S
import torch

S.bare_package("flash_gemv")  # not its __init__ (loads the compiled _C library)
from flash_gemv.kernels import gather_gemv_elemul_flag_3d, gather_transposed_gemv_flag_3d  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
D, FF, STEPS = S.pick((4096, 14336, 4), (1024, 256, 2))  # the kernels assume D % BLOCK_N == 0

w_gate = torch.randn(D, FF, device=dev, dtype=dt) / D**0.5  # x @ w_gate, as CATS stores it
w_up = torch.randn(FF, D, device=dev, dtype=dt) / D**0.5
w_down_t = torch.randn(FF, D, device=dev, dtype=dt) / FF**0.5

for beams in (1, 2, 4):
    errs = []
    for step in range(STEPS):
        x = torch.randn(beams, 1, D, device=dev, dtype=dt)
        x_1 = torch.nn.functional.silu(torch.matmul(x, w_gate))
        threshold = x_1.float().abs().flatten().median().item()
        flags = torch.abs(x_1) > threshold
        h = gather_gemv_elemul_flag_3d(x, x_1, w_up, flags)
        y = gather_transposed_gemv_flag_3d(h, w_down_t, flags)

        rh = torch.where(flags, x_1.float() * (x.float() @ w_up.float().t()), 0)
        ry = rh @ w_down_t.float()
        errs += [S.rel_err(h.masked_fill(~flags, 0), rh), S.rel_err(y, ry)]
    print(
        f"beams {beams} d{D} ff{FF} {STEPS} steps: worst rel err {torch.tensor(errs).max().item():.1e}"
    )  # NaN shows
torch.cuda.synchronize()
print("cats_sparse_mlp ok")
