"""Corpus driver (kx's code): FlagGems pointwise ops, called directly. FlagGems generates
each op's kernel source at first call (pointwise_dynamic) into its code cache and imports it."""

import flag_gems
import torch

torch.manual_seed(0)
x = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
y = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
z = flag_gems.add(x, y, alpha=0.5)  # tensor + tensor
z = flag_gems.add(z, 1.0)  # tensor + scalar
w = flag_gems.gelu(z, approximate="tanh")
b = flag_gems.add(x, y[0])  # broadcast row
torch.cuda.synchronize()
print("flaggems pointwise ok", tuple(w.shape), tuple(b.shape))
