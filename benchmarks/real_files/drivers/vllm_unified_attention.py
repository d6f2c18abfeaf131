"""Corpus driver (kx's code): vLLM's Triton unified attention (the V1 Triton backend) on a
varlen paged batch: mixed prefill+decode (2D kernel, sliding window), then a decode-only
batch (3D split-softmax kernel + reduce), with an fp8 cache."""

import _corpus_support
import torch

_corpus_support.vllm_package()
from vllm.v1.attention.ops.triton_unified_attention import unified_attention  # noqa: E402
from vllm.v1.kv_cache_interface import KVQuantMode  # noqa: E402

torch.manual_seed(0)
HQ, HKV, D, BLOCK, NBLOCKS, SEGS, THRESH = 32, 8, 128, 16, 4096, 16, 64
k_cache = torch.randn(NBLOCKS, BLOCK, HKV, D, device="cuda", dtype=torch.bfloat16)
v_cache = torch.randn_like(k_cache)
segm_out = torch.empty(THRESH, HQ, SEGS, D, device="cuda", dtype=torch.float32)
segm_max = torch.empty(THRESH, HQ, SEGS, device="cuda", dtype=torch.float32)
segm_sum = torch.empty_like(segm_max)


def run(query_lens, kv_lens, k, v, window=(-1, -1), mode=KVQuantMode.NONE, descale=None):
    q = torch.randn(sum(query_lens), HQ, D, device="cuda", dtype=torch.bfloat16)
    cu_q = torch.tensor([0] + query_lens, device="cuda", dtype=torch.int32).cumsum(0, dtype=torch.int32)
    seqused_k = torch.tensor(kv_lens, device="cuda", dtype=torch.int32)
    tables = torch.randint(
        0, NBLOCKS, (len(kv_lens), (max(kv_lens) + BLOCK - 1) // BLOCK), device="cuda", dtype=torch.int32
    )
    out = torch.empty_like(q)
    unified_attention(
        q,
        k,
        v,
        out,
        cu_q,
        max(query_lens),
        seqused_k,
        max(kv_lens),
        D**-0.5,
        True,
        window,
        tables,
        0,
        None,
        descale,
        descale,
        seq_threshold_3D=THRESH,
        num_par_softmax_segments=SEGS,
        softmax_segm_output=segm_out,
        softmax_segm_max=segm_max,
        softmax_segm_expsum=segm_sum,
        kv_quant_mode=mode,
    )
    return out


run([1, 1, 517, 1, 2048], [1328, 4000, 1030, 18, 2048], k_cache, v_cache)  # prefill + decode: 2D
run([1, 1, 517, 1, 2048], [1328, 4000, 1030, 18, 2048], k_cache, v_cache, window=(1023, 0))
run([1] * 32, [1000 + 37 * i for i in range(32)], k_cache, v_cache)  # decode only: 3D + reduce
fp8 = torch.float8_e4m3fn
scale = torch.full((32, HKV), 0.05, device="cuda", dtype=torch.float32)
out = run(
    [1] * 32,
    [1000 + 37 * i for i in range(32)],
    k_cache.to(fp8),
    v_cache.to(fp8),
    mode=KVQuantMode.FP8_PER_TENSOR,
    descale=scale,
)
torch.cuda.synchronize()
print("vllm unified attention ok", tuple(out.shape))
