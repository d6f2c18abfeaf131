"""kx lit against an oracle on Triton's own lit tests.

For every RUN line of every file: kx's verdict (`kx_core.lab.lit.run_file_text`: kx's RUN
parsing, kx's FileCheck) and the oracle's: the RUN line run unchanged by bash with
`set -o pipefail` (as lit does), `%s` substituted, `triton-opt` being a stand-in that runs
the wheel's passes through its bindings (benchmarks/lit_oracle_triton_opt.py), and
`mlir-translate`/`opt`/`llc` stand-ins on the wheel's LLVM bindings
(benchmarks/lit_oracle_llvm_tools.py), `FileCheck`/`not`/`count` LLVM 14's, with Triton's lit configuration
(FILECHECK_OPTS=--enable-var-scope). The oracle says UNSUPPORTED where the wheel cannot run
the line (another tool, a pass or option the bindings lack).

    python benchmarks/lit_agreement.py [FILES or DIR (default .realfiles/lit)] [--json OUT]

Prints one line per RUN line where the two differ, the totals, and the agreement ratio.
Triton's lit files are fetched into the git-ignored `.realfiles/lit/` (never committed);
`manifest.json` there names each file's repository, path and commit."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kx_core.base.tools import find_tool  # noqa: E402
from kx_core.lab.lit import run_file_text, run_lines  # noqa: E402

SHIM = ROOT / "benchmarks" / "lit_oracle_triton_opt.py"
LLVM_SHIM = ROOT / "benchmarks" / "lit_oracle_llvm_tools.py"
UNSUPPORTED_EXIT = 125


def _tool_dir(tmp: Path) -> Path:
    """A folder for PATH: the triton-opt stand-in and LLVM's FileCheck, not and count."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "triton-opt"
    shim.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" "{SHIM}" "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    for tool in ("mlir-translate", "opt", "llc"):  # the LLVM end, on the wheel's bindings
        shim = bin_dir / tool
        shim.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" "{LLVM_SHIM}" {tool} "$@"\n')
        shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    filecheck = find_tool("FileCheck")
    if not filecheck:
        raise SystemExit("LLVM's FileCheck is needed (Debian: apt install llvm-14-tools)")
    for tool in ("FileCheck", "not", "count", "split-file"):
        path = Path(filecheck).parent / tool
        if path.exists():
            (bin_dir / tool).symlink_to(path)
    return bin_dir


def oracle(command: str, file: Path, bin_dir: Path, tmp: Path, timeout: float = 300.0) -> tuple[str, str]:
    """(PASS | FAIL | UNSUPPORTED, why) for one RUN line, run as lit runs it."""
    for stage in command.split("|"):  # a tool this machine lacks (triton-translate, mlir-opt)
        words = stage.split()
        word = next((w for w in words if "=" not in w or w.startswith("-")), "")
        if word and word != "not" and not shutil.which(word, path=f"{bin_dir}:/usr/bin:/bin"):
            return "UNSUPPORTED", f"{word}: command not found"
    line = command.replace("%s", f"'{file}'").replace("%S", f"'{file.parent}'").replace("%t", str(tmp / "t"))
    mark = tmp / "unsupported.txt"  # the stand-in says so here too: 2>&1 sends its stderr to FileCheck
    mark.unlink(missing_ok=True)
    state = tmp / "llvm-state"  # what the mlir-translate stand-in keeps for opt
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir()
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "FILECHECK_OPTS": "--enable-var-scope",
        "ORACLE_UNSUPPORTED_FILE": str(mark),
        "ORACLE_STATE_DIR": str(state),
    }
    try:
        p = subprocess.run(
            ["bash", "-o", "pipefail", "-c", line],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            cwd=tmp,
        )
    except subprocess.TimeoutExpired:
        return "FAIL", f"timed out after {timeout:.0f} s"
    if mark.exists():
        return "UNSUPPORTED", mark.read_text().strip()
    if "ORACLE-UNSUPPORTED:" in p.stderr:
        return "UNSUPPORTED", p.stderr.split("ORACLE-UNSUPPORTED:", 1)[1].strip().splitlines()[0]
    if p.returncode == 127:  # a tool this machine does not have (triton-llvm-opt, mlir-opt, python)
        return "UNSUPPORTED", p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "command not found"
    return ("PASS", "") if p.returncode == 0 else ("FAIL", p.stderr.strip()[-300:])


def lit_files(paths: list[str]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        out += sorted(p.glob("*.mlir")) if p.is_dir() else [p]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", default=[str(ROOT / ".realfiles" / "lit")])
    ap.add_argument("--json", help="write every RUN line's two verdicts here, with the messages")
    ap.add_argument(
        "--results",
        help="write repo, path, commit (from the folder's manifest*.json), RUN line, the two verdicts "
        "and the cause here: no text of the files (benchmarks/lit_results_triton38.json)",
    )
    args = ap.parse_args()
    files = lit_files(args.paths)
    rows, started = [], time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kx-lit-oracle-") as tmp_name:
        tmp = Path(tmp_name)
        bin_dir = _tool_dir(tmp)
        for file in files:
            text = file.read_text(encoding="utf-8")
            kx = run_file_text(text)
            runs = run_lines(text)
            work = tmp / "work"  # lit runs a file's RUN lines in one place: %t is shared
            work.mkdir()
            for run, mine in zip(runs, kx):
                verdict, why = oracle(run.command, file, bin_dir, work)
                rows.append(
                    {
                        "file": file.name,
                        "line": run.line,
                        "command": run.command,
                        "kx": mine.status,
                        "kx_message": mine.message[:300],
                        "oracle": verdict,
                        "oracle_message": why[:300],
                    }
                )
                if mine.status != verdict:
                    print(f"DIFFER {file.name}:{run.line}: kx {mine.status}, oracle {verdict}")
                    print(f"    kx: {_one_line(mine.message)}")
                    print(f"    oracle: {_one_line(why)}")
            shutil.rmtree(work, ignore_errors=True)
            if not runs:
                rows.append(
                    {"file": file.name, "line": 0, "command": "", "kx": kx[0].status, "oracle": "UNSUPPORTED"}
                )
    agree = sum(r["kx"] == r["oracle"] for r in rows)
    print(f"\n{len(files)} files, {len(rows)} RUN lines, {time.perf_counter() - started:.0f} s")
    print("kx:     " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r["kx"] for r in rows).items())))
    print("oracle: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r["oracle"] for r in rows).items())))
    print(f"agreement: {agree}/{len(rows)} = {agree / max(1, len(rows)):.4f}   (target >= 0.98)")
    fails = Counter(_failure(r["kx_message"]) for r in rows if r["kx"] == "FAIL")
    print("kx FAIL, by cause: " + "; ".join(f"{k} ({v})" for k, v in fails.most_common()))
    reasons = Counter(_reason(r["kx_message"]) for r in rows if r["kx"] == "UNSUPPORTED")
    print("kx UNSUPPORTED, by reason: " + "; ".join(f"{k} ({v})" for k, v in reasons.most_common()))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.results:
        Path(args.results).write_text(json.dumps(_results(rows, files), indent=1) + "\n")
    return 0


def _results(rows: list[dict], files: list[Path]) -> list[dict]:
    """The rows without the files' text: where each came from, and the verdicts."""
    manifest = {}
    for folder in {f.parent for f in files}:
        for path in folder.glob("manifest*.json"):
            manifest.update({e["file"]: e for e in json.loads(path.read_text())})
    out = []
    for r in rows:
        m = manifest.get(r["file"], {})
        kind = r["kx"]
        why = (
            _failure(r["kx_message"])
            if kind == "FAIL"
            else _reason(r["kx_message"])
            if kind == "UNSUPPORTED"
            else ""
        )
        out.append(
            {
                "repo": m.get("repo", ""),
                "path": m.get("path", r["file"]),
                "commit": m.get("commit", ""),
                "run_line": r["line"],
                "kx": kind,
                "oracle": r["oracle"],
                "why": why,
            }
        )
    return out


def _one_line(text: str) -> str:
    return " ".join(text.split())[:240]


def _failure(message: str) -> str:
    """Why a line failed: the input does not parse with this wheel (a test of another
    Triton version), a pass failed or crashed, or the checks did not match."""
    for needle, cause in (
        ("parse error", "input does not parse with this wheel"),
        ("crashed", "the pass pipeline crashed"),
        ("pass failed", "a pass failed"),
        ("succeeded where", "triton-opt succeeded under 'not'"),
    ):
        if needle in message:
            return cause
    return "the checks did not match"


def _reason(message: str) -> str:
    """A message with its specifics cut, for counting ("-tritongpu-foo: this triton ...")."""
    first = re.sub(r"^-[\w-]+: ", "-PASS: ", message.split("\n")[0])
    return re.sub(r" \(similar: .*", "", re.sub(r"'[^']*'", "'...'", first))[:90]


if __name__ == "__main__":
    raise SystemExit(main())
