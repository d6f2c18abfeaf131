"""Pass playground: run Triton's MLIR passes on an `.mlir` file from the triton wheel alone,
the way `triton-opt` would, without a Triton source build.

`triton-opt` flags map to the pass constructors the installed triton exposes in
`triton._C.libtriton.passes`: `-tritongpu-coalesce` -> `ttgpuir.add_coalesce`,
`-triton-combine` -> `ttir.add_combine`, `-canonicalize` -> `common.add_canonicalizer`,
`-convert-triton-to-tritongpu='target=cuda:80 num-warps=4'` -> `ttir.add_convert_to_ttgpuir`
with those options. A flag this triton cannot run is named as such (`Unsupported`).
`-split-input-file` splits the input on `// -----` lines and runs each part on its own.

Passes can abort the process on bad input, so they run in a worker
(`python -m kx_core.playground`), and a crash becomes a message.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import tempfile
from dataclasses import dataclass

from kx_core.base import workers
from kx_core.jsonable import Jsonable

SPLIT_MARK = "// -----"

# flags whose pass constructor is in passes.common, by MLIR's own flag names
COMMON = {
    "canonicalize": "add_canonicalizer",
    "cse": "add_cse",
    "inline": "add_inliner",
    "loop-invariant-code-motion": "add_licm",
    "sccp": "add_sccp",
    "symbol-dce": "add_symbol_dce",
}
# triton-opt names that do not follow the module prefix rule
SPECIAL = {
    "allocate-shared-memory": ("ttgpuir", "add_allocate_shared_memory"),
    "tritongpu-allocate-warp-groups": ("ttgpuir", "add_allocate_warp_groups"),
    "triton-licm": ("ttir", "add_triton_licm"),
    "convert-scf-to-cf": ("convert", "add_scf_to_cf"),
}
# options a flag may carry, and how they become the constructor's extra arguments
OPTIONS = {
    "convert-triton-to-tritongpu": (
        ("target", str, "cuda:80"),
        ("num-warps", int, 4),
        ("threads-per-warp", int, 32),
        ("num-ctas", int, 1),
    ),
    "tritongpu-pipeline": (("num-stages", int, 3), ("dump-intermediate-steps", bool, False)),
    "tritongpu-optimize-dot-operands": (("hoist-layout-conversion", bool, True),),
}


class Unsupported(ValueError):
    """A flag this triton cannot run (or not with the options given)."""


@dataclass(frozen=True)
class PassSpec:
    flag: str
    module: str
    function: str
    args: tuple = ()


def _passes():
    from triton._C.libtriton import passes

    return passes


def available_flags() -> dict[str, str]:
    """Every triton-opt flag this triton can run -> its constructor ('ttgpuir.add_coalesce')."""
    p = _passes()
    out = {}
    for flag, fn in COMMON.items():
        if hasattr(p.common, fn):
            out[flag] = f"common.{fn}"
    for module, prefix in (("ttgpuir", "tritongpu-"), ("ttir", "triton-")):
        for fn in dir(getattr(p, module)):
            if fn.startswith("add_") and fn not in ("add_convert_to_ttgpuir", "add_triton_licm"):
                out[prefix + fn[4:].replace("_", "-")] = f"{module}.{fn}"
    out["convert-triton-to-tritongpu"] = "ttir.add_convert_to_ttgpuir"
    for flag, (module, fn) in SPECIAL.items():
        if hasattr(getattr(p, module, None), fn):
            out[flag] = f"{module}.{fn}"
    return dict(sorted(out.items()))


def _option_value(kind, text):
    if kind is bool:
        return text.lower() in ("1", "true", "yes")
    return kind(text)


def resolve(flag_text: str) -> PassSpec:
    """A triton-opt flag ('-tritongpu-coalesce', "--convert-triton-to-tritongpu=target=cuda:90
    num-warps=8") as the pass to add. Raises Unsupported with the reason."""
    text = flag_text.strip().lstrip("-")
    name, _, opts = text.partition("=")
    opts = opts.strip().strip("'\"")
    known = available_flags()
    if name not in known:
        close = [f for f in known if name.split("-")[-1] in f][:4]
        raise Unsupported(
            f"-{name}: this triton ({_triton_version()}) has no such pass"
            + (f" (similar: {', '.join('-' + c for c in close)})" if close else "")
        )
    module, function = known[name].split(".")
    values = {}
    for item in opts.replace("{", " ").replace("}", " ").split():
        k, _, v = item.partition("=")
        values[k] = v
    spec_opts = OPTIONS.get(name, ())
    unknown = set(values) - {k for k, _, _ in spec_opts}
    if unknown:
        raise Unsupported(f"-{name}: options {', '.join(sorted(unknown))} are not understood by kx")
    args = tuple(_option_value(kind, values[k]) if k in values else default for k, kind, default in spec_opts)
    return PassSpec(name, module, function, args)


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


class _Stderr:
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


def run_in_process(mlir: str, flags: list[str], split: bool = False) -> PlaygroundResult:
    """Parse, run the passes, print. In this process: a pass that aborts kills it."""
    from triton._C.libtriton import ir, nvidia

    specs, unsupported = [], []
    for f in flags:
        try:
            specs.append(resolve(f))
        except Unsupported as e:
            unsupported.append(str(e))
    if unsupported:
        return PlaygroundResult(unsupported=tuple(unsupported))
    parts = [p.strip("\n") for p in re.split(r"^// -----\s*$", mlir, flags=re.M)] if split else [mlir]
    outputs = []
    p = _passes()
    for i, part in enumerate(parts):
        context = ir.context()
        ir.load_dialects(context)
        nvidia.load_dialects(context)
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
            f.write(part + "\n")
            path = f.name
        try:
            failure = None
            with _Stderr() as err:
                try:
                    module = ir.parse_mlir_module(path, context)
                except Exception as e:  # noqa: BLE001 - a parse error is a result
                    failure = e
            if failure is not None:  # MLIR's diagnostics are in err.text once the block is left
                return PlaygroundResult(
                    tuple(outputs),
                    _where(i, split) + "parse error: " + err_text(err, failure).replace(path, "input"),
                )
            pm = ir.pass_manager(context)
            for s in specs:
                getattr(getattr(p, s.module), s.function)(pm, *s.args)
            failure = None
            with _Stderr() as err:
                try:
                    try:
                        pm.run(module, "kx-playground")
                    except TypeError:
                        pm.run(module)  # triton 3.6 takes the module alone
                except Exception as e:  # noqa: BLE001
                    failure = e
            if failure is not None:
                return PlaygroundResult(
                    tuple(outputs), _where(i, split) + f"pass failed: {err_text(err, failure)}"
                )
            # as triton-opt prints by default: no locations
            text = module.str_nodebug() if hasattr(module, "str_nodebug") else str(module)
            outputs.append(text.rstrip("\n"))
        finally:
            os.unlink(path)
    return PlaygroundResult(tuple(outputs))


def _where(i: int, split: bool) -> str:
    return f"part {i + 1}: " if split else ""


def err_text(err, exc) -> str:
    text = getattr(err, "text", "")
    msg = str(exc).strip()
    return (text.strip() + ("\n" + msg if msg and msg not in text else "")).strip() or type(exc).__name__


def run_passes(mlir: str, flags: list[str], split: bool = False, timeout: float = 120.0) -> PlaygroundResult:
    """run_in_process in a worker: a crash inside a pass becomes an error, kx survives."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.mlir")
        out = os.path.join(tmp, "out.json")
        with open(src, "w", encoding="utf-8") as f:
            f.write(mlir)
        args = [src, "--out", out] + (["--split-input-file"] if split else [])
        args += ["--flag=" + f for f in flags]
        run = workers.run("kx_core.playground", args, timeout, cwd=tmp)
        if run.timed_out:
            return PlaygroundResult(error=f"the passes took over {timeout:.0f} s")
        if not os.path.exists(out):
            tail = "\n".join(run.output.strip().splitlines()[-6:])
            how = f"signal {-run.returncode}" if run.returncode < 0 else f"exit {run.returncode}"
            return PlaygroundResult(error=f"the pass pipeline crashed ({how}):\n{tail}")
        with open(out, encoding="utf-8") as f:
            return PlaygroundResult.from_json(json.load(f))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kx-playground-worker")
    ap.add_argument("file")
    ap.add_argument("--out", required=True)
    ap.add_argument("--split-input-file", action="store_true")
    ap.add_argument("--flag", action="append", default=[])
    args = ap.parse_args(argv)
    with open(args.file, encoding="utf-8") as f:
        result = run_in_process(f.read(), args.flag, args.split_input_file)
    with open(args.out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(result.to_json(), f)
    os.replace(args.out + ".tmp", args.out)
    return 0


def split_flags(command: str) -> list[str]:
    """The pass flags of a `triton-opt ...` command line (shell quoting honoured)."""
    return [t for t in shlex.split(command) if t.startswith("-")]


if __name__ == "__main__":
    raise SystemExit(main())
