"""Time to first stages (issue 51): from opening a file in the window to the first
kernel's TTIR on screen, against the same open to the whole capture shown (every
kernel's text stages: the window's result_shown), measured in the same run, with a warm
worker. Each open rewrites a constant the kernels read, so nothing is a cache hit
(Triton's own cache included): what a user waits for on a file they just edited.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_first_stages.py [--opens N] [--why]

--why: where the window's thread was during stalls (bench_ui_stall's sampler).

Target (issue 51): first stages <= 0.5x the full capture.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import _scratch  # noqa: F401 - before any folder is made: removed at exit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from bench_ui_stall import Heartbeat, StallSampler, wait_for, warm_window  # noqa: E402 - after the path is set

# file -> (the line each open rewrites, its template with the open's number as VALUE)
FILES = {
    ROOT / "kx_core" / "data" / "examples" / "matmul_autotune.py": (
        "    tl.store(c_ptrs, c, mask=c_mask)",
        "    tl.store(c_ptrs, c * VALUE, mask=c_mask)",
    ),
    ROOT / "benchmarks" / "kernels" / "rms_norm_autotune.py": (
        "SCALE = tl.constexpr(1.0)",
        "SCALE = tl.constexpr(VALUE)",
    ),
}


def main() -> int:
    opens = int(sys.argv[sys.argv.index("--opens") + 1]) if "--opens" in sys.argv else 4

    from kx_core.compile.jobs import warm

    tmp = Path(tempfile.mkdtemp(prefix="kx-bench-first-"))
    app, w, shown = warm_window(tmp)
    beat = Heartbeat()
    sampler = StallSampler(beat) if "--why" in sys.argv else None
    print(f"# bench_first_stages  {os.cpu_count()} cores, {opens} opens per file, warm worker, no cache hit")
    ratios = []
    for source, (line, edited) in FILES.items():
        original = source.read_text()
        assert line in original, source
        firsts, fulls, kernels = [], [], 0
        for i in range(opens + 1):  # the first open warms the window's panes: not counted
            path = tmp / f"{source.stem}-{i}" / source.name
            path.parent.mkdir()
            scale = f"{i + 2}.0"
            path.write_text(original.replace(line, edited.replace("VALUE", scale)))
            shown.clear()
            beat.enter(f"open {source.name}" if i else "first open (panes built): not counted")
            view = w.stage_pane.views["ttir"]
            printed = f"{float(scale):.6e}"
            started = time.perf_counter()
            assert w.open_file(str(path), trusted=True)
            wait_for(app, lambda s=printed, v=view: s in v.text(), timeout_s=300)
            first = time.perf_counter() - started
            wait_for(app, lambda: shown, timeout_s=300)
            full = time.perf_counter() - started
            kernels = len(shown[0].kernels)
            assert all(
                printed in k.stages.get("ttir", "") for k in shown[0].kernels if k.name != "rms_norm_dw"
            )
            if i:
                firsts.append(first)
                fulls.append(full)
        first, full = statistics.median(firsts), statistics.median(fulls)
        ratios.append(first / full)
        print(
            f"{source.name} ({kernels} kernels): first TTIR shown {first:.2f} s, whole capture shown "
            f"{full:.2f} s (medians): {first / full:.2f}x  "
            f"[{', '.join(f'{a:.2f}/{b:.2f}' for a, b in zip(firsts, fulls))}]"
        )
    print(f"first stages / full capture, worst file: {max(ratios):.2f}x (target <= 0.5x)")
    stalls = {step: ms for step, ms in beat.worst.items() if step.startswith("open ")}
    for step, ms in stalls.items():
        print(f"worst window stall, {step}: {ms:.1f} ms   target: < 50 ms")
    if sampler is not None:
        sampler.report(list(stalls))
    beat.timer.stop()
    w.session.shutdown()
    warm.stop()
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
