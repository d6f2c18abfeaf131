"""Issue 36's big-record target: a gzipped tritonparse trace of ~1 GB (uncompressed) opens
with a first kernel, stages included, in seconds, read lazily in bounded memory.

    python benchmarks/bench_open_trace.py [--size-mb 1024] [--trace PATH] [--keep]

Generates the trace from the recorded fixture trace's real compilation events
(fixtures/records/<version>/cuda90/trace.ndjson), each repeated with a distinct hash
(the same length, so every line stays the JSON tritonparse wrote), until it holds
`--size-mb` MB uncompressed, gzipped as one stream (as `gzip trace.ndjson` leaves it).
Then, each in a fresh process so times and peak memory (ru_maxrss) are its own:

    reference   Python's gzip read of the whole file (the least any full read costs),
                and `gzip -dc | wc -c` where gzip is installed
    first       kx_core.recorded.open_record.iter_trace until its first kernel, stages read
    index       the whole first pass (TraceIndex.scan_all): every kernel indexed
    last        the index, then the last kernel's stages read on demand (a seek through
                the inflater's checkpoints, not a second pass)

and prints each against the reference measured in the same run. A bare process (Python
and kx's imports) gives the memory baseline. No threshold: the figures are for the note.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _scratch  # noqa: F401 - before any folder is made: removed at exit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIXTURE = ROOT / "fixtures" / "records" / "3.8.0" / "cuda90" / "trace.ndjson"


def generate(path: Path, size_bytes: int, compresslevel: int = 6) -> int:
    """A gzipped trace of real compilation events with distinct hashes, at least
    `size_bytes` uncompressed; returns how many events it holds."""
    events = [line for line in FIXTURE.read_bytes().splitlines() if line.strip()]
    hashes = [json.loads(e)["payload"]["metadata"]["hash"].encode() for e in events]
    written = count = 0
    with gzip.open(path, "wb", compresslevel=compresslevel) as f:
        while written < size_bytes:
            for event, old in zip(events, hashes):
                new = hashlib.sha256(b"%d" % count).hexdigest().encode()[: len(old)]
                line = event.replace(old, new) + b"\n"
                f.write(line)
                written += len(line)
                count += 1
    return count


_CHILD = {
    "bare": "import kx_core.recorded.open_record",
    "reference": """
import gzip
with gzip.open(PATH, "rb") as f:
    while f.read(1 << 20):
        pass
""",
    "first": """
from kx_core.recorded.open_record import iter_trace
from kx_core.records.results import CompiledKernel
for step in iter_trace(PATH):
    if isinstance(step, CompiledKernel):
        assert step.stages, "the first kernel has its stages"
        break
""",
    "index": """
from kx_core.recorded.trace_index import TraceIndex
index = TraceIndex(PATH).scan_all()
print("KERNELS", len(index.entries), "CHECKPOINTS", len(index.source.checkpoints))
""",
    "last": """
from kx_core.recorded.open_record import open_record
import time
opened = open_record(PATH, stages=False)
t = time.perf_counter()
kernel = opened.load(len(opened.result.kernels) - 1)
assert kernel.stages
print("LAST_S", time.perf_counter() - t)
""",
}

_TIMER = """
import resource, sys, time
PATH = sys.argv[1]
sys.path.insert(0, {root!r})
start = time.perf_counter()
{body}
print("SECONDS", time.perf_counter() - start)
print("MAXRSS_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def measure(name: str, path: Path) -> dict[str, float]:
    body = "\n".join(_CHILD[name].strip().splitlines())
    code = _TIMER.format(root=str(ROOT), body=body)
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    figures = {}
    for line in out.stdout.splitlines():
        words = line.split()
        for key, value in zip(words[::2], words[1::2]):
            figures[key] = float(value)
    return figures


def shell_reference(path: Path) -> float | None:
    if shutil.which("gzip") is None:
        return None
    start = time.perf_counter()
    subprocess.run(f"gzip -dc '{path}' | wc -c", shell=True, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=int, default=1024, help="uncompressed size to generate (1024)")
    ap.add_argument(
        "--trace",
        type=Path,
        help="where the trace is written, or an existing trace to measure (default: a temporary folder)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the generated trace")
    ap.add_argument("--compresslevel", type=int, default=6, help="gzip level of the generated trace (6)")
    args = ap.parse_args()
    tmp = None
    path = args.trace
    if path is None:
        tmp = tempfile.mkdtemp(prefix="kx-bench-trace-")
        path = Path(tmp) / "big_trace.ndjson.gz"
    try:
        if path.exists():  # a trace generated before (--trace PATH --keep): measured as it is
            print(f"measuring {path} as it is: {path.stat().st_size / 2**20:,.1f} MiB gzipped")
        else:
            start = time.perf_counter()
            events = generate(path, args.size_mb << 20, args.compresslevel)
            print(
                f"generated {path}: {events:,} compilation events, {args.size_mb:,} MiB uncompressed, "
                f"{path.stat().st_size / 2**20:,.1f} MiB gzipped, in {time.perf_counter() - start:.1f} s"
            )
        bare = measure("bare", path)
        ref = measure("reference", path)
        shell = shell_reference(path)
        rows = {name: measure(name, path) for name in ("first", "index", "last")}
        base_mb = bare["MAXRSS_KB"] / 1024
        print(
            f"reference: Python gzip read of the whole file {ref['SECONDS']:.2f} s"
            + (f"; gzip -dc | wc -c {shell:.2f} s" if shell is not None else "")
            + f"; a bare process (python + kx imports) peaks at {base_mb:.0f} MB"
        )
        for name, what in (
            ("first", "time to the first kernel (stages read)"),
            ("index", "the whole index (every kernel)"),
            ("last", "index + the last kernel's stages"),
        ):
            r = rows[name]
            mb = r["MAXRSS_KB"] / 1024
            print(
                f"{what:42} {r['SECONDS']:7.2f} s = {r['SECONDS'] / ref['SECONDS']:6.3f} x the reference;"
                f" peak {mb:5.0f} MB = {mb / base_mb:4.2f} x the bare process"
            )
        if "KERNELS" in rows["index"]:
            print(
                f"index: {int(rows['index']['KERNELS']):,} kernels, "
                f"{int(rows['index']['CHECKPOINTS'])} inflater checkpoints; "
                f"the last kernel's stages read on demand in {rows['last']['LAST_S']:.3f} s"
            )
    finally:
        if tmp and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp:
            print(f"kept {path}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
