"""Corpus driver (kx's code): unsloth's fast RMSNorm (Llama and Gemma variants).

unsloth/__init__.py and unsloth/kernels/__init__.py pull in transformers, unsloth_zoo
and bitsandbytes; _corpus_support.unsloth_kernels() skips those __init__ files and
stubs the few names the kernel modules import, so the module below runs as upstream wrote it.
"""

import _corpus_support
import torch

_corpus_support.unsloth_kernels()
from unsloth.kernels.rms_layernorm import Fast_RMS_Layernorm  # noqa: E402

torch.manual_seed(0)
X = torch.randn(4, 2048, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
W = torch.ones(4096, device="cuda", dtype=torch.bfloat16)
Y = Fast_RMS_Layernorm.apply(X, W, 1e-6, False)
Y.backward(torch.randn_like(Y))
Yg = Fast_RMS_Layernorm.apply(X, W, 1e-6, True)  # gemma: (1 + w)
Yg.backward(torch.randn_like(Yg))
torch.cuda.synchronize()
print("unsloth rms_layernorm ok", tuple(Y.shape))
