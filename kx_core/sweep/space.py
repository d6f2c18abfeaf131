"""Shapes and config spaces of a sweep.

A shape is the keyword arguments of the file's entry function: `M=4096,N=4096,K=512`.
A config is what `triton.Config` holds (its kwargs, num_warps, num_stages, maxnreg); a
space is either the kernel's own autotune configs (None: the driver keeps them) or a
grid of values per key: `BLOCK_M=64,128;BLOCK_N=64,128;num_warps=4,8;num_stages=3,4`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from kx_core.base.jsonable import Jsonable

# the triton.Config keywords that are not the kernel's meta-parameters
LAUNCH_KEYS = ("num_warps", "num_stages", "maxnreg")


class SpaceError(ValueError):
    """A shape or space the user wrote that kx cannot read."""


@dataclass(frozen=True)
class ConfigSpec(Jsonable):
    kwargs: dict[str, int] = field(default_factory=dict)
    num_warps: int = 4
    num_stages: int = 3
    maxnreg: int | None = None

    @property
    def label(self) -> str:
        """As kx names autotune configs (one spelling: the records')."""
        from kx_core.records.results import AutotuneConfig

        return AutotuneConfig(
            0, dict(self.kwargs), self.num_warps, self.num_stages, maxnreg=self.maxnreg
        ).label

    def triton_kwargs(self) -> dict[str, Any]:
        """triton.Config(**this)."""
        out: dict[str, Any] = {"kwargs": dict(self.kwargs), "num_warps": self.num_warps}
        out["num_stages"] = self.num_stages
        if self.maxnreg:
            out["maxnreg"] = self.maxnreg
        return out


# Example: "M=4096,N=4096,K=512" (also "M=4096 N=4096"); a tensor's sizes: "a=2048x4096"
_PAIR_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(-?\d+|\d+(?:x\d+)+)\s*$")


def parse_shape(text: str) -> dict[str, Any]:
    """NAME=INTEGER pairs (an entry function's or the kernel's arguments), or NAME=AxB
    (a wrapper's tensor parameter and its sizes, as a tuple): kx_core.sweep.calls."""
    out: dict[str, Any] = {}
    for part in re.split(r"[,\s]+", text.strip()):
        if not part:
            continue
        m = _PAIR_RE.match(part)
        if not m:
            raise SpaceError(
                f"shape {text!r}: {part!r} is not NAME=INTEGER or NAME=AxB (as in M=4096,N=4096,K=512 "
                "or a=4096x512,b=512x4096)"
            )
        value = m.group(2)
        out[m.group(1)] = tuple(int(v) for v in value.split("x")) if "x" in value else int(value)
    if not out:
        raise SpaceError("an empty shape: write NAME=INTEGER,... (as in M=4096,N=4096,K=512)")
    return out


def shapes_from_file(path: str) -> list[dict[str, int]]:
    """A JSON list of objects, or one shape per line (blank lines and # comments skipped)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as e:
            raise SpaceError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
        if not all(isinstance(r, dict) and all(isinstance(v, int) for v in r.values()) for r in rows):
            raise SpaceError(f"{path}: a JSON list of {{name: integer}} objects is expected")
        return rows
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            try:
                out.append(parse_shape(line))
            except SpaceError as e:
                raise SpaceError(f"{path}:{n}: {e}") from None
    return out


def shape_label(shape: dict[str, Any]) -> str:
    return ",".join(
        f"{k}={'x'.join(map(str, v)) if isinstance(v, (list, tuple)) else v}" for k, v in shape.items()
    )


def parse_space(text: str) -> list[ConfigSpec]:
    """The grid `KEY=V1,V2;KEY=...` as configs, in the order the keys are written (the
    last key varies fastest, as itertools.product)."""
    axes: list[tuple[str, list[int]]] = []
    for part in text.split(";"):
        if not part.strip():
            continue
        key, sep, values = part.partition("=")
        key = key.strip()
        try:
            vals = [int(v) for v in values.split(",") if v.strip()]
        except ValueError:
            vals = []
        if not sep or not re.fullmatch(r"[A-Za-z_]\w*", key) or not vals:
            raise SpaceError(
                f"space {text!r}: {part.strip()!r} is not KEY=V1,V2 (as in BLOCK_M=64,128;num_warps=4,8)"
            )
        axes.append((key, vals))
    if not axes:
        raise SpaceError("an empty space: write KEY=V1,V2;KEY=... (as in BLOCK_M=64,128;num_warps=4,8)")
    out = []
    for values in product(*(v for _, v in axes)):
        picked = dict(zip((k for k, _ in axes), values))
        launch = {k: picked.pop(k) for k in LAUNCH_KEYS if k in picked}
        out.append(
            ConfigSpec(picked, launch.get("num_warps", 4), launch.get("num_stages", 3), launch.get("maxnreg"))
        )
    return out


def check_space_keys(source: str, kernel: str, space: list[ConfigSpec]) -> None:
    """Raise SpaceError when the space sets a key that is neither a parameter of the
    kernel `kernel` defined in `source` (a def of that name, read as text: nothing runs)
    nor a launch option. A kernel kx does not find by its def (an alias, made by a call)
    is not checked here. Such a key made every config fail as "pruned", the kernel
    called without its own meta-parameters."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == kernel]
    if len(defs) != 1:
        return
    a = defs[0].args
    params = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    keys = {k for c in space for k in c.kwargs}
    unknown = sorted(keys - set(params))
    if unknown:
        raise SpaceError(
            f"space: {', '.join(unknown)} {'is not a parameter' if len(unknown) == 1 else 'are not parameters'}"
            f" of {kernel} (its parameters: {', '.join(params)}; and the launch's: {', '.join(LAUNCH_KEYS)})"
        )


def spec_of_label(label: str) -> ConfigSpec:
    """The inverse of ConfigSpec.label: 'BLOCK_M=64,BLOCK_N=64,w4,s3' -> its spec."""
    kwargs, warps, stages, maxnreg = {}, 4, 3, None
    for part in label.split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            kwargs[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
        elif m := re.fullmatch(r"([wsr])(\d+)", part):
            n = int(m.group(2))
            warps, stages, maxnreg = (
                (n, stages, maxnreg)
                if m.group(1) == "w"
                else (warps, n, maxnreg)
                if m.group(1) == "s"
                else (warps, stages, n)
            )
    return ConfigSpec(kwargs, warps, stages, maxnreg)
