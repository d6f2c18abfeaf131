"""Corpus driver (kx's code): unsloth's fast LayerNorm (Fast_Layernorm autograd.Function via
fast_layernorm on an nn.LayerNorm), forward and backward.

See unsloth_rms_layernorm.py for how the module is imported without unsloth's __init__.
"""

import _corpus_support
import torch

_corpus_support.unsloth_kernels()
from unsloth.kernels.layernorm import fast_layernorm  # noqa: E402

torch.manual_seed(0)
for hidden in (4096, 1152):  # a decoder width and a SigLIP vision width
    ln = torch.nn.LayerNorm(hidden, eps=1e-5).to("cuda", torch.float32)
    X = torch.randn(4, 1024, hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    Y = fast_layernorm(ln, X)
    Y.backward(torch.randn_like(Y))
torch.cuda.synchronize()
print("unsloth layernorm ok", tuple(Y.shape), tuple(X.grad.shape))
