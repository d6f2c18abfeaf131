"""Corpus driver (kx's code): lmdeploy's fused MoE (lmdeploy/pytorch/kernels/cuda/fused_moe.py)
as the PyTorch engine's MoE layer calls it: router softmax + top-k on the host side
(torch.topk), then fused_moe(hidden, w1 (gate_up), w2 (down), topk_weights, topk_ids, topk,
renormalize): the two-phase Triton sort of token ids by expert, the autotuned fused_moe_kernel
(get_cuda_autotune_config with a prune function of the configs, key on N / K / M buckets)
for gate_up and down, silu_and_mul (activation.py), moe_reduce. Qwen3-30B-A3B-like expert
shapes scaled down: 64 experts, top-8, hidden 1024, expert FFN 384, bf16; a decode batch
(M=16), a prefill batch (M=1024, which on sm90 takes the compact routed-block kernels when
routes per expert >= 32), and an expert-parallel shard (num_experts=128, expert_offset=64:
zeros-initialised intermediates)."""

import _corpus_support
import torch

_corpus_support.lmdeploy_kernels()
from lmdeploy.pytorch.kernels.cuda.fused_moe import fused_moe  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
dtype = torch.bfloat16
E, TOPK, HID, FFN = 64, 8, 1024, 384
w1 = torch.randn(E, 2 * FFN, HID, dtype=dtype, device=dev) * 0.02
w2 = torch.randn(E, HID, FFN, dtype=dtype, device=dev) * 0.02
gate = torch.randn(HID, E, dtype=dtype, device=dev) * 0.02


def moe(x, num_experts=None, expert_offset=0):
    logits = x @ gate
    probs = logits.float().softmax(-1)
    if num_experts is not None:  # global router over all experts, this rank holds a shard
        probs = torch.cat([probs, probs.flip(-1)], dim=-1)
    topk_weights, topk_ids = torch.topk(probs, TOPK, dim=-1)
    return fused_moe(
        x,
        w1,
        w2,
        topk_weights,
        topk_ids,
        TOPK,
        num_experts=num_experts,
        expert_offset=expert_offset,
        renormalize=True,
    )


y1 = moe(torch.randn(16, HID, dtype=dtype, device=dev))
y2 = moe(torch.randn(1024, HID, dtype=dtype, device=dev))
y3 = moe(torch.randn(64, HID, dtype=dtype, device=dev), num_experts=2 * E, expert_offset=E)
torch.cuda.synchronize()
print(
    "lmdeploy fused moe ok",
    tuple(y1.shape),
    tuple(y2.shape),
    tuple(y3.shape),
    round(float(y2.float().abs().mean()), 5),
)
