"""Corpus driver (kx's code): the causal path of a CS336 student's FlashAttention-2 in Triton
(mocibb/cs336, assignment2-systems/cs336_systems/flash_attention.py: FlashAttentionTriton with
is_causal=True, which launches (Tq + 1) // 2 programs, each taking a query tile from the top and
its mirror from the bottom so that every program does the same work (flash_fwd_casual_kernel,
flash_bwd_dq_casual_kernel, flash_bwd_dkdv_casual_kernel, with a DTYPE constexpr for the stores))
as a causal language model's attention uses it: float16 at N 2048 and 1008 (an odd number of
query tiles) / d 64, and float32 at N 512, output and dQ / dK / dV checked against PyTorch causal
softmax attention."""

import _corpus16_support as S
import torch
from flash_attention import FlashAttentionTriton

torch.manual_seed(0)
dev = "cuda"
BATCH, D = S.pick((8, 64), (2, 16))
CASES = S.pick(
    [(torch.float16, 2048, 2e-2), (torch.float16, 1008, 2e-2), (torch.float32, 512, 2e-2)],
    [(torch.float16, 64, 5e-3), (torch.float16, 48, 5e-3), (torch.float32, 32, 1e-4)],
)

for dtype, N, tol in CASES:
    q, k, v = (torch.randn(BATCH, N, D, device=dev, dtype=dtype, requires_grad=True) for _ in range(3))
    o = FlashAttentionTriton.apply(q, k, v, True)
    do = torch.randn_like(o)
    got = (o,) + torch.autograd.grad(o, (q, k, v), do)
    o_ref = S.attention_reference(q, k, v, causal=True)
    want = (o_ref,) + torch.autograd.grad(o_ref, (q, k, v), do.float())
    errs = [S.rel_err(a, b) for a, b in zip(got, want)]
    print(f"causal {dtype} N {N}: rel err o / dq / dk / dv " + " ".join(f"{e:.1e}" for e in errs))
    assert max(errs) < tol, errs

torch.cuda.synchronize()
print("cs336_flash_triton_causal ok")
