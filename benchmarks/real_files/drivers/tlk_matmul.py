"""Corpus driver (kx's code): triton-lang/kernels' matmul (kernels/matmul.py: the former
triton.ops.matmul, moved out of Triton in 2024): the _kernel GEMM under @autotune (IO-bound and
compute-bound config lists, prune_configs_by=early_config_prune with matmul_perf_model's
estimate_matmul_time from the GPU's SM count, clock and DRAM bandwidth) and @heuristics
(EVEN_K), split-K through atomic_add with init_to_zero pre-hooks, grouped program ordering.
Called as test/test_matmul.py's test_op does (`matmul(a, b, acc_dtype, input_precision,
fp8_fast_accum, output_dtype)`): fp16 / bf16 LLM-sized GEMMs (4096 x 4096 x 4096, a 16 x 4096 x
11008 decode-shaped GEMV, 8192 x 1024 x 4096 with a transposed operand), fp32 with
input_precision 'ieee', 'tf32' and 'tf32x3', int8 x int8 with an int32 accumulator, mixed
float16 x int8, bf16 with an fp32 output, fp16 with an fp16 accumulator, and fp8 (float8e4nv x float8e5
through triton.reinterpret, fp8_fast_accum off and on), shapes off the block multiples
(1000 x 999 x 1001)."""

import _corpus6_support as S
import torch
import triton
import triton.language as tl
from kernels.matmul import matmul

torch.manual_seed(0)
dev = "cuda"
s = S.small()


def mk(m, n, dtype):
    if dtype == torch.int8:
        return torch.randint(-128, 127, (m, n), device=dev, dtype=torch.int8)
    return (torch.randn(m, n, device=dev) / 8).to(dtype)


def run(m, n, k, adt, bdt, trans_b=False, **kw):
    a = mk(m, k, adt)
    b = mk(n, k, bdt).t() if trans_b else mk(k, n, bdt)
    c = matmul(
        a,
        b,
        kw.get("acc_dtype"),
        kw.get("input_precision"),
        kw.get("fp8_fast_accum", True),
        kw.get("output_dtype"),
    )
    print((m, n, k), adt, bdt, trans_b, sorted(kw), c.dtype)
    return c


h = torch.float16
bf = torch.bfloat16
run(*((64, 64, 64) if s else (4096, 4096, 4096)), h, h)
run(*((64, 64, 64) if s else (4096, 4096, 4096)), bf, bf)
run(*((16, 96, 64) if s else (16, 11008, 4096)), h, h)
run(*((64, 32, 64) if s else (8192, 1024, 4096)), bf, bf, trans_b=True)
for prec in ("ieee", "tf32", "tf32x3"):
    run(*((32, 32, 32) if s else (2048, 2048, 2048)), torch.float32, torch.float32, input_precision=prec)
run(*((32, 32, 64) if s else (2048, 2048, 2048)), torch.int8, torch.int8, acc_dtype=torch.int32)
run(*((32, 32, 32) if s else (2048, 2048, 2048)), h, torch.int8)
run(*((32, 32, 32) if s else (2048, 2048, 2048)), bf, bf, acc_dtype=torch.float32, output_dtype=torch.float32)
run(*((32, 32, 32) if s else (2048, 2048, 2048)), h, h, acc_dtype=torch.float16)
run(*((40, 39, 41) if s else (1000, 999, 1001)), h, h)

m, n, k = (32, 32, 32) if s else (4096, 4096, 4096)
a8 = torch.randint(0, 120, (m, k), device=dev, dtype=torch.int8)
b8 = torch.randint(0, 120, (k, n), device=dev, dtype=torch.int8)
for fast in (False, True):
    c = matmul(
        triton.reinterpret(a8, tl.float8e4nv),
        triton.reinterpret(b8, tl.float8e5),
        None,
        None,
        fast,
        torch.float16,
    )
    print("fp8", fast, c.dtype)
torch.cuda.synchronize()
print("triton-lang kernels matmul ok")
