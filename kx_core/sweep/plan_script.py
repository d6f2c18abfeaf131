"""The sweep's plan, inside kx's capture (kx_core.sweep.calls says why and how): the
user's file run as `__main__` with every Triton launch recorded and none compiled, then
the wrapper that launched the kernel called with fake tensors to see which dimension
carries which key value. Writes its answer as JSON to the path it is given."""

from __future__ import annotations

import inspect
import json
import os
import runpy
import sys
import traceback
from typing import Any


class _Launched(Exception):
    """Raised at the kernel's launch while probing: nothing after it matters."""


def _kernel_name(obj: Any) -> str:
    """The Python name of what a Triton launch entry wraps (an Autotuner's or Heuristics'
    JITFunction's function)."""
    from kx_core.compile.artifacts.kernel_record import jit_name
    from kx_core.compile.capturing.jit_objects import base_jit

    return jit_name(base_jit(obj))


class _Recorder:
    """Triton's launch entries replaced: a launch of `kernel` is recorded (its arguments
    by name, and the file's outermost function on the stack); nothing is compiled."""

    def __init__(self, path: str, kernel: str):
        self.path = os.path.realpath(path)
        self.kernel = kernel
        self.launches: list[dict] = []
        self.probing = False

    def __enter__(self) -> _Recorder:
        from triton.runtime.autotuner import Autotuner
        from triton.runtime.jit import JITFunction

        self._saved = (JITFunction.run, Autotuner.run)
        recorder = self

        def run(self_: Any, *args: Any, **kwargs: Any) -> Any:
            if _kernel_name(self_) == recorder.kernel:
                recorder.record(self_, args, kwargs)
            return None

        JITFunction.run = run
        Autotuner.run = run
        return self

    def __exit__(self, *exc: Any) -> None:
        from triton.runtime.autotuner import Autotuner
        from triton.runtime.jit import JITFunction

        JITFunction.run, Autotuner.run = self._saved

    def record(self, tuner: Any, args: tuple, kwargs: dict) -> None:
        names = list(getattr(tuner, "arg_names", []) or [])
        bound = dict(zip(names, args))
        bound.update({k: v for k, v in kwargs.items() if k not in ("grid", "warmup")})
        keys = list(getattr(tuner, "keys", []) or [])
        self.launches.append({"bound": bound, "keys": keys, "wrapper": self._wrapper()})
        if self.probing:
            raise _Launched

    def _wrapper(self) -> dict | None:
        """The outermost frame of a module-level function of the user's file."""
        frame = sys._getframe(2)
        found = None
        while frame is not None:
            code = frame.f_code
            if code.co_name != "<module>" and _same_file(code.co_filename, self.path):
                fn = frame.f_globals.get(code.co_name)
                if inspect.isfunction(fn) and fn.__code__ is code:
                    found = (fn, frame)
            frame = frame.f_back
        if found is None:
            return None
        fn, frame = found
        return {"function": fn, "arguments": dict(frame.f_locals)}


def _same_file(a: str, b: str) -> bool:
    from kx_core.compile.artifacts.file_kinds import real_path

    return real_path(a) == b


def _spec(torch: Any, t: Any) -> dict:
    from kx_core.compile.capturing.device import known_values

    host = t.device.type == "cpu" or (t.is_meta and known_values.is_host(t))
    strides = list(t.stride())
    order = sorted(range(t.dim()), key=lambda d: (-strides[d], d))
    return {"shape": [int(s) for s in t.shape], "dtype": str(t.dtype).removeprefix("torch."),
            "device": "cpu" if host else "cuda", "order": order,
            "requires_grad": bool(t.requires_grad)}  # fmt: skip


def _call_of(torch: Any, wrapper: dict) -> tuple[dict | None, str | None]:
    """The recorded call as JSON (WrapperCall), or why it cannot be made again."""
    fn = wrapper["function"]
    tensors, values = {}, {}
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return None, f"{fn.__name__} takes *{p.name}: kx calls wrappers by their named parameters"
        if p.name not in wrapper["arguments"]:
            continue
        value = wrapper["arguments"][p.name]
        if isinstance(value, torch.Tensor):
            tensors[p.name] = _spec(torch, value)
        elif isinstance(value, torch.dtype):
            values[p.name] = {"dtype": str(value).removeprefix("torch.")}
        elif _plain(value):
            values[p.name] = value
        else:
            return None, (
                f"{fn.__name__}'s argument {p.name} is a {type(value).__name__}: kx passes tensors "
                "and plain values (numbers, strings, dtypes) only"
            )
    return {"function": fn.__name__, "tensors": tensors, "values": values}, None


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    return isinstance(value, (list, tuple)) and all(_plain(v) for v in value)


def _key_values(launch: dict, names: list[str]) -> dict[str, Any]:
    return {n: launch["bound"][n] for n in names if n in launch["bound"]}


def _key_names(launch: dict) -> list[str]:
    """The autotune key, else the integer arguments of the launch."""
    if launch["keys"]:
        return list(launch["keys"])
    return [n for n, v in launch["bound"].items() if isinstance(v, int) and not isinstance(v, bool)]


def _probe(recorder: _Recorder, fn: Any, call: dict, symbolic: bool) -> tuple[dict, Any, dict]:
    """Call `fn` with fake tensors of `call`'s sizes (each dimension a symbol of its own
    where `symbolic`): the kernel's bound arguments at its launch, the ShapeEnv, and the
    fake tensors by parameter."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

    from kx_core.compile.capturing.device.gpu_fakes import without_torch_function_modes
    from kx_core.sweep.calls import TensorSpec

    env = ShapeEnv(duck_shape=False) if symbolic else None
    with without_torch_function_modes():
        mode = FakeTensorMode(shape_env=env, allow_non_fake_inputs=True)
        fakes = {}
        for name, recorded in call["tensors"].items():
            spec = TensorSpec.from_json(recorded)
            dtype = getattr(torch, spec.dtype)
            meta = spec.made(lambda sizes, dtype=dtype: torch.empty(sizes, dtype=dtype, device="meta"))
            context = (
                StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC] * meta.dim())
                if symbolic
                else None
            )
            fake = mode.from_tensor(meta, symbolic_context=context)
            with mode:
                fakes[name] = fake.to(spec.device)
        kwargs = dict(fakes)
        for name, value in call["values"].items():
            kwargs[name] = getattr(torch, value["dtype"]) if isinstance(value, dict) else value
        recorder.launches.clear()
        recorder.probing = True
        try:
            with mode:
                fn(**kwargs)
        except _Launched:
            pass
        finally:
            recorder.probing = False
    if not recorder.launches:
        raise ValueError(f"{fn.__name__} did not launch {recorder.kernel} with these sizes")
    return recorder.launches[-1]["bound"], env, fakes


def _for_keys(recorder: _Recorder, fn: Any, call: dict, wanted: dict[str, int]) -> dict:
    """The recorded call with its tensors resized so that the kernel's key gets `wanted`."""
    import sympy

    bound, env, fakes = _probe(recorder, fn, call, symbolic=True)
    chosen: dict[Any, int] = {}
    for name, value in wanted.items():
        if name not in bound:
            raise ValueError(f"{recorder.kernel} has no argument {name}")
        got = bound[name]
        expr = env.replace(got.node.expr) if hasattr(got, "node") else None
        if not isinstance(expr, sympy.Symbol):
            why = "a constant" if expr is None or expr.is_number else f"{expr}, not one tensor dimension"
            raise ValueError(
                f"{name} is {why} in {fn.__name__}'s launch: kx cannot tell which sizes set it; "
                "give the tensor form (" + ",".join(f"{k}=AxB" for k in call["tensors"]) + ")"
            )
        chosen[expr] = value
    hints = (
        {s: int(v) for s, v in env.backed_var_to_val.items()}
        if hasattr(env, "backed_var_to_val")
        else {s: int(v) for s, v in env.var_to_val.items()}
    )
    sized = {k: dict(v) for k, v in call["tensors"].items()}
    for name, fake in fakes.items():
        dims = []
        for size in fake.shape:
            e = env.replace(size.node.expr) if hasattr(size, "node") else sympy.Integer(int(size))
            dims.append(int(e.xreplace({s: chosen.get(s, hints.get(s)) for s in e.free_symbols})))
        sized[name]["shape"] = dims
    return {**call, "tensors": sized}


def _checked(recorder: _Recorder, fn: Any, call: dict, names: list[str]) -> dict[str, int]:
    """The key's values when `fn` is called with fake tensors of `call`'s sizes."""
    bound, _, _ = _probe(recorder, fn, call, symbolic=False)
    return {n: int(v) for n, v in _key_values({"bound": bound}, names).items()}


def main(path: str, kernel: str, shapes_json: str, out: str) -> None:
    import torch

    shapes = json.loads(shapes_json)
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    notes: list[str] = []
    with _Recorder(path, kernel) as recorder:
        try:
            runpy.run_path(path, run_name="__main__")
        except SystemExit:
            pass
        except Exception as e:  # noqa: BLE001 - the file's own error: the launches before it count
            line = next((f.lineno for f in reversed(traceback.extract_tb(e.__traceback__))
                         if _same_file(f.filename, recorder.path)), None)  # fmt: skip
            notes.append(f"the file's run stopped at line {line}: {type(e).__name__}: {e}")
        launches = list(recorder.launches)  # (the probes below clear the recorder's)
        planned = []
        calls = []
        for launch in launches:
            if launch["wrapper"] is None:
                continue
            call, why = _call_of(torch, launch["wrapper"])
            calls.append((launch, call, why))
        if not launches:
            answer = {"planned": [{"shape": s, "error": f"the file's run launched no {kernel}"} for s in shapes] or [],
                      "notes": notes + [f"the file's run launched no {kernel}"]}  # fmt: skip
            _write(out, answer)
            return
        if not calls:
            error = f"{kernel} is launched at the file's top level, not from a function kx can call again"
            _write(out, {"planned": [{"shape": s, "error": error} for s in shapes], "notes": notes})
            return
        if not shapes:  # the file's own launches, one per distinct key
            seen = set()
            for launch, call, why in calls:
                names = _key_names(launch)
                key = _key_values(launch, names)
                label = json.dumps({k: int(v) for k, v in key.items()}, sort_keys=True)
                if label in seen:
                    continue
                seen.add(label)
                planned.append({"shape": json.loads(label), "call": call, "error": why})
            _write(out, {"planned": planned, "notes": notes})
            return
        launch, call, why = calls[0]
        fn = launch["wrapper"]["function"]
        names = _key_names(launch)
        for shape in shapes:
            planned.append(_one(recorder, fn, call, why, names, shape))
    _write(out, {"planned": planned, "notes": notes})


def _one(
    recorder: _Recorder, fn: Any, call: dict | None, why: str | None, names: list[str], shape: dict
) -> dict:
    if call is None:
        return {"shape": shape, "error": why}
    tensor_form = {k: v for k, v in shape.items() if isinstance(v, list)}
    try:
        if tensor_form:
            unknown = sorted(set(tensor_form) - set(call["tensors"]))
            if unknown:
                raise ValueError(f"{fn.__name__} has no tensor parameter {', '.join(unknown)}")
            sized = {k: dict(v) for k, v in call["tensors"].items()}
            for k, dims in tensor_form.items():
                if len(dims) != len(sized[k]["shape"]):
                    raise ValueError(
                        f"{k} has {len(sized[k]['shape'])} dimensions in {fn.__name__}'s call, not {len(dims)}"
                    )
                sized[k]["shape"] = dims
            planned_call = {**call, "tensors": sized}
            return {"shape": _checked(recorder, fn, planned_call, names), "call": planned_call}
        planned_call = _for_keys(recorder, fn, call, shape)
        # one probe at the planned sizes: the asked names must get their values, and the
        # key's values are the case's shape
        got = _checked(recorder, fn, planned_call, list(dict.fromkeys([*names, *shape])))
        asked = {k: got.get(k) for k in shape}
        if asked != {k: int(v) for k, v in shape.items()}:
            raise ValueError(
                f"{fn.__name__} called at the planned sizes launches {recorder.kernel} with {asked}"
            )
        return {"shape": {**{k: got[k] for k in names if k in got}, **asked}, "call": planned_call}
    except Exception as e:  # noqa: BLE001 - the wrapper's own refusal of the sizes is the answer
        return {
            "shape": {k: v for k, v in shape.items() if isinstance(v, int)},
            "error": f"{type(e).__name__}: {e}",
        }


def _write(out: str, answer: dict) -> None:
    with open(out, "w", encoding="utf-8") as f:
        json.dump(answer, f)
