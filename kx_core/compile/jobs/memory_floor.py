"""The least memory limit a compile worker can start under, and telling a worker that
died of kx's own limit from the file's crash (issue 52, row 13).

The limit is an address-space limit (RLIMIT_AS, base/lifeline.py), and torch maps its
CUDA libraries whole: a worker importing torch and Triton reaches about 3.4 GB of address
space before the user's file runs a line. Under `--memory-limit 2048` every compile died
with "libtorch_cuda.so: failed to map segment" and was reported as the file's crash.

A worker that dies under a limit below what an unlimited worker reaches after the same
imports plus room for a compile (measured once per interpreter, only then) died of the
limit: an `argument` diagnostic names it and the least that works here, exit 2.

    python kx_run.py kx_core.compile.jobs.memory_floor   # prints the peak, in MiB
"""

from __future__ import annotations

import functools
import subprocess

from kx_core.base import workers
from kx_core.base.paths import worker_env
from kx_core.records.results import Diagnostic

# Room for the compile itself past the imports (LLVM's passes, the file's own objects),
# and the step the least limit is rounded up to, in MiB.
_ROOM_MIB = 512
_STEP_MIB = 512
# A limit this large is never kx's problem (torch and Triton take about 3.4 GiB): a
# crash under it is not measured against the imports (a measure costs a torch import).
_SURELY_ENOUGH_MIB = 16384


def _peak_mib() -> int:
    """This process's peak address space (VmPeak), in MiB. Example line: "VmPeak:  3449016 kB"."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmPeak:"):
                return int(line.split()[1]) >> 10
    raise OSError("no VmPeak in /proc/self/status")


@functools.cache
def imports_peak_mib(python: str | None = None, timeout_s: float = 120.0) -> int | None:
    """The address space a compile worker of `python` reaches once it has imported what
    every capture imports, in MiB, measured without a limit; None when it cannot be
    measured (no /proc, the interpreter fails)."""
    env = worker_env()
    env.pop("KX_MEMORY_LIMIT_MB", None)
    try:
        p = subprocess.run(
            workers.command("kx_core.compile.jobs.memory_floor", [], python),
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
        )
        return int(p.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return None


def least_limit_mib(peak_mib: int) -> int:
    """The least --memory-limit to suggest: the imports' peak plus room, rounded up."""
    return -(-(peak_mib + _ROOM_MIB) // _STEP_MIB) * _STEP_MIB


def limit_diagnostic(limit_mb: int, python: str | None) -> Diagnostic | None:
    """The `argument` diagnostic for a worker that died under `limit_mb`, when that
    limit is below the least a worker needs; else None (the death is reported as it
    was: the file's, or another fault)."""
    if not limit_mb or limit_mb >= _SURELY_ENOUGH_MIB:
        return None
    peak = imports_peak_mib(python)
    if peak is None or limit_mb >= least_limit_mib(peak):
        return None
    return Diagnostic(
        "argument",
        f"kx's memory limit of {limit_mb} MiB (--memory-limit, or $KX_MEMORY_LIMIT_MB; by "
        "default three quarters of this machine's memory) is too small for kx's worker: "
        f"torch and Triton alone take {peak} MiB of address space here, before the file "
        f"runs; give it {least_limit_mib(peak)} MiB or more (0: no limit)",
    )


def main() -> int:
    import torch  # noqa: F401 - what every capture imports before the file runs
    import triton  # noqa: F401

    import kx_core.compile.capturing.capture  # noqa: F401

    print(_peak_mib())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
