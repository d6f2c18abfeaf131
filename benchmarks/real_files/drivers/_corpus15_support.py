"""Import helpers and stand-ins for fresh corpus 15's drivers (kx's code, no upstream code).

The import helpers are corpus 7's (re-exported through `_corpus9_support`). Each stand-in here is
used whether or not the real package is installed, so a driver runs the same on any machine.
Upstream sources are found on sys.path (the manifest's "pythonpath" puts the `.realfiles/...`
folders there). `small()` is true under KX_CORPUS_SMALL=1 (toy sizes for a CPU check with
Triton's interpreter); by default the drivers run their real sizes.
"""

from __future__ import annotations

import sys

import torch
from _corpus9_support import pick, rel_err, small, stub_module  # noqa: F401


def install_fairscale_standin() -> None:
    """meta-llama/llama's model.py builds its layers from fairscale's model-parallel
    ColumnParallelLinear / RowParallelLinear / ParallelEmbedding and asks fs_init for the
    model-parallel world size; generation.py imports fairscale's initializer and the
    sentencepiece Tokenizer. On one GPU those layers are a plain Linear / Embedding (world size
    1), so stand-ins with the same constructor arguments; the tokenizer is not used."""

    class ColumnParallelLinear(torch.nn.Linear):
        def __init__(self, in_features, out_features, bias=True, gather_output=True, init_method=None, **kw):
            super().__init__(in_features, out_features, bias=bias)

    class RowParallelLinear(torch.nn.Linear):
        def __init__(
            self, in_features, out_features, bias=True, input_is_parallel=False, init_method=None, **kw
        ):
            super().__init__(in_features, out_features, bias=bias)

    class ParallelEmbedding(torch.nn.Embedding):
        def __init__(self, num_embeddings, embedding_dim, init_method=None, **kw):
            super().__init__(num_embeddings, embedding_dim)

    class _Unavailable:
        def __init__(self, *a, **k):
            raise RuntimeError("stand-in: not available in this driver")

    stub_module("fairscale")
    stub_module("fairscale.nn")
    stub_module("fairscale.nn.model_parallel")
    stub_module(
        "fairscale.nn.model_parallel.initialize",
        get_model_parallel_world_size=lambda: 1,
        get_model_parallel_rank=lambda: 0,
        initialize_model_parallel=lambda *a, **k: None,
        model_parallel_is_initialized=lambda: True,
    )
    stub_module(
        "fairscale.nn.model_parallel.layers",
        ColumnParallelLinear=ColumnParallelLinear,
        RowParallelLinear=RowParallelLinear,
        ParallelEmbedding=ParallelEmbedding,
    )
    stub_module("sentencepiece", SentencePieceProcessor=_Unavailable)


def alias_module(name: str, module) -> None:
    """Register `module` under the dotted `name` (and its parents as empty modules), for a file
    that imports its sibling through the package path of the project it was copied from."""
    parts = name.split(".")
    for i in range(1, len(parts)):
        parent = ".".join(parts[:i])
        if parent not in sys.modules:
            stub_module(parent)
    sys.modules[name] = module
    if len(parts) > 1:
        setattr(sys.modules[".".join(parts[:-1])], parts[-1], module)


class GreedyTokenizerStandin:
    """What llama's Llama.generate reads from its tokenizer: pad_id / eos_id (eos -1: no token
    ends a sequence, so every prompt decodes max_gen_len tokens and the sizes are fixed)."""

    pad_id = -1
    eos_id = -1
    bos_id = 1


def install_torchvision_models_standin() -> None:
    """AntixK/PyTorch-VAE's models/__init__.py imports every model, and dfcvae.py imports
    torchvision.models.vgg19_bn (its perceptual loss); the drivers use VanillaVAE / VQVAE only, so
    a stand-in whose use would raise."""

    def vgg19_bn(*a, **k):
        raise RuntimeError("stand-in: torchvision is not used in this driver")

    stub_module("torchvision")
    stub_module("torchvision.models", vgg19_bn=vgg19_bn)


def load_file_module(module_name: str, filename: str, beside: str):
    """Import the first `<sys.path entry>/<filename>` that has `beside` next to it, under
    `module_name`: for an upstream file whose name (main.py) other modules on the path share, kx's
    own main.py at the checkout's root among them."""
    import importlib.util
    import os

    for entry in sys.path:
        folder = entry or os.getcwd()
        cand = os.path.join(folder, filename)
        if os.path.isfile(cand) and os.path.isfile(os.path.join(folder, beside)):
            spec = importlib.util.spec_from_file_location(module_name, cand)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = mod
            spec.loader.exec_module(mod)
            return mod
    raise ImportError(f"no {filename!r} beside {beside!r} on sys.path; set PYTHONPATH as the manifest says")
