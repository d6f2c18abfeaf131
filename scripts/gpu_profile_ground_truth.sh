#!/usr/bin/env bash
# On the GPU machine, from the repo root: kx's PC-sampling profiles and Proton's of the
# same files (the oracle), the profiling-speed benchmark, and what this host allows of
# CPU hardware counters. Writes $OUT/{kx,proton}_NAME.json and logs.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=.
out="${OUT:-/tmp/kx-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__)"
echo "perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>&1); PMUs: $(ls /sys/bus/event_source/devices 2>&1 | tr '\n' ' ')"
for f in ${PROFILE_FILES:-kx_core/data/examples/vector_add.py kx_core/data/examples/matmul.py benchmarks/kernels/matmul_1ms.py}; do
  name=$(basename "$f" .py)
  start=$(date +%s%N)
  python3 -m kx_core.cli profile "$f" --json > "$out/kx_$name.json" 2> "$out/kx_$name.err"
  echo "kx profile $name exit $? in $(( ($(date +%s%N) - start) / 1000000 )) ms"
  python3 -m kx_core.cli profile "$f" --proton --json > "$out/proton_$name.json" 2> "$out/proton_$name.err"
  echo "proton profile $name exit $?"
  tail -3 "$out/kx_$name.err" "$out/proton_$name.err"
done
