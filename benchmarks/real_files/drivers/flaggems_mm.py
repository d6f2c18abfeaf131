"""Corpus driver (kx's code): FlagGems matmul (libentry + libtuner autotuned kernel)
on three LLM-shaped GEMMs."""

import flag_gems
import torch

torch.manual_seed(0)
for M, N, K in [(4096, 4096, 4096), (8192, 14336, 4096), (16, 4096, 4096)]:
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = flag_gems.mm(a, b)
torch.cuda.synchronize()
print("flaggems mm ok", tuple(c.shape))
