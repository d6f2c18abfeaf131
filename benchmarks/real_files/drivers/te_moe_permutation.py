"""Corpus driver (kx's code): TransformerEngine's fused MoE token permutation (mask-map routing)
through transformer_engine.pytorch.permutation's public API, which runs as torch.library custom
ops (te_moe::permute_mask_map_fwd / unpermute_mask_map_fwd / chunk_sort_fwd with
register_autograd backwards) over the Triton kernels in transformer_engine/common/triton/
permutation.py (row-id map passes 1-3 with a bitonic argsort, @triton.autotune'd permute /
unpermute / unpermute-with-merging-probs backward / chunk sort, key hidden_size).

A top-4-of-16 router over 4096 bf16 tokens (hidden 2048), as Megatron-Core's token
dispatchers call it:
1. all-to-all style: moe_permute_with_probs (fp32 probs) -> moe_sort_chunks_by_index_with_probs
   (tp=2 local chunks) -> expert FFN scaled by the permuted probs -> moe_sort_chunks_by_index
   back -> moe_unpermute (no merging probs), backward through all of it;
2. FP8-alignment path: moe_permute_and_pad_with_probs (tokens_per_expert padded to 16, the
   output row count read on the host with .item()) -> moe_unpermute with merging_probs and
   pad_offsets, backward (the unpermute-with-merging-probs backward kernel);
3. moe_permute (map_type="mask", no probs) + moe_unpermute with bf16 merging probs, forward."""

import _corpus_support
import torch

_corpus_support.transformer_engine_triton(permutation=True)
from transformer_engine.pytorch.permutation import (  # noqa: E402
    moe_permute,
    moe_permute_and_pad_with_probs,
    moe_permute_with_probs,
    moe_sort_chunks_by_index,
    moe_sort_chunks_by_index_with_probs,
    moe_unpermute,
)

torch.manual_seed(0)
T, H, E, K, TP = 4096, 2048, 16, 4, 2
dev = "cuda"

hidden = torch.randn(T, H, device=dev, dtype=torch.bfloat16, requires_grad=True)
router = torch.nn.Linear(H, E, bias=False, device=dev, dtype=torch.bfloat16)
logits = router(hidden).float()
scores, top = logits.softmax(-1).topk(K, dim=-1)
routing_map = torch.zeros(T, E, device=dev, dtype=torch.bool).scatter_(1, top, True)
probs = torch.zeros(T, E, device=dev).scatter(1, top, scores / scores.sum(-1, keepdim=True))
num_out = T * K

# 1. permute -> chunk sort (tp-local expert order) -> experts -> sort back -> unpermute
w_expert = (torch.randn(H, H, device=dev, dtype=torch.bfloat16) * H**-0.5).requires_grad_()
out, pprobs, row_id_map = moe_permute_with_probs(hidden, probs, routing_map, num_out_tokens=num_out)
tokens_per_chunk = torch.bincount(torch.randint(0, E * TP, (num_out,)), minlength=E * TP)
split_sizes = tokens_per_chunk.to(dev, torch.int32)
order = torch.arange(E * TP, dtype=torch.int32).reshape(TP, E).T.ravel()
out, pprobs = moe_sort_chunks_by_index_with_probs(out, pprobs, split_sizes, order.to(dev))
expert_out = (torch.nn.functional.silu(out @ w_expert) * pprobs.unsqueeze(-1)).to(torch.bfloat16)
inverse = torch.empty_like(order)
inverse[order.long()] = torch.arange(E * TP, dtype=torch.int32)
split_back = tokens_per_chunk[order.long()].to(dev, torch.int32)
back = moe_sort_chunks_by_index(expert_out, split_back, inverse.to(dev))
combined = moe_unpermute(back, row_id_map, restore_shape=hidden.shape, map_type="mask")
combined.float().square().mean().backward()

# 2. permute + pad to the FP8 GEMM alignment, unpermute with merging probs and pad offsets
tokens_per_expert = routing_map.sum(0)
x2 = hidden.detach().requires_grad_(True)
p2 = probs.detach().to(torch.bfloat16).requires_grad_(True)
padded, padded_probs, rid2, pad_offsets, padded_counts = moe_permute_and_pad_with_probs(
    x2, p2, routing_map, tokens_per_expert, 16
)
merge = probs.detach().requires_grad_(True)
y2 = moe_unpermute(padded * 2.0, rid2, merge, restore_shape=x2.shape, pad_offsets=pad_offsets)
(y2.float().sum() + padded_probs.float().sum()).backward()

# 3. plain mask-map permute, unpermute merging bf16 probs
out3, rid3 = moe_permute(hidden.detach(), routing_map, num_out_tokens=num_out, map_type="mask")
y3 = moe_unpermute(
    out3, rid3, merging_probs=probs.detach().to(torch.bfloat16), restore_shape=hidden.shape, map_type="mask"
)

torch.cuda.synchronize()
print(
    "te moe permutation ok",
    tuple(combined.shape),
    tuple(padded.shape),
    int(padded_counts.sum()),
    tuple(y3.shape),
    tuple(hidden.grad.shape),
    tuple(merge.grad.shape),
)
