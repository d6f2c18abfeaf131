#!/usr/bin/env bash
# On the GPU machine, from the repo root: what the kernel languages' own packages build on
# the real GPU (each file run for real, every Triton compile logged with its hash and PTX
# sha256 by scripts/record_real_runs.py), and kx's capture of the same files for the local
# target (run as kx runs them, no GPU used), side by side in $OUT/dsl.json. Gluon ships in
# Triton; Helion and CuTe DSL files run only where their package imports (the H200 image
# has neither: they are left out; Helion 1.5.1 carried as a wheel does not import against
# its torch 2.11). Keep $OUT/dsl.json as fixtures/dsl_ground/<triton version>.json:
# tests/compile/test_dsl_ground.py compiles the files here and checks the PTX and the
# cubin's figures against it.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=.
out="${OUT:-/tmp/kx-out}"
mkdir -p "$out/real"
files=(kx_core/data/examples/gluon_transpose.py fixtures/kernels/gluon/wgmma_tile.py fixtures/kernels/gluon/helper_layouts.py)
python3 -c "import helion" 2>/dev/null && files+=(kx_core/data/examples/helion_rows.py)
python3 -c "import cutlass.cute" 2>/dev/null && files+=(kx_core/data/examples/cute_add.py)
python3 scripts/record_real_runs.py "${files[@]}" --out "$out/real" --timeout 300 > "$out/real.log" 2>&1
for f in "${files[@]}"; do
  n=$(basename "$f" .py)
  python3 -m kx_core.cli compile "$f" --no-cache --json --timeout 300 > "$out/kx_$n.json" 2>>"$out/kx.log"
  echo "kx $n exit $?"
done
python3 - "$out" "${files[@]}" <<'PY'
import json, os, sys, platform
out, files = sys.argv[1], sys.argv[2:]
import torch, triton
row = {"gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
       "triton": triton.__version__, "torch": torch.__version__, "files": {}}
for f in files:
    n = os.path.splitext(os.path.basename(f))[0]
    real = json.load(open(os.path.join(out, "real", f"{n}.json")))
    kx = json.load(open(os.path.join(out, f"kx_{n}.json")))
    row["files"][f] = {
        "real": [{k: c.get(k) for k in ("name", "hash", "ptx_sha256", "ptx_sha256_portable", "num_warps", "num_stages")}
                 for c in real.get("compiles", [])],
        "kx": [{"name": k["name"], "hash": k["metadata"] and k["metadata"]["hash"],
                "registers": k["metadata"] and k["metadata"]["registers"],
                "shared": k["metadata"] and k["metadata"]["shared"]} for k in kx["kernels"]],
    }
json.dump(row, open(os.path.join(out, "dsl.json"), "w"), indent=1)
print(json.dumps({f: (len(v["real"]), len(v["kx"])) for f, v in row["files"].items()}))
PY
