"""A compile request resolved once, at the door: `ResolvedRequest`.

Everything a compile derives from the raw request (its target spelling, its --gpu, its
--python) is decided once by compile/jobs/resolve.py and held here; the runner, the
worker, the result cache's key and the Build read these fields and derive nothing again.
The value crosses to the worker as JSON (`to_json`/`from_json`), so the worker's stand-in
device answers from the very report the parent wrote nvidia-smi's answers from.

Here in kx_core.model, the lowest layer that can hold it: it carries the board's figures
(model.gpu, model.boards) beside the records (records.results) it is made of. Making it
asks tools (the compiler's archs, the interpreter), which this layer does not: that is
compile/jobs/resolve.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.model.boards import DeviceReport
from kx_core.model.gpu import GPU
from kx_core.records.backends import Backend, backend_of
from kx_core.records.results import CompileRequest, Target


@dataclass(frozen=True)
class ResolvedRequest(Jsonable):
    """One request, resolved: what it compiles for, on which board, with which Triton."""

    # the request as the worker runs it: `file` absolute, `python` the interpreter found
    # for --python (its absolute path; None: kx's own). Its `target` and `gpu` stay as
    # spelled: the cache key has always held the spelled --gpu, and `target` below is
    # what they resolved to.
    request: CompileRequest
    target: Target
    # the board the capture stands for (--gpu, else the target's flagship) as it
    # reports itself to software: torch's and Triton's device queries, nvidia-smi
    device: DeviceReport
    # the Triton version that compiles: the --python interpreter's, else the installed one
    triton: str
    # why the --python interpreter cannot run the worker ('' when it can): the compile
    # then ends in an `environment` diagnostic before anything runs
    interpreter_problem: str = ""

    @property
    def backend(self) -> Backend:
        """The target's backend descriptor (records.backends: a table entry by name)."""
        return backend_of(self.target)

    @property
    def board(self) -> GPU:
        """The table GPU the capture stands for, with its figures."""
        return self.device.gpu

    @property
    def board_name(self) -> str:
        """The GPU a Build names ('H100 SXM5 80GB'); '' for a backend that is no GPU's."""
        return self.board.name if self.backend.gpu else ""
