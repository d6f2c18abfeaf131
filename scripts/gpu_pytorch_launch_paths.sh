#!/usr/bin/env bash
# On the GPU machine, from the repo root (issue 28: PyTorch's own launch paths). Two steps,
# each well inside one device command:
#
#   bash scripts/gpu_pytorch_launch_paths.sh ground    # real runs: what the GPU compiles
#   bash scripts/gpu_pytorch_launch_paths.sh measure   # kx's capture of the same files here
#
# ground: Inductor's output modules of the small models (scripts/record_inductor_output.py),
# then real runs (scripts/record_real_runs.py: every compile with its Triton hash and PTX
# digest) of fixtures/real_world, the corpus of benchmarks/real_files/manifest_pytorch.json,
# the model scripts and their output modules; the engine's issue-28 tests on this machine's
# torch and triton beside them. measure: benchmarks/real_files/measure.py over the same
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
  (python3 -m pytest -q -p no:cacheprovider tests/compile/test_pytorch_launch_paths.py \
      tests/compile/test_tensor_semantics.py tests/compile/test_capture_device.py \
      --deselect tests/compile/test_pytorch_launch_paths.py::test_an_inductor_output_module_compiles_every_config_its_autotuners_list \
      > "$work/tests.log" 2>&1; echo "tests exit $?" >> "$work/tests.log") &
  tests=$!
  python3 scripts/record_inductor_output.py --out "$work/inductor" > "$work/inductor.log" 2>&1
  cat "$work/inductor.log"
  python3 scripts/record_real_runs.py fixtures/real_world/*.py --pythonpath fixtures/real_world/other_env \
    --out "$work/rw" --jobs 4 --timeout 240 > "$work/rw.log" 2>&1
  tail -20 "$work/rw.log"
  timeout 330 python3 scripts/record_real_runs.py --manifest benchmarks/real_files/manifest_pytorch.json \
    --out "$work/corpus" --jobs 6 --timeout 200 > "$work/corpus.log" 2>&1
  tail -45 "$work/corpus.log"
  python3 scripts/record_real_runs.py benchmarks/real_files/inductor/*.py "$work"/inductor/*_output_code.py \
    --out "$work/inductor_ground" --jobs 4 --timeout 240 > "$work/inductor_ground.log" 2>&1
  tail -20 "$work/inductor_ground.log"
  wait $tests
  tail -15 "$work/tests.log"
  tar -C "$work" -czf "$out/ground.tgz" --exclude=scratch .
elif [ "$step" = measure ]; then
  measure() {  # name, manifest, ground
    python3 benchmarks/real_files/measure.py --manifest "$2" --ground "$3" --timeout 300 \
      --out "$work/$1.json" > "$work/$1.log" 2>&1
  }
  measure pytorch benchmarks/real_files/manifest_pytorch.json benchmarks/real_files/ground_pytorch_h200.json &
  measure inductor benchmarks/real_files/manifest_inductor.json benchmarks/real_files/ground_pytorch_h200.json &
  python3 -m pytest -q -p no:cacheprovider tests/compile/test_real_world.py \
    tests/compile/test_pytorch_launch_paths.py::test_an_inductor_output_module_compiles_every_config_its_autotuners_list \
    > "$work/tests.log" 2>&1
  echo "tests exit $?" >> "$work/tests.log"
  wait
  timeout 150 python3 benchmarks/bench_torch_compile.py --runs 1 > "$work/bench.log" 2>&1
  for f in pytorch inductor; do tail -60 "$work/$f.log"; done
  tail -12 "$work/tests.log"
  cat "$work/bench.log"
  tar -C "$work" -czf "$out/measure.tgz" .
fi
