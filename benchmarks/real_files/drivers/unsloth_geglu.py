"""Corpus driver (kx's code): unsloth's GEGLU kernels (exact erf and tanh-approximate
forward, and their fused backward) at Gemma-7B MLP sizes.

See unsloth_rms_layernorm.py for how the module is imported without unsloth's __init__.
"""

import _corpus_support
import torch

_corpus_support.unsloth_kernels()
from unsloth.kernels.geglu import (  # noqa: E402
    geglu_approx_backward_kernel,
    geglu_approx_forward_kernel,
    geglu_exact_backward_kernel,
    geglu_exact_forward_kernel,
)

torch.manual_seed(0)
B, T, HD = 2, 2048, 24576
gate = torch.randn(B, T, HD, device="cuda", dtype=torch.bfloat16)
up = torch.randn(B, T, HD, device="cuda", dtype=torch.bfloat16)
h = geglu_exact_forward_kernel(gate, up)
ha = geglu_approx_forward_kernel(gate, up)
DW = torch.randn(B * T, HD, device="cuda", dtype=torch.bfloat16)
geglu_exact_backward_kernel(DW, gate.view(-1, HD).clone(), up.view(-1, HD).clone())
geglu_approx_backward_kernel(DW, gate.view(-1, HD).clone(), up.view(-1, HD).clone())
torch.cuda.synchronize()
print("unsloth geglu ok", tuple(h.shape), tuple(ha.shape))
