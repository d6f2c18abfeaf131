"""`python -m kx_gui [FILE] [options]`: the app, as `kx gui` and `python main.py` start it."""

import sys

from kx_gui.app import main

sys.exit(main())
