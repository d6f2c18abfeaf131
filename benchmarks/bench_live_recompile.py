"""Live recompile (issue 31): from the last keystroke to every stage of the bundled
matmul updated, with a warm worker, against a cold `kx compile` of the same file
measured in the same run; and the window thread's worst stall meanwhile (a 2 ms
heartbeat, as bench_ui_stall). Each edit changes the kernel (the scale of its result),
so nothing is a cache hit, Triton's own included.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_live_recompile.py [--edits N]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from bench_ui_stall import Heartbeat, wait_for  # noqa: E402 - after the path is set

EXAMPLE = ROOT / "kx_core" / "data" / "examples" / "matmul.py"
LINE = "    tl.store(c_ptrs, acc.to(tl.float16))"


def cold_compile(path: Path, env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "kx_core.cli", "compile", str(path), "--target", "cuda:90", "--no-cache"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def main() -> int:
    edits = int(sys.argv[sys.argv.index("--edits") + 1]) if "--edits" in sys.argv else 6
    from PySide6.QtWidgets import QApplication

    from kx_core.compile.jobs import warm

    tmp = Path(tempfile.mkdtemp(prefix="kx-bench-live-"))
    os.environ["KX_SETTINGS_DIR"] = str(tmp / "settings")
    os.environ["KX_CACHE_DIR"] = str(tmp / "cache")
    os.environ["TRITON_CACHE_DIR"] = str(tmp / "triton")
    path = tmp / "matmul.py"
    original = EXAMPLE.read_text()
    assert LINE in original
    path.write_text(original)
    app = QApplication.instance() or QApplication([])
    from kx_gui.main_window import MainWindow
    from kx_gui.panes.source_pane import LIVE_PAUSE_MS

    w = MainWindow(target="cuda:90", headless=True, warm=True)
    w.show()
    shown: list = []
    w.result_shown.connect(shown.append)
    wait_for(app, lambda: warm.status() is not None)
    w.open_file(str(path), trusted=True)
    wait_for(app, lambda: shown)
    beat = Heartbeat()
    beat.enter("live")
    times = []
    for i in range(edits):
        shown.clear()
        scale = f"{1.0 + (i + 1) / 1000:.4f}"
        text = original.replace(LINE, f"    tl.store(c_ptrs, (acc * {scale}).to(tl.float16))")
        started = time.perf_counter()
        w.source_pane.replace_text(text)  # the last keystroke
        wait_for(app, lambda: shown)
        wait_for(app, lambda: not any(p.jobs.busy() for p in w.panes.values()))
        k = w.session.kernel
        assert k is not None and scale[:5] in k.stages.get("ttir", ""), "the edit is not in the TTIR shown"
        assert all(k.stages.get(s) for s in ("ttir", "ttgir", "llir", "ptx", "sass"))
        times.append(time.perf_counter() - started)
    stall = beat.worst.get("live", 0.0)
    beat.timer.stop()
    w.session.shutdown()
    # cold: a runtime folder of its own, where no warm server answers (the app's would)
    env = dict(os.environ, KX_RUNTIME_DIR=str(tmp / "cold-runtime"))
    cold = [cold_compile(path, env) for _ in range(2)]
    live = statistics.median(times)
    print(f"# bench_live_recompile  {os.cpu_count()} cores, {edits} edits, pause {LIVE_PAUSE_MS} ms")
    print(
        f"keystroke -> every stage updated (warm, median): {live:.2f} s  (each: {', '.join(f'{t:.2f}' for t in times)})"
    )
    print(f"cold `kx compile --no-cache` (reference, median of 2): {statistics.median(cold):.2f} s")
    print(f"ratio live / cold: {live / statistics.median(cold):.2f}x   target: live <= 1 s")
    print(f"worst window stall during the edits: {stall:.1f} ms   target: < 50 ms")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
