"""Corpus driver (kx's code): lucidrains/PoPE-pytorch's fused Triton flash attention with
polar positional embeddings (flash_attn_with_pope(fused=True) -> FlashAttnFunction:
@triton.heuristics'd _fwd_kernel / _bwd_kernel, _bwd_preprocess; the backward atomically
accumulates dq, dfreqs and the learned PoPE bias), forward and backward as the upstream
tests call it: (b, n, h, d) layout, bf16 causal training with a key-padding mask, fp16
non-causal, a one-token decode query against a 1024-key cache, and the GQA similarity
kernel compute_attn_similarity (triton_pope.PoPESimilarityFunction) in fp32.
torch_einops_utils (imported by pope.py for the unfused path only) is stubbed."""

import _corpus_support
import torch

_corpus_support.einops_full_standin()  # PoPE's frequency table uses einops.einsum


def _slice_right_at_dim(*args, **kwargs):
    raise NotImplementedError("torch_einops_utils stand-in: only the unfused PoPE path calls this")


_corpus_support.stub_module("torch_einops_utils", slice_right_at_dim=_slice_right_at_dim)
from PoPE_pytorch import PoPE, compute_attn_similarity, flash_attn_with_pope  # noqa: E402

torch.manual_seed(0)
B, H, D, ROT = 2, 8, 64, 32
pope = PoPE(ROT, heads=H).cuda()
with torch.no_grad():
    pope.bias.uniform_(-1.0, 0.0)  # a trained-looking learned phase bias


def qkv(b, nq, nk, dtype):
    def mk(n):
        return torch.randn(b, n, H, D, device="cuda", dtype=dtype, requires_grad=True)

    return mk(nq), mk(nk), mk(nk)


# bf16 causal training step with key padding
q, k, v = qkv(B, 1024, 1024, torch.bfloat16)
mask = torch.ones(B, 1024, device="cuda", dtype=torch.bool)
mask[1, 700:] = False
out = flash_attn_with_pope(q, k, v, pos_emb=pope(1024), mask=mask, causal=True, head_dimension_at_first=False)
out.float().pow(2).mean().backward()

# fp16, non-causal, uneven length
q, k, v = qkv(B, 300, 300, torch.float16)
out2 = flash_attn_with_pope(q, k, v, pos_emb=pope(300), head_dimension_at_first=False)
out2.float().sum().backward()

# decode: one query token against 1024 cached keys
q, k, v = qkv(B, 1, 1024, torch.bfloat16)
with torch.no_grad():
    out3 = flash_attn_with_pope(q, k, v, pos_emb=pope(1024), head_dimension_at_first=False)

# the attention-logit kernel, grouped-query (8 q heads over 2 kv heads), fp32
qs = torch.randn(1, H, 256, D, device="cuda", requires_grad=True)
ks = torch.randn(1, 2, 256, D, device="cuda", requires_grad=True)
sim = compute_attn_similarity(qs, ks, pope(256), allow_tf32=False)
sim.softmax(-1).pow(2).sum().backward()
torch.cuda.synchronize()
print(
    "PoPE flash attn ok",
    tuple(out.shape),
    tuple(out2.shape),
    tuple(out3.shape),
    tuple(sim.shape),
    tuple(pope.bias.grad.shape),
)
