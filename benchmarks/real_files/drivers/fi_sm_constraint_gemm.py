"""Corpus driver (kx's code): FlashInfer's SM-constrained Triton GEMMs
(flashinfer.triton.sm_constraint_gemm, C = alpha * A @ B + beta * C in place): gemm_persistent
(persistent tile loop over a num_sms-limited grid, flattened tl.range, @triton.autotune keyed on
M/N/K, launch_metadata) with all SMs and with 16 SMs, the non-persistent gemm, and
gemm_descriptor_persistent (device-side TMA tensor descriptors, triton.set_allocator scratch,
with and without EPILOGUE_SUBTILE). bf16 and fp8 e4m3 (bf16 output) for all three, fp32 for the
two pointer-based kernels, shapes as in upstream's Hopper test."""

import _corpus_support
import torch

_corpus_support.flashinfer_triton_package()
import flashinfer.triton  # noqa: E402,F401
from flashinfer.triton import sm_constraint_gemm as smg  # noqa: E402

torch.manual_seed(0)
M, N, K = 1024, 2048, 512
res = []
for dtype in (torch.bfloat16, torch.float8_e4m3fn, torch.float32):
    out_dtype = torch.bfloat16 if dtype == torch.float8_e4m3fn else dtype
    a = torch.randn(M, K, device="cuda", dtype=torch.float16).to(dtype)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16).to(dtype).T.contiguous()  # [N, K]
    c = torch.randn(M, N, device="cuda", dtype=out_dtype)
    c_ref = (0.5 * (a.to(out_dtype) @ b.to(out_dtype).T) + 2.0 * c).float()
    c0, c1, c2 = c.clone(), c.clone(), c.clone()
    smg.gemm_persistent(a, b.T, c=c0, alpha=0.5, beta=2.0)
    smg.gemm_persistent(a, b.T, c=c1, alpha=0.5, beta=2.0, num_sms=16)
    smg.gemm(a, b.T, c=c2, alpha=0.5, beta=2.0)
    errs = [(t.float() - c_ref).abs().max().item() for t in (c0, c1, c2)]
    if dtype != torch.float32:
        for subtile in (False, True):
            c3 = c.clone()
            smg.gemm_descriptor_persistent(a, b, c=c3, alpha=0.5, beta=2.0, EPILOGUE_SUBTILE=subtile)
            errs.append((c3.float() - c_ref).abs().max().item())
    res.append((str(dtype), [round(e, 2) for e in errs]))
# ragged M / N / K tails
a_odd = torch.randn(300, 200, device="cuda", dtype=torch.float16)
b_odd = torch.randn(200, 130, device="cuda", dtype=torch.float16)
c_odd = torch.zeros(300, 130, device="cuda", dtype=torch.float16)
d = smg.gemm(a_odd, b_odd, c=c_odd, beta=1.0)
torch.cuda.synchronize()
print("flashinfer sm_constraint_gemm ok", res, tuple(d.shape))
