"""kx_core: the Qt-free engine of kx (Kernel eXplorer).

Compiles Triton kernel files for any target, parses and models what comes out, and
times kernels on the local GPU. Never imports PySide6, pyqtgraph or kx_gui; imports
torch and triton only where a function needs them.
"""

from kx_core.base.version import __version__

__all__ = ["__version__"]
