"""Corpus driver (kx's code): flash-linear-attention chunked GLA, forward + backward.

fla/__init__.py imports every layer and model (transformers); _corpus_support.fla_package()
registers `fla` without it, as `from fla.ops...` users with transformers would get the same
fla.ops / fla.utils modules.
"""

import _corpus_support
import torch
import torch.nn.functional as F

_corpus_support.fla_package()
from fla.ops.gla import chunk_gla  # noqa: E402

torch.manual_seed(0)
B, T, H, K, V = 2, 4096, 16, 128, 128
q = torch.randn(B, T, H, K, device="cuda", dtype=torch.bfloat16, requires_grad=True)
k = torch.randn(B, T, H, K, device="cuda", dtype=torch.bfloat16, requires_grad=True)
v = torch.randn(B, T, H, V, device="cuda", dtype=torch.bfloat16, requires_grad=True)
g = F.logsigmoid(torch.randn(B, T, H, K, device="cuda", dtype=torch.float32)).requires_grad_()
o, ht = chunk_gla(q, k, v, g, output_final_state=True)
(o.float().sum() + ht.sum()).backward()
torch.cuda.synchronize()
print("fla chunk_gla ok", tuple(o.shape), tuple(ht.shape))
