"""Corpus driver (kx's code): SageAttention's Triton path, sageattention.core.
sageattn_qk_int8_pv_fp16_triton (the public per-block INT8-QK / FP16-PV attention; sageattn()
itself dispatches an H200 (sm90) to the CUDA fp8 kernels, which are not built here): Triton
per-block INT8 quantization of Q (sm_scale * log2 e folded in) and K (after smooth_k mean
subtraction), then the attention kernels of sageattention/triton/attn_qk_int8_per_block.py
(non-causal, optional mask) and attn_qk_int8_per_block_causal.py, forward only (inference).

Cases, in the shapes video-diffusion and LLM users pass:
1. HND bf16, GQA 32/8 heads, head_dim 128, 2048 tokens, non-causal, no mask (mask pointer
   None -> a constexpr-None branch; lse buffer is an empty CPU tensor);
2. NHD fp16, head_dim 64, 1000 tokens (partial tail blocks), causal, return_lse=True (the
   smooth_k LSE correction matmul on the host side);
3. HND bf16, head_dim 80 (zero-padded to 128 by the wrapper), a boolean key-padding mask
   broadcast to (b, h, q, k) (int1 mask pointer, whole-block skip via tl.max), then an
   additive bf16 mask (float mask branch)."""

import _corpus_support
import torch

_corpus_support.sageattention_package()
from sageattention.core import sageattn_qk_int8_pv_fp16_triton  # noqa: E402

torch.manual_seed(0)
dev = "cuda"

# 1. HND, GQA, non-causal
q = torch.randn(2, 32, 2048, 128, device=dev, dtype=torch.bfloat16)
k = torch.randn(2, 8, 2048, 128, device=dev, dtype=torch.bfloat16)
v = torch.randn(2, 8, 2048, 128, device=dev, dtype=torch.bfloat16)
o1 = sageattn_qk_int8_pv_fp16_triton(q, k, v, tensor_layout="HND", is_causal=False)

# 2. NHD, causal, with LSE
q2 = torch.randn(2, 1000, 16, 64, device=dev, dtype=torch.float16)
k2 = torch.randn(2, 1000, 16, 64, device=dev, dtype=torch.float16)
v2 = torch.randn(2, 1000, 16, 64, device=dev, dtype=torch.float16)
o2, lse2 = sageattn_qk_int8_pv_fp16_triton(q2, k2, v2, tensor_layout="NHD", is_causal=True, return_lse=True)

# 3. HND, head_dim 80, key-padding masks (bool, then additive)
b, h, n, d = 2, 12, 1024, 80
q3, k3, v3 = (torch.randn(b, h, n, d, device=dev, dtype=torch.bfloat16) for _ in range(3))
valid = torch.tensor([1024, 700], device=dev)
key_ok = torch.arange(n, device=dev)[None, :] < valid[:, None]  # (b, k)
bool_mask = key_ok[:, None, None, :]  # broadcast over heads and queries
o3 = sageattn_qk_int8_pv_fp16_triton(q3, k3, v3, attn_mask=bool_mask)
add_mask = torch.zeros(b, 1, n, n, device=dev, dtype=torch.bfloat16).masked_fill(~bool_mask, -1e4)
o4 = sageattn_qk_int8_pv_fp16_triton(q3, k3, v3, attn_mask=add_mask)

torch.cuda.synchronize()
print(
    "sage triton ok",
    tuple(o1.shape),
    tuple(o2.shape),
    tuple(lse2.shape),
    tuple(o3.shape),
    round((o3.float() - o4.float()).abs().max().item(), 3),
)
