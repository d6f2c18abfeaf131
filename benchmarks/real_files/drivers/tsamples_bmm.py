"""Corpus driver (kx's code): Wheest/triton_samples' batched matmul (python/bmm.py: matmul() launches
matmul_kernel, the Triton matmul tutorial extended with a batch axis (program_id(0) is the batch,
program_id(1) the grouped tile), on a (Batch, M, K) x (K, N) problem with a lambda grid reading
META's block sizes, block sizes and GROUP_SIZE_M taken from the kernel's constexpr defaults
(16 / 16 / 16 / 8: the launch passes none), num_warps=1, num_stages=1, masked K loop and fp16
output). The driver runs the shapes of the file's own unittest (batch 1 / 2 / 3 of 16 x 16, and
the varying-size sweep's corners) plus larger ones (odd M / N / K, batch 8 of 512 x 384 x 640), in
fp16 and one fp32 case; compared with torch.matmul in fp32."""

import _corpus22_support as S
import torch
from bmm import matmul  # noqa: E402

torch.manual_seed(0)
dev = S.device()
SHAPES = S.pick(
    [
        (1, 16, 16, 16),
        (2, 16, 16, 16),
        (3, 16, 16, 16),
        (4, 8, 64, 32),
        (2, 64, 8, 64),
        (1, 100, 70, 130),
        (8, 512, 640, 384),
        (16, 256, 256, 1024),
    ],
    [(1, 16, 16, 16), (2, 8, 32, 32), (1, 20, 24, 40)],
)
errs = []
for i, (b, m, k, n) in enumerate(SHAPES):
    dt = torch.float32 if i == len(SHAPES) - 2 else torch.float16
    a = torch.randn(b, m, k, device=dev, dtype=dt)
    w = torch.randn(k, n, device=dev, dtype=dt)
    c = matmul(a, w)
    errs.append(S.rel_err(c, a.float() @ w.float()))
S.sync()
print(f"triton_samples bmm on {len(SHAPES)} (batch, M, K, N) problems: rel err vs fp32 max {max(errs):.1e}")
