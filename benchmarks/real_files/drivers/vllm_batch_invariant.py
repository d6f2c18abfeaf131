"""Corpus driver (kx's code): vLLM's batch-invariant mode: enable_batch_invariant_mode()
overrides aten::bmm/_softmax/_log_softmax/mean.dim for CUDA (torch.library.Library("aten",
"IMPL").impl(..., "CUDA")) with Triton kernels; then a decoder layer's ops go through them,
plus the direct persistent matmul and RMSNorm."""

import _corpus_support
import torch

_corpus_support.vllm_package()
from vllm.model_executor.layers import batch_invariant as bi  # noqa: E402

torch.manual_seed(0)
bi.enable_batch_invariant_mode()
T, H, HEADS, D = 512, 4096, 32, 128
x = torch.randn(T, H, device="cuda", dtype=torch.bfloat16)
w = torch.randn(H, device="cuda", dtype=torch.bfloat16)
h = bi.rms_norm(x, w, eps=1e-6)
qkv = bi.matmul_persistent(h, torch.randn(H, 3 * H, device="cuda", dtype=torch.bfloat16))
q, k, v = qkv.view(T, 3, HEADS, D).permute(1, 2, 0, 3).unbind(0)
scores = torch.bmm(q, k.transpose(1, 2)) * D**-0.5  # aten::bmm (and torch.bmm) -> Triton
probs = torch.softmax(scores.float(), dim=-1)  # aten::_softmax -> Triton
o = torch.bmm(probs.to(torch.bfloat16), v)
logits = torch.randn(T, 32000, device="cuda", dtype=torch.float32)
logp = torch.log_softmax(logits, dim=-1)  # aten::_log_softmax -> Triton
m = logp.mean(dim=-1)  # aten::mean.dim -> Triton
torch.cuda.synchronize()
print("vllm batch invariant ok", tuple(o.shape), tuple(m.shape))
