#!/usr/bin/env bash
# On the GPU machine: capture real timing runs for the GUI tests into fixtures/bench/.
#   bash scripts/capture_bench_fixtures.sh OUTDIR   (then copy OUTDIR/*.json to fixtures/bench/)
# Each file is a BenchResult (`kx bench --json`, the model part dropped). Never edit them.
set -euo pipefail
OUT=${1:-fixtures/bench}
mkdir -p "$OUT"
export PYTHONPATH=.
for spec in "matmul_autotune --configs all" "vector_add"; do
  set -- $spec
  name=$1; shift
  python3 -m kx_core.cli bench "kx_core/data/examples/$name.py" "$@" --json \
    | python3 -c "import json, sys; d = json.load(sys.stdin); d.pop('models', None); json.dump(d, sys.stdout)" \
    > "$OUT/$name.json"
  echo "$OUT/$name.json"
done
