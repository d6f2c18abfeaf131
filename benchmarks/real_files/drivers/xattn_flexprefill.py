"""Corpus driver (kx's code): mit-han-lab/x-attention's FlexPrefill baseline in Triton
(xattn/src/Flexprefill.py: Flexprefill_prefill, which pools the last query block's attention
(triton_bnhd_pool / triton_bhn_sumpool kernels), decides per head between a query-aware pattern
and a vertical-slash pattern by a Jensen-Shannon divergence, picks the smallest key-block set
covering gamma of the mass (score_cover_topk), reads the largest per-head block counts on the host
(`num_vertical_blocks.max().item()`, `num_slash_blocks.max().item()`: data-dependent sizes), turns
them into block indices (triton_column_count_cumsum's count_kernel) and runs the block-wise causal
prefill attention kernel over the selected blocks) on long prompts: bf16, 1 x 32 heads x 128
(B, N, H, D layout), 8,192 then 16,000 tokens (a length that is not a multiple of the block),
gamma 0.9 and 0.95, block 128, plus a GQA call with 8 key / value heads; each result compared with
dense causal attention (SDPA). The dense fallback for short inputs imports flash_attn.flash_attn_func
(a stand-in over SDPA here) and is exercised once with a 200-token prompt."""

import _corpus9_support as S
import torch
import torch.nn.functional as F

S.install_flash_attn_standin()
S.bare_package("xattn.src")
from xattn.src.Flexprefill import Flexprefill_prefill  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
H, D = S.pick((32, 128), (2, 32))
cases = S.pick(
    [(8192, 0.9, H), (16000, 0.95, H), (8192, 0.9, 8), (200, 0.9, H)],
    [(300, 0.9, H), (330, 0.95, H), (300, 0.9, 1), (40, 0.9, H)],
)
BLOCK = S.pick(128, 32)


def dense(q, k, v):
    rep = q.shape[2] // k.shape[2]
    k, v = (t.repeat_interleave(rep, 2) for t in (k, v))
    return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True).transpose(1, 2)


for n, gamma, kv_heads in cases:
    q = torch.randn(1, n, H, D, device=dev, dtype=dt)
    k = torch.randn(1, n, kv_heads, D, device=dev, dtype=dt)
    v = torch.randn(1, n, kv_heads, D, device=dev, dtype=dt)
    # a few "sink" keys everyone attends to, and a local band, as in real prompts
    k[:, :4] += 2 * q[:, -BLOCK:].float().mean((1, 2), keepdim=True).to(dt)[:, :, :1]
    o = Flexprefill_prefill(q, k, v, gamma=gamma, tau=0.1, block_size=BLOCK)
    print(
        f"flexprefill n={n} gamma={gamma} kv_heads={kv_heads}",
        tuple(o.shape),
        f"vs dense rel err {S.rel_err(o, dense(q, k, v)):.2e}",
    )
torch.cuda.synchronize()
print("flexprefill ok")
