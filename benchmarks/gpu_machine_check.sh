#!/usr/bin/env bash
# Run on the GPU machine (no PySide6 there): the engine from the copied tree, every
# fixture captured for the local GPU, the engine tests, and the compile benchmark with
# one job per core. Logs go to $OUT (or ./out).
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
export PYTHONPATH=. PYTHONUNBUFFERED=1 KX_CACHE_DIR=$(mktemp -d)
{
  python3 --version; nvidia-smi -L; nproc
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"
} 2>&1 | tee "$OUT/versions.txt"
for f in vector_add fused_softmax matmul_autotune two_kernels no_launch; do
  echo "== $f"
  python3 -m kx_core.cli compile "kx_core/data/examples/$f.py" --no-cache
  python3 -m kx_core.cli compile "kx_core/data/examples/$f.py" --json > "$OUT/$f.json"
done 2>&1 | tee "$OUT/capture.txt"
for f in syntax_error compile_error infinite_loop segfault; do
  python3 -m kx_core.cli compile "fixtures/kernels/bad/$f.py" --no-cache --timeout 10; echo "exit $?"
done 2>&1 | tee -a "$OUT/capture.txt"
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/compile tests/test_layers.py 2>&1 | tail -15 | tee "$OUT/pytest.txt"
timeout 300 python3 benchmarks/bench_compile.py --repeats 2 --target local --jobs "$(nproc)" 2>&1 | tee "$OUT/bench.txt"
