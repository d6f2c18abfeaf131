#!/usr/bin/env bash
# On the GPU machine (issue 34): `kx sweep --ray` on a local Ray instance with one GPU
# actor, against the local measuring worker. The image has no Ray and Ray 2.60's wheel
# (79 MB) is over what one device call carries (64 MiB), so it travels in two parts, each
# in its own call's carry while the machine stays warm: .rayA/part-aa in the call before,
# which must copy it out of the carried folder (a carried folder is gone by the next call;
# what a command writes under build/ stays): `mkdir -p build/raypart && cp .rayA/part-aa
# build/raypart/`; then .rayB/part-ab with the wheels the image lacks (jsonschema and its
# needs) in this one.
# Made here by:
#   pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux2014_x86_64 -d W ray==2.60.0 jsonschema jsonschema-specifications \
#     referencing rpds-py
#   split -b 40M W/ray-*.whl W/part- ; mv W/part-aa .rayA/ ; mv W/part-ab W/j*.whl W/r*.whl .rayB/
# Writes ray_tests.log and ray_sweep.json / local_sweep.json under $OUT.
set -u
OUT=${OUT:-.}
first=.rayA/part-aa
[ -f "$first" ] || first=build/raypart/part-aa
ls "$first" .rayB/part-ab >/dev/null || { echo "a part of Ray's wheel is missing here"; exit 1; }
cat "$first" .rayB/part-ab > /tmp/ray-2.60.0-cp312-cp312-manylinux2014_x86_64.whl
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/kx-ray \
  /tmp/ray-2.60.0-cp312-cp312-manylinux2014_x86_64.whl .rayB/*.whl || exit 1
export PYTHONPATH=.:/tmp/kx-ray PYTHONUNBUFFERED=1
python3 -c 'import ray; print("ray", ray.__version__)' || exit 1
timeout 300 python3 -m pytest -q -p no:cacheprovider -rs tests/sweep/test_sweep_ray.py 2>&1 | tee "$OUT/ray_tests.log"
shapes=(--shape M=4096,N=4096,K=1024 --shape M=2048,N=4096,K=2048 --shape M=1024,N=8192,K=1024)
timeout 200 python3 -m kx_core.cli sweep fixtures/kernels/sweep/matmul.py --kernel matmul_kernel \
  "${shapes[@]}" --measure top-k --ray --json > "$OUT/ray_sweep.json" 2> "$OUT/ray_sweep.err"
echo "ray sweep exit $?"
timeout 200 python3 -m kx_core.cli sweep fixtures/kernels/sweep/matmul.py --kernel matmul_kernel \
  "${shapes[@]}" --measure top-k --json > "$OUT/local_sweep.json" 2> "$OUT/local_sweep.err"
echo "local sweep exit $?"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
try:
    ray, local = (json.load(open(f"{out}/{n}_sweep.json")) for n in ("ray", "local"))
except (OSError, ValueError) as e:
    print("no comparison:", e); raise SystemExit(0)
for a, b in zip(local["cases"], ray["cases"]):
    t = {f["label"]: f["measured_us"] for f in a["configs"]}
    print(a["shape"], "local", a["winner"], "ray", b["winner"], "same" if a["winner"] == b["winner"] else
          f"ray's winner {t.get(b['winner'])} us by the local times vs {t.get(a['winner'])}",
          "shipped", b.get("shipped"), "compiled again", b.get("compiled_again"))
print("workers", ray["workers"], "wall ray", ray["wall_s"], "local", local["wall_s"])
PY
