"""Corpus driver (kx's code): ServiceNow/Fast-LLM's dropless mixture-of-experts kernels in Triton
(fast_llm/functional/triton/sparse_copy.py: get_sparse_map (a tl.histogram + atomic_add kernel
counting tokens per expert, then a torch.compile'd layout of padded expert ranges), copy between
the dense token order and the expert-sorted padded order, forward and backward with the router
scores' gradient; fast_llm/functional/triton/sparse_linear.py: the autotuned output-sparse and
input-inner-sparse matmuls behind OutputSparseLinear / InputSparseLinear and their backward's
input-row-sparse matmul) as an MoE MLP layer runs them: bf16, 8 x 1024 tokens, d 2048, 8 experts
of hidden 1536 (gated: w1 holds gate | up), top-2 routing with softmax scores, the sparse map
sized from the real expert counts (dynamic_shape: a host read of the padded row count), forward +
backward, compared with a per-expert torch loop in fp32."""

import _corpus10_support as S
import torch
import torch.nn.functional as F
from fast_llm.functional.triton.sparse_copy import (
    copy_dense_to_sparse_autograd,
    copy_sparse_to_dense_autograd,
    get_sparse_map,
)
from fast_llm.functional.triton.sparse_linear import (
    input_sparse_linear_autograd,
    output_sparse_linear_autograd,
)

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
# every matmul dimension a multiple of the largest autotune block (the kernels static_assert it)
T, D, E, F_, K = S.pick((8 * 1024, 2048, 8, 1536, 2), (48, 256, 4, 256, 2))


def leaf(*shape, scale):
    return (torch.randn(*shape, device=dev) * scale).to(dt).requires_grad_()


x = leaf(T, D, scale=1.0)
router = leaf(D, E, scale=D**-0.5)
w1 = leaf(D, E * 2 * F_, scale=D**-0.5)  # per expert: [gate | up] columns
w2 = leaf(E * F_, D, scale=F_**-0.5)


def moe_sparse():
    scores, top = torch.topk((x @ router).float().softmax(-1), K, dim=-1)
    scores = (scores / scores.sum(-1, keepdim=True)).to(dt)
    smap = get_sparse_map(top, E, dynamic_shape=True)
    xs = copy_dense_to_sparse_autograd(x, smap)
    h = output_sparse_linear_autograd(xs, w1, smap)
    gate, up = h.chunk(2, dim=-1)
    h = F.silu(gate) * up
    y = input_sparse_linear_autograd(h.contiguous(), w2, smap)
    return copy_sparse_to_dense_autograd(y, scores, smap), smap


def moe_reference():
    xf, rf, w1f, w2f = (t.float() for t in (x, router, w1, w2))
    scores, top = torch.topk((xf @ rf).softmax(-1), K, dim=-1)
    scores = scores / scores.sum(-1, keepdim=True)
    out = torch.zeros(T, D, device=dev)
    for e in range(E):
        tok, slot = (top == e).nonzero(as_tuple=True)
        w1e = w1f[:, e * 2 * F_ : (e + 1) * 2 * F_]
        gate, up = (xf[tok] @ w1e).chunk(2, dim=-1)
        ye = (F.silu(gate) * up) @ w2f[e * F_ : (e + 1) * F_]
        out.index_add_(0, tok, ye * scores[tok, slot, None])
    return out


dout = torch.randn(T, D, device=dev, dtype=dt)
params = [x, router, w1, w2]
out, smap = moe_sparse()
(out.float() * dout.float()).sum().backward()
grads = [p.grad.clone() for p in params]
for p in params:
    p.grad = None
print(
    "sparse map", f"{smap.num_rows} padded rows for {smap.num_rows_unpadded} routed tokens",
    "expert ends", smap.expert_ends.tolist(),
)
ref = moe_reference()
(ref * dout.float()).sum().backward()
print(
    "moe layer", (T, D, E, F_), f"out rel err {S.rel_err(out, ref):.1e}",
    "grads " + " ".join(f"{S.rel_err(g, p.grad):.1e}" for g, p in zip(grads, params, strict=True)),
)
torch.cuda.synchronize()
print("fast-llm sparse moe ok")
