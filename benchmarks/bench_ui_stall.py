"""The UI thread's worst stall while a user works (issue 15: keep it under 50 ms).

A 2 ms heartbeat timer runs on the window's event loop; the gap between two beats beyond
its interval is how long the UI thread could not answer. The script drives a real window
(offscreen) through a session: open the softmax example, save an edit, raise every pane
(the lazy ones build then), step through the stages, open the autotuned matmul, capture
one config's passes, click each kind of TTGIR line the Layout pane draws, switch through
the four workspaces, saturate, step and re-lay an 8-term e-graph, run the playground's
RUN lines and a pass, and reports the worst gap per step. Reference in the same run: the
worst gap of the same heartbeat while the window sits idle.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_ui_stall.py [--why]
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import _scratch  # noqa: F401 - before any folder is made: removed at exit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

EXAMPLES = ROOT / "kx_core" / "data" / "examples"
BEAT_MS = 2
BUDGET_MS = 50.0


class StallSampler:
    """--why: a thread that, while the window's thread is late on its beat by more than
    30 ms, samples that thread's Python stack; the innermost kx/pyqtgraph/Qt-calling
    frames of the stalls are printed per step. Another thread holding the GIL shows as
    the window's thread waiting in whatever line it was at."""

    def __init__(self, beat: Heartbeat) -> None:
        import collections
        import threading

        self.beat = beat
        self.main = threading.main_thread().ident
        self.samples: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        self.stop = False
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        import traceback

        while not self.stop:
            time.sleep(0.005)
            if (time.perf_counter() - self.beat.last) * 1000 < 30:
                continue
            frame = sys._current_frames().get(self.main)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)
            ours = [f for f in stack if "/kx_" in f.filename or "pyqtgraph" in f.filename]
            where = ours[-3:] if ours else stack[-2:]
            key = " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(where))
            self.samples[self.beat.step][key] += 1

    def report(self, steps: list[str]) -> None:
        for step in steps:
            top = self.samples.get(step)
            if top:
                print(f"  {step}: where the window's thread was during stalls (5 ms samples)")
                for key, n in top.most_common(4):
                    print(f"      {n:4d}  {key}")


class Heartbeat:
    """Records the largest gap between beats, per named step."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.step = "window shown, warm worker starting"
        self.worst: dict[str, float] = {}
        self.last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(BEAT_MS)
        self.timer.timeout.connect(self._beat)
        self.timer.start()

    def _beat(self) -> None:
        now = time.perf_counter()
        gap = (now - self.last) * 1000 - BEAT_MS
        self.worst[self.step] = max(self.worst.get(self.step, 0.0), gap)
        self.last = now

    def enter(self, step: str) -> None:
        self.step = step
        self.last = time.perf_counter()


def warm_window(tmp: Path, target: str = "cuda:90"):
    """(app, window, shown) for a benchmark: settings, caches and the warm server in
    folders of `tmp` (no cache hit from another run, no kx app's server answering), a
    headless window with a warm worker, started; `shown` collects its result_shown."""
    from PySide6.QtWidgets import QApplication

    from kx_core.compile.jobs import warm

    for name, folder in (
        ("KX_SETTINGS_DIR", "settings"),
        ("KX_CACHE_DIR", "cache"),
        ("TRITON_CACHE_DIR", "triton"),
        ("KX_RUNTIME_DIR", "runtime"),
    ):
        os.environ[name] = str(tmp / folder)
    app = QApplication.instance() or QApplication([])
    from kx_gui.main_window import MainWindow

    w = MainWindow(target=target, headless=True, warm=True)
    w.show()
    shown: list = []
    w.result_shown.connect(shown.append)
    wait_for(app, lambda: warm.status() is not None)
    return app, w, shown


def wait_for(app, predicate, timeout_s: float = 180.0) -> None:
    """Run the event loop (not processEvents in a busy loop: the heartbeat needs the
    real loop) until `predicate()` holds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(5)
    deadline = time.monotonic() + timeout_s

    def check() -> None:
        if predicate() or time.monotonic() > deadline:
            loop.quit()

    poll.timeout.connect(check)
    poll.start()
    loop.exec()
    poll.stop()
    if not predicate():
        raise TimeoutError("the window did not get there in time")


def pause(app, seconds: float) -> None:
    """Let the event loop run for `seconds`."""
    end = time.monotonic() + seconds
    wait_for(app, lambda: time.monotonic() > end)


def main() -> int:
    from PySide6.QtWidgets import QApplication

    from kx_core.compile.jobs import warm

    app = QApplication.instance() or QApplication([])
    tmp = Path(tempfile.mkdtemp(prefix="kx-bench-stall-"))
    os.environ["KX_SETTINGS_DIR"] = str(tmp / "settings")
    os.environ["KX_CACHE_DIR"] = str(tmp / "cache")
    for name in ("fused_softmax.py", "matmul_autotune.py"):
        shutil.copy(EXAMPLES / name, tmp / name)

    from kx_gui.main_window import MainWindow
    from kx_gui.pane_registry import PANES

    w = MainWindow(target="cuda:90", headless=True, warm=True)
    w.show()
    beat = Heartbeat()
    sampler = StallSampler(beat) if "--why" in sys.argv else None
    wait_for(app, lambda: warm.status() is not None)  # the warm worker is up
    shown: list[object] = []
    w.result_shown.connect(shown.append)

    beat.enter("idle (reference)")
    pause(app, 2.0)

    beat.enter("open fused_softmax.py")
    w.open_file(str(tmp / "fused_softmax.py"), trusted=True)
    wait_for(app, lambda: shown)

    beat.enter("save an edit")
    shown.clear()
    w.source_pane.replace_text(w.source_pane.text() + "\n# an edit\n")
    w.save()
    wait_for(app, lambda: shown)

    for spec in PANES:
        beat.enter(f"raise {spec.title}")
        w.docks[spec.name].raise_()
        pause(app, 0.3)

    beat.enter("step through the stages")
    stages = w.pane("stages")
    tabs = getattr(stages, "tabs", None)
    if tabs is not None:
        for i in range(tabs.count()):
            tabs.setCurrentIndex(i)
            pause(app, 0.1)

    beat.enter("open matmul_autotune.py")
    shown.clear()
    w.open_file(str(tmp / "matmul_autotune.py"), trusted=True)
    wait_for(app, lambda: shown)

    beat.enter("capture one config's passes")
    captured: list[str] = []
    w.session.pass_captures.captured.connect(lambda name, err: captured.append(err))
    kernel = next(k for k in w.session.result.kernels if k.status == "compiled")
    w.session.capture_passes(kernel)
    wait_for(app, lambda: captured)
    pause(app, 0.5)  # the Pipeline pane fills after the signal

    # the Layout workspace: clicks on TTGIR lines (the first starts the layout child)
    from kx_core.ir.ttgir_lines import view_of_line

    layout = w.pane("layout")
    ttgir = w.session.kernel.stages.get("ttgir", "").splitlines()
    kinds: dict[str, int] = {}
    for number in range(1, len(ttgir) + 1):
        view = view_of_line(ttgir, number)
        if view is not None and view.kind not in kinds:
            kinds[view.kind] = number
    for kind, number in kinds.items():
        beat.enter(f"click a TTGIR {kind} line")
        w.session.select_ir_line("ttgir", number)
        pause(app, 0.05)
        wait_for(app, lambda: not layout.jobs.busy())
    beat.enter("recolour and isolate a warp")
    layout.color_by.setCurrentText("warp")
    layout.warp_pick.setValue(1)
    pause(app, 0.2)

    for name in ("explore", "layout", "performance", "labs"):
        beat.enter(f"switch to the {name} workspace")
        w.set_workspace(name)
        pause(app, 0.3)

    # the Labs workspace: an e-graph of 8 terms saturated, stepped, laid out again
    egraph = w.pane("egraph")
    beat.enter("saturate an 8-term e-graph")
    egraph.source.setText("(+ (+ (+ (+ (+ (+ (+ x0 x1) x2) x3) x4) x5) x6) x7)")
    egraph.rules.setCurrentText("comm_assoc")
    job = egraph.saturate()
    wait_for(app, lambda: job.done)
    beat.enter("step the e-graph's iterations")
    for k in range(egraph.slider.maximum() + 1):
        egraph.slider.setValue(k)
        pause(app, 0.02)
    beat.enter("lay the e-graph out again (inline leaves)")
    egraph.inline.setChecked(True)
    wait_for(app, lambda: not egraph.jobs.busy())
    playground = w.pane("playground")
    beat.enter("run a lit file's RUN lines")
    playground.run_lit()
    wait_for(app, lambda: not playground.jobs.busy("work"))
    beat.enter("run a pass in the playground")
    playground.run_passes()
    wait_for(app, lambda: not playground.jobs.busy("work"))

    beat.timer.stop()
    w.session.shutdown()
    idle = beat.worst.pop("idle (reference)", 0.0)
    print(f"# bench_ui_stall  {os.cpu_count()} cores  heartbeat {BEAT_MS} ms")
    print(f"reference: worst gap while idle {idle:.1f} ms")
    for step, gap in beat.worst.items():
        flag = "" if gap <= BUDGET_MS else "   <-- over"
        print(
            f"  {step:34s} worst stall {gap:7.1f} ms = {gap / BUDGET_MS:.2f}x the {BUDGET_MS:g} ms budget{flag}"
        )
    if sampler is not None:
        sampler.stop = True
        sampler.report([step for step, gap in beat.worst.items() if gap > BUDGET_MS])
    worst_step = max(beat.worst, key=beat.worst.get)
    print(f"worst: {beat.worst[worst_step]:.1f} ms ({worst_step})")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
