"""Corpus driver (kx's code): alexdremov/kernels' softmax (src/softmax/kernel.py: softmax views the
input as (-1, N_COLS) and launches softmax_kernel through triton.autotune (36 configs: rows per
program 16..128, num_stages 2..4 also passed as a kernel kwarg, warps 2..8; key N_COLS) stacked
on triton.heuristics (BLOCK_SIZE_COLS = next_power_of_2(N_COLS)); the kernel walks rows with
tl.make_block_ptr / tl.advance and boundary_check loads and stores). The driver runs 3-D and 2-D
fp32 inputs of two widths (one the file's own __main__ shape, 13 x 10 x 19) and a second row
count at each width (cached autotune key); compared with torch.softmax."""

import _corpus22_support as S
import torch
from softmax import softmax  # noqa: E402

torch.manual_seed(0)
dev = S.device()
SHAPES = S.pick([(13, 10, 19), (4096, 1000), (777, 1000), (64, 32, 19)], [(13, 10, 19), (50, 40), (3, 40)])
errs = []
for shp in SHAPES:
    x = torch.randn(*shp, device=dev) * 4
    errs.append(S.rel_err(softmax(x), torch.softmax(x, -1)))
S.sync()
print(f"alexdremov softmax on {len(SHAPES)} inputs {SHAPES}: rel err vs torch max {max(errs):.1e}")
