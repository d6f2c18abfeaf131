"""Corpus driver (kx's code): meta-pytorch/tritonbench's grouped GEMM
(tritonbench/operators/grouped_gemm/kernels.py: triton_group_gemm_fn / grouped_matmul_kernel, the
Triton tutorial's persistent grouped GEMM: device arrays of raw data pointers (data_ptr() of each
A / B / C, cast back with tl.pointer_type in the kernel), per-group sizes and leading dimensions,
a fixed grid of NUM_SM programs walking all tiles of all groups; autotuned over 4 configs keyed
on group_size) on the operator's square fp16 groups (4 x 1024^2, as tritonbench/operators/
grouped_gemm/operator.py feeds it) and then as a mixture-of-experts layer would use it: 8 experts
(d 2048 -> 1408) with uneven token counts from a random top-2 router (sizes known on the host:
.tolist() of the per-expert counts), vs torch matmuls in fp32."""

import _corpus11_support as S
import torch

S.bare_package("tritonbench")  # not its __init__ (the benchmark harness)
from tritonbench.operators.grouped_gemm.kernels import triton_group_gemm_fn  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
SQ, GROUPS = S.pick((1024, 4), (32, 3))
TOKENS, D, F, EXPERTS = S.pick((4096, 2048, 1408, 8), (40, 32, 48, 4))


def check(name, As, Bs):
    Cs = triton_group_gemm_fn(As, Bs)
    errs = [S.rel_err(c, a.float() @ b.float()) for a, b, c in zip(As, Bs, Cs, strict=True)]
    print(name, [tuple(c.shape) for c in Cs], f"worst rel err {max(errs):.1e}")


check("square groups", [torch.rand(SQ, SQ, device=dev, dtype=dt) for _ in range(GROUPS)],
      [torch.rand(SQ, SQ, device=dev, dtype=dt) for _ in range(GROUPS)])

x = torch.randn(TOKENS, D, device=dev, dtype=dt)
router = torch.randn(D, EXPERTS, device=dev, dtype=dt)
top = (x @ router).topk(2, dim=-1).indices.flatten()
counts = torch.bincount(top, minlength=EXPERTS).tolist()
order = top.argsort()
xs = x.repeat_interleave(2, 0)[order].split(counts)
w_up = [torch.randn(D, F, device=dev, dtype=dt) * D**-0.5 for _ in range(EXPERTS)]
print("tokens per expert", counts)
check("moe experts", [t.contiguous() for t in xs if t.shape[0]], [w for w, c in zip(w_up, counts, strict=True) if c])
torch.cuda.synchronize()
print("tritonbench grouped gemm ok")
