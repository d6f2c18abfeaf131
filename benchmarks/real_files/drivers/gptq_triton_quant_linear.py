"""Corpus driver (kx's code): fpgaminer/GPTQ-triton's 4-bit GPTQ inference kernels behind its
own autotuner (custom_autotune.Autotuner, a triton.KernelInterface subclass: keys rounded to
the nearest power of two, prune_configs_by early_config_prune = matmul4_kernel_config_pruner
shrinking BLOCK_SIZE_* to the problem, timing with triton.testing.do_bench). A TinyLlama-
sized decoder layer's nn.Linear layers (GQA k/v 256 wide) are swapped for QuantLinear by make_quant (groupsize
128 -> matmul4_kernel with per-group scales/zeros; groupsize -1 -> NO_GROUPS), filled with
packed int4 weights, and run for a prefill (M=512) and a decode (M=1) batch; the
ungrouped layer's MLP also runs as QuantLlamaMLP (llama_mlp_fused_4_kernel: gate/up dequant
GEMMs + SiLU fused, then the QuantLinear down_proj). gptq_triton/__init__ (model loading
through transformers' Llama classes) is skipped; fused_mlp.py imports transformers' LlamaMLP
for its module-swap helper, stubbed only where transformers is absent."""

import importlib.util

import _corpus_support
import torch

_corpus_support.bare_package("gptq_triton", _corpus_support.find_on_path("gptq_triton"))
if importlib.util.find_spec("transformers") is None:
    _corpus_support.stub_module(
        "transformers.models.llama.modeling_llama",
        LlamaMLP=type("LlamaMLP", (torch.nn.Module,), {}),
    )
from gptq_triton.fused_mlp import QuantLlamaMLP  # noqa: E402
from gptq_triton.quant_linear import QuantLinear, make_quant  # noqa: E402

HIDDEN, INTER = 2048, 5632


def _linear(i, o):
    return torch.nn.Linear(i, o, bias=False)


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj, self.k_proj, self.v_proj = (
            _linear(HIDDEN, HIDDEN),
            _linear(HIDDEN, 256),
            _linear(HIDDEN, 256),
        )
        self.o_proj = _linear(HIDDEN, HIDDEN)


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj, self.up_proj, self.down_proj = (
            _linear(HIDDEN, INTER),
            _linear(HIDDEN, INTER),
            _linear(INTER, HIDDEN),
        )


class DecoderLayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn, self.mlp = Attention(), MLP()


def quantized_model(groupsize):
    model = torch.nn.Module()
    model.layers = torch.nn.ModuleList([DecoderLayer()])  # make_quant swaps by dotted name
    make_quant(model, 4, groupsize)
    for m in model.modules():
        if isinstance(m, QuantLinear):  # a packed GPTQ checkpoint: int4 nibbles, fp16 scales
            m.qweight.random_(-(2**31), 2**31 - 1)
            m.qzeros.random_(-(2**31), 2**31 - 1)
            m.scales.uniform_(0.001, 0.01)
    return model.cuda().layers[0]


torch.manual_seed(0)
outs = []
with torch.no_grad():
    for groupsize in (128, -1):
        layer = quantized_model(groupsize)
        attn, mlp = layer.self_attn, layer.mlp
        fused = QuantLlamaMLP(mlp.gate_proj, mlp.down_proj, mlp.up_proj) if groupsize == -1 else None
        for m in (512, 1):
            x = torch.randn(1, m, HIDDEN, device="cuda", dtype=torch.float16)
            q, k, v = attn.q_proj(x), attn.k_proj(x), attn.v_proj(x)
            h = attn.o_proj(q)
            outs.append(mlp.down_proj(torch.nn.functional.silu(mlp.gate_proj(h)) * mlp.up_proj(h)))
            if fused is not None:
                outs.append(fused(h))
torch.cuda.synchronize()
print("GPTQ-triton quant linear ok", [tuple(o.shape) for o in outs])
