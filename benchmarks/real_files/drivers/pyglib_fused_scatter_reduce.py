"""Corpus driver (kx's code): PyG's fused multi-aggregation scatter (pyg-team/pyg-lib,
pyg_lib/ops/scatter_reduce.py: fused_scatter_reduce, one Triton kernel
(_fused_scatter_reduce_forward_kernel) that reads each edge message once and applies up to four
reductions into adjacent column blocks of one output with tl.atomic_add / atomic_min /
atomic_max, the reductions chosen by four plain integer arguments (values 0..4, so the launcher
specialises the ones equal to 1), with torch pre-processing (inf / -inf / 0 fills per slice) and
post-processing (mean by a scatter_add_ degree, empty min / max slots zeroed by boolean-mask
assignment)) used as a PNA-style message-passing aggregation: messages x[src] of an
ogbn-products-sized random graph (hidden 64) aggregated onto destination nodes with
['sum', 'mean', 'min', 'max'] (the order the repo's test uses), and a second layer's
['sum', 'mean']. Each slice checked against torch's scatter_reduce (include_self=False)."""

import _corpus18_support as S
import torch

S.bare_package("pyg_lib")
S.bare_package("pyg_lib.ops")
from pyg_lib.ops.scatter_reduce import fused_scatter_reduce  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
N, E, F = S.pick((200000, 2000000, 64), (50, 300, 8))
src = torch.randint(0, N, (E,), device=dev)
dst = torch.randint(0, N - N // 10, (E,), device=dev)  # the last tenth of the nodes get no messages
x = torch.randn(N, F, device=dev)


def reference(msg, index, reduce):
    out = torch.zeros(N, F, device=dev)
    idx = index.view(-1, 1).expand(-1, F)
    out = out.scatter_reduce(
        0,
        idx,
        msg,
        reduce="mean" if reduce == "mean" else {"sum": "sum", "min": "amin", "max": "amax"}[reduce],
        include_self=False,
    )
    return out


for layer, reduce_list in enumerate((["sum", "mean", "min", "max"], ["sum", "mean"])):
    msg = x[src].contiguous()
    out = fused_scatter_reduce(msg, dst, N, reduce_list)
    assert out.shape == (N, len(reduce_list) * F), out.shape
    for i, r in enumerate(reduce_list):
        err = S.rel_err(out[:, i * F : (i + 1) * F], reference(msg, dst, r))
        print(f"layer {layer}: {E} messages -> {N} nodes x {F}, {r}: rel err {err:.1e}")
        assert err < 1e-4, (r, err)
    x = torch.relu(out[:, :F] / 10 + out[:, F : 2 * F])
torch.cuda.synchronize()
print("pyglib_fused_scatter_reduce ok")
