#!/usr/bin/env bash
# On the GPU machine (16 cores), from the repo root (issue 51: capture speed on many cores).
#
#   bash scripts/gpu_capture_speed.sh [IDS] [OTHER_KX_ROOT...]
#
# benchmarks/bench_capture_corpus.py over the real-file drivers IDS (comma-separated), this
# checkout against plain triton.compile of the same specializations, and against each
# OTHER_KX_ROOT (a folder holding another commit's kx_core, e.g. .bench_kx/fc53e69, made with
# `git worktree`; carry it), interleaved file by file; first on every core, then on two
# (taskset), which gives each checkout's speed-up from 2 cores to all. CE_WRAPPER=PATH (Compiler
# Explorer's etc/scripts/triton_wrapper.py, fetched and carried, never committed) times it on
# every core too (bench_capture_corpus --ce-wrapper). Needs .realfiles/ for
# the IDS (benchmarks/real_files/extract.py; carry it). Logs and JSON rows land in $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg
ids="${1:-mamba_layer_norm,fla_norm_gate,ao_int8_mm}"
shift || true
out="${OUT:-/tmp/kx-out}"
mkdir -p "$out"
others=()
for root in "$@"; do others+=(--kx-root "$root"); done
nproc
python3 -c "import os, torch, triton; print('cpus', os.cpu_count(), 'affinity', len(os.sched_getaffinity(0)), 'torch', torch.__version__, 'triton', triton.__version__)"
ce=()
if [ -n "${CE_WRAPPER:-}" ]; then ce=(--ce-wrapper "$CE_WRAPPER"); fi
timeout "${ALL_LIMIT:-330}" python3 benchmarks/bench_capture_corpus.py --only "$ids" "${others[@]}" "${ce[@]}" \
  --json "$out/speed_all.json" 2>&1 | tee "$out/speed_all.log"
if [ "${TWO:-1}" = 1 ]; then
  timeout "${TWO_LIMIT:-200}" taskset -c 0,1 python3 benchmarks/bench_capture_corpus.py --only "${TWO_IDS:-$ids}" \
    "${others[@]:0:2}" --json "$out/speed_two.json" 2>&1 | tee "$out/speed_two.log"
fi
