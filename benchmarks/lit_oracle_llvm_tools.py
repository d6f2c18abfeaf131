"""Stand-ins for `mlir-translate`, `opt` and `llc` in the lit oracle (benchmarks/lit_agreement.py),
written apart from kx's own (kx_core/lab/llvm_tools.py) on the wheel's bindings, so a real
shell pipes Triton's RUN lines through them unchanged.

    lit_oracle_llvm_tools.py mlir-translate -mlir-to-llvmir     (stdin MLIR -> LLVM IR)
    lit_oracle_llvm_tools.py opt -S -O1                          (stdin LLVM IR -> LLVM IR)
    lit_oracle_llvm_tools.py llc -mtriple T -mcpu C -mattr=+F    (stdin LLVM IR -> PTX)

The bindings cannot parse LLVM IR text, so `opt` rebuilds the module from the MLIR that
mlir-translate kept in $ORACLE_STATE_DIR (after checking that its stdin is what
mlir-translate printed) and applies every opt level of the line so far. `llc` parses its
stdin itself (translate_to_asm takes text). Exit 125 with ORACLE-UNSUPPORTED: on an option
these do not implement."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile

# the triton-opt stand-in beside this file says UNSUPPORTED the same way
from lit_oracle_triton_opt import unsupported


def _state(name: str) -> str:
    return os.path.join(os.environ["ORACLE_STATE_DIR"], name)


def _translate(mlir: str, levels: list[int]):
    """The LLVM module of `mlir`, optimised at each of `levels` in turn (None on failure)."""
    from triton._C.libtriton import ir, llvm

    from kx_core.lab.pass_catalog import load_all_dialects

    context = ir.context()
    load_all_dialects(context)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(mlir)
    try:
        module = ir.parse_mlir_module(f.name, context)
    finally:
        os.unlink(f.name)
    llvm.init_targets()
    _translate.context = llvm.context()  # must outlive the module
    llvm_module = llvm.to_module(module, _translate.context)
    for level in levels:
        pipeline = getattr(llvm, f"OPTIMIZE_O{level}")
        try:
            llvm.optimize_module(llvm_module, pipeline, disable_slp_vectorizer=level < 2)
        except TypeError:  # triton 3.6
            llvm.optimize_module(llvm_module, pipeline)
    return llvm_module


def main(argv: list[str]) -> int:
    tool, args = argv[0], argv[1:]
    text = sys.stdin.read()
    if tool == "mlir-translate":
        if [a.lstrip("-") for a in args] != ["mlir-to-llvmir"]:
            return unsupported(f"mlir-translate {' '.join(args)}")
        module = _translate(text, [])
        if module is None:
            print("mlir-translate: translation failed", file=sys.stderr)
            return 1
        printed = str(module)
        with open(_state("chain.json"), "w", encoding="utf-8") as f:
            json.dump({"mlir": text, "levels": [], "printed": printed}, f)
        sys.stdout.write(printed)
        return 0
    if tool == "opt":
        levels = [int(a[-1]) for a in args if re.fullmatch(r"--?O[0-3]", a)]
        if "-S" not in args or len(levels) != 1 or len(args) != 2:
            return unsupported(f"opt {' '.join(args)}")
        if not os.path.exists(_state("chain.json")):
            return unsupported("opt without mlir-translate before it")
        with open(_state("chain.json"), encoding="utf-8") as f:
            chain = json.load(f)
        if chain["printed"] != text:
            return unsupported("opt's input is not what mlir-translate printed")
        chain["levels"] += levels
        printed = str(_translate(chain["mlir"], chain["levels"]))
        chain["printed"] = printed
        with open(_state("chain.json"), "w", encoding="utf-8") as f:
            json.dump(chain, f)
        sys.stdout.write(printed)
        return 0
    if tool == "llc":
        opts, rest = {}, list(args)
        while rest:  # -mtriple T or -mtriple=T, and the same for -mcpu and -mattr
            m = re.fullmatch(r"--?(mtriple|mcpu|mattr)(?:=(.*))?", rest.pop(0))
            if not m or (m.group(2) is None and not rest):
                return unsupported(f"llc {' '.join(args)}")
            opts[m.group(1)] = m.group(2) if m.group(2) is not None else rest.pop(0)
        if "mtriple" not in opts:
            return unsupported("llc without -mtriple")
        from triton._C.libtriton import llvm

        llvm.init_targets()
        call = [text, opts["mtriple"], opts.get("mcpu", ""), opts.get("mattr", ""), [], False, False]
        try:
            sys.stdout.write(llvm.translate_to_asm(*call, False))
        except TypeError:  # triton 3.6: no canonicalize_gep argument
            sys.stdout.write(llvm.translate_to_asm(*call))
        return 0
    return unsupported(f"{tool}: not a stand-in")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
