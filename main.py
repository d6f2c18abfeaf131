"""kx (Kernel eXplorer): `python main.py [FILE]` starts the desktop app."""

import sys

from kx_gui.app import main

if __name__ == "__main__":
    sys.exit(main())
