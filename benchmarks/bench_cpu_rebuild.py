"""`kx bench FILE.cpp` after the edit a user makes: a SIMD kernel's body changed, its
folder built again. The reference, measured in the same run: the same folder's first
build in an empty cache (the torch translation unit through torch's headers, the SIMD
units, the link). Before 2026-12-06 every edit paid that whole build again (the build
was kept under one hash of every file), so the ratio was about 1.0x.

    python benchmarks/bench_cpu_rebuild.py [--edits 3]

Each edit changes a constant in rmsnorm_avx2.cpp's scalar tail (the file still builds
and loads); a build runs in a process of its own, as kx bench's worker does, since a
process holds each op library once."""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "kx_core" / "data" / "examples" / "cpu"
_BUILD = "import sys; from pathlib import Path; from kx_core.bench.cpu_bench import build; build(Path(sys.argv[1]), Path(sys.argv[2]))"


def build_s(folder: Path, cache: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _BUILD, str(folder), str(cache)], check=True, cwd=ROOT)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="kx-bench-rebuild-") as tmp:
        folder, cache = Path(tmp) / "src", Path(tmp) / "cache"
        shutil.copytree(EXAMPLES, folder)
        cold = build_s(folder, cache)
        kernel = folder / "rmsnorm_avx2.cpp"
        text = kernel.read_text()
        line = "dst[j] = row[j] * scale * weight[j];"
        assert line in text, "the example's scalar tail changed: update the edit"
        edits = []
        for n in range(1, args.edits + 1):
            kernel.write_text(text.replace(line, f"dst[j] = row[j] * scale * weight[j] * {1 + n * 1e-7}f;"))
            edits.append(build_s(folder, cache))
    edit = statistics.median(edits)
    print(f"first build (empty cache): {cold:.1f} s")
    print(
        f"after an edit of a SIMD kernel: median {edit:.1f} s of {len(edits)} ({', '.join(f'{e:.1f}' for e in edits)})"
    )
    print(f"edit / first build: {edit / cold:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
