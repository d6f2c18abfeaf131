"""Import helpers, stand-ins and a small test model for fresh corpus 13's drivers (kx's code, no
upstream code).

The import helpers are corpus 7's (re-exported through `_corpus9_support`: one copy); the
stand-ins here are this corpus's own. Each stand-in is used whether or not the real package is
installed, so a driver runs the same on any machine: no download, no hub, no installed-version
drift. Upstream sources are found on sys.path (the manifest's "pythonpath" puts the
`.realfiles/...` folders there).

`small()` is true when KX_CORPUS_SMALL=1 is set: the drivers then shrink their shapes (a switch
for checking a driver on a CPU with Triton's interpreter); by default they run their real sizes.
"""

from __future__ import annotations

import logging

from _corpus9_support import (
    bare_package,
    find_on_path,
    passthrough_module,
    pick,
    quiet_warnings,
    rel_err,
    small,
    stub_module,
    unavailable,
)


def install_requests_standin() -> None:
    """NVlabs/edm's dnnlib/util.py imports requests at the top (only its open_url downloads with
    it; the drivers build networks from code and never call it): a stand-in whose functions
    raise if called."""
    stub_module("requests", get=unavailable("requests.get"), Session=unavailable("requests.Session"))


def install_bitsandbytes_standin() -> None:
    """axolotl's kernels/lora.py and quantize.py import bitsandbytes (QuantState, get_ptr, the
    module) for 4-bit base weights; the drivers' LoRA layers have plain fp16 / bf16 base weights
    (quant_state None), so those paths never run. A stand-in package whose QuantState is an empty
    class and whose functions (get_ptr and the native library's NF4 dequantisers that quantize.py
    looks up at import) raise if called."""
    import types

    class QuantState:
        pass

    lib = types.SimpleNamespace(
        **{
            n: unavailable(f"bitsandbytes lib.{n}")
            for n in (
                "cdequantize_blockwise_fp32",
                "cdequantize_blockwise_fp16_nf4",
                "cdequantize_blockwise_bf16_nf4",
                "cdequantize_blockwise_fp32_nf4",
            )
        }
    )
    functional = stub_module(
        "bitsandbytes.functional", QuantState=QuantState, get_ptr=unavailable("get_ptr"), lib=lib
    )
    bnb = stub_module("bitsandbytes", functional=functional)
    bnb.functional = functional


def install_axolotl_logging_standin() -> None:
    """axolotl's kernels/op_registry.py imports axolotl.utils.logging.get_logger (a wrapper over the
    standard logging module that also configures rank-aware handlers); only the kernels folder is
    extracted, so a stand-in `axolotl.utils.logging` whose get_logger is logging.getLogger."""
    bare_package("axolotl")
    utils = stub_module("axolotl.utils")
    utils.__path__ = []
    stub_module("axolotl.utils.logging", get_logger=logging.getLogger)


def install_svg_standins() -> None:
    """svg-project/Sparse-VideoGen's svg/kmeans_utils.py imports flashinfer (its block-sparse
    attention, used only by density / attention helpers the drivers do not call) and cuVS's
    k-means (kmeans_rapidai, not called: the drivers use the file's own Triton k-means): stand-ins
    that raise if called."""
    stub_module(
        "flashinfer", BlockSparseAttentionWrapper=unavailable("flashinfer.BlockSparseAttentionWrapper")
    )
    stub_module("cuvs")
    stub_module("cuvs.cluster")
    stub_module(
        "cuvs.cluster.kmeans",
        KMeansParams=unavailable("cuvs.KMeansParams"),
        fit=unavailable("cuvs.kmeans.fit"),
    )


def install_hf_hub_standin() -> None:
    """FoundationVision/VAR's models/var.py imports huggingface_hub.PyTorchModelHubMixin for its
    VARHF hub wrapper class (the drivers build VAR directly, random weights, no download): a
    stand-in whose mixin is an empty base class."""

    class PyTorchModelHubMixin:
        def __init_subclass__(cls, **kwargs):
            super().__init_subclass__()

    stub_module("huggingface_hub", PyTorchModelHubMixin=PyTorchModelHubMixin)


def install_s4_dropout_standin() -> None:
    """state-spaces/s4's models/s4/s4d.py imports DropoutNd from the repository's training
    framework (src.models.nn, which pulls Hydra-era modules); the drivers build S4D with
    dropout=0.0, where S4D uses nn.Identity and never constructs DropoutNd. A stand-in `src.models.nn`
    whose DropoutNd raises if constructed."""
    for name in ("src", "src.models"):
        stub_module(name).__path__ = []
    stub_module("src.models.nn", DropoutNd=unavailable("src.models.nn.DropoutNd"))


def lora_mlp(d, ff, rank, alpha, device, dtype, seed=0):  # kx's own stand-in for a PEFT model
    """An MLP (gate_proj / up_proj / down_proj) whose projections carry LoRA adapters the way
    PEFT's lora.Linear lays them out, which is what axolotl's kernels read (get_lora_parameters):
    base_layer (frozen nn.Linear), lora_A / lora_B ModuleDicts and scaling keyed by the active
    adapter "default", lora_dropout, disable_adapters / merged flags. Also returns a plain
    PyTorch forward over the same tensors (the reference)."""
    import torch
    from torch import nn

    g = torch.Generator().manual_seed(seed)

    class LoraLinear(nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.base_layer = nn.Linear(i, o, bias=False)
            self.lora_A = nn.ModuleDict({"default": nn.Linear(i, rank, bias=False)})
            self.lora_B = nn.ModuleDict({"default": nn.Linear(rank, o, bias=False)})
            self.lora_dropout = nn.ModuleDict({"default": nn.Identity()})
            self.scaling = {"default": alpha / rank}
            self.active_adapter = "default"
            self.disable_adapters = False
            self.merged = False
            with torch.no_grad():
                self.base_layer.weight.copy_(torch.randn(o, i, generator=g) / i**0.5)
                self.lora_A["default"].weight.copy_(torch.randn(rank, i, generator=g) / i**0.5)
                self.lora_B["default"].weight.copy_(torch.randn(o, rank, generator=g) * 0.02)
            self.base_layer.weight.requires_grad_(False)

        def reference(self, x):
            a, b = self.lora_A["default"].weight, self.lora_B["default"].weight
            return x @ self.base_layer.weight.t() + (x @ a.t()) @ b.t() * self.scaling["default"]

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj, self.up_proj, self.down_proj = (
                LoraLinear(d, ff),
                LoraLinear(d, ff),
                LoraLinear(ff, d),
            )

    mlp = MLP().to(device, dtype)

    def reference(x, act):
        return mlp.down_proj.reference(act(mlp.gate_proj.reference(x)) * mlp.up_proj.reference(x))

    return mlp, reference


def infllm_style_model(
    vocab, d, heads, kv_heads, ff, layers, attn_forward, rope, device, dtype, seed=0
):  # kx's own test model
    """A Llama-style decoder (RMSNorm, GQA attention, SwiGLU MLP, untied head) whose attention
    layers call an attention forward with the signature thunlp/InfLLM's patch gives its attention
    functions: forward(self, query, key_value, position_bias, use_cache, past_key_value,
    project_q, project_k, project_v, attention_out, dim_head, num_heads, num_heads_kv)."""
    import torch
    from torch import nn

    g = torch.Generator().manual_seed(seed)

    def lin(i, o):
        m = nn.Linear(i, o, bias=False)
        with torch.no_grad():
            m.weight.copy_(torch.randn(o, i, generator=g) / i**0.5)
        return m.to(device, dtype)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            hd = d // heads
            self.q, self.k, self.v, self.o = (
                lin(d, d),
                lin(d, kv_heads * hd),
                lin(d, kv_heads * hd),
                lin(d, d),
            )
            self.gate, self.up, self.down = lin(d, ff), lin(d, ff), lin(ff, d)
            self.n1 = nn.RMSNorm(d, eps=1e-5).to(device, dtype)
            self.n2 = nn.RMSNorm(d, eps=1e-5).to(device, dtype)

        def forward(self, x, past):
            h = self.n1(x)
            out = attn_forward(
                self, h, h, rope, True, past, self.q, self.k, self.v, self.o, d // heads, heads, kv_heads
            )
            a, past = out
            x = x + a
            h = self.n2(x)
            return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h)), past

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, d).to(device, dtype)
            with torch.no_grad():
                self.emb.weight.copy_(torch.randn(vocab, d, generator=g))
            self.layers = nn.ModuleList(Layer() for _ in range(layers))
            self.norm = nn.RMSNorm(d, eps=1e-5).to(device, dtype)
            self.head = lin(d, vocab)

        def forward(self, ids, past=None):
            x = self.emb(ids)
            past = past or [None] * len(self.layers)
            new = []
            for layer, p in zip(self.layers, past):
                x, p = layer(x, p)
                new.append(p)
            return self.head(self.norm(x[:, -1:])).float(), new

    return Model().eval()


__all__ = [
    "bare_package",
    "find_on_path",
    "infllm_style_model",
    "install_axolotl_logging_standin",
    "lora_mlp",
    "install_bitsandbytes_standin",
    "install_hf_hub_standin",
    "install_requests_standin",
    "install_s4_dropout_standin",
    "install_svg_standins",
    "passthrough_module",
    "pick",
    "quiet_warnings",
    "rel_err",
    "small",
    "stub_module",
    "unavailable",
]
