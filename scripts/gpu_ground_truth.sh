#!/usr/bin/env bash
# On the GPU machine, from the repo root: what real runs compile (fixtures/real_world and
# the public corpus of benchmarks/real_files), and kx's capture of the same files under
# the machine's Triton, for comparison. Writes $OUT/{rw,corpus}.json, logs, kx.json.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=.
out="${OUT:-/tmp/kx-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
python3 scripts/record_real_runs.py fixtures/real_world/*.py --pythonpath fixtures/real_world/other_env \
  --out /tmp/rw --jobs 4 --timeout 300 > "$out/rw.log" 2>&1
cp /tmp/rw/all.json "$out/rw.json"
tail -12 "$out/rw.log"
# kx's own capture here (CPU work; the machine's triton 3.6 and torch 2.11)
for f in softmax_occupancy checks_between_launches autotune_prune use_mylib; do
  python3 -m kx_core.cli compile "fixtures/real_world/$f.py" --no-cache --json --timeout 120 > "/tmp/kx_$f.json" 2>>"$out/kx.log"
  echo "kx $f exit $?"
done
python3 -c "
import json, glob
out = {p: json.load(open(p)) for p in glob.glob('/tmp/kx_*.json')}
json.dump({p: {'kernels': [(k['name'], k['status'], k['launch'] and k['launch']['grid']) for k in d['kernels']], 'diagnostics': d['diagnostics']} for p, d in out.items()}, open('$out/kx.json', 'w'), indent=1)
" 2>>"$out/kx.log"
if [ -f benchmarks/real_files/manifest.json ]; then
  timeout "${CORPUS_TIMEOUT:-420}" python3 scripts/record_real_runs.py --manifest benchmarks/real_files/manifest.json \
    --out /tmp/corpus --jobs "${CORPUS_JOBS:-8}" --timeout "${FILE_TIMEOUT:-300}" > "$out/corpus.log" 2>&1
  cp /tmp/corpus/all.json "$out/corpus.json"
  tail -40 "$out/corpus.log"
fi
