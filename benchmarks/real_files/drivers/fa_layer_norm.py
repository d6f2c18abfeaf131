"""Corpus driver (kx's code): flash-attention's Triton LayerNorm/RMSNorm (flash_attn's own
triton_op: a torch.library.custom_op registered with a schema and its wrapper as the fake,
launching through torch.library.wrap_triton; autotuned) with residual add, dropout whose
per-row seeds come from torch.randint on the GPU, prenorm and the parallel x1 branch,
forward and backward."""

import _corpus_support
import torch

_corpus_support.flash_attn_package()
from flash_attn.ops.triton.layer_norm import layer_norm_fn, rms_norm_fn  # noqa: E402

torch.manual_seed(0)
T, H = 8192, 4096
x = torch.randn(T, H, device="cuda", dtype=torch.bfloat16, requires_grad=True)
res = torch.randn(T, H, device="cuda", dtype=torch.bfloat16, requires_grad=True)
w = torch.ones(H, device="cuda", dtype=torch.float32, requires_grad=True)
b = torch.zeros(H, device="cuda", dtype=torch.float32, requires_grad=True)
y, r = layer_norm_fn(x, w, b, residual=res, dropout_p=0.1, prenorm=True, residual_in_fp32=True)
(y.float().sum() + r.sum()).backward()
x1 = torch.randn(T, H, device="cuda", dtype=torch.bfloat16, requires_grad=True)
w1 = torch.ones(H, device="cuda", dtype=torch.float32, requires_grad=True)
y0, y1 = rms_norm_fn(x, w, None, x1=x1, weight1=w1, dropout_p=0.05, return_dropout_mask=False)
(y0.float().sum() + y1.float().sum()).backward()
torch.cuda.synchronize()
print("flash_attn layer_norm ok", tuple(y.shape), tuple(y1.shape))
