#!/usr/bin/env bash
# On the GPU machine, from the repo root (issue 28: PyTorch's own launch paths). Two steps,
# each well inside one device command:
#
#   bash scripts/gpu_pytorch_launch_paths.sh ground    # real runs: what the GPU compiles
#   bash scripts/gpu_pytorch_launch_paths.sh measure   # kx's capture of the same files here
#
# ground: real runs (scripts/record_real_runs.py: every compile with its Triton hash and PTX
# digest) of fixtures/real_world, the corpus of benchmarks/real_files/manifest_pytorch.json,
# the small models under torch.compile (scripts/record_inductor_output.py, which keeps
# Inductor's output modules) and then those modules; the checkout's path and Triton's key
# (a capture elsewhere compiles the same bytes from the same paths and the same wheel). measure: benchmarks/real_files/measure.py over the same
# entries (needs ground's results unpacked in the checkout: fixtures/inductor/ and
# benchmarks/real_files/ground_pytorch_h200.json) and the torch.compile benchmark.
# Everything comes back as $OUT/<step>.tgz plus the logs' tails on stdout.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=.
step="${1:-ground}"
out="${OUT:-/tmp/kx-out}"
work=/tmp/kx-$step
mkdir -p "$out" "$work"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"

if [ "$step" = ground ]; then
  # everything at once, each part under its own limit, so the whole fits one command
  pwd > "$work/root.txt"
  python3 -c "from triton.runtime.cache import triton_key; print(triton_key())" > "$work/triton_key.txt" 2>&1
  python3 scripts/record_inductor_output.py --out "$work/inductor" --ground "$work/inductor_ground" \
    --timeout 160 > "$work/inductor.log" 2>&1 &
  models=$!
  timeout 290 python3 scripts/record_real_runs.py --manifest benchmarks/real_files/manifest_pytorch.json \
    --out "$work/corpus" --jobs 7 --timeout 150 > "$work/corpus.log" 2>&1 &
  corpus=$!
  timeout 240 python3 scripts/record_real_runs.py fixtures/real_world/*.py --pythonpath fixtures/real_world/other_env \
    --out "$work/rw" --jobs 3 --timeout 150 > "$work/rw.log" 2>&1 &
  rw=$!
  wait $models
  cat "$work/inductor.log"
  timeout 110 python3 scripts/record_real_runs.py "$work"/inductor/*_output_code.py --out "$work/modules_ground" \
    --jobs 5 --timeout 100 --inductor-cache-root /tmp/kx-inductor > "$work/modules.log" 2>&1
  tail -12 "$work/modules.log"
  wait $rw
  tail -16 "$work/rw.log"
  wait $corpus
  tail -36 "$work/corpus.log"
  tar -C "$work" -czf "$out/ground.tgz" --exclude=scratch .
elif [ "$step" = measure ]; then
  # the public corpus needs .realfiles (carry it: benchmarks/real_files/extract.py builds it);
  # the Inductor entries run with the real runs' TORCHINDUCTOR_CACHE_DIR, since the generated
  # kernels' paths are in their PTX's debug info. TESTS=0 skips the GPU tests.
  measure() {  # name, manifest, shard, more args
    python3 benchmarks/real_files/measure.py --manifest "$2" --shard "$3" "${@:4}" \
      --ground benchmarks/real_files/ground_pytorch_h200.json --timeout 300 \
      --out "$work/$1.json" > "$work/$1.log" 2>&1
  }
  corpus=benchmarks/real_files/manifest_pytorch.json
  measure pytorch1 $corpus 1/3 & measure pytorch2 $corpus 2/3 & measure pytorch3 $corpus 3/3 &
  measure inductor benchmarks/real_files/manifest_inductor.json 1/1 --inductor-cache-root /tmp/kx-inductor &
  if [ "${TESTS:-1}" = 1 ]; then
    python3 -m pytest -q -p no:cacheprovider tests/compile/test_real_world.py \
      tests/compile/test_pytorch_launch_paths.py::test_an_inductor_output_module_compiles_every_config_its_autotuners_list \
      > "$work/tests.log" 2>&1
    echo "tests exit $?" >> "$work/tests.log"
  fi
  wait
  # alone on the machine, so that the two times it compares see the same load
  timeout 300 python3 benchmarks/bench_torch_compile.py --runs 1 > "$work/bench.log" 2>&1
  for f in pytorch1 pytorch2 pytorch3 inductor; do grep -A80 "^| entry" "$work/$f.log"; done
  tail -3 "$work/tests.log" 2>/dev/null
  cat "$work/bench.log"
  tar -C "$work" -czf "$out/measure.tgz" .
fi
