"""Public Gluon and Helion files: the kernels kx shows against those the packages build
themselves on the H200 (issue 35's done-when, on files kx does not ship).

    # on the GPU machine, after benchmarks/real_files/extract.py --manifest M:
    python3 scripts/record_real_runs.py --manifest M --out REAL --cubin-figures
    python3 benchmarks/dsl_public_ground.py REAL [--manifest M] [--only ID,...] [--out FILE]
    # here, with the GPU machine's Triton as a managed version (kx versions):
    python benchmarks/dsl_public_ground.py REAL --triton 3.6.0 --out FILE

REAL holds what record_real_runs.py wrote for each manifest entry (<id>.json): every
kernel Triton compiled in the file's real run, with the hash of its path-free PTX and,
with --cubin-figures, registers, spills, the cubin's sha256 and its SASS's. kx compiles
each file as it compiles any file (`kx compile FILE --target cuda:90`) and each real
kernel is looked up among kx's by its PTX; for those found, the registers, spills and
shared memory kx shows, its SASS text and its cubin's bytes are compared with the real
ones. Also counted: kernels kx built that the real run did not (a kernel the GPU never
runs, shown as if it did, would be the worst answer). Helion files compile with Helion's
default config (HELION_AUTOTUNE_EFFORT=none on both sides, KX_HELION_CONFIGS=1), the
config a run with the search off builds.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kx_core.compile import CompileRequest, compile_file  # noqa: E402
from kx_core.compile.artifacts.derived import with_derived  # noqa: E402
from scripts.record_cute_runs import nodebug_ptx, portable_sass, sha  # noqa: E402

MANIFEST = ROOT / "benchmarks" / "real_files" / "manifest_dsl.json"


def compare(entry: dict, real: dict, python: str | None) -> dict:
    """One file: the real run's kernels against kx's build of the same file."""
    started = time.perf_counter()
    request = CompileRequest(str(ROOT / entry["run"]), target="cuda:90", python=python)
    result = with_derived(compile_file(request, use_cache=False))
    seconds = round(time.perf_counter() - started, 1)
    mine = [k for k in result.kernels if k.status == "compiled"]
    by_ptx: dict[str, list] = {}
    for k in mine:
        by_ptx.setdefault(sha(nodebug_ptx(k.stages.get("ptx", ""))), []).append(k)
    built = [c for c in real["compiles"] if c.get("status") == "compiled"]
    row = Counter()
    missing = []
    for c in built:
        ks = by_ptx.get(c.get("ptx_sha256_nodebug"), [])
        if not ks:
            missing.append(c["kernel"])
            continue
        k = ks.pop(0) if len(ks) > 1 else ks[0]
        row["same_ptx"] += 1
        md = k.metadata
        if "registers" in c:
            row["same_registers_spills_shared"] += (md.registers, md.spills, md.shared) == (
                c["registers"],
                c["spills"],
                c["shared"],
            )
            row["same_sass"] += sha(portable_sass(k.stages.get("sass", ""))) == c["sass_sha256_portable"]
            cubin = base64.b64decode(k.binaries.get("cubin", "")) if k.binaries.get("cubin") else b""
            row["same_cubin"] += hashlib.sha256(cubin).hexdigest() == c["cubin_sha256"]
    # every stage shown: the stages each of kx's kernels has (a stage with no text is missing)
    shown = [{name for name, text in k.stages.items() if text} for k in mine]
    common = sorted(set.intersection(*shown)) if shown else []
    real_ptx = Counter(c.get("ptx_sha256_nodebug") for c in built)
    extra = [k.name for k in mine if real_ptx[sha(nodebug_ptx(k.stages.get("ptx", "")))] == 0]
    return {
        "id": entry["id"],
        "language": entry.get("language"),
        "repo": entry["repo"],
        "path": entry["path"],
        "commit": entry["commit"],
        "real_status": real.get("status"),
        "real_compiled": len(built),
        "real_failed": len(real["compiles"]) - len(built),
        "kx_compiled": len(mine),
        "kx_not_compiled": [f"{k.name}: {k.status}" for k in result.kernels if k.status != "compiled"],
        **{key: row[key] for key in ("same_ptx", "same_registers_spills_shared", "same_sass", "same_cubin")},
        "stages_of_every_kernel": common,
        "kernels_without_sass": sum("sass" not in names for names in shown),
        "real_not_in_kx": missing,
        "kx_not_in_real": extra,
        "kx_diagnostics": [
            f"{d.kind}: {d.message[:160]}" for d in result.diagnostics if d.kind != "placeholder"
        ],
        "kx_seconds": seconds,
        "real_seconds": real.get("seconds"),
        "kx_triton": result.triton_version,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("real", help="folder of record_real_runs.py's <id>.json")
    ap.add_argument("--manifest", default=str(MANIFEST))
    ap.add_argument("--only", default="", help="ids, comma-separated")
    ap.add_argument("--triton", help="compile with this managed Triton version (kx versions)")
    ap.add_argument("--out", help="write the rows as JSON here")
    ap.add_argument("--jobs", type=int, default=1, help="files compiled at once")
    args = ap.parse_args()
    os.environ.setdefault("HELION_AUTOTUNE_EFFORT", "none")
    os.environ.setdefault("KX_HELION_CONFIGS", "1")
    python = None
    if args.triton:
        from kx_core.base import triton_envs

        python = triton_envs.find(args.triton).python
    wanted = set(filter(None, args.only.split(",")))
    entries = [
        e
        for e in json.loads(Path(args.manifest).read_text())
        if (not wanted or e["id"] in wanted) and (Path(args.real) / f"{e['id']}.json").exists()
    ]

    def one(entry: dict) -> dict:
        return compare(entry, json.loads((Path(args.real) / f"{entry['id']}.json").read_text()), python)

    rows = []
    # each compile is a worker process of its own: --jobs of them at once
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        done = pool.map(one, entries)
        for row in done:
            rows.append(row)
            print(
                f"{row['id']}: real {row['real_compiled']} kernels ({row['real_status'][:40]}); kx "
                f"{row['kx_compiled']}: same PTX {row['same_ptx']}, registers+spills+shared "
                f"{row['same_registers_spills_shared']}, SASS {row['same_sass']}, cubin {row['same_cubin']}; "
                f"kx-only {len(row['kx_not_in_real'])}; stages {'/'.join(row['stages_of_every_kernel'])}; "
                f"{row['kx_seconds']} s",
                flush=True,
            )
            if args.out:
                Path(args.out).write_text(json.dumps(rows, indent=1))
    for lang in sorted({r["language"] for r in rows}):
        mine = [r for r in rows if r["language"] == lang]
        whole = [r for r in mine if r["real_compiled"] and r["same_ptx"] == r["real_compiled"]]
        print(
            f"{lang}: {len(mine)} files, every real kernel built by kx with the same PTX in {len(whole)}; "
            f"kernels {sum(r['real_compiled'] for r in mine)} real, {sum(r['same_ptx'] for r in mine)} same PTX, "
            f"{sum(r['same_registers_spills_shared'] for r in mine)} same registers, "
            f"{sum(r['same_sass'] for r in mine)} same SASS, {sum(r['same_cubin'] for r in mine)} same cubin; "
            f"kx-only {sum(len(r['kx_not_in_real']) for r in mine)}"
        )
        kx_s, real_s = sum(r["kx_seconds"] for r in mine), sum(r["real_seconds"] or 0 for r in mine)
        if real_s:  # the real runs' wall, measured by record_real_runs.py before this
            print(f"{lang}: kx's builds {kx_s:.1f} s vs the real runs {real_s:.1f} s = {kx_s / real_s:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
