"""Import helpers and stand-ins for fresh corpus 10's drivers (kx's own code, no upstream code).

The import helpers are corpus 7's (re-exported through `_corpus9_support`: one copy); the
stand-ins here are this corpus's own. Each stand-in is used whether or not the real package is
installed, so a driver runs the same on any machine: no download, no hub, no installed-version
drift. Upstream sources are found on sys.path (the manifest's "pythonpath" puts the
`.realfiles/...` folders there).

`small()` is true when KX_CORPUS_SMALL=1 is set: the drivers then shrink their shapes (a switch
for checking a driver on a CPU with Triton's interpreter); by default they run their real sizes.
"""

from __future__ import annotations

import os
import tempfile

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


def install_fairscale_standin() -> None:
    """meta-llama/llama3's model.py builds its layers from fairscale's model-parallel layers and
    asks fairscale for the model-parallel world size. Stand-ins (kx's code) for one process:
    ColumnParallelLinear / RowParallelLinear as nn.Linear (their extra keyword arguments
    dropped) and VocabParallelEmbedding as nn.Embedding, world size 1."""
    import torch.nn as nn

    class ColumnParallelLinear(nn.Linear):
        def __init__(self, in_features, out_features, bias=True, gather_output=True, init_method=None, **kwargs):
            super().__init__(in_features, out_features, bias=bias)

    class RowParallelLinear(nn.Linear):
        def __init__(self, in_features, out_features, bias=True, input_is_parallel=False, init_method=None, **kwargs):
            super().__init__(in_features, out_features, bias=bias)

    class VocabParallelEmbedding(nn.Embedding):
        def __init__(self, num_embeddings, embedding_dim, init_method=None, **kwargs):
            super().__init__(num_embeddings, embedding_dim)

    stub_module("fairscale")
    stub_module("fairscale.nn")
    stub_module("fairscale.nn.model_parallel")
    stub_module(
        "fairscale.nn.model_parallel.initialize",
        get_model_parallel_world_size=lambda: 1,
        get_model_parallel_rank=lambda: 0,
        model_parallel_is_initialized=lambda: True,
    )
    stub_module(
        "fairscale.nn.model_parallel.layers",
        ColumnParallelLinear=ColumnParallelLinear,
        RowParallelLinear=RowParallelLinear,
        VocabParallelEmbedding=VocabParallelEmbedding,
    )


def install_tensorboard_standin() -> None:
    """karpathy/makemore imports torch.utils.tensorboard.SummaryWriter at the top (tensorboard is
    not installed on the run machines): a stand-in writer (kx's code) that keeps the scalars it is
    given in memory."""

    class SummaryWriter:
        def __init__(self, log_dir=None, **kwargs):
            self.log_dir = log_dir
            self.scalars = []

        def add_scalar(self, tag, value, step=None, **kwargs):
            self.scalars.append((tag, float(value), step))

        def flush(self):
            pass

        def close(self):
            pass

    stub_module("torch.utils.tensorboard", SummaryWriter=SummaryWriter)


def install_jaxtyping_standin() -> None:
    """trifast annotates with jaxtyping's Float / Bool (`Float[torch.Tensor, "..."]`): stand-ins
    (kx's code) whose subscription returns the array type unchanged."""

    class _Annot:
        def __init__(self, name):
            self.name = name

        def __getitem__(self, item):
            return item[0] if isinstance(item, tuple) else item

    stub_module("jaxtyping", Float=_Annot("Float"), Bool=_Annot("Bool"), Int=_Annot("Int"), jaxtyped=lambda f=None, **k: f)


def install_trifast_env() -> str:
    """trifast's autotuner persists its choices under platformdirs' user config folder, named with
    `importlib.metadata.version("trifast")` (the package is not installed here, only its sources on
    sys.path). Stand-ins (kx's code): a platformdirs whose user_config_dir is a fresh temporary
    folder (so no earlier run's cached choice is read back), and a version lookup answering for
    "trifast" and deferring to importlib.metadata for every other name. Returns the folder."""
    import importlib.metadata as md

    folder = tempfile.mkdtemp(prefix="kx-trifast-")
    stub_module("platformdirs", user_config_dir=lambda appname=None, version=None, **k: os.path.join(folder, appname or "app"))
    real_version = getattr(md.version, "_kx_real", md.version)

    def version(name):
        if name == "trifast":
            return "0.1.2"
        return real_version(name)

    version._kx_real = real_version
    md.version = version
    install_jaxtyping_standin()
    return folder


__all__ = [
    "bare_package",
    "find_on_path",
    "install_fairscale_standin",
    "install_jaxtyping_standin",
    "install_tensorboard_standin",
    "install_trifast_env",
    "passthrough_module",
    "pick",
    "quiet_warnings",
    "rel_err",
    "small",
    "stub_module",
    "unavailable",
]
