"""What `kx repro` returns (kx_core.lab.repro): the script and what it was written from."""

from __future__ import annotations

from dataclasses import dataclass

# How a repro script compiles its kernel:
# - "launch": the bare JITFunction launched on the GPU with tensors of the captured
#   dtypes, shapes, strides and alignment, the captured scalars, constexprs and options,
#   on the captured grid: Triton's own binder specializes it as the capture's launch did;
# - "compile": `triton.compile(ASTSource(...))` with the captured signature, constexprs,
#   attributes and options, for the captured target: how Inductor compiles its kernels
#   (kx records no tensor sizes for those, so nothing is launched; no GPU is needed).
REPRO_MODES = ("launch", "compile")


class ReproError(ValueError):
    """A kernel kx cannot write a repro for; the message says why."""


class ReproChoiceError(ReproError):
    """The kernel asked for is none, or several, of a result's: a bad command line (the
    message lists the choices)."""


@dataclass(frozen=True)
class Repro:
    """A standalone script that compiles one captured kernel as the capture did and
    compares Triton's hash with `expected_hash` (exit 0 equal, 1 different, 2 could not
    run). `kernel` is the record's display name, `source_file` the file its text came
    from, `mode` one of REPRO_MODES."""

    script: str
    kernel: str
    expected_hash: str
    mode: str
    source_file: str
    target: str
