"""A recorded CUDA kernel's cubin, recompiled from the record's PTX when the record holds
none (a tritonparse trace keeps the text stages, not the binary): registers, spills,
SASS and the ELF then come from it as from a captured kernel's.

Only the Triton version the record names compiles it: that version's `make_cubin`
(its backend's ptxas call, with the record's options: fp fusion, ptx options), in kx's
own interpreter when that is the version, else in an environment `kx versions add`
made. Without either, or for a record that names no version, nothing is recompiled and
the kernel says why (a ptxas of another version can allocate registers differently:
kx never shows one version's binary as another's).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys

# Runs in the recording's Triton: the PTX and options on stdin, the cubin (base64) out.
_MAKE_CUBIN = r"""
import base64, dataclasses, json, sys
from triton.backends.compiler import GPUTarget
from triton.backends.nvidia.compiler import CUDABackend
req = json.load(sys.stdin)
backend = CUDABackend(GPUTarget("cuda", req["arch"], 32))
fields = {f.name for f in dataclasses.fields(backend.parse_options({}))}
opt = backend.parse_options({k: v for k, v in req["options"].items() if k in fields})
cubin = backend.make_cubin(req["ptx"], {"name": req["name"]}, opt, req["arch"])
sys.stdout.write(base64.b64encode(cubin).decode("ascii"))
"""
# the record's metadata fields make_cubin reads (through the backend's options)
_OPTIONS = ("enable_fp_fusion", "ptx_options", "instrumentation_mode", "num_warps", "num_ctas")
# One ptxas option of a record's ptx_options, which Triton splits on spaces and hands to
# ptxas: a flag with an optional plain value, never a path (no '/') nor a value given as
# its own word. Example: "--maxrregcount=128", "-O3", "--warn-on-spills"
_PTXAS_OPTION_RE = re.compile(r"^-{1,2}[A-Za-z][\w-]*(?:=[\w.,+-]+)?$")
# options that name a file ptxas reads or writes: a record never chooses one
_PTXAS_FILE_OPTIONS = {"o", "output-file", "optf", "options-file", "ias", "input-as-string"}
_DONE: dict[str, tuple[bytes | None, str]] = {}  # sha of (version, arch, ptx) -> (cubin, why not)


def _interpreter(version: str) -> tuple[str | None, str]:
    from kx_core.base.triton_envs import VersionError, is_release, python_for
    from kx_core.compile.jobs.cache import triton_version

    if triton_version() == version:
        return sys.executable, ""
    if not is_release(version):
        # the record's word: a command kx suggests is never made of it (row 17 of issue 52)
        return None, f"the record's Triton version {version[:60]!r} is not a release kx can add"
    try:
        return python_for(version), ""
    except VersionError:
        return None, f"`kx versions add {version}` lets kx recompile it"


def _unsafe_options(options: object) -> str:
    """Why a record's ptx_options are not given to ptxas ('' where they may be): options
    are the record's words, and one naming a file would make ptxas read or write it."""
    if options in (None, ""):
        return ""
    words = options.split(" ") if isinstance(options, str) else None
    if words is None or len(words) > 32:
        return "the record's ptx_options are not a list of ptxas options: its PTX is not recompiled"
    for word in filter(None, words):
        name = word.lstrip("-").split("=", 1)[0]
        if not _PTXAS_OPTION_RE.match(word) or name in _PTXAS_FILE_OPTIONS:
            return f"the record's ptx_options hold {word[:60]!r}, not an option kx gives ptxas: its PTX is not recompiled"
    return ""


def recompile(
    name: str, ptx: str, arch: int, metadata: dict, timeout_s: float = 120.0
) -> tuple[bytes | None, str]:
    """(cubin, '') or (None, why not) for one recorded kernel's PTX."""
    version = metadata.get("triton_version")
    if not version:
        return None, "the record names no Triton version: kx does not recompile its PTX"
    if not isinstance(version, str):
        return None, "the record's Triton version is not text: kx does not recompile its PTX"
    key = hashlib.sha256(f"{version}\0{arch}\0{ptx}".encode()).hexdigest()
    if key in _DONE:
        return _DONE[key]
    if why := _unsafe_options(metadata.get("ptx_options")):
        return None, why
    python, why = _interpreter(version)
    if python is None:
        return None, why
    req = {
        "name": name,
        "ptx": ptx,
        "arch": arch,
        "options": {k: metadata[k] for k in _OPTIONS if k in metadata},
    }
    try:
        p = subprocess.run(
            [python, "-c", _MAKE_CUBIN],
            input=json.dumps(req),
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"recompiling its PTX failed: {e}"
    if p.returncode != 0:
        lines = [ln.strip() for ln in p.stderr.splitlines() if ln.strip()]
        # ptxas's own reason, not Triton's "Repro command" line after it. Example:
        # "ptxas /tmp/t.ptx, line 5; fatal   : Unsupported .version 9.0; current version is '8.7'"
        last = next((ln for ln in lines if "fatal" in ln), lines[-1] if lines else "")
        last = last or f"exit {p.returncode}"
        _DONE[key] = (None, f"recompiling its PTX with Triton {version} failed: {last[:200]}")
    else:
        _DONE[key] = (base64.b64decode(p.stdout), "")
    return _DONE[key]
