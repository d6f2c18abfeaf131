"""CuTe DSL public examples: kx's build here (no GPU) against the DSL's own real runs on
the H200 (issue 35's done-when, on files kx does not ship).

    python benchmarks/cute_public_ground.py DIR_OF_FILES RECORDS_DIR

RECORDS_DIR holds what `scripts/record_cute_runs.py FILE... --out RECORDS_DIR` wrote on
the H200 for the same files (each program's portable PTX hash, registers, shared memory
and SASS hash). Prints, per file, how many of the real run's programs kx built with the
same PTX, the same registers and shared memory, and the same SASS.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kx_core.compile import CompileRequest, compile_file  # noqa: E402
from kx_core.compile.artifacts.derived import with_derived  # noqa: E402
from scripts.record_cute_runs import portable_ptx, portable_sass, sha  # noqa: E402


def main() -> int:
    files, records = Path(sys.argv[1]), Path(sys.argv[2])
    total = same_ptx = same_res = same_sass = 0
    for record_path in sorted(records.glob("*.json")):
        real = json.loads(record_path.read_text())["compiles"]
        file = files / f"{record_path.stem}.py"
        result = with_derived(compile_file(CompileRequest(str(file), target="cuda:90"), use_cache=False))
        mine = [k for k in result.kernels if k.status == "compiled"]
        ptx = {sha(portable_ptx(k.stages["ptx"])): k for k in mine}
        n_ptx = n_res = n_sass = 0
        for r in real:
            k = ptx.get(r["ptx_sha256_portable"])
            if k is None:
                continue
            n_ptx += 1
            n_res += (k.metadata.registers, k.metadata.shared) == (r["registers"], r["shared"])
            n_sass += sha(portable_sass(k.stages.get("sass", ""))) == r["sass_sha256_portable"]
        total += len(real)
        same_ptx, same_res, same_sass = same_ptx + n_ptx, same_res + n_res, same_sass + n_sass
        print(
            f"{file.name}: {len(real)} programs run; kx built {len(mine)}: same PTX {n_ptx}, "
            f"same registers+shared {n_res}, same SASS {n_sass}"
        )
    print(f"all: {total} programs; same PTX {same_ptx}, registers+shared {same_res}, SASS {same_sass}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
