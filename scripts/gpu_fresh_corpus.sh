#!/usr/bin/env bash
# On the GPU machine, from the repo root (issue 50: a held-out corpus, first run counts).
#
#   bash scripts/gpu_fresh_corpus.sh MANIFEST [ground|measure|both]
#
# ground: real runs of every MANIFEST entry (scripts/record_real_runs.py: each compile
# with its Triton hash and PTX digest; each file's Inductor cache under
# /tmp/kx-inductor/<id>, since a generated kernel's path is in its PTX), back as
# $OUT/ground_<name>.tgz as soon as they end. measure: kx's capture of the same entries
# here (benchmarks/real_files/measure.py in SHARDS shards, each with the real runs'
# Inductor folders), compared with the ground truth just recorded (both) or with
# benchmarks/real_files/ground_<name>.json (measure); rows back as $OUT/measure_<name>.tgz.
# Needs .realfiles/ for the entries (benchmarks/real_files/extract.py --manifest MANIFEST;
# carry it). The device takes 64 MiB of carry in all, more than every corpus together: extract
# only this manifest's files elsewhere (`extract.py --manifest MANIFEST --root .bench_kx/rf`),
# carry that folder and pass REALFILES=.bench_kx/rf/.realfiles, which is linked as .realfiles.
# Limits: GROUND_LIMIT, MEASURE_LIMIT (s, whole step), FILE_LIMIT (s, a file), JOBS (files at
# once on the GPU), SHARDS. The measure step's rows are packed into $OUT when the script
# exits, also when its command runs out of time.
set -uo pipefail
# SITE: a folder of packages the files need that the machine lacks (carried wheels installed
# with pip --target), put on every run's path.
export PYTHONUNBUFFERED=1 PYTHONPATH=".${SITE:+:$SITE}" MPLBACKEND=Agg
manifest="$1"
step="${2:-both}"
name="$(basename "$manifest" .json)"
name="${name#manifest_}"
out="${OUT:-/tmp/kx-out}"
work="/tmp/kx-$name"
mkdir -p "$out" "$work"
if [ -n "${REALFILES:-}" ]; then rm -rf .realfiles; ln -s "$REALFILES" .realfiles; fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import os, torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cores', len(os.sched_getaffinity(0)))"
pwd > "$work/root.txt"
python3 -c "from triton.runtime.cache import triton_key; print(triton_key())" > "$work/triton_key.txt" 2>&1
ground="benchmarks/real_files/ground_$name.json"
if [ "$step" = ground ] || [ "$step" = both ]; then
  started=$SECONDS
  timeout "${GROUND_LIMIT:-300}" python3 scripts/record_real_runs.py --manifest "$manifest" --out "$work/ground" \
    --jobs "${JOBS:-8}" --timeout "${FILE_LIMIT:-240}" --inductor-cache-root /tmp/kx-inductor > "$work/ground.log" 2>&1
  echo "ground: exit $? in $((SECONDS - started)) s"
  cat "$work/ground.log" | cut -c1-200
  tar -C "$work" -czf "$out/ground_$name.tgz" --exclude=scratch ground ground.log root.txt triton_key.txt
  ground="$work/ground/all.json"
fi
pack_measure() {
  local files
  files="$(cd "$work" && ls measure_*.json measure_*.log 2>/dev/null)"
  if [ -n "$files" ]; then tar -C "$work" -czf "$out/measure_$name.tgz" $files; fi
}
if [ "$step" = measure ] || [ "$step" = both ]; then
  trap pack_measure EXIT
  trap 'pack_measure; trap - EXIT; exit 143' TERM INT
  started=$SECONDS
  n="${SHARDS:-3}"
  for k in $(seq 1 "$n"); do
    timeout "${MEASURE_LIMIT:-260}" python3 benchmarks/real_files/measure.py --manifest "$manifest" --shard "$k/$n" \
      --ground "$ground" --timeout "${FILE_LIMIT:-240}" ${SITE:+--extra-site "$SITE"} --inductor-cache-root /tmp/kx-inductor \
      --out "$work/measure_$k.json" > "$work/measure_$k.log" 2>&1 &
  done
  wait
  echo "measure: $((SECONDS - started)) s"
  for k in $(seq 1 "$n"); do grep -E '^\{' "$work/measure_$k.log" | cut -c1-400; done
fi
