#!/usr/bin/env bash
# On the GPU machine, from the repo root: kx's PC-sampling profiles and Proton's of the
# same files on the same number of calls (the oracle), Proton's raw tree, the
# profiling-speed benchmark, and the GPU tests of issue 21. Everything lands in $OUT/gt
# (one tarball, $OUT/profile_gt.tgz) and $OUT/log.txt.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=.
out="${OUT:-/tmp/kx-out}"
gt=/tmp/kx-gt
mkdir -p "$out" "$gt"
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__)"
for f in ${PROFILE_FILES:-kx_core/data/examples/vector_add.py kx_core/data/examples/matmul.py benchmarks/kernels/matmul_1ms.py}; do
  name=$(basename "$f" .py)
  start=$(date +%s%N)
  python3 -m kx_core.cli profile "$f" --calls "${CALLS:-2000}" --json > "$gt/kx_$name.json" 2> "$gt/kx_$name.err"
  echo "kx profile $name exit $? in $(( ($(date +%s%N) - start) / 1000000 )) ms"
  KX_KEEP_HATCHET="$gt/proton_$name.hatchet" python3 -m kx_core.cli profile "$f" --proton --calls "${CALLS:-2000}" --json > "$gt/proton_$name.json" 2> "$gt/proton_$name.err"
  echo "proton profile $name exit $?"
  tail -n 3 "$gt/kx_$name.err" "$gt/proton_$name.err"
done
# edit and re-time: the matmul with its K loop emptied at TTIR, and its TTGIR unchanged
python3 - "$gt" <<'PY'
import json, re, sys
gt = sys.argv[1]
stages = json.load(open(f"{gt}/kx_matmul.json"))["kernels"][0]["stages"]
edited, n = re.subn(r"(scf\.for %[\w.]+ = (%[\w.]+) to )%[\w.]+", r"\1\2", stages["ttir"], count=1)
open(f"{gt}/matmul_kernel.ttir", "w").write(edited)
open(f"{gt}/matmul_kernel.ttgir", "w").write(stages["ttgir"])
PY
for stage in ttir ttgir; do
  python3 -m kx_core.cli bench kx_core/data/examples/matmul.py --override "$gt/matmul_kernel.$stage" --json > "$gt/override_matmul_$stage.json"
  echo "override $stage exit $?"
done
} > "$out/log.txt" 2>&1
tar czf "$out/profile_gt.tgz" -C "$gt" .
cat "$out/log.txt"
