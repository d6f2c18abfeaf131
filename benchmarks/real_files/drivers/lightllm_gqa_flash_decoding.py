"""Corpus driver (kx's code): LightLLM's GQA flash-decoding (split-sequence stage 1 over the
token pool via req_to_token_indexs, stage 2 reduce) as its Llama decode step calls it."""

import types

import _corpus_support
import torch

_corpus_support.lightllm_kernels()
from lightllm.models.llama.triton_kernel.gqa_flash_decoding import gqa_token_decode_attention_flash_decoding  # noqa: E402

torch.manual_seed(0)
HQ, HKV, D, POOL, MAXLEN = 32, 8, 128, 65536, 8192
seq_lens = [4000, 17, 1025, 8000, 129, 2048, 3, 777]
B = len(seq_lens)
req_to_token = torch.randperm(POOL, device="cuda", dtype=torch.int32)[: B * MAXLEN].view(B, MAXLEN)
infer_state = types.SimpleNamespace(
    batch_size=B,
    max_len_in_batch=max(seq_lens),
    b_req_idx=torch.arange(B, device="cuda", dtype=torch.int32),
    b_seq_len=torch.tensor(seq_lens, device="cuda", dtype=torch.int32),
    req_manager=types.SimpleNamespace(req_to_token_indexs=req_to_token),
)
q = torch.randn(B, HQ * D, device="cuda", dtype=torch.bfloat16)
cache_k = torch.randn(POOL, HKV, D, device="cuda", dtype=torch.bfloat16)
cache_v = torch.randn(POOL, HKV, D, device="cuda", dtype=torch.bfloat16)


def alloc(shape, dtype, device):  # LightLLM passes its cache manager's allocator here
    return torch.empty(shape, dtype=dtype, device=device)


o = gqa_token_decode_attention_flash_decoding(
    q, infer_state, HQ, D, cache_k, cache_v, alloc_tensor_func=alloc
)
torch.cuda.synchronize()
print("lightllm gqa flash decoding ok", tuple(o.shape))
