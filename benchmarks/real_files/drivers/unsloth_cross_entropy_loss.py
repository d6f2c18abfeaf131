"""Corpus driver (kx's code): unsloth's fast cross entropy, a Llama-3 vocabulary (chunked
path, V > 65536) and a Gemma-2-style softcapped one.

See unsloth_rms_layernorm.py for how the module is imported without unsloth's __init__.
"""

import _corpus_support
import torch

_corpus_support.unsloth_kernels()
from unsloth.kernels.cross_entropy_loss import fast_cross_entropy_loss  # noqa: E402

torch.manual_seed(0)
for V, softcap in [(128256, 0), (32000, 30.0)]:
    logits = torch.randn(2, 2048, V, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    labels = torch.randint(0, V, (2, 2048), device="cuda")
    labels[:, :16] = -100
    loss = fast_cross_entropy_loss(logits, labels, logit_softcapping=softcap)
    loss.backward()
torch.cuda.synchronize()
print("unsloth cross_entropy ok", float(loss))
