"""Corpus driver (kx's code): meta-pytorch/tritonbench's bf16 x int4 GEMM
(tritonbench/operators/int4_gemm/kernel.py: matmul / matmul_kernel, jlebar's kernel: the weight
packed two int4 per int8 along K (pack_2xint4), unpacked in the kernel with sign-extending
shifts and tl.join / permute / reshape to a bf16 tile, a device_assert that K divides the K
block, grouped program order, autotuned over 2 configs keyed on M, N, K) as the operator runs it
(tritonbench/operators/int4_gemm/int4_gemm.py: x reshaped to 2-D, w packed and laid out
column-major with .T.contiguous().T; the operator module needs tritonbench's harness, so its
lines are repeated here) on its Llama-2-70B tensor-parallel-8 shapes (attn.wqkv 8192 -> 1280,
attn.w0 1024 -> 8192, ffn.w13 8192 -> 7168, ffn.w2 3584 -> 8192) at decode batch 16 x 1 token
and prefill 2 x 1024 tokens, vs x @ w in fp32."""

import _corpus11_support as S
import torch

S.bare_package("tritonbench")  # not its __init__ (the benchmark harness)
from tritonbench.operators.int4_gemm.kernel import matmul, pack_2xint4  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
SHAPES = S.pick(
    {"attn.wqkv": (8192, 1280), "attn.w0": (1024, 8192), "ffn.w13": (8192, 7168), "ffn.w2": (3584, 8192)},
    {"attn.wqkv": (256, 64), "ffn.w2": (512, 32)},
)
BATCHES = S.pick([(16, 1), (2, 1024)], [(2, 1), (1, 20)])

for name, (k, n) in SHAPES.items():
    w = torch.randint(-8, 7, (k, n), device=dev, dtype=torch.int32)
    w_int4 = pack_2xint4(w).T.contiguous().T
    for bsz, seq in BATCHES:
        x = torch.randn(bsz, seq, k, device=dev, dtype=torch.bfloat16)
        out = matmul(x.reshape(-1, k), w_int4)
        ref = x.reshape(-1, k).float() @ w.float()
        print(f"{name} {bsz}x{seq} k={k} n={n}", tuple(out.shape), f"rel err {S.rel_err(out, ref):.1e}")
torch.cuda.synchronize()
print("tritonbench int4 gemm ok")
