"""Import helpers, stand-ins and references for fresh corpus 14's drivers (kx's code, no upstream
code).

The import helpers are corpus 7's (re-exported through `_corpus9_support`). Each stand-in here is
used whether or not the real package is installed, so a driver runs the same on any machine.
Upstream sources are found on sys.path (the manifest's "pythonpath" puts the `.realfiles/...`
folders there). `small()` is true under KX_CORPUS_SMALL=1 (toy sizes for a CPU check with
Triton's interpreter); by default the drivers run their real sizes.
"""

from __future__ import annotations

import torch
from _corpus9_support import pick, rel_err, small, stub_module  # noqa: F401


def install_llama_rmsnorm_standin() -> None:
    """Triformer's rms_norm.py subclasses transformers' LlamaRMSNorm (only its weight /
    variance_epsilon attributes are used): a stand-in module with that class."""

    class LlamaRMSNorm(torch.nn.Module):
        def __init__(self, hidden_size, eps=1e-6):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(hidden_size))
            self.variance_epsilon = eps

        def forward(self, x):
            xf = x.float()
            xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.variance_epsilon)
            return self.weight * xf.to(x.dtype)

    stub_module("transformers.models.llama.modeling_llama", LlamaRMSNorm=LlamaRMSNorm)


def install_litllama_standins() -> None:
    """lit_llama/__init__.py imports its sentencepiece Tokenizer and utils.py imports
    lightning.fabric's strategies (generate.py imports lightning as L): the drivers use neither
    (random token ids, no checkpoint loading), so stand-ins whose use would raise."""

    class _Unavailable:
        def __init__(self, *a, **k):
            raise RuntimeError("stand-in: not available in this driver")

    stub_module("sentencepiece", SentencePieceProcessor=_Unavailable, SentencePieceTrainer=_Unavailable)
    stub_module("lightning", Fabric=_Unavailable)
    stub_module("lightning.fabric", Fabric=_Unavailable)
    stub_module("lightning.fabric.strategies", DeepSpeedStrategy=_Unavailable, FSDPStrategy=_Unavailable)


def entmax_bisect_reference(x: torch.Tensor, alpha: float = 1.5, n_iter: int = 60) -> torch.Tensor:
    """alpha-entmax over the last dim by bisection on tau in float64 (kx's own reference):
    p = [(alpha - 1) x - tau]_+ ^ (1 / (alpha - 1)), sum p = 1."""
    z = x.double() * (alpha - 1)
    hi = z.max(-1, keepdim=True).values
    lo = hi - 1.0
    for _ in range(n_iter):
        tau = (lo + hi) / 2
        s = torch.clamp(z - tau, min=0).pow(1 / (alpha - 1)).sum(-1, keepdim=True)
        lo = torch.where(s >= 1, tau, lo)
        hi = torch.where(s >= 1, hi, tau)
    p = torch.clamp(z - (lo + hi) / 2, min=0).pow(1 / (alpha - 1))
    return (p / p.sum(-1, keepdim=True)).to(x.dtype)


def entmax_attention_reference(q, k, v, alpha=1.5, causal=False):
    """Dense alpha-entmax attention (float32 scores, 1/sqrt(d) scale), kx's reference."""
    s = (q.float() @ k.float().transpose(-1, -2)) / q.shape[-1] ** 0.5
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=s.device).triu(1), float("-inf"))
    p = entmax_bisect_reference(s.masked_fill(s == float("-inf"), -1e9), alpha)
    return (p @ v.float()).to(q.dtype)


class _EntmaxRef(torch.autograd.Function):
    """alpha-entmax with its closed-form backward (kx's reference):
    dx = s * (dy - sum(s * dy) / sum(s)), s = p ** (2 - alpha) on the support."""

    @staticmethod
    def forward(ctx, x, alpha):
        p = entmax_bisect_reference(x, alpha)
        ctx.save_for_backward(p)
        ctx.alpha = alpha
        return p

    @staticmethod
    def backward(ctx, dy):
        (p,) = ctx.saved_tensors
        s = torch.where(
            p > 0, p.double().pow(2 - ctx.alpha), torch.zeros((), dtype=torch.float64, device=p.device)
        )
        d = dy.double()
        dx = s * (d - (s * d).sum(-1, keepdim=True) / s.sum(-1, keepdim=True))
        return dx.to(dy.dtype), None


def entmax_ref(x, alpha=1.5):
    return _EntmaxRef.apply(x, alpha)


def entmax_attention_ref(q, k, v, alpha=1.5, causal=False, varlen=None):
    """Dense alpha-entmax attention in float32 with a differentiable entmax (kx's reference);
    k / v may have fewer heads than q (grouped-query); rows past varlen are zeroed."""
    if k.shape[1] != q.shape[1]:
        k = k.repeat_interleave(q.shape[1] // k.shape[1], 1)
        v = v.repeat_interleave(q.shape[1] // v.shape[1], 1)
    s = (q.float() @ k.float().transpose(-1, -2)) / q.shape[-1] ** 0.5
    n = s.shape[-1]
    mask = torch.zeros(n, n, dtype=torch.bool, device=s.device)
    if causal:
        mask = mask | torch.ones(n, n, dtype=torch.bool, device=s.device).triu(1)
    mask = mask.expand(s.shape)
    if varlen is not None:
        cols = torch.arange(n, device=s.device)[None, None, None, :] >= varlen[:, None, None, None]
        mask = mask | cols
    p = entmax_ref(s.masked_fill(mask, -1e4), alpha)
    out = p @ v.float()
    if varlen is not None:
        rows = torch.arange(n, device=s.device)[None, None, :, None] >= varlen[:, None, None, None]
        out = out.masked_fill(rows, 0)
    return out


def block_mask_attention_ref(q, k, v, sm_scale, allowed_blocks, block=64, causal=True):
    """Dense attention per head where key block j is visible to query block i iff
    allowed_blocks[h][i][j] (a bool tensor (H, n_qblocks, n_kblocks)), plus the causal mask;
    float32, one head at a time (kx's reference for MoA's block-sparse kernels)."""
    Z, H, N, _ = q.shape
    out = torch.empty_like(q)
    pos = torch.arange(N, device=q.device)
    for h in range(H):
        m = allowed_blocks[h].repeat_interleave(block, 0).repeat_interleave(block, 1)[:N, :N]
        if causal:
            m = m & (pos[:, None] >= pos[None, :])
        s = (q[:, h].float() @ k[:, h].float().transpose(-1, -2)) * sm_scale
        p = torch.softmax(s.masked_fill(~m, float("-inf")), -1)
        out[:, h] = (p @ v[:, h].float()).to(q.dtype)
    return out


def fill_col_block_quantized(layer, seed=0):
    """Random 4-bit codes with per-output-row scale / zero point for lit-llama's
    ColBlockQuantizedLinear (tile_cols = in_features), packed through its own pack_weight:
    kx's stand-in for a GPTQ checkpoint. The weight handed to pack_weight sits half a step above
    each code, so pack_weight's truncation to uint8 lands on the code."""
    g = torch.Generator().manual_seed(seed)
    out_f, in_f = layer.out_features, layer.in_features
    codes = torch.randint(0, 16, (out_f, in_f), generator=g).float()
    scales = torch.rand(out_f, 1, generator=g) * 0.01 / max(in_f, 1) ** 0.5 * 16 + 1e-4
    zeros = torch.randint(6, 10, (out_f, 1), generator=g).float()
    dev = layer.quant_weight.device
    layer.scales.copy_(scales.to(dev))
    layer.zeros.copy_(zeros.to(dev))
    layer.pack_weight(((codes + 0.5 - zeros) * scales).to(dev))
