"""Corpus driver (kx's code): zhixuan-lin/forgetting-transformer's Forgetting Attention with
Adaptive Computation Pruning and left padding (src/forgetting_transformer/ops/
forgetting_attention.py), as the README's "Adaptive Computation Pruning" section uses it:
adaptive_threshold='auto' (the threshold from the q / k L2 norms), a float threshold, and the
README's manual per-(batch, head) threshold tensor computed from max q / k norms with
log_pruning_tolerance -10 (with and without its QK-norm GroupRMSNorm); and seq_start (left-padded
batches: no attention before each row's first token). bf16, 4 x 2048 tokens, 12 heads of 64 and a
1024-token fp16 batch, strongly negative gate logits so whole blocks are pruned. Exercises the
_find_start_index_kernel / _find_end_index_kernel Triton kernels (per-block start / end indices
from the cumulative gates against the threshold), the forward / backward kernels reading those
indices (skipped KV blocks), seq_start masking, backward to q, k, v and the gates."""

import math

import _corpus6_support as S
import torch
import torch.nn.functional as F
from einops import rearrange
from forgetting_transformer import forgetting_attention
from torch import nn

torch.manual_seed(0)
dev = "cuda"
B, T, H, D = S.pick((4, 2048, 12, 64), (2, 64, 2, 64))


class GroupRMSNorm(nn.Module):
    """The README's grouped RMSNorm (QK-norm)."""

    def __init__(self, hidden_size, num_groups, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.num_groups = num_groups

    def forward(self, x):
        x = rearrange(x, "... (g d) -> ... g d", g=self.num_groups)
        weight = rearrange(self.weight, "(g d) -> g d", g=self.num_groups)
        out = x / x.float().square().mean(dim=-1, keepdim=True).sqrt() * weight
        return rearrange(out, "... g d -> ... (g d)").to(x.dtype)


def inputs(dtype=torch.bfloat16, b=B, t=T, gate_shift=-2.0):
    q, k, v = (torch.randn((b, t, H, D), dtype=dtype, device=dev, requires_grad=True) for _ in range(3))
    fgate_logit = (torch.randn((b, t, H), dtype=dtype, device=dev) + gate_shift).requires_grad_()
    return q, k, v, fgate_logit


def step(name, q, k, v, fgate_logit, leaves, **kw):
    out = forgetting_attention(q, k, v, F.logsigmoid(fgate_logit.float()), **kw)
    out.float().pow(2).mean().backward()
    print(name, tuple(out.shape), [tuple(x.grad.shape) for x in leaves][:1])


q, k, v, g = inputs()
step("auto", q, k, v, g, (q, k, v, g), adaptive_threshold="auto")
q, k, v, g = inputs(gate_shift=-4.0)
step("float", q, k, v, g, (q, k, v, g), adaptive_threshold=-30.0)

for use_qk_norm in (False, True):
    q0, k0, v, g = inputs()
    q, k = q0, k0
    if use_qk_norm:
        q_norm = GroupRMSNorm(H * D, H).to(dev)
        k_norm = GroupRMSNorm(H * D, H).to(dev)
        q = rearrange(q_norm(rearrange(q, "... h d -> ... (h d)")), "... (h d) -> ... h d", h=H)
        k = rearrange(k_norm(rearrange(k, "... h d -> ... (h d)")), "... (h d) -> ... h d", h=H)
    with torch.no_grad():
        if use_qk_norm:
            max_q_norm = q_norm.weight.view(H, D).abs().max(dim=-1).values * math.sqrt(D)
            max_k_norm = k_norm.weight.view(H, D).abs().max(dim=-1).values * math.sqrt(D)
        else:
            max_q_norm = torch.linalg.vector_norm(q, dim=-1).max(dim=-2).values
            max_k_norm = torch.linalg.vector_norm(k, dim=-1).max(dim=-2).values
        logit_upper_bound = max_q_norm * max_k_norm / math.sqrt(D)
        threshold = -(2 * logit_upper_bound + math.log(T)) + -10.0
    step(f"manual qk_norm={use_qk_norm}", q, k, v, g, (q0, k0, v, g), adaptive_threshold=threshold)

b2, t2 = S.pick((3, 1024), (3, 64))
q, k, v, g = inputs(torch.float16, b=b2, t=t2)
seq_start = torch.tensor([0, t2 // 4, t2 - 40], device=dev, dtype=torch.long)
step("left padded", q, k, v, g, (q, k, v, g), seq_start=seq_start)
step("left padded + auto", q, k, v, g, (q, k, v, g), seq_start=seq_start, adaptive_threshold="auto")
torch.cuda.synchronize()
print("forgetting attention pruning ok")
