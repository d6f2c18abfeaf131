"""kx_core: the Qt-free engine of kx (Kernel eXplorer).

Compiles Triton kernel files for any target, parses and models what comes out, and
times kernels on the local GPU. Never imports PySide6, pyqtgraph or kx_gui; imports
torch and triton only where a function needs them.

Its folders, lowest layer first (pyproject's import-linter contracts keep the order):
base (paths, tools, workers, text files, JSON), records (what a compile request and result
hold), ir (reading IR), layout and model (ownership and coalescing; cost models and
GPU specs), compile (capture, the worker, the cache), bench (timing and checking on the
GPU), lab, luminal and drills (the MLIR lab; e-graphs and the Luminal drills; the seed
drills' surfaces), cli (the `kx` command). `data/` holds the examples, lit files,
e-graph programs and KernelBench tasks the app opens.
"""

from kx_core.base.version import __version__

__all__ = ["__version__"]
