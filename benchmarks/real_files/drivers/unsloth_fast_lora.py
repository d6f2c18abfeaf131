"""Corpus driver (kx's code): unsloth's fused LoRA MLP (LoRA_MLP autograd.Function: base +
rank-16 LoRA matmuls around the SwiGLU Triton kernels, and the fused SwiGLU backward) on
bf16 base weights (no 4-bit quant state, so bitsandbytes is never called), forward and
backward, at Llama-3-8B MLP sizes.

See unsloth_rms_layernorm.py for how the module is imported without unsloth's __init__.
"""

import _corpus_support
import torch

_corpus_support.unsloth_kernels()
from unsloth.kernels.fast_lora import LoRA_MLP  # noqa: E402
from unsloth.kernels.swiglu import swiglu_DWf_DW_dfg_kernel, swiglu_fg_kernel  # noqa: E402

torch.manual_seed(0)
B, T, H, FFN, R = 2, 1024, 4096, 14336, 16
dev, bf = "cuda", torch.bfloat16


def lora(n_out, n_in):
    W = torch.randn(n_out, n_in, device=dev, dtype=bf) / n_in**0.5
    A = (torch.randn(R, n_in, device=dev, dtype=torch.float32) / n_in**0.5).requires_grad_()
    Bm = torch.zeros(n_out, R, device=dev, dtype=torch.float32).requires_grad_()
    return W, None, A, Bm, 2.0


X = torch.randn(B, T, H, device=dev, dtype=bf, requires_grad=True)
gate, up, down = lora(FFN, H), lora(FFN, H), lora(H, FFN)
with torch.autocast("cuda", dtype=bf):
    out = LoRA_MLP.apply(X, *gate, *up, *down, swiglu_fg_kernel, swiglu_DWf_DW_dfg_kernel, False)
out.float().sum().backward()
torch.cuda.synchronize()
print("unsloth fast_lora ok", tuple(out.shape), tuple(gate[2].grad.shape))
