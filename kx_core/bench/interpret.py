"""Run a kernel file through Triton's interpreter on CPU tensors:
`python -m kx_core.bench.interpret FILE`.

TRITON_INTERPRET=1 makes every @triton.jit kernel run in Python on numpy views of the
tensors, so a machine without a GPU can still check a file's results. Two things stand
in for the GPU: the active driver answers `get_active_torch_device()` with the CPU (the
usual `DEVICE = triton.runtime.driver.active.get_active_torch_device()` then makes CPU
tensors), and the autotuner, which would time configs with CUDA events, takes each
config as equally fast (so the first runs: correctness, not speed, is the question).
"""

from __future__ import annotations

import os
import sys


def _cpu_driver():
    import torch
    from triton.backends.compiler import GPUTarget

    class InterpreterDriver:
        def get_active_torch_device(self):
            return torch.device("cpu")

        def get_current_target(self):
            return GPUTarget("cuda", 90, 32)

        def get_current_device(self):
            return 0

        def get_current_stream(self, device=None):
            return 0

    return InterpreterDriver()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m kx_core.bench.interpret FILE", file=sys.stderr)
        return 2
    os.environ["TRITON_INTERPRET"] = "1"
    from triton.runtime import driver
    from triton.runtime.autotuner import Autotuner

    driver.set_active(_cpu_driver())
    Autotuner._bench = lambda self, *args, config, **meta: [1.0, 1.0, 1.0]
    from kx_core.bench.run import run_file

    diagnostics = run_file(os.path.abspath(argv[0]))
    for d in diagnostics:
        print(f'  File "{d.file}", line {d.line}\n{d.kind}: {d.message}', file=sys.stderr)
    sys.stdout.flush()
    return 1 if diagnostics else 0


if __name__ == "__main__":
    raise SystemExit(main())
