"""Corpus driver (kx's code): dluo96/triton-kernels' autotuned grouped matmul
(tk/matmul_autotuned.py: kernel_matmul_grouped_autotuned under @triton.autotune over eight
(bs_m / bs_n / bs_k, group_size_m, stages, warps) configs keyed on m / n / k, a tl.swizzle2d
program reordering, K-loop masks and 2-D offset / mask helpers from tk/matmul.py; the wrapper
always writes a float32 output) called on four problem shapes (each a new autotune key, two of
them not multiples of any block size) in fp16 and fp32. Checked against torch.matmul in fp32."""

import _corpus20_support as S
import torch
from tk.matmul_autotuned import matmul_grouped_autotuned

torch.manual_seed(0)
dev = S.device()
SHAPES = S.pick(
    [(4096, 4096, 4096, torch.float16), (2000, 3000, 1500, torch.float16), (1024, 8192, 512, torch.float32), (777, 1111, 960, torch.float32)],
    [(64, 64, 64, torch.float32), (50, 70, 40, torch.float32)],
)

errs = []
for m, n, k, dt in SHAPES:
    a = torch.randn(m, k, device=dev, dtype=dt)
    b = torch.randn(k, n, device=dev, dtype=dt)
    c = matmul_grouped_autotuned(a, b)
    ref = a.float() @ b.float()
    errs.append(S.rel_err(c, ref))
print(
    f"autotuned grouped matmul on {len(SHAPES)} shapes up to {max(s[0] for s in SHAPES)} x {max(s[1] for s in SHAPES)} x "
    f"{max(s[2] for s in SHAPES)}: rel err vs torch " + " / ".join(f"{e:.1e}" for e in errs)
)
assert max(errs) < 2e-2, errs  # fp16 inputs, TF32 dots for fp32
S.sync()
print("dluo96_matmul_autotuned ok")
