"""kx on the public-file corpus, as a user runs it, against what real runs compiled.

    python benchmarks/real_files/measure.py [--only ID,...] [--extra-site DIR] [--timeout 600] [--python PY]
        [--manifest benchmarks/real_files/manifest_pytorch.json --ground DIR/all.json]

For each manifest entry: `kx compile RUN --target cuda:90 --gpu h200` (the GPU the ground
truth was recorded on), with the entry's PYTHONPATH and --extra-site (the packages a
user of that library has: pandas, matplotlib, tabulate, einops), from the repo root; then
the distinct compiles (kernel, constexprs, signature, warps, stages) are compared with
ground_h200.json (scripts/record_real_runs.py on the H200). Prints a Markdown table and
writes measure.json. Upstream files come from .realfiles/ (extract.py rebuilds it).
--python runs the files with another interpreter (kx compile --python): one with the
ground truth's Triton (3.6) compares like for like. Where the ground truth has each
compile's Triton hash and PTX digest (record_real_runs.py records both), the matched
compiles are compared on those too.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from kx_core.compile import CompileRequest, CompileResult, compile_file  # noqa: E402
from kx_core.compile.jobs.real_runs import compare, identity  # noqa: E402


def capture(
    entry: dict,
    extra: list[str],
    timeout: float,
    python: str | None,
    inductor_root: str | None,
    gpu: str = "h200",
) -> tuple[CompileResult, float]:
    """kx's capture of the entry as a user runs it, and its wall time."""
    paths = [str(ROOT / p) for p in entry["pythonpath"]] + extra
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    if inductor_root:  # the real run's Inductor cache folder (record_real_runs.py --inductor-cache-root)
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(inductor_root, entry["id"])
    os.environ.setdefault("MPLBACKEND", "Agg")
    started = time.perf_counter()
    request = CompileRequest(
        str(ROOT / entry["run"]),
        target="cuda:90",
        gpu=gpu,
        timeout_s=timeout,
        cwd=tempfile.mkdtemp(prefix="kx-measure-"),  # files a tutorial writes land there
        python=python,
    )
    result = compile_file(request, use_cache=False)
    return result, time.perf_counter() - started


# kx's words for a timed pad_mm decision (pad_mm_choice.TIMING, then the answer it took), e.g.
# "Inductor's pad_mm timing of addmm 32x3x64 padded against unpadded decides ...: kx took
# the unpadded addmm (...)"
_KX_PAD = re.compile(
    r"pad_mm timing of (\w+) (\S+) padded against unpadded .*?kx took the (padded|unpadded) "
)
# a real run's record of one (scripts/record_real_runs.py): Inductor's key, e.g.
# "((torch.Size([32, 3]), (3, 1), torch.float32), (torch.Size([3, 64]), ...), ..., <OpOverloadPacket(op='aten.addmm')>"
_SIZE = re.compile(r"torch\.Size\(\[([^\]]*)\]\)")
_OP = re.compile(r"op='aten\.(\w+)'")


def pad_mm_agreement(ground: dict, result: CompileResult) -> tuple[int, int]:
    """Of the pad_mm decisions the real run timed, those kx answered for the same op and
    shape, and of them how many kx answered as the real run decided. Those timings are not
    reproducible on the GPU (two runs of a file decide differently), so a file can miss by
    one timing's noise: this counts decisions, where `complete` counts files."""
    kx: dict[tuple[str, str], bool] = {}
    for d in result.diagnostics:
        m = _KX_PAD.search(d.message)
        if m:
            kx[(m.group(1), m.group(2))] = m.group(3) == "padded"
    agree = total = 0
    for p in ground.get("pad_mm") or []:
        sizes, op = _SIZE.findall(p["key"]), _OP.search(p["key"])
        if len(sizes) < 2 or op is None:
            continue
        a, b = (part.replace(" ", "").split(",") for part in sizes[:2])
        key = (op.group(1), "x".join([*a, b[-1]]))
        if key in kx:
            total += 1
            agree += kx[key] == bool(p["padded"])
    return agree, total


def measure(entry: dict, ground: dict, result: CompileResult, seconds: float) -> dict:
    c = compare(ground, list(result.kernels))
    same = identity(ground, list(result.kernels))
    stops = [d for d in result.diagnostics if d.fatal or d.kind in ("runtime", "not-captured")]
    # a real run that raised is matched only by a capture that shows the file raising: a file
    # that raises before its first kernel has no compiles to compare, and kx showing it run on
    # with exit 0 is a miss (nanollama31_decode, corpus 11)
    real_raised = ground["status"].startswith("raised")
    # (a launch whose compile failed raises into the file as Triton's own launcher does: a
    # `compile` diagnostic is the file raising there, moa_mixed_heads of corpus 14)
    shown_raising = any(d.kind in ("runtime", "compile") for d in result.diagnostics)
    return {
        "id": entry["id"],
        "real": len(c.real),
        "captured": len(c.captured & c.real),
        "extra": len(c.extra),
        "missing": sorted(map(list, c.missing))[:5],
        "real_failed": sum(c.real_failures.values()),
        "captured_failed": sum(c.captured_failures.values()),
        "complete": c.complete and (shown_raising or not real_raised),
        "exit": result.exit_status,
        "seconds": round(seconds, 1),
        "placeholders": sum(d.kind == "placeholder" for d in result.diagnostics),
        "kinds": sorted({d.kind for d in result.diagnostics}),
        "stop": f"{stops[0].kind} line {stops[0].line}: {stops[0].message[:90]}" if stops else "",
        "real_status": ground["status"][:60],
        "triton": result.triton_version,
        "matched": same.matched,
        "with_hash": same.with_hash,
        "same_hash": same.same_hash,
        "with_ptx": same.with_ptx,
        "same_ptx": same.same_ptx,
        "differing": [list(map(str, d)) for d in same.differing],
        "pad_mm": pad_mm_agreement(ground, result),
    }


def _stripped(result: CompileResult) -> CompileResult:
    """The result without stage texts, binaries and pass dumps: the keys, metadata (the
    Triton hash among them) and diagnostics the comparison reads stay."""
    from dataclasses import replace

    kernels = tuple(replace(k, stages={}, binaries={}, passes=()) for k in result.kernels)
    return replace(result, kernels=kernels, output=result.output[-4000:])


def _read_compact(path: str) -> dict:
    """A --compact file: JSON, gzipped where its name ends in .gz."""
    raw = Path(path).read_bytes()
    return json.loads(gzip.decompress(raw) if path.endswith(".gz") else raw)


def _write_compact(path: str, rows: dict) -> None:
    """Write a --compact file; gzipped where its name ends in .gz (a corpus's first run is
    7-8 MB of repetitive JSON, about a tenth of it gzipped: the repo travels to the GPU
    machine within 64 MiB)."""
    text = json.dumps(rows, indent=0).encode()
    Path(path).write_bytes(gzip.compress(text, mtime=0) if path.endswith(".gz") else text)


def _board(name: str) -> str:
    """kx's name of the GPU a real run had ("NVIDIA H100 80GB HBM3" -> "h100"); h200 where
    the run names none kx knows."""
    found = re.search(r"\b(H100|H200|A100)\b", name)
    return found.group(1).lower() if found else "h200"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--shard", default="1/1", help="K/N: every N-th entry from the K-th (parallel runs)")
    ap.add_argument("--extra-site", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out", default=str(HERE / "measure.json"))
    ap.add_argument("--python", help="the interpreter that runs the files (default: this one)")
    ap.add_argument("--manifest", default=str(HERE / "manifest.json"))
    ap.add_argument("--ground", default=str(HERE / "ground_h200.json"), help="record_real_runs.py's all.json")
    ap.add_argument(
        "--inductor-cache-root", help="TORCHINDUCTOR_CACHE_DIR=ROOT/<id>, as the real runs had it"
    )
    ap.add_argument(
        "--results",
        help="a folder of kx's results, one <id>.json each: written by each capture, and read instead of "
        "capturing again where one is there (a first run's results compared once the real runs are in)",
    )
    ap.add_argument("--no-ground", action="store_true", help="capture (into --results) without comparing")
    ap.add_argument(
        "--compact",
        help="one JSON file of every entry's result without its stage texts and binaries (what the "
        "comparison reads: keys, metadata, diagnostics), written after the run: a first run's results "
        "small enough to commit and compare in a later session (--compact-in)",
    )
    ap.add_argument("--compact-in", help="read the results from a --compact file instead of capturing")
    ap.add_argument(
        "--gpu",
        default="",
        help="the GPU kx's capture stands for (default: the one the entry's real run had, else h200): "
        "a file whose autotuner prunes by a performance model of the GPU compiles other configs on "
        "an H100 than on an H200",
    )
    args = ap.parse_args()
    manifest = json.loads(Path(args.manifest).read_text())
    compact_in = _read_compact(args.compact_in) if args.compact_in else {}
    compact_out: dict[str, dict] = {}
    ground = {} if args.no_ground else json.loads(Path(args.ground).read_text())
    only = {x for x in args.only.split(",") if x}
    k, n = (int(x) for x in args.shard.split("/"))
    manifest = manifest[k - 1 :: n]
    rows = []
    for e in manifest:
        if (only and e["id"] not in only) or (e["id"] not in ground and not args.no_ground):
            continue
        saved = Path(args.results, f"{e['id']}.json") if args.results else None
        if e["id"] in compact_in:
            kept = compact_in[e["id"]]
            result, seconds = CompileResult.from_json(kept["result"]), kept["seconds"]
        elif saved is not None and saved.exists():
            kept = json.loads(saved.read_text())
            result, seconds = CompileResult.from_json(kept["result"]), kept["seconds"]
        else:
            gpu = args.gpu or _board(ground.get(e["id"], {}).get("gpu", ""))
            result, seconds = capture(
                e, args.extra_site, args.timeout, args.python, args.inductor_cache_root, gpu
            )
            if saved is not None:
                saved.parent.mkdir(parents=True, exist_ok=True)
                saved.write_text(json.dumps({"seconds": seconds, "result": result.to_json()}))
        if args.compact:
            compact_out[e["id"]] = {"seconds": seconds, "result": _stripped(result).to_json()}
            _write_compact(args.compact, compact_out)
        if args.no_ground:
            print(
                json.dumps({"id": e["id"], "exit": result.exit_status, "seconds": round(seconds, 1)}),
                flush=True,
            )
            continue
        row = measure(e, ground[e["id"]], result, seconds)
        rows.append(row)
        print(json.dumps(row), flush=True)
        Path(args.out).write_text(json.dumps(rows, indent=1))  # a run cut short keeps its rows
    Path(args.out).write_text(json.dumps(rows, indent=1))
    print(
        "\n| entry | real run compiled | kx captured (of those) | failed real/kx | kx exit | s | kx stopped at |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        mark = "" if r["complete"] else " **incomplete**"
        print(
            f"| {r['id']} | {r['real']} | {r['captured']}{mark} | {r['real_failed']}/{r['captured_failed']} "
            f"| {r['exit']} | {r['seconds']} | {r['stop'] or '-'} |"
        )
    done = sum(r["complete"] for r in rows)
    print(f"\ncomplete: {done} of {len(rows)} ({100 * done / max(len(rows), 1):.0f}%)")
    # a miss kx did not own up to: exit 0 (kx believes the capture is a real run's), and a
    # silent one: not a word about it either
    zero = [r["id"] for r in rows if not r["complete"] and r["exit"] == 0]
    silent = [r["id"] for r in rows if not r["complete"] and r["exit"] == 0 and not r["kinds"]]
    print(
        f"misses with exit 0: {len(zero)} {zero}; of them silent (no diagnostic at all): {len(silent)} {silent}"
    )
    hashes = sum(r["with_hash"] for r in rows)
    ptxs = sum(r["with_ptx"] for r in rows)
    if hashes or ptxs:
        print(
            f"matched compiles with the real run's Triton hash: {sum(r['same_hash'] for r in rows)} of {hashes}; "
            f"with its PTX byte for byte: {sum(r['same_ptx'] for r in rows)} of {ptxs}"
        )
    agree, timed = (sum(r.get("pad_mm", (0, 0))[i] for r in rows) for i in (0, 1))
    if timed:
        print(f"pad_mm decisions the real runs timed, answered alike by kx: {agree} of {timed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
