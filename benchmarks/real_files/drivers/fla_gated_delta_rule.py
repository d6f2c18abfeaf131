"""Corpus driver (kx's code): flash-linear-attention chunked gated delta rule (the
Qwen3-Next / Gated DeltaNet kernel), with in-kernel q/k L2 norm, forward + backward.

See fla_chunk_gla.py for how `fla` is imported without its __init__.
"""

import _corpus_support
import torch
import torch.nn.functional as F

_corpus_support.fla_package()
from fla.ops.gated_delta_rule import chunk_gated_delta_rule  # noqa: E402

torch.manual_seed(0)
B, T, H, K, V = 2, 4096, 16, 128, 128
q = torch.randn(B, T, H, K, device="cuda", dtype=torch.bfloat16, requires_grad=True)
k = torch.randn(B, T, H, K, device="cuda", dtype=torch.bfloat16, requires_grad=True)
v = torch.randn(B, T, H, V, device="cuda", dtype=torch.bfloat16, requires_grad=True)
beta = torch.rand(B, T, H, device="cuda", dtype=torch.bfloat16).requires_grad_()
g = F.logsigmoid(torch.randn(B, T, H, device="cuda", dtype=torch.float32)).requires_grad_()
o, ht = chunk_gated_delta_rule(q, k, v, g, beta, output_final_state=True, use_qk_l2norm_in_kernel=True)
(o.float().sum() + ht.sum()).backward()
torch.cuda.synchronize()
print("fla gated_delta_rule ok", tuple(o.shape), tuple(ht.shape))
