"""Starting the app.

    python main.py [FILE] [--target T] [--kernel NAME] [--stage NAME] [--pane NAME]
                   [--line N] [--passes] [--pass NAME] [--screenshot OUT.png]

With --screenshot the window opens FILE, waits until its results are shown, selects
the kernel/stage/pane asked for, writes a picture of the whole window (at least
1280x800) and exits: 0 when the file compiled, 1 when it has syntax/compile/timeout/
crash diagnostics (listed on stderr), 2 when it could not be opened.
"""

from __future__ import annotations

import argparse
import atexit
import faulthandler
import os
import sys
import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from kx_gui.features.examples import shipped_relative
from kx_gui.main_window import MainWindow
from kx_gui.pane_registry import WORKSPACES
from kx_gui.platform_check import platform_problem

STARTED = time.perf_counter()


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="kx gui", description="kx (Kernel eXplorer): the desktop app")
    p.add_argument("file", nargs="?", help="a Triton kernel file to open")
    p.add_argument("--target", help="cuda:90, sm_80, hip:gfx942, local (default: last used)")
    p.add_argument("--kernel", help="select this kernel once compiled")
    p.add_argument("--stage", help="show this stage once compiled (ttgir, ptx, sass, ...)")
    p.add_argument(
        "--workspace",
        choices=[w.name for w in WORKSPACES],
        help="show this workspace (explore, layout, performance, labs)",
    )
    p.add_argument("--pane", help="raise this pane (source, stages, kernels, problems, ...)")
    p.add_argument("--line", type=int, help="link this source line once compiled")
    p.add_argument("--passes", action="store_true", help="capture the IR before every pass (Pipeline pane)")
    p.add_argument("--pass", dest="pass_name", help="select the first pass with this name or flag")
    p.add_argument(
        "--layout", help="show this layout (attribute or alias of the kernel's TTGIR) in the Layout pane"
    )
    p.add_argument("--layout-shape", default="64x64", help="shape for --layout (64x64)")
    p.add_argument(
        "--ir-line",
        type=int,
        metavar="N",
        help="select line N of --stage, as a click would (TTGIR: its layout)",
    )
    p.add_argument("--screenshot", metavar="OUT.png", help="save a screenshot once compiled, then quit")
    p.add_argument(
        "--trust",
        action="store_true",
        help="FILE is an Inductor debug folder or TORCH_TRACE log whose module may run (to compile its "
        "kernels) without asking: only for a record you trust",
    )
    p.add_argument("--timeout", type=float, default=600.0, help="headless: give up after this many seconds")
    return p.parse_args(argv)


def apply_view_options(window: MainWindow, args: argparse.Namespace) -> None:
    if args.workspace:
        window.set_workspace(args.workspace)
    result = window.session.result
    if args.kernel and result is not None:
        for row, k in enumerate(result.kernels):
            if k.name == args.kernel or k.display_name == args.kernel:
                window.session.select_kernel(row)
                break
    if args.stage:
        # shown where it is, whichever workspace the window was left in (Labs has none)
        if not args.pane:
            window.show_pane("stages")
        window.stage_pane.select_stage(args.stage)
    if args.line:
        window.session.select_source_line(args.line)
    if args.ir_line and args.stage:
        window.session.select_ir_line(args.stage, args.ir_line)
    if args.pass_name and window.session.kernel is not None:
        for i, p in enumerate(window.session.kernel.passes):
            if args.pass_name in (p.name, p.argument):
                window.pipeline_pane.select_pass(i)
                break
    if args.layout:
        window.layout_pane.show_layout(args.layout, [int(x) for x in args.layout_shape.split("x")])
    if args.pane:
        window.show_pane(args.pane)


def open_from_command_line(window: MainWindow, args: argparse.Namespace) -> bool:
    """FILE, trusted (the user named it). One of kx's shipped examples opens as File ▸
    Examples opens it, as the user's copy (issue 54: README's `python main.py
    kx_core/data/examples/...` opened kx's own file, and a save edited the example)."""
    if shipped_relative(args.file) is not None:
        return window.features.examples.open_example(args.file)
    return window.open_file(args.file, trusted=True, trust_record=args.trust)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if QApplication.instance() is None and (problem := platform_problem()):
        print(problem, file=sys.stderr)  # Qt would abort with no word of the package
        return 2
    owns_app = QApplication.instance() is None
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("kx")
    if owns_app:
        faulthandler.enable()  # a crash names its Python stack on stderr, not only "-11"
    headless = bool(args.screenshot)
    window = MainWindow(target=args.target, headless=headless)
    # no one to ask in a screenshot: a record's code runs only with --trust
    window.headless_trusts = False
    window.session.passes = args.passes
    exit_code = {"value": 0}

    def finish(code: int) -> None:
        exit_code["value"] = code
        window.close()
        app.exit(code)

    def shoot(result) -> None:
        shown_at = time.time()  # the wall clock when every pane has the result
        apply_view_options(window, args)

        def save() -> None:
            if not window.grab().save(args.screenshot):
                print(f"kx: cannot write {args.screenshot}", file=sys.stderr)
                finish(2)
                return
            fatal = [d for d in result.diagnostics if d.fatal]
            for d in fatal:
                print(d, file=sys.stderr)
            print(
                f"kx: window shown with results after {time.perf_counter() - STARTED:.2f} s "
                f"(compile {result.wall_time_s:.2f} s{', cached' if result.from_cache else ''}) [t={shown_at:.3f}]",
                file=sys.stderr,
            )
            finish(1 if fatal else 0)

        def save_when_drawn() -> None:
            # a pane's background work (a layout, an e-graph) is drawn before the grab
            if window.session.awaiting_derived or any(pane.jobs.busy() for pane in window.panes.values()):
                QTimer.singleShot(100, save_when_drawn)
            else:
                QTimer.singleShot(400, save)  # let the panes lay out and paint

        save_when_drawn()

    if headless:
        window.result_shown.connect(shoot)
        window.session.error.connect(lambda message: finish(2))
        QTimer.singleShot(
            int(args.timeout * 1000), lambda: (print("kx: timed out", file=sys.stderr), finish(3))
        )
    else:
        # once, for the first result: a later compile (an edit) keeps what the user chose
        def first_result(_result) -> None:
            window.result_shown.disconnect(first_result)
            apply_view_options(window, args)

        window.result_shown.connect(first_result)
    window.show()
    # the file named on the command line opens first, so it is on screen while the
    # recovery question (if any) is asked; restoring then replaces it
    if args.file and not open_from_command_line(window, args) and headless:
        return 2
    if not headless:
        QTimer.singleShot(0, window.offer_recovery)
    if headless and not args.file:
        print("kx: --screenshot needs a FILE", file=sys.stderr)
        return 2
    code = app.exec()
    code = exit_code["value"] if headless else code
    if owns_app:
        leave(code)
    return code


def leave(code: int) -> None:
    """End the process once the window has closed and saved what it keeps (closeEvent:
    settings, workspaces, recovery). Python's own finalization would then tear Qt's
    objects down while the jobs' daemon threads may still hold a result for the relay (the
    likely end of a CI run of `main.py FILE --screenshot` that died with -11, a run that
    passes alone; faulthandler names the stack if it was elsewhere). The exit handlers
    run, output is flushed, then the process ends."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
