"""Corpus driver (kx's code): vLLM's fused MoE Triton GEMMs through fused_experts ->
torch.ops.vllm.outplace_fused_experts (direct_register_custom_op), with the H200 tuning
file for E=128, N=768 (Qwen3-30B-A3B's experts, top-8): a prefill batch and a decode batch."""

import _corpus_support
import torch

_corpus_support.vllm_fused_moe()
from vllm.model_executor.layers.fused_moe.fused_moe import fused_experts  # noqa: E402

torch.manual_seed(0)
E, TOPK, H, N = 128, 8, 2048, 768
w1 = torch.randn(E, 2 * N, H, device="cuda", dtype=torch.bfloat16) / 32
w2 = torch.randn(E, H, N, device="cuda", dtype=torch.bfloat16) / 32
for M in (2048, 16):
    x = torch.randn(M, H, device="cuda", dtype=torch.bfloat16)
    router = torch.randn(M, E, device="cuda", dtype=torch.float32)
    topk_weights, topk_ids = torch.topk(router.softmax(-1), TOPK, dim=-1)
    out = fused_experts(x, w1, w2, topk_weights, topk_ids.to(torch.int32))
torch.cuda.synchronize()
print("vllm fused moe ok", tuple(out.shape))
