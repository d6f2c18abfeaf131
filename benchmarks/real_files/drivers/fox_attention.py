"""Corpus driver (kx's code): zhixuan-lin/forgetting-transformer's Forgetting Attention kernel
(src/forgetting_transformer/ops/forgetting_attention.py: a FlashAttention-style Triton forward
_fwd_kernel and backward _bwd_preprocess / _bwd_kv_kernel / _bwd_q_kernel inside the
ForgettingAttention autograd Function, the cumulative log forget gate added to the logits) used
as the README's first example does: q / k / v (batch, seq, heads, head_dim) bf16,
log_fgate = logsigmoid(fgate_logit.float()), `out = forgetting_attention(q, k, v, log_fgate)`,
`out.sum().backward()`. README's shape (4 x 512, 12 heads of 64), then a longer context
(2 x 2048, 16 heads of 128, fp16), head_first=True with an explicit sm_scale (8 heads of 32,
1024 tokens), and seqlen_q < seqlen_k (the last 256 queries of 1024 keys: decoding a chunk
against a longer prefix). Exercises get_fwd_config / get_bwd_kv_config / get_bwd_q_config
(configs chosen from the GPU's capability and the shapes, not autotuned), exp2-domain
softmax, causal masking, backward to q, k, v and the gate logits."""

import _corpus6_support as S
import torch
import torch.nn.functional as F
from forgetting_transformer import forgetting_attention

torch.manual_seed(0)
dev = "cuda"


def run(batch, seq_q, seq_k, heads, head_dim, dtype, head_first=False, sm_scale=None):
    shp_q = (batch, heads, seq_q, head_dim) if head_first else (batch, seq_q, heads, head_dim)
    shp_k = (batch, heads, seq_k, head_dim) if head_first else (batch, seq_k, heads, head_dim)
    q = torch.randn(shp_q, dtype=dtype, device=dev, requires_grad=True)
    k = torch.randn(shp_k, dtype=dtype, device=dev, requires_grad=True)
    v = torch.randn(shp_k, dtype=dtype, device=dev, requires_grad=True)
    g_shape = (batch, heads, seq_k) if head_first else (batch, seq_k, heads)
    fgate_logit = torch.randn(g_shape, dtype=dtype, device=dev, requires_grad=True)
    log_fgate = F.logsigmoid(fgate_logit.float())
    out = forgetting_attention(q, k, v, log_fgate, head_first=head_first, sm_scale=sm_scale)
    assert out.shape == q.shape
    out.sum().backward()
    print(tuple(q.shape), dtype, head_first, tuple(fgate_logit.grad.shape), q.grad.dtype)


run(*S.pick((4, 512, 512, 12, 64), (1, 32, 32, 2, 64)), torch.bfloat16)
run(*S.pick((2, 2048, 2048, 16, 128), (1, 64, 64, 1, 128)), torch.float16)
run(*S.pick((2, 1024, 1024, 8, 32), (1, 48, 48, 2, 32)), torch.bfloat16, head_first=True, sm_scale=0.125)
run(*S.pick((2, 256, 1024, 8, 64), (1, 16, 64, 2, 64)), torch.bfloat16)
torch.cuda.synchronize()
print("forgetting attention ok")
