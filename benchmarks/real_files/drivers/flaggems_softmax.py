"""Corpus driver (kx's code): FlagGems softmax over the last dim (inner kernel) and over
dim 1 (non-inner kernel), forward + backward ops."""

import flag_gems
import torch

torch.manual_seed(0)
x = torch.randn(8, 2048, 4096, device="cuda", dtype=torch.float16)
y = flag_gems.softmax(x, -1)
dx = flag_gems.softmax_backward(torch.randn_like(y), y, -1, x.dtype)
y1 = flag_gems.softmax(x, 1)
torch.cuda.synchronize()
print("flaggems softmax ok", tuple(y.shape), tuple(dx.shape), tuple(y1.shape))
