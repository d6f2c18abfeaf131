"""Corpus driver (kx's code): OpenNLPLab's Lightning Attention-2 (TransNormerLLM linear
attention with per-head ALiBi-style decay), lightning_attn_func(q, k, v, s) with the default
"chunk_loop" variant -> LightningAttention2 autograd.Function: _fwd_kernel (blocked intra +
inter-chunk KV state, split over value channels), backward _bwd_intra_kernel +
_bwd_inter_kernel (sequential over chunks). Inputs as upstream's example and tests: slopes
from _build_slope_tensor; bf16 head 192 (the interface splits d > 128 into 64-wide head
slices, one launch set each, and pads e=192 to 256), and fp16 head 128 / value 64 with a
ragged 913-token sequence."""

import torch
from lightning_attn.ops import lightning_attn_func
from lightning_attn.utils import _build_slope_tensor

torch.manual_seed(0)


def step(b, h, n, d, e, dtype):
    q = (torch.randn(b, h, n, d, device="cuda", dtype=dtype) / 10).requires_grad_()
    k = (torch.randn(b, h, n, d, device="cuda", dtype=dtype) / 10).requires_grad_()
    v = (torch.randn(b, h, n, e, device="cuda", dtype=dtype) / 10).requires_grad_()
    s = _build_slope_tensor(h).to(q.device).to(torch.float32)
    o = lightning_attn_func(q, k, v, s)
    o.backward(torch.randn_like(o) / 10)
    return o, q.grad


o1, dq1 = step(2, 12, 2048, 192, 192, torch.bfloat16)
o2, dq2 = step(6, 8, 913, 128, 64, torch.float16)
torch.cuda.synchronize()
print(
    "lightning attention-2 ok",
    tuple(o1.shape),
    tuple(dq1.shape),
    tuple(o2.shape),
    tuple(dq2.shape),
)
