"""Whether the backend's compiler takes a target, asked before anything compiles: a
target Triton cannot compile for (`cuda:999`, `hip:gfx000`) is a bad command line, not a
compile error blamed on the user's launch line.

CUDA: the archs the triton wheel's ptxas lists in its --help (ptxas and, where the
wheel has one, ptxas-blackwell: Triton picks it for sm_100 and later). HIP: the
backend descriptor's list (records.backends.HIP.archs).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess

from kx_core.records.backends import backend_of
from kx_core.records.results import Target
from kx_core.records.target import TargetError

# Example (ptxas --help, the --gpu-name values): "'sm_100','sm_100a','sm_100f','sm_101',"
_SM = re.compile(r"'sm_(\d+)'")


@functools.cache
def ptxas_archs() -> frozenset[str]:
    """The sm_NN numbers the wheel's ptxas tools take; empty when none answers."""
    from kx_core.base.tools import find_tool

    ptxas = find_tool("ptxas")
    if ptxas is None:  # no ptxas: the compile says so itself
        return frozenset()
    found: set[str] = set()
    for tool in (ptxas, os.path.join(os.path.dirname(ptxas), "ptxas-blackwell")):
        if not os.path.exists(tool):
            continue
        try:
            out = subprocess.run([tool, "--help"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        found |= set(_SM.findall(out))
    return frozenset(found)


def supported_archs(target: Target) -> tuple[str, ...]:
    """The archs the target's backend compiles for (empty: kx cannot tell, so any)."""
    backend = backend_of(target)
    if backend.archs_tool == "ptxas":
        return tuple(sorted(ptxas_archs(), key=int))
    return backend.archs


def check_supported(target: Target) -> None:
    """Raise TargetError when the backend's compiler does not take the target."""
    archs = supported_archs(target)
    if archs and str(target.arch) not in archs:
        backend = backend_of(target)
        shown = ", ".join(f"{target.backend}:{a}" for a in archs)
        raise TargetError(
            f"{target.spec} is not a target {backend.display_name} compiles for: one of {shown}"
        )
