"""Import helpers and stand-ins for fresh corpus 9's drivers (kx's own code, no upstream code).

The import helpers are corpus 7's (`_corpus7_support`, re-exported through `_corpus8_support`:
one copy). The stand-ins here are this corpus's own; each is used whether or not the real package
is installed, so a driver runs the same on any machine: no download, no hub, no installed-version
drift. Upstream sources are found on sys.path (the manifest's "pythonpath" puts the
`.realfiles/...` folders there).

`small()` is true when KX_CORPUS_SMALL=1 is set: the drivers then shrink their shapes (a switch
for checking a driver on a CPU with Triton's interpreter); by default they run their real sizes.
"""

from __future__ import annotations

from _corpus8_support import (
    bare_package,
    find_on_path,
    passthrough_module,
    pick,
    quiet_warnings,
    small,
    stub_module,
    unavailable,
)


def install_termcolor_standin() -> None:
    """hqq imports termcolor.colored for its log lines: a stand-in returning the text unchanged."""
    stub_module("termcolor", colored=lambda text, *args, **kwargs: text, cprint=lambda *a, **k: print(*a))


def install_flash_attn_standin() -> None:
    """x-attention's FlexPrefill imports flash_attn.flash_attn_func for its dense fallback: a
    stand-in (kx's code) with flash-attn's (B, N, H, D) layout, computed by SDPA."""
    import torch
    import torch.nn.functional as F

    def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, **kwargs):
        o = F.scaled_dot_product_attention(
            q.transpose(1, 2),
            k.transpose(1, 2),
            v.transpose(1, 2),
            is_causal=causal,
            scale=softmax_scale,
            enable_gqa=q.shape[2] != k.shape[2],
        )
        return o.transpose(1, 2)

    del torch
    stub_module("flash_attn", flash_attn_func=flash_attn_func)


def install_block_sparse_attn_standin() -> None:
    """x-attention's Xattention.py imports the CUDA block_sparse_attn package at the top; its
    estimation path (the Triton kernels) does not call it. A stand-in that raises if called."""
    stub_module("block_sparse_attn", block_sparse_attn_func=unavailable("block_sparse_attn.block_sparse_attn_func"))


def gptq_rtn_params(weight, bits: int, group_size: int, act_order: bool = False, seed: int = 0):
    """Round-to-nearest GPTQ-style quantisation parameters (kx's code) for an (out, in) weight, in
    the layout AutoGPTQ's QuantLinear.pack takes: scales and integer zero points of shape
    (out, n_groups), and g_idx (in,) mapping each input column to its group. With act_order the
    columns are visited in a random order (as GPTQ's desc_act does with its Hessian order), so
    g_idx is a permutation of the grouped order rather than arange(in) // group_size."""
    import torch

    out_f, in_f = weight.shape
    maxq = 2**bits - 1
    order = torch.arange(in_f)
    if act_order:
        order = torch.randperm(in_f, generator=torch.Generator().manual_seed(seed))
    g_idx = torch.empty(in_f, dtype=torch.int32)
    g_idx[order] = (torch.arange(in_f) // group_size).to(torch.int32)
    n_groups = (in_f + group_size - 1) // group_size
    scales = torch.empty(out_f, n_groups)
    zeros = torch.empty(out_f, n_groups)
    w = weight.float()
    for g in range(n_groups):
        cols = (g_idx == g).nonzero().flatten()
        wg = w[:, cols]
        lo = wg.min(1).values.clamp(max=0)
        hi = wg.max(1).values.clamp(min=0)
        scale = ((hi - lo) / maxq).clamp_min(1e-8)
        scales[:, g] = scale
        zeros[:, g] = torch.round(-lo / scale)
    return scales, zeros, g_idx


def gptq_dequantize(weight, scales, zeros, g_idx, bits: int):
    """The (out, in) weight a GPTQ layer with these parameters computes with (kx's code)."""
    import torch

    maxq = 2**bits - 1
    s = scales[:, g_idx.long()].float()
    z = zeros[:, g_idx.long()].float()
    q = torch.clamp(torch.round(weight.float() / s) + z, 0, maxq)
    return s * (q - z)


def rel_err(a, b) -> float:
    """max |a - b| / max |b| in fp32."""
    a, b = a.float(), b.float()
    return ((a - b).abs().max() / b.abs().max().clamp_min(1e-12)).item()


__all__ = [
    "bare_package",
    "find_on_path",
    "gptq_dequantize",
    "gptq_rtn_params",
    "install_block_sparse_attn_standin",
    "install_flash_attn_standin",
    "install_termcolor_standin",
    "passthrough_module",
    "pick",
    "quiet_warnings",
    "rel_err",
    "small",
    "stub_module",
    "unavailable",
]
