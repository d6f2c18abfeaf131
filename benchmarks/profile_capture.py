"""Profile one capture inside this process (no worker): where does a capture's time go?

python benchmarks/profile_capture.py kx_core/data/examples/vector_add.py [--target cuda:90] [--top 40]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

import _scratch  # noqa: F401 - before any folder is made: removed at exit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="kx-prof-")

from kx_core.compile.capturing import capture  # noqa: E402
from kx_core.compile.wire.protocol import ListWriter  # noqa: E402
from kx_core.records.results import CompileRequest  # noqa: E402
from kx_core.records.target import parse_target  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--target", default="cuda:90")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    writer = ListWriter()
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    capture.capture(CompileRequest(args.file), parse_target(args.target), writer, 1)
    profile.disable()
    print(f"capture: {time.perf_counter() - start:.2f} s")
    for m in writer.messages:
        if m.TYPE == "timing":
            print(f"  {m.name}: {m.seconds:.2f} s")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
