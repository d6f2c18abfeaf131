#!/usr/bin/env bash
# On the GPU machine, from the repo root: public Gluon tutorials and Helion examples
# (benchmarks/real_files/manifest_dsl.json; carry .realfiles, made here by
# `python benchmarks/real_files/extract.py --manifest benchmarks/real_files/manifest_dsl.json`)
# run for real with every compile's cubin read (scripts/record_real_runs.py
# --cubin-figures), then built by kx there and compared kernel by kernel
# (benchmarks/dsl_public_ground.py). Helion comes from wheels carried in .whl/ when the
# image lacks it (helion 1.4.0, the newest that imports against torch 2.11), each of its
# dependencies only where the image lacks that one. Everything lands in $OUT/dsl_public.tgz.
#     bash scripts/gpu_dsl_public_ground.sh [IDS]   # ids comma-separated, default all
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}"
out="${OUT:-/tmp/kx-out}"
work=/tmp/kx-dsl-public
mkdir -p "$work/real" "$out"
if ! python3 -c "import helion" 2>/dev/null && ls .whl/helion-*.whl > /dev/null 2>&1; then
  deps=(.whl/helion-*.whl)
  for pair in filecheck:filecheck psutil:psutil rich:rich markdown_it:markdown_it_py mdurl:mdurl typing_extensions:typing_extensions packaging:packaging pygments:pygments; do
    python3 -c "import ${pair%%:*}" 2>/dev/null || deps+=(.whl/${pair#*:}-*.whl)
  done
  python3 -m pip install -q --no-index --no-deps --target /tmp/kx-hdeps "${deps[@]}" > "$work/pip.log" 2>&1
  export PYTHONPATH="$PYTHONPATH:/tmp/kx-hdeps"
fi
python3 -c "import helion; print('helion', helion.__version__)" >> "$work/pip.log" 2>&1
export HELION_AUTOTUNE_EFFORT=none KX_HELION_CONFIGS=1
only=()
[ -n "${1:-}" ] && only=(--only "$1")
python3 scripts/record_real_runs.py --manifest benchmarks/real_files/manifest_dsl.json "${only[@]}" \
  --out "$work/real" --cubin-figures --timeout 240 > "$work/real.log" 2>&1
echo "real runs: exit $?"
python3 benchmarks/dsl_public_ground.py "$work/real" "${only[@]}" --jobs "${KX_JOBS:-4}" --out "$work/kx_vs_real.json" > "$work/compare.log" 2>&1
echo "kx against them: exit $?"
tail -n 30 "$work/real.log" "$work/compare.log"
rm -rf "$work/real/scratch"
tar -czf "$out/dsl_public.tgz" -C "$work" .
