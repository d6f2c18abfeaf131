#!/usr/bin/env bash
# On the GPU machine, from the repo root: what the kernel languages' own packages build on
# the real GPU (each file run for real, every Triton compile logged with its hash and PTX
# sha256 by scripts/record_real_runs.py), and kx's capture of the same files for the local
# target (run as kx runs them, no GPU used), side by side in $OUT/dsl.json. Gluon ships in
# Triton; Helion and CuTe DSL files run only where their package imports (the H200 image
# has neither: they are left out; Helion 1.5.1 carried as a wheel does not import against
# its torch 2.11; Helion 1.4.0 does: carry its wheel and put it on PYTHONPATH). Keep $OUT/dsl.json as fixtures/dsl_ground/<triton version>.json:
# tests/compile/test_dsl_ground.py compiles the files here and checks the PTX and the
# cubin's figures against it.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}"
out="${OUT:-/tmp/kx-out}"
mkdir -p "$out/real"
files=(kx_core/data/examples/gluon_transpose.py fixtures/kernels/gluon/wgmma_tile.py fixtures/kernels/gluon/helper_layouts.py)
python3 -c "import helion" 2>/dev/null && files+=(kx_core/data/examples/helion_rows.py)
cute=()  # CuTe DSL builds no Triton kernel: its own programs are kept and read (record_cute_runs.py)
python3 -c "import cutlass.cute" 2>/dev/null && cute=(kx_core/data/examples/cute_add.py fixtures/kernels/cute/dlpack_add.py fixtures/kernels/cute/persistent_grid.py)
# a Helion kernel with no config: its real run autotunes (minutes); with the search off
# it builds Helion's default config, the one kx compiles first
HELION_AUTOTUNE_EFFORT="${HELION_AUTOTUNE_EFFORT:-none}" python3 scripts/record_real_runs.py "${files[@]}" --out "$out/real" --timeout 300 > "$out/real.log" 2>&1
if [ ${#cute[@]} -gt 0 ]; then
  python3 scripts/record_cute_runs.py "${cute[@]}" --out "$out/real" --timeout 300 >> "$out/real.log" 2>&1
  files+=("${cute[@]}")
fi
for f in "${files[@]}"; do
  n=$(basename "$f" .py)
  python3 -m kx_core.cli compile "$f" --no-cache --json --timeout 300 > "$out/kx_$n.json" 2>>"$out/kx.log"
  echo "kx $n exit $?"
done
python3 scripts/dsl_ground_merge.py "$out" "${files[@]}"
# CuTe's record is kept apart (fixtures/dsl_ground/cute/<DSL version>.json): its test
# compiles with kx's own interpreter, where the DSL is installed, not a managed Triton's
