"""Corpus driver (kx's code): meta-pytorch/tritonbench's jagged softmax kernels
(tritonbench/operators/jagged_softmax/kernels.py: triton_jagged_softmax_kernel_simple_fused_buffer_then_sum,
which loops over the ragged dimension up to MAX_SEQLEN (a host integer: the longest sequence, read
back from the offsets), and triton_jagged_softmax_kernel_variable_length_loop_buffer_then_sum,
which loops to each sequence's own end read on the device; each autotuned over 16 configs keyed
on M) launched as the operator's execute_kernel_* helpers launch them (tritonbench/operators/
jagged_softmax/operator.py; the operator module itself needs tritonbench's harness, so the launch
lines are repeated here) on torch.nested jagged tensors (layout=torch.jagged: values() and
offsets()): a recommendation-model batch of 512 sequences of 1..1024 items x 128 features (fp32,
a softmax over each sequence's items per feature), vs per-sequence torch.softmax; then a batch
with a different feature width (M 64: a new autotune key) and longer sequences (max 2048)."""

import _corpus11_support as S
import torch
import triton

S.bare_package("tritonbench")  # not its __init__ (the benchmark harness)
from tritonbench.operators.jagged_softmax.kernels import (  # noqa: E402
    triton_jagged_softmax_kernel_simple_fused_buffer_then_sum,
    triton_jagged_softmax_kernel_variable_length_loop_buffer_then_sum,
)

torch.manual_seed(0)
dev = "cuda"
CASES = S.pick([(512, 1024, 128), (256, 2048, 64)], [(4, 12, 16), (3, 20, 8)])


def simple_fused(x, max_seqlen):
    B, M = x.shape[0], x.shape[2]
    grid = lambda meta: (B * triton.cdiv(M, meta["BLOCK_SIZE_M"]),)  # noqa: E731
    out = torch.zeros_like(x.values(), device=x.device)
    triton_jagged_softmax_kernel_simple_fused_buffer_then_sum[grid](x.values(), x.offsets(), out, M=M, MAX_SEQLEN=max_seqlen)
    return out


def variable_length_loop(x):
    B, M = x.shape[0], x.shape[2]
    grid = lambda meta: (B * triton.cdiv(M, meta["BLOCK_SIZE_M"]),)  # noqa: E731
    out = torch.zeros_like(x.values(), device=x.device)
    triton_jagged_softmax_kernel_variable_length_loop_buffer_then_sum[grid](x.values(), x.offsets(), out, M=M)
    return out


for batch, max_len, m in CASES:
    lengths = torch.randint(1, max_len + 1, (batch,)).tolist()
    x = torch.nested.nested_tensor(
        [torch.randn(n, m, device=dev) for n in lengths], layout=torch.jagged, device=dev
    )
    max_seqlen = int(x.offsets().diff().max().item())  # a host read, as a caller sizes the loop
    ref = torch.cat([torch.softmax(t, dim=0) for t in x.unbind()])
    a = simple_fused(x, max_seqlen)
    b = variable_length_loop(x)
    print(
        f"B={batch} M={m} max_seqlen={max_seqlen} total={x.values().shape[0]}",
        f"simple fused rel err {S.rel_err(a, ref):.1e} variable length {S.rel_err(b, ref):.1e}",
    )
torch.cuda.synchronize()
print("tritonbench jagged softmax ok")
