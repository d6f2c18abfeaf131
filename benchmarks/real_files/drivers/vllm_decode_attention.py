"""Corpus driver (kx's code): vLLM's Triton paged decode attention (split-KV stage 1 +
reduce stage 2) for GQA with a paged bf16 cache, an fp8 cache with per-tensor scales,
and MLA's 576/512 head dims."""

import _corpus_support
import torch

_corpus_support.vllm_package()
from vllm.v1.attention.ops.triton_decode_attention import decode_attention_fwd  # noqa: E402

torch.manual_seed(0)
B, L, PAGE, CACHE, SPLITS = 8, 2047, 16, 32768, 8
pages = (L + PAGE - 1) // PAGE
req_to_page = torch.randint(0, CACHE // PAGE, (B, pages), device="cuda", dtype=torch.int32)
b_seq_len = torch.full((B,), L, device="cuda", dtype=torch.int32)

for H_Q, H_KV, D_QK, D_V, kv_dtype, mla in [
    (32, 8, 128, 128, torch.bfloat16, False),
    (32, 8, 128, 128, torch.float8_e4m3fn, False),
    (16, 1, 576, 512, torch.bfloat16, True),
]:
    q = torch.randn(B, H_Q, D_QK, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(CACHE // PAGE, PAGE, H_KV, D_QK, device="cuda", dtype=torch.bfloat16).to(kv_dtype)
    v = torch.randn(CACHE // PAGE, PAGE, H_KV, D_V, device="cuda", dtype=torch.bfloat16).to(kv_dtype)
    scales = {}
    if kv_dtype != torch.bfloat16:
        scales = dict(k_scale=torch.tensor(0.02, device="cuda"), v_scale=torch.tensor(0.02, device="cuda"))
    o = torch.empty(B, H_Q, D_V, device="cuda", dtype=torch.bfloat16)
    lse = torch.empty(B, H_Q, device="cuda", dtype=torch.float32)
    logits = torch.empty(B, H_Q, SPLITS, D_V + 1, device="cuda", dtype=torch.float32)
    decode_attention_fwd(
        q, k, v, o, lse, req_to_page, b_seq_len, logits, SPLITS, D_QK**-0.5, PAGE, is_mla=mla, **scales
    )
torch.cuda.synchronize()
print("vllm decode attention ok", tuple(o.shape))
