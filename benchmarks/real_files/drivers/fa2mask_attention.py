"""Corpus driver (kx's code): alexzhang13/flashattention2-custom-mask's FlashAttention-2 with an
arbitrary mask (fa2_custom_mask/fa2_custom_mask.py over fa2_fwd.py's autotuned _attn_fwd /
_attn_fwd_inner and fa2_bwd.py's _attn_bwd_preprocess / _attn_bwd with _attn_bwd_dkdv and
_attn_bwd_dq, the mask read from global memory through its four strides), used as the README's
"Simple Example" does: `out = flash_attention_custom_mask(q, k, v, mask, sm_scale)`
then `out.backward(loss)`. README's shape (4 x 16 heads x 4096 x 64) in fp16 with a random 0/1
mask broadcast over heads (stride 0), then test_benchmark.py's cases at 1024 tokens: the causal
mask passed as a tensor, a per-head random mask, a block-diagonal (document) mask, fp16 (the
kernels cast P and dS to fp16: bf16 / fp32 inputs do not compile), head dims 64 and 128, and mask=None (STAGE 2, no mask loads)."""

import _corpus6_support as S
import torch
from fa2_custom_mask import flash_attention_custom_mask

torch.manual_seed(0)
dev = "cuda"

B, H, L, D = S.pick((4, 16, 4096, 64), (1, 2, 128, 64))
sm_scale = 1 / (D**0.5)
q, k, v = (torch.randn(B, H, L, D, device=dev, dtype=torch.float16).requires_grad_() for _ in range(3))
mask = torch.randint(0, 2, (B, 1, L, L), device=dev).int()
mask[..., torch.arange(L), torch.arange(L)] = 1
mask = torch.broadcast_to(mask, (B, H, L, L))
out = flash_attention_custom_mask(q, k, v, mask, sm_scale)
out.backward(torch.randn_like(out))
print("readme", tuple(out.shape), tuple(q.grad.shape))

B, H, L = S.pick((2, 8, 1024), (1, 2, 128))
for D in S.pick((64, 128), (64,)):
    for dtype in (torch.float16,):
        causal = torch.tril(torch.ones(L, L, device=dev, dtype=torch.int32)).expand(B, H, L, L)
        rand = torch.randint(0, 2, (B, H, L, L), device=dev, dtype=torch.int32)
        rand[..., torch.arange(L), torch.arange(L)] = 1
        doc = torch.zeros(L, L, device=dev, dtype=torch.int32)
        for s in range(0, L, L // 4):
            doc[s : s + L // 4, s : s + L // 4] = 1
        doc = torch.tril(doc).expand(B, H, L, L)
        for name, m in (("causal", causal), ("random", rand), ("documents", doc), ("none", None)):
            q, k, v = (torch.randn(B, H, L, D, device=dev, dtype=dtype).requires_grad_() for _ in range(3))
            o = flash_attention_custom_mask(q, k, v, m, D**-0.5)
            o.backward(torch.randn_like(o))
            print(name, D, dtype, tuple(o.shape), tuple(k.grad.shape))
torch.cuda.synchronize()
print("fa2 custom mask ok")
