"""Corpus driver (kx's code): megablocks' Triton token-permutation kernels
(megablocks/backend/kernels.py, each @triton.autotune'd over BLOCK_X / num_warps keyed on the
row width). A megablocks.layers.moe.MoE layer (top-2 learned router, capacity factor 1, dense
batched-matmul experts, bf16) forward + backward with the load-balancing loss: binned_gather /
binned_scatter and the expert-weight gradient kernel. Then the dropless (dMoE) permutation as
megablocks.ops runs it: sort / histogram / round_up / inclusive_cumsum metadata, padded_gather
and padded_scatter (output rows read back from the padded bins) with weight gradients, and the
unpadded gather / scatter pair of the expert-parallel path. megablocks' CUDA extension
(sort, histogram, cumsum), stk and grouped_gemm are stand-ins (see megablocks_package)."""

import functools

import _corpus_support
import torch

_corpus_support.megablocks_package()
from megablocks import ops  # noqa: E402
from megablocks.layers.arguments import Arguments  # noqa: E402
from megablocks.layers.moe import MoE, batched_load_balancing_loss, clear_load_balancing_loss  # noqa: E402

torch.manual_seed(0)
args = Arguments(
    hidden_size=1024,
    ffn_hidden_size=2048,
    moe_num_experts=8,
    moe_top_k=2,
    moe_capacity_factor=1,
    init_method=functools.partial(torch.nn.init.normal_, mean=0.0, std=0.02),
    fp16=False,
    bf16=True,
)
moe = MoE(args)
x = torch.randn(512, 4, 1024, device="cuda", dtype=torch.bfloat16, requires_grad=True)  # [sl, bs, hs]
out, bias = moe(x)
loss = (out + bias).float().square().mean() + batched_load_balancing_loss(args)
loss.backward()
clear_load_balancing_loss()

# dropless (dMoE) permutation: rows padded to blocks of 128 per expert
tokens, hidden, num_experts, top_k = 2048, 768, 16, 2
h = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
top_expert = torch.randint(0, num_experts, (tokens * top_k,), device="cuda").int()
weights = torch.rand(tokens * top_k, device="cuda", dtype=torch.bfloat16, requires_grad=True)
bin_ids, indices = ops.sort(top_expert, 4)
tokens_per_expert = ops.histogram(top_expert, num_experts)
padded_bins = ops.inclusive_cumsum(ops.round_up(tokens_per_expert, 128), 0)
bins = ops.inclusive_cumsum(tokens_per_expert, 0)
xp = ops.padded_gather(h, indices, bin_ids, bins, padded_bins, top_k)
yp = ops.padded_scatter(xp * 2, indices, bin_ids, weights, bins, padded_bins, top_k)
yp.float().sum().backward()

# expert-parallel path: unpadded gather / scatter
xg = ops.gather(h, indices, bin_ids, bins, top_k)
yg = ops.scatter(xg, indices, bin_ids, weights, bins, top_k)
yg.float().square().sum().backward()
torch.cuda.synchronize()
print(
    "megablocks permute ok",
    tuple(out.shape),
    tuple(x.grad.shape),
    tuple(xp.shape),
    tuple(weights.grad.shape),
    tuple(yg.shape),
)
