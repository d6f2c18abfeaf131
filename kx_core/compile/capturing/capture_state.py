"""The state of one capture (one worker process, or one forked config child), shared by
the launch handlers of capture.py and autotune_capture.py.

Only the worker imports this module.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from kx_core.compile.artifacts.kernel_record import jit_name, signature_of, source_location
from kx_core.compile.wire import protocol
from kx_core.records.results import AutotuneConfig, CompiledKernel, Diagnostic, Target


@dataclass
class CaptureState:
    """Mutable state of one capture (one worker process, or one forked child)."""

    writer: Any
    target: Target
    user_file: str
    jobs: int
    config: AutotuneConfig | None = None
    # the launch right after its configs were compiled: its record exists (a child sent
    # it), so this launch is that record's first, not another one
    first_launch: bool = False
    seen: set[str] = field(default_factory=set)
    launched: set[str] = field(default_factory=set)
    autotune_seen: dict[tuple, tuple | None] = field(
        default_factory=dict
    )  # key -> (index, record key, Config)
    warmed_up: bool = False
    passes: bool = False  # capture the IR before every pass (pass_recorder.py)
    prefetch: threading.Thread | None = None
    report: Any = None  # the capture device's DeviceReport
    key_by_hash: dict[str, str] = field(default_factory=dict)  # compiled kernel hash -> record key
    compiled_keys: set[str] = field(default_factory=set)  # records with status 'compiled'
    # a config's compile by Triton's kernel-cache terms -> its record key (autotune_capture)
    compiled_as: dict[tuple, str] = field(default_factory=dict)
    # (the JITFunction, its config) a launch is compiling now; where its first stage goes
    # before the compile ends (early_stages.py; None once sent, and in most config children)
    compiling: tuple[Any, AutotuneConfig | None] | None = None
    early_writer: Any = None

    def join_prefetch(self) -> None:
        """Wait for the background triton_key() rather than computing it twice."""
        if self.prefetch is not None:
            self.prefetch.join()
            self.prefetch = None

    def add_time(self, name: str, seconds: float) -> None:
        """Report a phase's duration (summed by the parent per name)."""
        self.writer.send(protocol.Timing(name, seconds))

    def send_kernel(self, key: str, record: CompiledKernel) -> None:
        if record.status != "not-launched":
            self.launched.add(record.name)
        if record.status == "compiled":
            self.compiled_keys.add(key)
        if record.metadata is not None and record.metadata.hash:
            self.key_by_hash.setdefault(record.metadata.hash, key)
        if key in self.seen:
            self.writer.send(protocol.Relaunched(key))
            return
        self.seen.add(key)
        self.writer.send(protocol.KernelCaptured(key, record.to_json()))

    def send_diagnostic(self, d: Diagnostic) -> None:
        self.writer.send(protocol.DiagnosticReport(d.to_json()))

    def progress(self, message: str) -> None:
        self.writer.send(protocol.Progress(message))


class CompileFailure(Exception):
    """Marks an exception raised while Triton compiled or loaded a launched kernel;
    `kernel` names it."""

    def __init__(self, kernel: str) -> None:
        Exception.__init__(self, kernel)
        self.kernel = kernel


def compile_failure(kernel: str, cause: BaseException) -> CompileFailure:
    """A CompileFailure that is also an instance of `cause`'s own class, with its message
    and attributes: a file catches what a real run's launch raises (AutoGPTQ's autotuner
    scores a config whose loading raised triton.OutOfResources as infinitely slow, as
    Triton's own does), and kx still knows the failure for its record."""
    cls = type(cause)
    try:
        kind = type(cls.__name__, (CompileFailure, cls), {"__module__": cls.__module__})
        failure = kind.__new__(kind)
    except TypeError:  # a class that cannot be mixed in (a C type's layout)
        return CompileFailure(kernel)
    Exception.__init__(failure, *cause.args)
    failure.__dict__.update(getattr(cause, "__dict__", {}))
    failure.kernel = kernel
    return failure


# The capture under way in this process (capture.capture sets it).
STATE: CaptureState | None = None
# Where faulthandler writes in this worker (jobs/worker.py sets it): a copy of the
# output's descriptor, which the capture's stderr redirects do not move.
DUMPS = None


def uncompiled_record(
    fn: Any, status: str, message: str, config: AutotuneConfig | None = None
) -> CompiledKernel:
    """The record of a kernel with no compile to show: failed, or not launched."""
    file, line = source_location(fn)
    return CompiledKernel(
        name=jit_name(fn),
        status=status,
        target=STATE.target,
        source_file=file,
        source_line=line,
        config=config,
        signature=signature_of(fn),
        message=message,
    )


def record_key(kernel: Any, config: AutotuneConfig | None) -> str:
    h = getattr(kernel, "hash", None) or getattr(kernel.metadata, "hash", "?")
    return f"{h}/{config.index if config else '-'}"
