"""Corpus driver (kx's code): xformers' tiled matmul (torch.library.custom_op
"xformers_python::tiled_matmul_fwd" with register_fake and register_autograd; the Triton
kernel autotuned with early config pruning): a fused QKV projection given as a 1x3 grid of
weight tiles, forward and backward."""

import _corpus_support
import torch

_corpus_support.xformers_ops_package()
from xformers.ops.tiled_matmul import tiled_matmul  # noqa: E402

torch.manual_seed(0)
T, H, KV = 4096, 4096, 1024
x = torch.randn(T, H, device="cuda", dtype=torch.bfloat16, requires_grad=True)
wq = torch.randn(H, H, device="cuda", dtype=torch.bfloat16, requires_grad=True)
wk = torch.randn(H, KV, device="cuda", dtype=torch.bfloat16, requires_grad=True)
wv = torch.randn(H, KV, device="cuda", dtype=torch.bfloat16, requires_grad=True)
[[q, k, v]] = tiled_matmul([[x]], [[wq, wk, wv]])
(q.float().sum() + k.float().sum() + v.float().sum()).backward()
torch.cuda.synchronize()
print("xformers tiled_matmul ok", tuple(q.shape), tuple(k.shape), tuple(wq.grad.shape))
