"""kx's capture of the repo's own capture fixtures against their real runs.

    python benchmarks/fixture_ground.py [--only STEM,...] [--target cuda:90]

For every fixture under fixtures/kernels/{host_reads,launch_rules} that has a real run in
its folder's ground/ (scripts/record_real_runs.py on the GPU machine; `<stem>_buffer.json`
style variants name the environment they ran under in VARIANTS), captures the file with kx
(no cache, the target the real run's GPU is) and compares the two compiles' sets with
kx_core.compile.jobs.real_runs.compare: complete, missing, extra, kx's exit status. Prints
one row per fixture and the total. Kernel names of Inductor's files come from the torch
that generated them, so a fixture compiled by torch.compile matches only where this
machine's torch names its kernels as the GPU machine's torch did (it says "other torch").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FOLDERS = ("host_reads", "launch_rules")
# ground file stem -> (fixture stem, the environment its real run had)
VARIANTS = {"host_rotary_table_buffer": ("host_rotary_table", {"KX_ROTARY_BUFFER": "1"})}


def fixtures(only: set[str]) -> list[tuple[str, Path, dict, dict]]:
    rows = []
    for folder in FOLDERS:
        base = ROOT / "fixtures" / "kernels" / folder
        for ground in sorted((base / "ground").glob("*.json")):
            stem, env = VARIANTS.get(ground.stem, (ground.stem, {}))
            if only and ground.stem not in only:
                continue
            rows.append((ground.stem, base / f"{stem}.py", env, json.loads(ground.read_text())))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated ground stems")
    ap.add_argument("--target", default="cuda:90")
    args = ap.parse_args()
    import torch

    from kx_core.compile import CompileRequest, compile_file
    from kx_core.compile.jobs.real_runs import compare

    totals = {"complete": 0, "files": 0, "other_torch": 0}
    for name, path, env, real in fixtures({s for s in args.only.split(",") if s}):
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        started = time.perf_counter()
        try:
            r = compile_file(CompileRequest(str(path), target=args.target), use_cache=False)
        finally:
            for k, v in saved.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
        c = compare(real, list(r.kernels))
        inductor = any(key[0].startswith("triton_") for key in c.real)
        other = inductor and real.get("torch", "").split("+")[0] != torch.__version__.split("+")[0]
        totals["files"] += 1
        totals["complete"] += c.complete
        totals["other_torch"] += other and not c.complete
        note = " (other torch: Inductor's names may differ)" if other and not c.complete else ""
        print(
            f"{name:40s} real {len(c.real):3d}  kx {len(c.captured):3d}  missing {len(c.missing):3d}  "
            f"extra {len(c.extra):3d}  exit {r.exit_status}  {'complete' if c.complete else 'INCOMPLETE'}"
            f"  {time.perf_counter() - started:5.1f} s{note}",
            flush=True,
        )
        for key in sorted(c.missing)[:2]:
            print("    missing", str(key)[:160])
        for key in sorted(c.extra)[:2]:
            print("    extra  ", str(key)[:160])
    print(
        f"complete: {totals['complete']} of {totals['files']} "
        f"({totals['other_torch']} of the rest compiled by torch.compile under another torch)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
