"""Corpus driver (kx's code): hkproj/triton-flash-attention's FlashAttention-2 in Triton
(triton/flash_attention.py: the autotuned _attn_fwd, _attn_bwd_preprocess, _attn_bwd_dk_dv and
_attn_bwd_dq inside the TritonAttention autograd Function) executed as
`python flash_attention.py` (runpy, __main__): its test_op for B 8, 16 heads, 4096 tokens,
head_dim 64, fp16, causal then non-causal: a naive torch reference (forward and backward), the
Triton forward and backward, and torch.allclose of the output and the three gradients."""

import importlib.util

import _corpus_support
import torch

torch.manual_seed(0)
path = importlib.util.find_spec("flash_attention").origin
_corpus_support.run_script(path, [])
torch.cuda.synchronize()
print("hkproj flash attention ok")
