"""Corpus driver (kx's code): ECMWF anemoi's Triton GraphTransformer attention
(ecmwf/anemoi-core, models/src/anemoi/models/triton/gt.py) on the paths its
build_masks_and_offsets pads: heads and channels that are not powers of two (H 6 / C 24: both
padded and masked; H 8 / C 40: channels only), in bfloat16 (the bwd kernels' grad_dtype
bfloat16 branch) and float16, forward and backward through graph_transformer_attention_conv on
a processor-style graph (a 10k-node mesh onto itself); output and gradients checked against a
float32 scatter-softmax reference. The extracted file is the module anemoi_gt."""

import _corpus17_support as S
import torch
from anemoi_gt import graph_transformer_attention_conv

torch.manual_seed(0)
dev = "cuda"
N, DEG = S.pick((10242, 16), (9, 3))
CASES = S.pick(
    [(6, 24, torch.bfloat16), (8, 40, torch.bfloat16), (6, 24, torch.float16)],
    [(3, 6, torch.bfloat16), (2, 6, torch.float16)],
)

csc, reverse, edge_index = S.random_csc_graph(N, N, DEG, dev, seed=1)
M = edge_index.shape[1]
for H, C, dtype in CASES:
    q, k, v = (torch.randn(N, H, C, device=dev, dtype=dtype, requires_grad=True) for _ in range(3))
    e = torch.randn(M, H, C, device=dev, dtype=dtype, requires_grad=True)
    out = graph_transformer_attention_conv(q, k, v, e, csc, reverse)
    assert out.dtype == dtype and out.shape == (N, H, C)
    d_out = torch.randn_like(out)
    out.backward(d_out)
    got = [out.detach()] + [t.grad.clone() for t in (q, k, v, e)]
    leaves = [t.detach().float().requires_grad_() for t in (q, k, v, e)]
    want_out = S.graph_attention_reference(*leaves, edge_index)
    want_out.backward(d_out.float())
    want = [want_out.detach()] + [t.grad for t in leaves]
    errs = [S.rel_err(a, b) for a, b in zip(got, want)]
    print(f"H {H} C {C} {dtype}: {M} edges, rel err out/dq/dk/dv/de " + " ".join(f"{x:.1e}" for x in errs))
    assert max(errs) < 5e-2, errs
torch.cuda.synchronize()
print("anemoi_gt_attention_odd_bf16 ok")
