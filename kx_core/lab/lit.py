"""A lit runner for Triton-style tests, from the triton wheel alone.

`kx lit FILE.mlir...` reads each `// RUN:` line (a trailing `\\` continues it), runs the
`triton-opt %s <flags> | FileCheck %s [options]` pipeline through kx (the pass
playground, LLVM's mlir-translate/opt/llc steps through the wheel's bindings
(llvm_tools), then kx's FileCheck) and says PASS, FAIL (with the failing check's line and
where in the output the search stopped) or UNSUPPORTED (with why: another tool, a pass
this triton does not have, a FileCheck option kx does not implement) for every line.

`minimize` shrinks a failing input with T4's ddmin over its IR lines while the same
failure persists (a pass crash or the same failing CHECK line), for a bug report.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.bench.minimize import ddmin
from kx_core.lab.filecheck import CheckFailure, filecheck
from kx_core.lab.llvm_tools import LlvmStage, parse_stage, run_stages
from kx_core.lab.playground import (
    ALLOW_UNREGISTERED,
    VERIFY_DIAGNOSTICS,
    PlaygroundResult,
    Unsupported,
    expand_pass_pipeline,
    resolve,
    run_passes,
)

# Example: "// RUN: triton-opt %s -split-input-file -tritongpu-coalesce | FileCheck %s"
_RUN_RE = re.compile(r"^\s*//\s*RUN:\s?(.*)$")
TRITON_FILECHECK_OPTS = "--enable-var-scope"  # test/lit.cfg.py: config.environment["FILECHECK_OPTS"]
IGNORED_FILECHECK = ("--dump-input", "-dump-input", "--allow-unused-prefixes", "--dump-input-context")


@dataclass(frozen=True)
class RunLine(Jsonable):
    line: int
    command: str


@dataclass(frozen=True)
class RunResult(Jsonable):
    line: int
    command: str
    status: str  # PASS | FAIL | UNSUPPORTED
    message: str = ""
    check_line: int | None = None
    input_line: int | None = None
    output: str = ""


def run_lines(text: str) -> list[RunLine]:
    out, pending, start = [], "", 0
    for no, line in enumerate(text.splitlines(), start=1):
        m = _RUN_RE.match(line)
        if not m:
            continue
        part = m.group(1).rstrip()
        if not pending:
            start = no
        if part.endswith("\\"):
            pending += part[:-1] + " "
            continue
        out.append(RunLine(start, (pending + part).strip()))
        pending = ""
    return out


@dataclass(frozen=True)
class Pipeline:
    flags: tuple[str, ...]
    split: bool
    prefixes: tuple[str, ...] = ("CHECK",)
    var_scope: bool = False
    filecheck: bool = True  # False: `triton-opt %s ...` alone, its exit status the verdict
    expect_failure: bool = False  # `not triton-opt ...`
    stderr_too: bool = False  # `2>&1`: the diagnostics go to FileCheck as well
    implicit_check_not: tuple[str, ...] = ()
    source: str = "%s"  # the input: the file itself, or a part split-file wrote (%t/name)
    check_file: str = "%s"
    env: tuple[tuple[str, str], ...] = ()
    then: tuple[tuple[str, ...], ...] = ()  # later `| triton-opt ...` stages: their flags
    discard: bool = False  # -o /dev/null
    llvm: tuple[LlvmStage, ...] = ()  # `| mlir-translate ... [| opt ...] [| llc ...]` after those


# triton-opt options the wheel has no binding for, and why
TOOL_OPTIONS = {
    "verify-diagnostics": None,  # the playground checks the diagnostics it captures
    "allow-unregistered-dialect": None,  # the playground reaches MLIR's own switch
    "verify-each": None,  # verification after each pass: the pass manager does it anyway
    "mlir-disable-threading": None,  # the same output, on one thread
}


def _tool_option(flag: str) -> str | None:
    """Why the wheel cannot honour a triton-opt tool option; None when kx handles it."""
    name = flag.lstrip("-").split("=", 1)[0]
    if name in TOOL_OPTIONS:
        return TOOL_OPTIONS[name]
    if name.startswith("mlir-") or name in ("debug", "debug-only"):
        return "the wheel's bindings cannot print or run with this triton-opt option"
    return None


def _pass_flags(words: list[str]) -> list[str]:
    """The pass flags of a triton-opt command line: -pass-pipeline expanded, the options
    that change nothing dropped, those the wheel cannot honour refused (ValueError)."""
    out = []
    for flag in (w for w in words if w.startswith("-") and w.lstrip("-") != "split-input-file"):
        name = flag.lstrip("-").split("=", 1)[0]
        if name == "pass-pipeline":
            try:
                out += expand_pass_pipeline(flag.split("=", 1)[1] if "=" in flag else "")
            except Unsupported as e:
                raise ValueError(str(e)) from None
            continue
        why = _tool_option(flag)
        if why:
            raise ValueError(f"triton-opt option {flag}: {why}")
        if name in (ALLOW_UNREGISTERED, VERIFY_DIAGNOSTICS) or name not in TOOL_OPTIONS:
            out.append(flag)
    return out


def parse_pipeline(command: str, check_passes: bool = True) -> Pipeline:
    """The parts of `[not] [env A=1] triton-opt %s ... [2>&1] [| triton-opt ...]...
    [| FileCheck %s ...]`; ValueError says what kx cannot run, and why. `check_passes=False`
    leaves the passes to the worker that runs them (it needs triton, which the window never
    imports)."""
    stages = [s.strip() for s in command.split("|")]
    has_check = len(stages) > 1 and shlex.split(stages[-1])[:1] == ["FileCheck"]
    first = _first_stage(shlex.split(stages[0]))
    later = [shlex.split(stage) for stage in stages[1 : len(stages) - has_check]]
    opt_stages = next((i for i, words in enumerate(later) if words[:1] != ["triton-opt"]), len(later))
    then = tuple(_later_stage(words) for words in later[:opt_stages])
    llvm = tuple(parse_stage(words, i == 0) for i, words in enumerate(later[opt_stages:]))
    if check_passes:
        for flag in first["flags"]:
            if flag.lstrip("-").split("=", 1)[0] not in (ALLOW_UNREGISTERED, VERIFY_DIAGNOSTICS):
                resolve(flag)  # raises Unsupported (a ValueError) for passes this triton lacks
    check = _filecheck_stage(shlex.split(stages[-1])) if has_check else {"filecheck": False}
    return Pipeline(**first, **check, then=then, llvm=llvm)


def _first_stage(opt: list[str]) -> dict:
    """`[not] [env A=1] triton-opt INPUT [flags] [-o -|/dev/null] [2>&1]`, as Pipeline fields."""
    expect_failure = opt[:1] == ["not"]
    opt = opt[1:] if expect_failure else opt
    env = []  # `env A=1 triton-opt ...` or `A=1 triton-opt ...`: the passes read A
    opt = opt[1:] if opt[:1] == ["env"] else opt
    while opt and re.match(r"^[A-Za-z_]\w*=", opt[0]):
        env.append(tuple(opt.pop(0).split("=", 1)))
    inputs = [a for a in opt[1:] if a == "%s" or a.startswith("%t/")]
    if not opt or opt[0] != "triton-opt" or len(inputs) != 1:
        raise ValueError(
            f"the first command is {opt[0] if opt else 'empty'!r}, not 'triton-opt %s ...': "
            "the wheel has no other tool"
        )
    discard = False  # -o /dev/null: nothing printed (the line checks diagnostics or status)
    if "-o" in opt:  # `-o -` is stdout, as without it
        where = opt.index("-o")
        target = opt[where + 1] if where + 1 < len(opt) else ""
        if target not in ("-", "/dev/null"):
            raise ValueError("triton-opt -o FILE: kx checks what triton-opt prints")
        discard = target == "/dev/null"
        del opt[where : where + 2]
    return {
        "flags": tuple(_pass_flags(opt[1:])),
        "split": "-split-input-file" in opt or "--split-input-file" in opt,
        "expect_failure": expect_failure,
        "stderr_too": "2>&1" in opt,
        "source": inputs[0],
        "env": tuple(env),
        "discard": discard,
    }


def _later_stage(words: list[str]) -> tuple[str, ...]:
    """`| triton-opt [flags]` after the first stage: it parses what the one before printed."""
    if any(not w.startswith("-") for w in words[1:]):
        raise ValueError("a later triton-opt stage reads its input from the pipe, not a file")
    return tuple(_pass_flags(words[1:]))


def _filecheck_stage(check: list[str]) -> dict:
    """`FileCheck CHECKFILE [options]`, with FILECHECK_OPTS first, as Pipeline fields."""
    check_files = [a for a in check[1:] if a == "%s" or a.startswith("%t/")]
    if len(check_files) != 1:
        raise ValueError("the last command must be 'FileCheck %s ...'")
    # FileCheck reads FILECHECK_OPTS from the environment; Triton's lit.cfg.py sets it to
    # --enable-var-scope for every test, so kx lit does too unless the user set their own
    args = shlex.split(os.environ.get("FILECHECK_OPTS", TRITON_FILECHECK_OPTS))
    args += [a for a in check[1:] if a not in check_files]
    prefixes, implicit, var_scope = [], [], False
    while args:
        a = args.pop(0)
        name, eq, value = a.partition("=")
        takes_value = (
            "check-prefix",
            "check-prefixes",
            "implicit-check-not",
            "dump-input",
            "dump-input-context",
        )
        if name.lstrip("-") in takes_value and not eq and args:
            value = args.pop(0)  # the value as the next word (`--dump-input-context 20`)
        if name.lstrip("-") in ("check-prefix", "check-prefixes"):
            prefixes += value.split(",")  # repeated options add up, as in LLVM
        elif name.lstrip("-") == "implicit-check-not":
            implicit.append(value)
        elif name.lstrip("-") == "enable-var-scope":
            var_scope = True
        elif not a.startswith(IGNORED_FILECHECK):
            raise ValueError(f"FileCheck option {a} is not implemented by kx")
    return {
        "prefixes": tuple(dict.fromkeys(prefixes)) or ("CHECK",),
        "var_scope": var_scope,
        "filecheck": True,
        "implicit_check_not": tuple(implicit),
        "check_file": check_files[0],
    }


# Example: "// RUN: split-file %s %t"
_SPLIT_FILE_RE = re.compile(r"^split-file\s+%s\s+%t$")
# Example: "//--- missing.mlir" (LLVM split-file's part marker, after any comment prefix)
_PART_RE = re.compile(r"^\S*?---\s+(\S+)\s*$")


def split_file(text: str) -> dict[str, str]:
    """What LLVM's `split-file %s %t` writes, as {"%t/name": text}: each part runs from
    the line after its `//--- name` marker to the next marker."""
    parts: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = _PART_RE.match(line)
        if m:
            current = parts.setdefault("%t/" + m.group(1), [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines) + "\n" for name, lines in parts.items()}


def run_one(text: str, run: RunLine, files: dict[str, str] | None = None) -> RunResult:
    """One RUN line. `files`: the parts an earlier `split-file %s %t` line wrote."""
    files = {"%s": text, **(files or {})}
    try:
        # the worker that runs the passes says which this triton lacks (result.unsupported)
        pipe = parse_pipeline(run.command, check_passes=False)
    except ValueError as e:
        return RunResult(run.line, run.command, "UNSUPPORTED", str(e))
    if pipe.source not in files or pipe.check_file not in files:
        missing = pipe.source if pipe.source not in files else pipe.check_file
        return RunResult(
            run.line, run.command, "FAIL", f"{missing}: no such file (no earlier split-file wrote it)"
        )
    text, check_text = files[pipe.source], files[pipe.check_file]
    result: PlaygroundResult = run_passes(text, list(pipe.flags), pipe.split, env=dict(pipe.env))
    if result.unsupported:
        return RunResult(run.line, run.command, "UNSUPPORTED", "; ".join(result.unsupported))
    failed = bool(result.error)
    if failed != pipe.expect_failure:
        message = (
            f"triton-opt failed: {result.error}"
            if failed
            else "triton-opt succeeded where the line expects 'not'"
        )
        return RunResult(run.line, run.command, "FAIL", message)
    output = result.text() if not failed else "\n// -----\n".join(result.outputs)
    for flags in pipe.then:  # `| triton-opt ...`: the next stage parses what this one printed
        if failed:
            break
        result = run_passes(output, list(flags), False, env=dict(pipe.env))
        if result.unsupported:
            return RunResult(run.line, run.command, "UNSUPPORTED", "; ".join(result.unsupported))
        if result.error:
            return RunResult(run.line, run.command, "FAIL", f"triton-opt (stage 2) failed: {result.error}")
        output = result.text()
    if pipe.llvm and not failed:
        output, error = run_stages(output, list(pipe.llvm))
        if error:
            return RunResult(run.line, run.command, "FAIL", error)
    if pipe.discard:
        output = ""
    if pipe.stderr_too and result.error:
        output += result.error + "\n"
    if not pipe.filecheck:
        return RunResult(run.line, run.command, "PASS", output=output)
    try:
        filecheck(check_text, output, list(pipe.prefixes), pipe.var_scope, pipe.implicit_check_not)
    except CheckFailure as e:
        return RunResult(run.line, run.command, "FAIL", str(e), e.check_line, e.input_line, output)
    return RunResult(run.line, run.command, "PASS", output=output)


def run_file_text(text: str) -> list[RunResult]:
    runs = run_lines(text)
    if not runs:
        return [RunResult(0, "", "UNSUPPORTED", "no RUN: line")]
    out, files = [], {}
    for r in runs:
        if _SPLIT_FILE_RE.match(r.command):
            files = split_file(text)
            out.append(RunResult(r.line, r.command, "PASS", f"{len(files)} parts: {', '.join(files)}"))
        else:
            out.append(run_one(text, r, files))
    return out


def _failure_signature(result: RunResult):
    if result.status != "FAIL":
        return None
    if result.message.startswith("triton-opt failed"):
        return ("crash", result.message.split(":")[1].strip()[:40])
    return ("check", result.check_line)


def minimize(text: str, run: RunLine | None = None) -> tuple[str, int]:
    """The smallest input (RUN and CHECK lines kept) on which the first failing RUN line
    still fails the same way; and how many trials it took."""
    runs = run_lines(text)
    run = run or next((r for r in runs if run_one(text, r).status == "FAIL"), None)
    if run is None:
        raise ValueError("no RUN line fails: nothing to minimise")
    lines = text.splitlines()
    keep = [i for i, ln in enumerate(lines) if re.match(r"^\s*//", ln)]  # RUN, CHECK, separators
    body = [i for i in range(len(lines)) if i not in keep]
    target = _failure_signature(run_one(text, run))
    trials = 0

    def build(sub):
        chosen = set(keep) | set(sub)
        return "\n".join(ln for i, ln in enumerate(lines) if i in chosen) + "\n"

    def fails(sub):
        nonlocal trials
        trials += 1
        return _failure_signature(run_one(build(sub), run)) == target

    smallest = ddmin(body, fails)
    return build(smallest), trials
