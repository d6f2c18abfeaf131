"""Corpus driver (kx's code): SpargeAttn's Triton sparse attention,
Triton_SpargeAttn/triton_kernel_example.py's spas_sage_attn_meansim (a @torch.compiler.disable'd
entry point; upstream ships it as an example to drop into the spas_sage_attn package, whose
relative imports it uses, and the extract places it there). Per call: block-mean pooling and
self-similarity of Q / K blocks (triton_bmm_pool_sim_simmean), a pooled softmax, torch.sort +
cumsum + searchsorted against a per-head CDF threshold, triton_fill_block_map_kernel (a
data-dependent loop bound read from memory), triton_fill_causal_mask (grid = the mask's
torch.Size, BLKQ / BLKK passed as a Python float), per-block INT8 quantization
(quant_per_block.py), then the block-sparse INT8-QK / FP16-PV attention kernel that skips
key blocks the bool block map rules out (non-causal STAGE 1, causal stages 3 + 2).

1. a video-DiT shaped call (CogVideoX-like): bf16, 1 x 16 heads x 4096 tokens x 64, non-causal,
   default thresholds;
2. an LLM prefill: fp16, 2 x 8 heads x 2048 x 128, causal, attention sink, per-head tensor
   thresholds (simthreshd1 / cdfthreshd / pvthreshd as (H,) tensors);
3. the Triton preprocessing that spas_sage2_attn_meansim_topk_cuda runs on sm90 before its CUDA
   kernel (not built here): get_block_map_meansim_fuse_quant with its sm90 blocks (BLKQ=64,
   BLKK=128, so the causal block ratio is 0.5), topk=0.5 and the K mean fused into the pooled
   quantization kernel, return_lut=True -> block_map_lut_triton."""

import _corpus_support
import torch

_corpus_support.bare_package("spas_sage_attn", _corpus_support.find_on_path("spas_sage_attn"))
_corpus_support.einops_standin()  # utils.py imports einops at module level
from spas_sage_attn.triton_kernel_example import spas_sage_attn_meansim  # noqa: E402
from spas_sage_attn.utils import get_block_map_meansim_fuse_quant  # noqa: E402

torch.manual_seed(0)
dev = "cuda"

# 1. video DiT, non-causal
q, k, v = (torch.randn(1, 16, 4096, 64, device=dev, dtype=torch.bfloat16) for _ in range(3))
o1 = spas_sage_attn_meansim(q, k, v, is_causal=False)

# 2. LLM prefill, causal, per-head thresholds, attention sink
H = 8
q2, k2, v2 = (torch.randn(2, H, 2048, 128, device=dev, dtype=torch.float16) for _ in range(3))
o2 = spas_sage_attn_meansim(
    q2,
    k2,
    v2,
    is_causal=True,
    simthreshd1=torch.full((H,), 0.25),
    cdfthreshd=torch.linspace(0.9, 0.99, H),
    pvthreshd=torch.full((H,), 20.0),
    attention_sink=True,
)

# 3. top-k block map + fused-mean quantization + LUT (the CUDA API's Triton stage)
km = k2.mean(dim=-2, keepdim=True)
lut, valid_blocks, q_int8, q_scale, k_int8, k_scale = get_block_map_meansim_fuse_quant(
    q2,
    k2,
    km,
    is_causal=True,
    simthreshd1=-0.1,
    cdfthreshd=None,
    topk=0.5,
    return_lut=True,
    BLKQ=64,
    BLKK=128,
)

torch.cuda.synchronize()
print(
    "sparge triton ok",
    tuple(o1.shape),
    tuple(o2.shape),
    tuple(lut.shape),
    round(valid_blocks.float().mean().item(), 2),
    q_int8.dtype,
    tuple(k_scale.shape),
)
