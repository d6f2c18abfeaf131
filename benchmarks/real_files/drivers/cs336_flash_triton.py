"""Corpus driver (kx's code): a CS336 (Stanford, spring 2025) student's FlashAttention-2 in Triton
(mocibb/cs336, assignment2-systems/cs336_systems/flash_attention.py: FlashAttentionTriton, an
autograd.Function over (batch, N, d) tensors with 16 x 16 tiles, one warp, a block-pointer forward
kernel that masks the ragged key tile, a Triton delta pre-pass, and separate dQ and dK/dV backward
kernels) used without a causal mask as the assignment's tests use it: float32 (tf32 dots) and
float16 at N 1024 / d 64 and a ragged N 1000 forward, output and dQ / dK / dV checked against
PyTorch softmax attention."""

import _corpus16_support as S
import torch
from flash_attention import FlashAttentionTriton

torch.manual_seed(0)
dev = "cuda"
BATCH, N, D = S.pick((16, 1024, 64), (2, 32, 16))
RAGGED = S.pick(1000, 24)

for dtype, tol in ((torch.float32, S.pick(2e-2, 1e-4)), (torch.float16, S.pick(2e-2, 5e-3))):
    q, k, v = (torch.randn(BATCH, N, D, device=dev, dtype=dtype, requires_grad=True) for _ in range(3))
    o = FlashAttentionTriton.apply(q, k, v, False)
    do = torch.randn_like(o)
    got = (o,) + torch.autograd.grad(o, (q, k, v), do)
    o_ref = S.attention_reference(q, k, v, causal=False)
    want = (o_ref,) + torch.autograd.grad(o_ref, (q, k, v), do.float())
    errs = [S.rel_err(a, b) for a, b in zip(got, want)]
    print(f"{dtype} N {N}: rel err o / dq / dk / dv " + " ".join(f"{e:.1e}" for e in errs))
    assert max(errs) < tol, errs

# The forward masks a ragged last key tile (the backward asserts N % 16 == 0).
q, k, v = (torch.randn(BATCH, RAGGED, D, device=dev, dtype=torch.float16) for _ in range(3))
with torch.no_grad():
    err = S.rel_err(FlashAttentionTriton.apply(q, k, v, False), S.attention_reference(q, k, v, causal=False))
print(f"float16 N {RAGGED} forward: rel err {err:.1e}")
assert err < S.pick(2e-2, 5e-3), err

torch.cuda.synchronize()
print("cs336_flash_triton ok")
