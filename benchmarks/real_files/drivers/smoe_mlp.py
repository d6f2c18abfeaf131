"""Corpus driver (kx's code): shawntan/scattermoe's ScatterMoE layers (scattermoe/mlp.py MLP and
GLUMLP over parallel_experts.ParallelExperts) used as its README and tests/test_mlp.py use them:
a softmax router's top-k weights and indices, `Y = mlp(X, k_weights, k_idxs)`, and
torch.autograd.grad of Y against X, the gates and the expert weights (and biases). Inside:
flatten_sort_count (a torch.compile'd sort + the scattermoe::bincount custom op), and the Triton
kernels behind torch.library custom ops (scattermoe::scatter2scatter, ::groupXtY, ::group):
_scatter2scatter and _groupXtY (triton.autotune keyed on M/N/K, triton.heuristics for the
K/N masks) and _group. Shapes from the tests (E 8, fp32 with TF32 off as the tests set it, x_dim
128/600, k 2/4, lengths 1/512, with and without bias, GELU) and a bf16 Mixtral-like GLUMLP
(4096 tokens, d 1024, hidden 1536, 8 experts top-2, SiLU)."""

import _corpus5_support
import torch
from torch import nn

_corpus5_support.scattermoe_package()
import scattermoe.kernels.ops  # noqa: E402
from scattermoe.mlp import GLUMLP, MLP  # noqa: E402

torch.manual_seed(0)
scattermoe.kernels.ops.ALLOW_TF32 = False  # tests/test_mlp.py
E = 8
for length, x_dim, k, bias in [(512, 128, 2, False), (512, 600, 4, True), (1, 128, 2, True)]:
    h_dim = (4 * x_dim) // k
    logits = torch.randn(length, E)
    weights = torch.softmax(logits.float(), axis=-1).cuda()
    X = torch.randn(length, x_dim, requires_grad=True).cuda()
    DY = torch.randn(length, x_dim).cuda()
    k_weights, k_idxs = torch.topk(weights, k)
    k_weights.requires_grad_()
    mlp = MLP(
        input_size=x_dim, hidden_size=h_dim, activation=nn.GELU(), num_experts=E, top_k=k, bias=bias
    ).cuda()
    if bias:
        nn.init.normal_(mlp.experts.bias, std=0.02)
        nn.init.normal_(mlp.output_experts.bias, std=0.02)
    Y = mlp(X, k_weights, k_idxs)
    inputs = (X, k_weights, mlp.experts.weight, mlp.output_experts.weight)
    if bias:
        inputs += (mlp.experts.bias, mlp.output_experts.bias)
    grads = torch.autograd.grad(outputs=(Y,), inputs=inputs, grad_outputs=(DY,))
    print(length, x_dim, k, bias, tuple(Y.shape), [tuple(g.shape) for g in grads])

scattermoe.kernels.ops.ALLOW_TF32 = True
tokens, d, hidden = 4096, 1024, 1536
router = nn.Linear(d, E, bias=False).cuda().bfloat16()
moe = GLUMLP(input_size=d, hidden_size=hidden, num_experts=E, top_k=2).cuda().bfloat16()
x = torch.randn(tokens, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
probs = torch.softmax(router(x).float(), dim=-1)
k_weights, k_idxs = torch.topk(probs, 2)
k_weights = (k_weights / k_weights.sum(-1, keepdim=True)).to(x.dtype)
y = moe(x, k_weights, k_idxs)
y.float().pow(2).mean().backward()
torch.cuda.synchronize()
print("scattermoe mlp ok", tuple(y.shape), tuple(moe.experts.weight.grad.shape), x.grad.dtype)
