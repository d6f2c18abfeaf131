"""The LLVM end of a lit RUN line, from the triton wheel alone.

Triton's conversion tests go on after triton-opt:

    triton-opt %s ... --convert-nv-gpu-to-llvm | mlir-translate -mlir-to-llvmir | opt -S -O1
        | llc -mtriple nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx83 | FileCheck %s

The wheel ships none of those tools, but its bindings do each step as Triton's own compile
does it: `llvm.to_module` (mlir-translate -mlir-to-llvmir), `llvm.optimize_module` with
LLVM's default O0-O3 pipeline (opt -S -ON) and `llvm.translate_to_asm` (llc). They differ
from the tools where Triton's compile chose otherwise: optimize_module turns loop
vectorisation on at every level (and SLP vectorisation too on triton 3.6), and
translate_to_asm contracts floating point strictly (llc's default is "on", which
contracts only where the IR allows it).

`parse_stage` says which of a RUN line's later commands kx can run; `run_stages` runs them
in a worker (a crash inside LLVM costs that process only). The bindings cannot parse LLVM IR
text, so the chain must start at mlir-translate and run as one."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass

TOOLS = ("mlir-translate", "opt", "llc")
# Example: "-O3" (opt's optimisation level)
_OPT_LEVEL_RE = re.compile(r"^--?O([0-3])$")


@dataclass(frozen=True)
class LlvmStage:
    tool: str  # mlir-translate | opt | llc
    level: int = 0  # opt -ON
    triple: str = ""  # llc -mtriple
    cpu: str = ""  # llc -mcpu
    features: str = ""  # llc -mattr


def parse_stage(words: list[str], first: bool) -> LlvmStage:
    """One `| tool options` command; ValueError says what kx cannot run, and why.
    `first`: the first LLVM command of the line (it must be mlir-translate)."""
    tool, args = (words[0] if words else ""), list(words[1:])
    if tool == "triton-opt":
        raise ValueError("triton-opt after an LLVM tool: it cannot read LLVM IR")
    if tool not in TOOLS:
        raise ValueError(
            f"the pipeline runs {tool or 'nothing'!r}, a tool the wheel does not ship "
            "(kx runs 'triton-opt ... [| triton-opt ...] [| mlir-translate | opt | llc] | FileCheck ...')"
        )
    if first != (tool == "mlir-translate"):
        raise ValueError(f"{tool} here: the wheel reads LLVM IR only from its own mlir-translate step")
    if tool == "mlir-translate":
        if [a.lstrip("-") for a in args] != ["mlir-to-llvmir"]:
            raise ValueError(f"mlir-translate {' '.join(args)}: kx runs only -mlir-to-llvmir")
        return LlvmStage(tool)
    if tool == "opt":
        levels = [int(m.group(1)) for a in args if (m := _OPT_LEVEL_RE.match(a))]
        rest = [a for a in args if not _OPT_LEVEL_RE.match(a) and a != "-S"]
        if "-S" not in args or len(levels) != 1 or rest:
            raise ValueError(f"opt {' '.join(args)}: kx runs 'opt -S -O0..3' (LLVM's default pipelines)")
        return LlvmStage(tool, level=levels[0])
    return _llc_stage(args)


def _llc_stage(args: list[str]) -> LlvmStage:
    """`llc -mtriple T -mcpu C -mattr=+F` (each as `-x v` or `-x=v`)."""
    values: dict[str, str] = {}
    while args:
        name, eq, value = args.pop(0).lstrip("-").partition("=")
        if not eq and args:
            value = args.pop(0)
        if name not in ("mtriple", "mcpu", "mattr"):
            raise ValueError(f"llc -{name}: kx runs 'llc -mtriple T -mcpu C -mattr=F'")
        values[name] = value
    if not values.get("mtriple"):
        raise ValueError("llc without -mtriple: kx needs the target triple")
    return LlvmStage(
        "llc", triple=values["mtriple"], cpu=values.get("mcpu", ""), features=values.get("mattr", "")
    )


def run_in_process(mlir: str, stages: list[LlvmStage]) -> tuple[str, str]:
    """(what the last stage prints, error or "")."""
    from triton._C.libtriton import ir, llvm

    from kx_core.lab.pass_catalog import load_all_dialects
    from kx_core.lab.playground import StderrCapture, err_text

    context = ir.context()
    load_all_dialects(context)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(mlir)
        path = f.name
    try:
        failure, llvm_module = None, None
        with StderrCapture() as err:
            try:
                module = ir.parse_mlir_module(path, context)
                llvm.init_targets()
                llvm_context = llvm.context()
                llvm_module = llvm.to_module(module, llvm_context)
            except Exception as e:  # noqa: BLE001 - a parse or translation error is a result
                failure = e
        if failure is not None or llvm_module is None:
            why = err_text(err, failure or RuntimeError("no LLVM module")).replace(path, "input")
            return "", "mlir-translate failed: " + why
    finally:
        os.unlink(path)
    text = ""
    for stage in stages[1:]:
        if stage.tool == "opt":
            _optimize(llvm_module, stage.level)
        else:
            text = _llc(str(llvm_module), stage)
    return (text or str(llvm_module)), ""


def _optimize(llvm_module, level: int) -> None:
    from triton._C.libtriton import llvm

    pipeline = (llvm.OPTIMIZE_O0, llvm.OPTIMIZE_O1, llvm.OPTIMIZE_O2, llvm.OPTIMIZE_O3)[level]
    try:  # opt turns SLP vectorisation on from -O2 only; triton 3.8's binding can follow
        llvm.optimize_module(llvm_module, pipeline, disable_slp_vectorizer=level < 2)
    except TypeError:  # triton 3.6: always on
        llvm.optimize_module(llvm_module, pipeline)


def _llc(ir_text: str, stage: LlvmStage) -> str:
    from triton._C.libtriton import llvm

    args = [ir_text, stage.triple, stage.cpu, stage.features, [], False, False]
    try:  # triton 3.8 adds canonicalize_gep; 3.6 has seven arguments
        return llvm.translate_to_asm(*args, False)
    except TypeError:
        return llvm.translate_to_asm(*args)


def run_stages(mlir: str, stages: list[LlvmStage], timeout: float = 120.0) -> tuple[str, str]:
    """run_in_process in a worker: (output, error or "")."""
    from kx_core.base import workers

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.mlir")
        with open(src, "w", encoding="utf-8") as f:
            f.write(mlir)
        args = [src, "--stages", json.dumps([s.__dict__ for s in stages])]
        done = workers.run_json("kx_core.lab.llvm_tools", args, timeout)
    if done.timed_out:
        return "", f"the LLVM tools took over {timeout:.0f} s"
    if done.value is None:
        return "", f"LLVM crashed ({done.how}):\n{done.tail}"
    return done.value["output"], done.value["error"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kx-llvm-tools-worker")
    ap.add_argument("file")
    ap.add_argument("--out", required=True)
    ap.add_argument("--stages", required=True, help="JSON list of LlvmStage fields")
    args = ap.parse_args(argv)
    with open(args.file, encoding="utf-8") as f:
        output, error = run_in_process(f.read(), [LlvmStage(**s) for s in json.loads(args.stages)])
    with open(args.out + ".tmp", "w", encoding="utf-8") as f:
        json.dump({"output": output, "error": error}, f)
    os.replace(args.out + ".tmp", args.out)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
