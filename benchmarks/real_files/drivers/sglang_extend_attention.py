"""Corpus driver (kx's code): SGLang's Triton extend (prefill with cached prefix) attention:
extend_attention_fwd over prefix KV in the token pool plus the new tokens, with a sliding
window, then the unified 1-stage deterministic kernel with build_unified_kv_indices."""

import _corpus_support
import torch

_corpus_support.sglang_package()
from sglang.srt.layers.attention.triton_ops.extend_attention import (  # noqa: E402
    build_unified_kv_indices,
    extend_attention_fwd,
    extend_attention_fwd_unified,
)

torch.manual_seed(0)
HQ, HKV, D, POOL = 32, 8, 128, 65536
prefix = [1024, 0, 77, 2048]
extend = [512, 1000, 1, 129]
B = len(prefix)
pool = torch.randperm(POOL, device="cuda")
k_buf = torch.randn(POOL, HKV, D, device="cuda", dtype=torch.bfloat16)
v_buf = torch.randn(POOL, HKV, D, device="cuda", dtype=torch.bfloat16)
qo_indptr = torch.tensor([0] + extend, device="cuda").cumsum(0).to(torch.int32)
kv_indptr = torch.tensor([0] + prefix, device="cuda").cumsum(0).to(torch.int32)
kv_indices = pool[: sum(prefix)].to(torch.int64)
T = sum(extend)
q = torch.randn(T, HQ, D, device="cuda", dtype=torch.bfloat16)
k = torch.randn(T, HKV, D, device="cuda", dtype=torch.bfloat16)
v = torch.randn(T, HKV, D, device="cuda", dtype=torch.bfloat16)
o = torch.empty_like(q)
extend_attention_fwd(
    q, k, v, o, k_buf, v_buf, qo_indptr, kv_indptr, kv_indices, None, True, None, max(extend)
)
extend_attention_fwd(
    q,
    k,
    v,
    o,
    k_buf,
    v_buf,
    qo_indptr,
    kv_indptr,
    kv_indices,
    None,
    True,
    None,
    max(extend),
    sliding_window_size=4096,
)

extend_kv_indices = pool[sum(prefix) : sum(prefix) + T].to(torch.int64)
extend_lens = torch.tensor(extend, device="cuda", dtype=torch.int32)
u_indptr, u_indices, prefix_lens = build_unified_kv_indices(
    kv_indptr, kv_indices, qo_indptr[:-1], extend_lens, extend_kv_indices, B
)
extend_attention_fwd_unified(q, o, k_buf, v_buf, qo_indptr, u_indptr, u_indices, prefix_lens, max(extend))
torch.cuda.synchronize()
print("sglang extend attention ok", tuple(o.shape))
