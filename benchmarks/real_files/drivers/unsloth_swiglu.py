"""Corpus driver (kx's code): unsloth's SwiGLU forward kernel and its fused backward
(as fast_lora's MLP calls them).

See unsloth_rms_layernorm.py for how the module is imported without unsloth's __init__.
"""

import _corpus_support
import torch

_corpus_support.unsloth_kernels()
from unsloth.kernels.swiglu import swiglu_DWf_DW_dfg_kernel, swiglu_fg_kernel  # noqa: E402

torch.manual_seed(0)
e = torch.randn(4, 2048, 14336, device="cuda", dtype=torch.bfloat16)
g = torch.randn(4, 2048, 14336, device="cuda", dtype=torch.bfloat16)
h = swiglu_fg_kernel(e, g)
DW = torch.randn(4 * 2048, 14336, device="cuda", dtype=torch.bfloat16)
DW, e2, g2 = swiglu_DWf_DW_dfg_kernel(DW, e.view(-1, 14336), g.view(-1, 14336))
torch.cuda.synchronize()
print("unsloth swiglu ok", tuple(h.shape))
