"""Pass playground: run Triton's MLIR passes on an `.mlir` file from the triton wheel alone,
the way `triton-opt` would, without a Triton source build.

`triton-opt` flags map to the pass constructors of the installed wheel through
`pass_catalog` (read from the wheel itself): `-tritongpu-coalesce` ->
`passes.ttgpuir.add_coalesce`, `-triton-nvidia-gpu-fence-insertion=compute-capability=90`
-> `nvidia.passes.ttnvgpuir.add_fence_insertion(pm, 90)`, options left out taking
triton-opt's defaults. A flag this triton cannot run is named as such (`Unsupported`).
`-split-input-file` splits the input on `// -----` lines and runs each part on its own.

Passes can abort the process on bad input, so they run in a worker
(`python -m kx_core.lab.playground`), and a crash becomes a message.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass

from kx_core.base import workers
from kx_core.base.jsonable import Jsonable

SPLIT_MARK = "// -----"


ALLOW_UNREGISTERED = "allow-unregistered-dialect"
VERIFY_DIAGNOSTICS = "verify-diagnostics"
UNREGISTERED_WHY = (
    "this wheel neither binds nor exports MLIR's allowUnregisteredDialects "
    "(kx reaches it where libtriton exports it, as in triton 3.8)"
)


class Unsupported(ValueError):
    """A flag this triton cannot run (or not with the options given)."""


@dataclass(frozen=True)
class PassSpec:
    flag: str
    function: str  # pass_catalog's name of the binding: "passes.ttgpuir.add_coalesce"
    args: tuple = ()


def expand_pass_pipeline(text: str) -> list[str]:
    """triton-opt's -pass-pipeline='builtin.module(a{x=1 y=2},b)' as the flags it stands
    for ("-a=x=1 y=2", "-b"). Passes nested under another op (`tt.func(...)`) are refused:
    the wheel's bindings anchor each pass themselves."""
    body = text.strip().strip("'\"")
    if not (body.startswith("builtin.module(") and body.endswith(")")):
        raise Unsupported(f"-pass-pipeline={text}: kx reads builtin.module(...) pipelines only")
    from kx_core.ir.anatomy import split_top_level

    items = split_top_level(body[len("builtin.module(") : -1])
    flags = []
    for item in filter(None, items):
        name, _, opts = item.partition("{")
        if "(" in name:
            raise Unsupported(f"-pass-pipeline: {item}: nested pipelines are not supported by kx")
        flags.append(f"-{name.strip()}" + (f"={opts.rstrip('}').strip()}" if opts else ""))
    return flags


def available_flags() -> dict[str, str]:
    """Every triton-opt flag this triton can run -> its binding ("passes.ttgpuir.add_coalesce")."""
    from kx_core.lab.pass_catalog import catalog

    return {flag: entry.function for flag, entry in catalog().items()}


def _value(kind: str, text: str):
    if kind == "bool":
        if text.lower() not in ("1", "0", "true", "false"):
            raise ValueError(f"{text!r} is not true or false")
        return text.lower() in ("1", "true")
    return int(text) if kind == "int" else text


def resolve(flag_text: str) -> PassSpec:
    """A triton-opt flag ('-tritongpu-coalesce', "--convert-triton-to-tritongpu=target=cuda:90
    num-warps=8", "-tritongpu-pipeline='num-stages=2'") as the pass to add, options not on
    the line taking triton-opt's defaults. Raises Unsupported with the reason."""
    from kx_core.lab.pass_catalog import catalog, parse_options

    text = flag_text.strip().lstrip("-")
    name, _, opts = text.partition("=")
    known = catalog()
    entry = known.get(name)
    if entry is None:
        close = [f for f in known if name.split("-")[-1] in f][:4]
        why = (
            "a test pass built into triton-opt, not the wheel"
            if name.startswith(("test-", "tritongpu-test-"))
            else "no such pass"
        )
        raise Unsupported(
            f"-{name}: this triton ({_triton_version()}) has {why}"
            + (f" (similar: {', '.join('-' + c for c in close)})" if close else "")
        )
    given = parse_options(opts.strip().strip("'\""))
    fixed = dict(entry.fixed)
    for option, value in given.items():
        if option in entry.params:
            continue
        if option in fixed:
            if value.lower() != fixed[option].lower():
                raise Unsupported(
                    f"-{name}: the wheel's binding cannot set {option} (it runs the pass with {option}={fixed[option]})"
                )
            continue
        raise Unsupported(f"-{name}: this triton's pass has no option {option}")
    args = []
    for option, kind in zip(entry.params, entry.kinds):
        value = given.get(option, entry.default(option))
        if value is None:
            raise Unsupported(f"-{name}: give {option}=...; kx does not know triton-opt's default for it")
        try:
            args.append(_value(kind, value))
        except ValueError as e:
            raise Unsupported(f"-{name}: {option}={value}: {e}") from None
    return PassSpec(name, entry.function, tuple(args))


def _triton_version() -> str:
    import triton

    return triton.__version__


@dataclass(frozen=True)
class PlaygroundResult(Jsonable):
    outputs: tuple[str, ...] = ()  # one per input part
    error: str = ""  # parse errors, pass failures, crashes (with MLIR's own messages)
    unsupported: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.error and not self.unsupported

    def text(self) -> str:
        """The output as triton-opt prints it (parts joined by // -----)."""
        return f"\n{SPLIT_MARK}\n".join(self.outputs) + "\n"


class StderrCapture:
    """Collect what MLIR writes to fd 2 (its diagnostics) while a block runs."""

    def __enter__(self):
        self.file = tempfile.TemporaryFile(mode="w+b")
        sys.stderr.flush()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode(errors="replace")
        self.file.close()
        return False


def split_parts(mlir: str, split: bool) -> list[str]:
    """The inputs -split-input-file makes of a file (each run on its own)."""
    return [p.strip("\n") for p in re.split(r"^// -----\s*$", mlir, flags=re.M)] if split else [mlir]


def run_in_process(mlir: str, flags: list[str], split: bool = False) -> PlaygroundResult:
    """Parse, run the passes, print. In this process: a pass that aborts kills it.
    With -verify-diagnostics every part runs and its diagnostics are checked against its
    annotations (kx_core.lab.verify_diagnostics) instead of failing the run."""
    from kx_core.lab.pass_catalog import can_allow_unregistered
    from kx_core.lab.verify_diagnostics import verify

    allow = [f for f in flags if f.lstrip("-") == ALLOW_UNREGISTERED]
    checking = [f for f in flags if f.lstrip("-").split("=", 1)[0] == VERIFY_DIAGNOSTICS]
    flags = [f for f in flags if f not in allow and f not in checking]
    if allow and not can_allow_unregistered():
        return PlaygroundResult(unsupported=(f"-{ALLOW_UNREGISTERED}: {UNREGISTERED_WHY}",))
    specs, unsupported = [], []
    for f in flags:
        try:
            specs.append(resolve(f))
        except Unsupported as e:
            unsupported.append(str(e))
    if unsupported:
        return PlaygroundResult(unsupported=tuple(unsupported))
    only_expected = any(f.endswith("=only-expected") for f in checking)
    outputs, problems = [], []
    for i, part in enumerate(split_parts(mlir, split)):
        output, diagnostics, error = _run_part(part, specs, bool(allow))
        if checking:
            problems += [_where(i, split) + p for p in verify(part, diagnostics, only_expected)]
            if output is not None:
                outputs.append(output)
            continue
        if error:
            return PlaygroundResult(tuple(outputs), _where(i, split) + error)
        outputs.append(output)
    if problems:
        return PlaygroundResult(tuple(outputs), "verify-diagnostics: " + "\n".join(problems))
    return PlaygroundResult(tuple(outputs))


def _run_part(part: str, specs: list[PassSpec], allow: bool) -> tuple[str | None, str, str]:
    """(the module as triton-opt prints it, or None; every diagnostic's text; the error,
    or "") for one input."""
    from triton._C.libtriton import ir

    from kx_core.lab.pass_catalog import allow_unregistered_dialects, constructor, load_all_dialects

    context = ir.context()
    load_all_dialects(context)
    if allow:
        allow_unregistered_dialects(context)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(part + "\n")
        path = f.name
    try:
        failure = None
        with StderrCapture() as err:
            try:
                module = ir.parse_mlir_module(path, context)
            except Exception as e:  # noqa: BLE001 - a parse error is a result
                failure = e
        if failure is not None:  # MLIR's diagnostics are in err.text once the block is left
            text = err_text(err, failure).replace(path, "input")
            return None, text, "parse error: " + text
        pm = ir.pass_manager(context)
        for s in specs:
            constructor(s.function)(pm, *s.args)
        failure = None
        with StderrCapture() as err:
            try:
                try:
                    pm.run(module, "kx-playground")
                except TypeError:
                    pm.run(module)  # triton 3.6 takes the module alone
            except Exception as e:  # noqa: BLE001
                failure = e
        if failure is not None:
            text = err_text(err, failure).replace(path, "input")
            return None, text, "pass failed: " + text
        # as triton-opt prints by default: no locations
        printed = module.str_nodebug() if hasattr(module, "str_nodebug") else str(module)
        return printed.rstrip("\n"), getattr(err, "text", "").replace(path, "input"), ""
    finally:
        os.unlink(path)


def _where(i: int, split: bool) -> str:
    return f"part {i + 1}: " if split else ""


def err_text(err, exc) -> str:
    text = getattr(err, "text", "")
    msg = str(exc).strip()
    return (text.strip() + ("\n" + msg if msg and msg not in text else "")).strip() or type(exc).__name__


def run_passes(
    mlir: str,
    flags: list[str],
    split: bool = False,
    timeout: float = 120.0,
    env: dict[str, str] | None = None,
) -> PlaygroundResult:
    """run_in_process in a worker: a crash inside a pass becomes an error, kx survives."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.mlir")
        with open(src, "w", encoding="utf-8") as f:
            f.write(mlir)
        args = [src] + (["--split-input-file"] if split else [])
        args += ["--flag=" + f for f in flags]
        args += [f"--env={k}={v}" for k, v in (env or {}).items()]  # e.g. ENABLE_LHS_TO_TMEM=1
        done = workers.run_json("kx_core.lab.playground", args, timeout)
    if done.timed_out:
        return PlaygroundResult(error=f"the passes took over {timeout:.0f} s")
    if done.value is None:
        return PlaygroundResult(error=f"the pass pipeline crashed ({done.how}):\n{done.tail}")
    return PlaygroundResult.from_json(done.value)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kx-playground-worker")
    ap.add_argument("file")
    ap.add_argument("--out", required=True)
    ap.add_argument("--split-input-file", action="store_true")
    ap.add_argument("--flag", action="append", default=[])
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE the passes read")
    args = ap.parse_args(argv)
    os.environ.update(item.split("=", 1) for item in args.env)
    with open(args.file, encoding="utf-8") as f:
        result = run_in_process(f.read(), args.flag, args.split_input_file)
    with open(args.out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(result.to_json(), f)
    os.replace(args.out + ".tmp", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
