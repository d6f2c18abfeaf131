"""Ground truth for CuTe DSL files: run each for real on the GPU machine, with the DSL
told to keep what it builds (CUTE_DSL_KEEP=ptx,cubin in a folder of the run's own, and
line info on, as kx compiles with it), and record every program the DSL compiled: the
PTX's path-independent sha256 (`.file` paths cut to their names), the registers and
shared memory of its cubin (cuobjdump, as kx reads them) and the sha256 of its SASS
(nvdisasm, as kx shows it, the header and `//## File` paths left out).

    python3 scripts/record_cute_runs.py FILE... --out DIR [--timeout S]

Writes DIR/<name>.json per file ({"compiles": [...]}), the shape
scripts/dsl_ground_merge.py joins with kx's capture of the same file.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Example: "cutlass_add_Tensorgmem..._0.sm_90a.ptx"
_ARTIFACT_RE = re.compile(r"^(?P<base>.+)\.(?P<arch>sm_\w+)\.ptx$")
# Example: '.file 1 "/work/main/fixtures/kernels/cute/dlpack_add.py"'
_FILE_RE = re.compile(r'^(\s*\.file\s+\d+\s+)"(?:[^"]*/)?([^/"]*)"', re.M)
# Example: '//## File "/work/main/x.py", line 17' -> '//## File "x.py", line 17'
_SASS_FILE_RE = re.compile(r'(//## File ")(?:[^"]*/)?([^/"]*")')
# Example: ".entry kernel_cutlass_add_kernel_0("
_ENTRY_RE = re.compile(r"\.entry\s+([\w$]+)\s*\(")


def portable_ptx(ptx: str) -> str:
    return _FILE_RE.sub(r'\1"\2"', ptx)


# Example: "\t.section\t.debug_info\n\t{\n.b32 73 // Length of Unit ...\n\t}"
_DEBUG_INFO_RE = re.compile(r"^[ \t]*\.section[ \t]+\.debug_info\s*\{.*?^[ \t]*\}[ \t]*$", re.M | re.S)


def nodebug_ptx(ptx: str) -> str:
    """The PTX less its paths: `.file` cut to names and the DWARF .debug_info section (it
    holds the source's folder) left out: scripts/record_real_runs.py's ptx_sha256_nodebug."""
    return _DEBUG_INFO_RE.sub("", portable_ptx(ptx))


# Example: "\t.loc\t1 27 33" and '\t.file\t2 "/x/torch/_inductor/runtime/triton_helpers.py"'
_LOC_FILE_RE = re.compile(r"^[ \t]*\.(?:loc|file)\b.*\n?", re.M)
# Example: "\t.section\t.debug_abbrev\n\t{\n...\t}"
_DEBUG_SECTION_RE = re.compile(r"^[ \t]*\.section[ \t]+\.debug_\w+\s*\{[^{}]*\}[ \t]*$", re.M)


def code_ptx(ptx: str) -> str:
    """The PTX's code alone: no `.loc`/`.file` lines and no DWARF sections. What remains
    does not depend on the line numbers of the libraries a kernel inlines (torch's
    triton_helpers.py differs between torch versions; a Helion kernel inlines it)."""
    return _DEBUG_SECTION_RE.sub("", _LOC_FILE_RE.sub("", ptx))


def portable_sass(sass: str) -> str:
    """kx's SASS text less its header line, file paths cut to their names."""
    lines = [ln for ln in sass.splitlines() if not ln.startswith("// SASS from nvdisasm")]
    return _SASS_FILE_RE.sub(r"\1\2", "\n".join(lines))


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def program(ptx_path: str) -> dict:
    from kx_core.compile.artifacts import resources, sass

    ptx = Path(ptx_path).read_text(encoding="utf-8", errors="replace")
    m = _ARTIFACT_RE.match(os.path.basename(ptx_path))
    entry = _ENTRY_RE.search(ptx)
    row = {
        "name": m.group("base") if m else os.path.basename(ptx_path),
        "arch": m.group("arch") if m else None,
        "ptx_sha256_portable": sha(portable_ptx(ptx)),
    }
    cubin_path = ptx_path[: -len(".ptx")] + ".cubin"
    if os.path.exists(cubin_path):
        cubin = Path(cubin_path).read_bytes()
        usage = resources.cubin_resources(cubin, entry.group(1) if entry else None)
        row.update(registers=usage.registers, shared=usage.shared or 0)
        row["sass_sha256_portable"] = sha(portable_sass(sass.disassemble(cubin)))
    return row


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for f in args.files:
        name = os.path.splitext(os.path.basename(f))[0]
        kept = tempfile.mkdtemp(prefix=f"cute-real-{name}-")
        env = dict(os.environ, CUTE_DSL_KEEP="ptx,cubin", CUTE_DSL_DUMP_DIR=kept, CUTE_DSL_LINEINFO="1")
        try:
            run = subprocess.run(
                [sys.executable, os.path.abspath(f)],
                env=env,
                capture_output=True,
                text=True,
                timeout=args.timeout,
            )
            status, tail = run.returncode, (run.stderr or "").strip().splitlines()[-5:]
        except subprocess.TimeoutExpired:
            status, tail = "timeout", []
        compiles = [program(p) for p in sorted(glob.glob(os.path.join(kept, "*.ptx")))]
        record = {"file": f, "exit": status, "stderr_tail": tail, "compiles": compiles}
        with open(os.path.join(args.out, f"{name}.json"), "w") as fh:
            json.dump(record, fh, indent=1)
        print(f"{f}: exit {status}, {len(compiles)} programs kept")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
