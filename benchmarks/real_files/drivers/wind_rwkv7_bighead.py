"""Corpus driver (kx's code): johanwind/wind_rwkv's RWKV-7 attention in Triton
(wind_rwkv/rwkv7/triton_bighead.py: fw_attn_triton and bw_attn_triton, @triton.autotune over the
chunk width dC keyed on T / H / C / dT / prec, a triangular-matrix inverse tri_minv, tl_dot with
the precision as a constexpr string: fp32 (allow_tf32=False), bf16, fp16) inside the
RWKV7_bighead autograd Function, called as tests/precision_test.py does: `attn_triton_bighead_bf16
/ _fp16 / _fp32(r, w, k, v, a, b, s0)` on gen_rwkv7_data's inputs (bf16, w = -softplus(w) - 0.5,
a L2-normalised, b = -a * sigmoid(b), an initial state s0), y and the final state sT,
torch.autograd.grad of both against all seven inputs: its shapes (batch 2, 128 tokens, d 1024,
heads of 128), then a training-sized call (batch 4, 1024 tokens, d 1024, heads of 64, no s0)
and attn_triton_bighead_wrap (head_size 64, the (B, T, H*C) layout). The CUDA kernels
(chunked_cuda*, backstepping_*) are not loaded: wind_rwkv/__init__.py and rwkv7/__init__.py are
skipped (bare packages), only triton_bighead is imported."""

import _corpus6_support as S
import torch as th
import torch.nn.functional as F

S.bare_package("wind_rwkv")
S.bare_package("wind_rwkv.rwkv7")
from wind_rwkv.rwkv7.triton_bighead import (  # noqa: E402
    attn_triton_bighead_bf16,
    attn_triton_bighead_fp16,
    attn_triton_bighead_fp32,
    attn_triton_bighead_wrap,
)

dev = "cuda"


def gen_rwkv7_data(batchsz, seqlen, modeldim, headsz, dtype=th.bfloat16):
    q, w, k, v, a, b = th.randn(6, batchsz, seqlen, modeldim // headsz, headsz, dtype=dtype, device=dev)
    w = -F.softplus(w) - 0.5
    a = F.normalize(a, p=2, dim=-1)
    b = -a * th.sigmoid(b)
    s0 = th.randn(batchsz, modeldim // headsz, headsz, headsz, dtype=dtype, device=dev)
    return q, w, k, v, a, b, s0


th.manual_seed(0)
B, T, D, C = S.pick((2, 128, 1024, 128), (1, 32, 64, 32))
for name, fn, dtype in (
    ("bf16", attn_triton_bighead_bf16, th.bfloat16),
    ("fp16", attn_triton_bighead_fp16, th.float16),
    ("fp32", attn_triton_bighead_fp32, th.bfloat16),
):
    params = [p.clone().requires_grad_() for p in gen_rwkv7_data(B, T, D, C, dtype)]
    y, sT = fn(*params)
    grads = th.autograd.grad((y, sT), params, grad_outputs=(th.randn_like(y), th.randn_like(sT)))
    print(name, tuple(y.shape), tuple(sT.shape), [tuple(g.shape) for g in grads][-1])

B, T, D, C = S.pick((4, 1024, 1024, 64), (1, 48, 64, 32))
r, w, k, v, a, b, _ = [p.requires_grad_() for p in gen_rwkv7_data(B, T, D, C)]
y, sT = attn_triton_bighead_bf16(r, w, k, v, a, b)
(y.float().pow(2).mean() + sT.float().pow(2).mean()).backward()
print("train shape", tuple(y.shape), tuple(w.grad.shape))
flat = [x.detach().reshape(B, T, D).contiguous().requires_grad_() for x in (r, w, k, v, a, b)]
y2 = attn_triton_bighead_wrap(*flat, head_size=C, dot_prec="bf16")
y2.sum().backward()
th.cuda.synchronize()
print("wind rwkv7 triton bighead ok", tuple(y2.shape), tuple(flat[0].grad.shape))
