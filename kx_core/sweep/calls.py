"""How a sweep's shape reaches the kernel (issue 55 item 1).

Three forms, chosen per shape:
- *entry*: the file has a function whose parameters are the shape's names (`run(M, N, K)`,
  the bundled example's); the driver calls it with the shape, as before;
- *key*: the shape names the kernel's own arguments, its autotune key as a rule
  (`M=2048,N=1024,K=4096`), and the file only has wrappers taking tensors
  (`matmul(a, b, activation="")`);
- *tensors*: the shape names the wrapper's tensor parameters (`a=2048x4096,b=4096x1024`).

For the last two kx learns the wrapper call from the file's own run: the file runs under
capture with every Triton launch recorded and none compiled (kx_core.sweep.plan_script),
each launch of the kernel with the outermost function of the file on the stack, its
arguments (tensors as shape, dtype, device, layout) and the key's values. Which tensor
dimension carries which key value is PyTorch's answer, not a guess: the wrapper is called
again with fake tensors whose every dimension is a symbol of its own (FakeTensorMode with a
ShapeEnv), and the kernel's arguments at the launch are expressions in those symbols,
after the wrapper's own checks have equated some (`assert a.shape[1] == b.shape[0]`). A key
that is not one symbol (`x.numel()`) cannot be set by sizes: kx says so and asks for the
tensor form. Every planned call is checked by calling the wrapper once more with fake
tensors of the planned sizes: the key must get the values asked for.

Without a shape, the file's own launches of the kernel are the shapes.
"""

from __future__ import annotations

import ast
import json
import os
import tempfile
from dataclasses import dataclass
from typing import Any

from kx_core.sweep.space import SpaceError


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple[int, ...]
    dtype: str  # torch's name without "torch.": float16
    device: str  # "cuda" or "cpu" (a tensor a real run has on the host)
    order: tuple[int, ...]  # the dimensions from the largest stride to the smallest
    requires_grad: bool = False

    def to_json(self) -> dict:
        return {"shape": list(self.shape), "dtype": self.dtype, "device": self.device,
                "order": list(self.order), "requires_grad": self.requires_grad}  # fmt: skip

    @classmethod
    def from_json(cls, d: dict) -> TensorSpec:
        return cls(
            tuple(d["shape"]), d["dtype"], d["device"], tuple(d["order"]), bool(d.get("requires_grad"))
        )

    def made(self, factory: Any) -> Any:
        """`factory(sizes)` called with the sizes in stride order, then permuted back: a
        tensor of this shape laid out as recorded (a transposed view stays one)."""
        t = factory([self.shape[d] for d in self.order])
        return t.permute(*[self.order.index(d) for d in range(len(self.order))])


@dataclass(frozen=True)
class WrapperCall:
    """A call of the file's function `function` that launches the kernel: its tensor
    arguments made anew at `tensors`' sizes, the others passed as recorded."""

    function: str
    tensors: dict[str, TensorSpec]
    values: dict[str, Any]  # JSON values; {"dtype": "float16"} stands for a torch.dtype

    def to_json(self) -> dict:
        return {"function": self.function, "tensors": {k: t.to_json() for k, t in self.tensors.items()},
                "values": self.values}  # fmt: skip

    @classmethod
    def from_json(cls, d: dict) -> WrapperCall:
        return cls(d["function"], {k: TensorSpec.from_json(t) for k, t in d["tensors"].items()}, d["values"])

    def label(self) -> str:
        """`matmul(a=2048x4096,b=4096x1024)`: the call as the sweep says it."""
        sizes = ",".join(f"{k}={'x'.join(map(str, t.shape))}" for k, t in self.tensors.items())
        return f"{self.function}({sizes})"


def make_arguments(call: WrapperCall) -> dict[str, Any]:
    """The call's keyword arguments: each tensor made at its sizes, dtype, device and
    layout (random normal floats; integers and booleans zero, so an index stays in range)."""
    import torch

    out: dict[str, Any] = {}
    for name, spec in call.tensors.items():
        dtype = getattr(torch, spec.dtype)
        fill = torch.randn if dtype.is_floating_point or dtype.is_complex else torch.zeros
        t = spec.made(
            lambda sizes, fill=fill, dtype=dtype, spec=spec: fill(sizes, dtype=dtype, device=spec.device)
        )
        out[name] = t.requires_grad_(spec.requires_grad) if spec.requires_grad else t
    for name, value in call.values.items():
        out[name] = getattr(torch, value["dtype"]) if isinstance(value, dict) and "dtype" in value else value
    return out


def fits_an_entry(path: str, shape: dict, entry: str | None) -> bool:
    """Whether `shape` goes to a function by the entry rule (driver.entry_of), read from the
    file's text: its names all integers, and a function of the file (or `entry`) whose
    required parameters they cover and which takes no others."""
    if entry:
        return True
    if not all(isinstance(v, int) for v in shape.values()):
        return False
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return True  # the capture says what is wrong with the file
    keys = set(shape)
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        a = node.args
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs]
        names = {p.arg for p in params}
        first_default = len(a.posonlyargs) + len(a.args) - len(a.defaults)
        required = {p.arg for p in [*a.posonlyargs, *a.args][:first_default]}
        required |= {p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None}
        if required and required <= keys <= names:
            return True
    return False


@dataclass(frozen=True)
class Planned:
    """One shape as the sweep runs it: what the kernel's key gets (the case's shape), the
    wrapper call that gives it (None: the entry form), or why there is none."""

    shape: dict[str, int]
    call: WrapperCall | None = None
    error: str | None = None


def plan(
    path: str, kernel: str, shapes: list[dict], target: str, timeout_s: float, python: str | None
) -> tuple[list[Planned], list[str]]:
    """Each shape's call, by the file's own run under capture (see the module doc); no
    shapes: one per distinct launch of the kernel in that run. Also the notes to say."""
    from kx_core.compile import CompileRequest, compile_file

    with tempfile.TemporaryDirectory(prefix="kx-sweep-plan-") as folder:
        script = os.path.join(folder, "kx_sweep_plan.py")
        answer = os.path.join(folder, "plan.json")
        with open(script, "w", encoding="utf-8") as f:
            f.write(
                f"# kx sweep: the calls of {os.path.basename(path)}'s {kernel} (kx_core/sweep/calls.py)\n"
                "from kx_core.sweep.plan_script import main\n\n"
                f"main({os.path.abspath(path)!r}, {kernel!r}, {json.dumps(shapes)!r}, {answer!r})\n"
            )
        result = compile_file(
            CompileRequest(script, target=target, timeout_s=timeout_s, python=python), use_cache=False
        )
        try:
            with open(answer, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, json.JSONDecodeError):
            why = next((d.message for d in result.diagnostics if d.fatal or d.kind == "runtime"), "")
            raise SpaceError(
                f"kx could not run {os.path.basename(path)} to find {kernel}'s calls: {why}"
            ) from None
    planned = [
        Planned(p["shape"], WrapperCall.from_json(p["call"]) if p.get("call") else None, p.get("error"))
        for p in data["planned"]
    ]
    return planned, list(data.get("notes", []))
