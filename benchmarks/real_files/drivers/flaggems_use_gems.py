"""Corpus driver (kx's code): FlagGems the way its README shows: plain torch code inside
`flag_gems.use_gems()`, which registers FlagGems kernels for aten ops on the CUDA key.

Each op is used once: at this FlagGems commit (the last one that imports without
sqlalchemy) LibEntry's cached fast path does not match triton 3.6's launcher, so a second
call of the same kernel fails on a real GPU; autotuned ops (layer_norm, mm) are avoided
inside the context for the same reason (the autotuner's cache clearing calls fill_ again
and again).
"""

import flag_gems
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(4, 1024, 4096, device="cuda", dtype=torch.bfloat16)
w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
with flag_gems.use_gems():
    y = F.silu(x)  # aten::silu
    z = y * w  # aten::mul.Tensor, broadcast
    s = torch.softmax(z, -1)  # aten::_softmax
    o = s + x  # aten::add.Tensor
torch.cuda.synchronize()
print("flaggems use_gems ok", tuple(o.shape), o.dtype)
