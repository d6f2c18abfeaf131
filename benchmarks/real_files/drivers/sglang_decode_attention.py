"""Corpus driver (kx's code): SGLang's Triton decode attention (split-KV stage 1 + reduce)
over the token-level KV pool (kv_indptr/kv_indices), with per-request num_kv_splits: GQA
with attention sinks, and MLA (576/512, one KV head)."""

import _corpus_support
import torch

_corpus_support.sglang_package()
from sglang.srt.layers.attention.triton_ops.decode_attention import decode_attention_fwd  # noqa: E402

torch.manual_seed(0)
seq_lens = [2048, 17, 1000, 4096, 333, 1, 777, 3000]
B, POOL, MAX_SPLITS = len(seq_lens), 65536, 16
kv_indptr = torch.tensor([0] + seq_lens, device="cuda").cumsum(0).to(torch.int32)
kv_indices = torch.randperm(POOL, device="cuda")[: sum(seq_lens)].to(torch.int64)
num_kv_splits = torch.tensor(
    [min(MAX_SPLITS, max(1, n // 256)) for n in seq_lens], device="cuda", dtype=torch.int32
)

for HQ, HKV, DK, DV, sinks in [(64, 8, 128, 128, True), (16, 1, 576, 512, False)]:
    q = torch.randn(B, HQ, DK, device="cuda", dtype=torch.bfloat16)
    k_buf = torch.randn(POOL, HKV, DK, device="cuda", dtype=torch.bfloat16)
    v_buf = k_buf[..., :DV] if DK != DV else torch.randn(POOL, HKV, DV, device="cuda", dtype=torch.bfloat16)
    o = torch.empty(B, HQ, DV, device="cuda", dtype=torch.bfloat16)
    logits = torch.empty(B, HQ, MAX_SPLITS, DV, device="cuda", dtype=torch.float32)
    lse = torch.empty(B, HQ, MAX_SPLITS, device="cuda", dtype=torch.float32)
    s = torch.randn(HQ, device="cuda", dtype=torch.float32) if sinks else None
    decode_attention_fwd(
        q, k_buf, v_buf, o, kv_indptr, kv_indices, logits, lse, num_kv_splits, MAX_SPLITS, DK**-0.5, sinks=s
    )
torch.cuda.synchronize()
print("sglang decode attention ok", tuple(o.shape))
