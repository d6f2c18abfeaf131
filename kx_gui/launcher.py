"""The `kx` console script: `kx gui [FILE] [options]` starts the app (what `python main.py`
does); every other verb goes to the engine's command line, kx_core.cli, which never
imports Qt (it runs on machines without PySide6)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["gui"]:
        try:
            from kx_gui.app import main as app_main
        except ImportError as e:
            print(
                f"kx gui: the app cannot start: {e} (pip install PySide6-Essentials pyqtgraph)",
                file=sys.stderr,
            )
            return 2
        return app_main(argv[1:])
    from kx_core.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
