"""Helion files under kx's capture. Helion generates a Triton kernel per call and launches
it through Triton, so the capture sees it as any launch (kernel_record reads the generated
module: compile/artifacts/helion_generated.py). What differs is the config: a Helion kernel
without `config=` autotunes on a real run, by timing configs kx cannot time. kx has Helion
compile its default config instead (HELION_AUTOTUNE_EFFORT=none, unless the user set it)
and says, per kernel, that a real run may launch another."""

from __future__ import annotations

import os
from typing import Any

from kx_core.records.languages import BY_NAME
from kx_core.records.results import Diagnostic

_EFFORT = "HELION_AUTOTUNE_EFFORT"


def prepare(text: str) -> bool:
    """Before the file runs: for a Helion file, Helion's default config rather than an
    autotune kx cannot time. True when kx chose that (the user did not)."""
    if not BY_NAME["helion"].marks(text) or _EFFORT in os.environ:
        return False
    os.environ[_EFFORT] = "none"
    return True


def _helion_kernels(namespace: dict) -> list[Any]:
    return [
        v
        for v in namespace.values()
        if type(v).__name__ == "Kernel" and type(v).__module__.startswith("helion.")
    ]


def _def_line(fn: Any) -> int | None:
    """The line of the `def` (its code object starts at the decorator)."""
    import inspect

    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    return start + next((i for i, t in enumerate(lines) if t.lstrip().startswith("def ")), 0)


def guessed_configs(namespace: dict, path: str) -> list[Diagnostic]:
    """A `not-captured` diagnostic for each Helion kernel the file called whose config a
    real run would choose by autotuning (none given, or several)."""
    out = []
    for k in _helion_kernels(namespace):
        if len(getattr(k, "configs", ())) == 1 or not getattr(k, "_bound_kernels", None):
            continue
        line = _def_line(getattr(k, "fn", None))
        given = len(k.configs)
        out.append(
            Diagnostic(
                "not-captured",
                f"{k.name}: a real run autotunes it ({'no config given' if not given else f'{given} configs'}); "
                f"kx compiled Helion's default config ({_EFFORT}=none), which a real run may not launch: "
                "give @helion.kernel(config=...) to see the one you run",
                path,
                line,
                kernel=k.name,
            )
        )
    return out
