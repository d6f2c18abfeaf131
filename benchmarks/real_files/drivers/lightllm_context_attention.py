"""Corpus driver (kx's code): LightLLM's Triton prefill attention with a prompt (prefix)
cache read through req_to_token_indexs (context_attention_fwd) and without one, GQA."""

import _corpus_support
import torch

_corpus_support.lightllm_kernels()
from lightllm.models.llama.triton_kernel.context_flashattention_nopad import (  # noqa: E402
    context_attention_fwd,
    context_attention_fwd_no_prompt_cache,
)

torch.manual_seed(0)
HQ, HKV, D, POOL, MAXLEN = 32, 8, 128, 65536, 8192
new = [512, 1000, 7, 2048]
cached = [1024, 0, 300, 16]
B = len(new)
req_to_token = torch.randperm(POOL, device="cuda", dtype=torch.int32)[: B * MAXLEN].view(B, MAXLEN)
b_req_idx = torch.arange(B, device="cuda", dtype=torch.int32)
b_seq_len = torch.tensor([a + b for a, b in zip(new, cached)], device="cuda", dtype=torch.int32)
b_prompt_cache_len = torch.tensor(cached, device="cuda", dtype=torch.int32)
b_start_loc = torch.tensor([0] + new[:-1], device="cuda").cumsum(0).to(torch.int32)
q = torch.randn(sum(new), HQ, D, device="cuda", dtype=torch.bfloat16)
k_pool = torch.randn(POOL, HKV, D, device="cuda", dtype=torch.bfloat16)
v_pool = torch.randn(POOL, HKV, D, device="cuda", dtype=torch.bfloat16)
o = torch.empty_like(q)
context_attention_fwd(
    q, k_pool, v_pool, o, b_req_idx, b_start_loc, b_seq_len, b_prompt_cache_len, max(new), req_to_token
)
k = torch.randn(sum(new), HKV, D, device="cuda", dtype=torch.float16)
v = torch.randn(sum(new), HKV, D, device="cuda", dtype=torch.float16)
o2 = torch.empty(sum(new), HQ, D, device="cuda", dtype=torch.float16)
context_attention_fwd_no_prompt_cache(
    q.half(), k, v, o2, b_start_loc, torch.tensor(new, device="cuda", dtype=torch.int32), max(new)
)
torch.cuda.synchronize()
print("lightllm context attention ok", tuple(o.shape), tuple(o2.shape))
