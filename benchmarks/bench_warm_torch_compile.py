"""torch.compile captures through a warm server that imported dynamo and Inductor ahead
(dynamo_preimport) against one that did not (KX_WARM_DYNAMO=0), in the same run.

    python benchmarks/bench_warm_torch_compile.py [--rounds 2] [FILE.py ...]

For each round, each kind of server in turn (the order alternates between rounds): start
it in a runtime folder of this run's own, wait until it answers, capture every file
through it (`compile_file`, no result cache), stop it. Prints each file's median wall time
both ways, the totals, their ratio (issue 51: the pre-import pays dynamo's and Inductor's
imports once, not in each capture), and whether both gave the same kernels and PTX (they
must: a difference is a bug, not a speed). Without files: the torch.compile fixtures below.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import _scratch  # noqa: F401 - before any folder is made: removed at exit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["KX_CACHE_DIR"] = tempfile.mkdtemp(prefix="kx-bench-wtc-cache-")
os.environ["KX_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="kx-bench-wtc-rt-")  # made 0700

from kx_core.compile import CompileRequest, compile_file  # noqa: E402
from kx_core.compile.jobs import warm  # noqa: E402

HOST_READS = ROOT / "fixtures" / "kernels" / "host_reads"
FILES = [
    HOST_READS / "compiled_frozen_inference.py",
    HOST_READS / "compiled_expand_of_a_parameter.py",
    HOST_READS / "compiled_unflatten_heads.py",
    HOST_READS / "compiled_domain_check.py",
    ROOT / "fixtures" / "kernels" / "torch_ops" / "dynamo_state_of_a_capture.py",
]


def one_server(preimport: bool, files: list[Path]) -> tuple[dict[str, float], dict[str, list], float]:
    """Captures of `files` through a fresh server of the kind; walls, what each captured,
    and the server's start (until it answers)."""
    os.environ["KX_WARM_DYNAMO"] = "1" if preimport else "0"
    started = time.perf_counter()
    proc = warm.launch(wait_s=300)
    start_s = time.perf_counter() - started
    info = warm.status()
    assert info is not None, "the warm server did not start"
    if bool(info.get("dynamo_preimported")) != preimport:
        sys.exit(f"the server's pre-import is {info.get('dynamo_preimported')}, wanted {preimport}")
    walls, kernels = {}, {}
    try:
        for path in files:
            jobs = warm.status()["jobs"]
            t = time.perf_counter()
            r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
            walls[path.name] = time.perf_counter() - t
            assert warm.status()["jobs"] == jobs + 1, f"{path.name} did not go through the warm server"
            kernels[path.name] = [(k.display_name, k.stages.get("ptx")) for k in r.kernels]
    finally:
        warm.stop()
        if proc is not None:
            proc.wait(60)
    return walls, kernels, start_s


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args()
    files = args.files or FILES
    walls: dict[bool, dict[str, list[float]]] = {True: {}, False: {}}
    starts: dict[bool, list[float]] = {True: [], False: []}
    seen: dict[bool, dict[str, list]] = {}
    print(f"# bench_warm_torch_compile  {os.cpu_count()} cores  rounds {args.rounds}  files {len(files)}")
    for round_ in range(args.rounds):
        for preimport in (True, False) if round_ % 2 == 0 else (False, True):
            w, k, s = one_server(preimport, files)
            starts[preimport].append(s)
            seen[preimport] = k
            for name, wall in w.items():
                walls[preimport].setdefault(name, []).append(wall)
    for path in files:
        a = statistics.median(walls[True][path.name])
        b = statistics.median(walls[False][path.name])
        same = seen[True][path.name] == seen[False][path.name]
        print(
            f"{path.name:45s} pre-imported {a:6.2f} s   not {b:6.2f} s   {a / b:5.2f}x   same kernels: {same}"
        )
    total_a = sum(statistics.median(v) for v in walls[True].values())
    total_b = sum(statistics.median(v) for v in walls[False].values())
    print(
        f"total: pre-imported {total_a:.2f} s, not {total_b:.2f} s: {total_a / total_b:.2f}x "
        f"(server start until it answers: {statistics.median(starts[True]):.1f} s against "
        f"{statistics.median(starts[False]):.1f} s)"
    )
    return 0 if all(seen[True][n] == seen[False][n] for n in seen[True]) else 1


if __name__ == "__main__":
    sys.exit(main())
