"""Corpus driver (kx's code): flash-linear-attention modules as a model uses them:
RMSNorm and the fused gated RMSNorm (norm(x) * swish(gate)) on a layer's output.

See fla_chunk_gla.py for how `fla` is imported without its __init__.
"""

import _corpus_support
import torch

_corpus_support.fla_package()
from fla.modules import FusedRMSNormGated, RMSNorm  # noqa: E402

torch.manual_seed(0)
B, T, H, D = 4, 2048, 16, 128
norm = RMSNorm(H * D, eps=1e-6).to("cuda", torch.bfloat16)
gated = FusedRMSNormGated(D, eps=1e-5).to("cuda", torch.bfloat16)
x = torch.randn(B, T, H * D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
o = torch.randn(B, T, H, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
gate = torch.randn(B, T, H, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
y = norm(x)
z = gated(o, gate)
(y.float().sum() + z.float().sum()).backward()
torch.cuda.synchronize()
print("fla norms ok", tuple(y.shape), tuple(z.shape))
