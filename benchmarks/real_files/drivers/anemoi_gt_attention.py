"""Corpus driver (kx's code): ECMWF anemoi's Triton GraphTransformer attention
(ecmwf/anemoi-core, models/src/anemoi/models/triton/gt.py: _gt_fwd, a per-destination-node
online-softmax over the incoming edges of a CSC graph with the edge features added to keys and
values, the log-sum-exp saved for _gt_bwd_dst_pass / _gt_bwd_src_pass, all behind
torch.library.custom_op with fake kernels and register_autograd) called through the file's
graph_transformer_attention_conv as anemoi's GraphTransformerConv calls it: an encoder-sized
bipartite graph (a data grid of about 40k nodes onto a 10k-node hidden mesh, 16 heads of 64
channels) in float32, forward and backward; output and the four gradients checked against a
scatter-softmax PyTorch reference. The extracted file is the module anemoi_gt."""

import _corpus17_support as S
import torch
from anemoi_gt import graph_transformer_attention_conv

torch.manual_seed(0)
dev = "cuda"
N_SRC, N_DST, DEG, H, C = S.pick((40320, 10242, 12, 16, 64), (12, 10, 3, 2, 4))

csc, reverse, edge_index = S.random_csc_graph(N_SRC, N_DST, DEG, dev)
M = edge_index.shape[1]
q = torch.randn(N_DST, H, C, device=dev, requires_grad=True)
k = torch.randn(N_SRC, H, C, device=dev, requires_grad=True)
v = torch.randn(N_SRC, H, C, device=dev, requires_grad=True)
e = torch.randn(M, H, C, device=dev, requires_grad=True)

out = graph_transformer_attention_conv(q, k, v, e, csc, reverse)
d_out = torch.randn_like(out)
out.backward(d_out)
got = [out.detach()] + [t.grad.clone() for t in (q, k, v, e)]
for t in (q, k, v, e):
    t.grad = None

want_out = S.graph_attention_reference(q, k, v, e, edge_index)
want_out.backward(d_out)
want = [want_out.detach()] + [t.grad for t in (q, k, v, e)]
print(f"graph: {N_SRC} src -> {N_DST} dst, {M} edges, {H} heads x {C} channels")
for name, a, b in zip(("out", "dq", "dk", "dv", "de"), got, want):
    err = S.rel_err(a, b)
    print(f"{name}: rel err {err:.1e}")
    assert err < 1e-4, (name, err)
assert got[0][0].abs().max() == 0  # destination 0 has no incoming edges
torch.cuda.synchronize()
print("anemoi_gt_attention ok")
