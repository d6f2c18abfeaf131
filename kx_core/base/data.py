"""The data files kx ships inside its package (kx_core/data), read through
importlib.resources so that they are found from any install, editable or not.

    examples/     kernel files the File > Examples menu opens
    egraph/       egglog programs for the E-graph pane and `kx egraph`
    lit/          lit tests for the Playground pane and `kx lit`
    kernelbench/  the KernelBench-style library `kx kernelbench` judges
    ranking/      the sweep ranking's learned corrections, one file per GPU (kx_core.model.learned_rank)

Test-only fixtures (captured IR, bad files, timing runs) stay in the checkout, outside the package.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.resources
from pathlib import Path

# Every folder of kx_core/data the code reads; the wheel test checks each is shipped whole.
DATA_FOLDERS = ("examples", "egraph", "lit", "kernelbench", "ranking")


@functools.cache
def data_root() -> Path:
    """kx_core/data as a real folder (user files there are run by a worker process, which
    needs a path; an install from a zip is extracted once for the process)."""
    ref = importlib.resources.files("kx_core") / "data"
    if isinstance(ref, Path):
        return ref
    stack = contextlib.ExitStack()
    atexit.register(stack.close)
    return Path(stack.enter_context(importlib.resources.as_file(ref)))


def data_path(folder: str, *parts: str) -> Path:
    """A shipped folder (one of DATA_FOLDERS) or a file in it."""
    if folder not in DATA_FOLDERS:
        raise KeyError(f"kx ships no data folder {folder!r}")
    return data_root().joinpath(folder, *parts)


def examples() -> list[Path]:
    """The example kernel files, by name."""
    return sorted(data_path("examples").glob("*.py"))


# The C++ CPU kernels File ▸ Examples and the Welcome page list (the seed's layout in
# examples/cpu, a one-file torch extension in examples/cpu_ext), in this order
_CPP_EXAMPLES = (
    ("cpu", "rmsnorm_avx2.cpp"),
    ("cpu", "rmsnorm_avx512.cpp"),
    ("cpu", "vector_add_avx2.cpp"),
    ("cpu", "gemm_avx2.cpp"),
    ("cpu_ext", "silu_mul_ext.cpp"),
)


def cpp_examples() -> list[Path]:
    """The C++ CPU kernel examples (AVX2, AVX-512, a torch extension)."""
    return [data_path("examples", *parts) for parts in _CPP_EXAMPLES]
