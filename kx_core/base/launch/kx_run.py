"""Starts one of kx's worker modules: `python kx_run.py MODULE ARGS...`.

Run by path, from a folder that holds only this file, so the caller's working folder is
never first on sys.path (`python -m` would put it there, and an `argparse.py` in it
would shadow the standard library's). kx_core is found through PYTHONPATH (the parent
puts it there). Before the module runs, the worker is tied to its parent's life and
given its memory limit (kx_core.base.lifeline).
"""

import runpy
import sys

from kx_core.base import lifeline

module = sys.argv[1]
sys.argv = [module, *sys.argv[2:]]
lifeline.hold()
runpy.run_module(module, run_name="__main__", alter_sys=True)
