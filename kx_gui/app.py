"""Starting the app: `python main.py [FILE] [--target T] [--kernel NAME] [--stage NAME]
[--screenshot OUT.png]`. With --screenshot the window opens the file, waits until it has
compiled, saves a picture of itself and quits (for tests and docs; works offscreen)."""

from __future__ import annotations

import argparse
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from kx_gui.main_window import MainWindow


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="kx-gui", description="kx (Kernel eXplorer)")
    p.add_argument("file", nargs="?", help="a Triton kernel file to open")
    p.add_argument("--target", default="default", help="cuda:90, sm_80, hip:gfx942, local")
    p.add_argument("--kernel", help="select this kernel once compiled")
    p.add_argument("--stage", help="show this stage once compiled (ttgir, ptx, sass, ...)")
    p.add_argument("--screenshot", metavar="OUT.png", help="save a screenshot once compiled, then quit")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow(target=args.target)

    def on_result(result) -> None:
        if args.kernel:
            for row, k in enumerate(result.kernels):
                if k.name == args.kernel:
                    window.kernel_list.setCurrentRow(row)
                    break
        if args.stage:
            window.select_stage(args.stage)
        if args.screenshot:
            # Let the window lay out and paint before grabbing it.
            QTimer.singleShot(300, lambda: (window.grab().save(args.screenshot), app.quit()))

    window.result_ready.connect(on_result)
    window.show()
    if args.file:
        window.open_file(args.file)
    return app.exec()
