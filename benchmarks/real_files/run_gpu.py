"""Run every corpus entry for real (plain `python FILE`, no kx) on a GPU machine, to check
that the corpus runs there and to time it.

    python benchmarks/real_files/run_gpu.py [--only ID,...] [--jobs 4] [--timeout 300] [--out DIR]

Each entry runs with the manifest's PYTHONPATH, in its own scratch folder (tutorials save
plots to "."), MPLBACKEND=Agg; several at once on the one GPU when --jobs > 1 (timings
are then only indicative). A run still going at --timeout is stopped and counted as
"started" when nothing failed before that. Results go to DIR/run_gpu.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def run_one(e: dict, out: Path, timeout: float) -> dict:
    scratch = out / "scratch" / e["id"]
    scratch.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    pp = [str(ROOT / p) for p in e["pythonpath"]]
    if env.get("PYTHONPATH"):
        pp.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(pp)
    env.setdefault("MPLBACKEND", "Agg")
    t0 = time.time()
    with open(scratch / "log.txt", "wb") as log:
        p = subprocess.Popen(
            [sys.executable, str(ROOT / e["run"])],
            cwd=scratch,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            rc = p.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            rc = p.wait()
            timed_out = True
    text = (scratch / "log.txt").read_text(errors="replace")
    return {
        "id": e["id"],
        "rc": rc,
        "timed_out": timed_out,
        "wall_s": round(time.time() - t0, 1),
        "ok": (rc == 0) or (timed_out and "Traceback" not in text),
        "tail": text[-1500:],
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/kx_real_files"))
    args = ap.parse_args()
    manifest = json.loads((HERE / "manifest.json").read_text())
    if args.only:
        want = set(args.only.split(","))
        manifest = [e for e in manifest if e["id"] in want]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda e: run_one(e, out, args.timeout), manifest))
    (out / "run_gpu.json").write_text(json.dumps(results, indent=1))
    for r in results:
        state = "ok" if r["rc"] == 0 else ("started" if r["ok"] else "FAIL")
        last = r["tail"].strip().splitlines()[-1:] or [""]
        print(f"{r['id']:34} {state:8} rc={r['rc']:<4} {r['wall_s']:7.1f}s  {last[0][:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
