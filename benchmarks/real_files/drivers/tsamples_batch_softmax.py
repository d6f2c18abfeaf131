"""Corpus driver (kx's code): Wheest/triton_samples' batched row softmax (python/batch_softmax.py:
triton_batch_softmax picks BLOCK_SIZE = next_power_of_2(n_cols) and num_warps 4 / 8 / 16 from it on
the host, moves the input with x.cuda(), and launches softmax_kernel_batch on a (batch, n_rows)
grid: one program per row, masked load with -inf padding, max-subtract, exp, sum, divide). The
driver runs the file's unittest shapes (one / two / three batches, an asymmetric one) and larger
ones whose widths cross the num_warps thresholds (2048 -> 8 warps, 4096 and 5000 -> 16 warps),
fp32 and fp16, one non-contiguous input (every other row of a larger tensor: the row and batch
strides are passed through); compared with torch.softmax in fp32."""

import _corpus22_support as S
import torch
from batch_softmax import triton_batch_softmax  # noqa: E402

torch.manual_seed(0)
dev = S.device()
CASES = S.pick(
    [
        (1, 16, 16),
        (2, 16, 32),
        (3, 7, 19),
        (4, 128, 1000),
        (8, 256, 2048),
        (2, 64, 4096),
        (3, 33, 5000),
        (16, 512, 512),
    ],
    [(1, 16, 16), (2, 5, 19), (2, 3, 70)],
)
errs = []
for i, (b, r, c) in enumerate(CASES):
    dt = torch.float16 if i % 3 == 2 else torch.float32
    x = torch.randn(b, r, c, device=dev, dtype=dt) * 3
    if i == len(CASES) - 1:
        x = torch.randn(b, 2 * r, c, device=dev, dtype=dt)[:, ::2]  # a strided view: rows 2 apart
    y = triton_batch_softmax(x)
    errs.append(S.rel_err(y, torch.softmax(x.float(), -1)))
S.sync()
print(
    f"triton_samples batch softmax on {len(CASES)} (batch, rows, cols) inputs: rel err vs torch max {max(errs):.1e}"
)
