#!/usr/bin/env bash
# On the GPU machine (the H200: torch 2.11, triton 3.6, no PySide6), from the repo root
# (issue 54's "Done when": `kx repro` scripts of captured launches run on the H200 and
# produce the captured hash):
#
#   bash scripts/gpu_repro_check.sh            # scripts and logs in $OUT (/tmp/kx_gpu_repro)
#
# For each file below, `kx compile --json` lists its compiled launches; `kx repro` writes a
# script for each (up to $PER_FILE a file), and `python3 SCRIPT` compiles (and, in launch
# mode, launches) it with nothing of kx. The table says, per launch, the captured hash, the
# hash the script got, and the verdict: same, DIFFERENT, no GPU (a launch-mode script on a
# machine without one says so and exits 2; compile-mode scripts run anywhere), or the
# script's failure. Exit 0 when every script got the captured hash.
set -uo pipefail
export PYTHONPATH=. PYTHONUNBUFFERED=1
out="${OUT:-/tmp/kx_gpu_repro}"
per_file="${PER_FILE:-4}"
mkdir -p "$out"
kx() { python3 -m kx_core.cli "$@"; }

# autotuned, heuristics, ==1 and unaligned, a @jit constexpr, warmup, a library's autotuned
# heuristics kernel, Gluon (two), Inductor (torch.compile)
files=(
  kx_core/data/examples/vector_add.py
  kx_core/data/examples/matmul_autotune.py
  kx_core/data/examples/two_kernels.py
  fixtures/kernels/repro/specializations.py
  fixtures/real_world/use_mylib.py
  fixtures/kernels/gluon/helper_layouts.py
  kx_core/data/examples/gluon_transpose.py
  fixtures/kernels/repro/inductor_pointwise.py
)

python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'gpu', torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none')"
rows="$out/rows.tsv"
: > "$rows"
for file in "${files[@]}"; do
  stem=$(basename "$file" .py)
  kx compile "$file" --target cuda:90 --json > "$out/$stem.compile.json" 2> "$out/$stem.compile.log"
  # "NAME<TAB>INDEX" for each compiled record: INDEX counts the compiled records of NAME,
  # in the order `kx repro --index` counts them
  launches=$(python3 - "$out/$stem.compile.json" "$per_file" <<'EOF'
import json, sys
try:
    kernels = json.load(open(sys.argv[1])).get("kernels", [])
except (OSError, ValueError):
    kernels = []
seen, count = {}, 0
for k in kernels:
    if k.get("status") != "compiled":
        continue
    index = seen[k["name"]] = seen.get(k["name"], -1) + 1
    count += 1
    if count <= int(sys.argv[2]):
        print(f"{k['name']}\t{index}")
EOF
)
  if [ -z "$launches" ]; then
    printf '%s\t-\t-\t-\t-\tno compiled kernel (%s)\n' "$stem" "$out/$stem.compile.log" >> "$rows"
    continue
  fi
  while IFS=$'\t' read -r name index; do
    script="$out/${stem}.${name}.${index}.py"
    answer=$(kx repro "$file" --target cuda:90 --kernel "$name" --index "$index" -o "$script" --json 2> "$script.repro.log")
    expected=$(printf '%s' "$answer" | python3 -c "import json, sys; print(json.load(sys.stdin).get('expected_hash') or '-')" 2>/dev/null || echo -)
    mode=$(printf '%s' "$answer" | python3 -c "import json, sys; print(json.load(sys.stdin).get('mode') or '-')" 2>/dev/null || echo -)
    if [ ! -f "$script" ]; then
      why=$(printf '%s' "$answer" | python3 -c "import json, sys; print(' '.join(json.load(sys.stdin)['kx_error']['messages'])[:90])" 2>/dev/null || echo "see $script.repro.log")
      printf '%s\t%s[%s]\t-\t-\t-\tno repro: %s\n' "$stem" "$name" "$index" "$why" >> "$rows"
      continue
    fi
    (cd "$out" && timeout 600 python3 "$script" > "$script.run.log" 2>&1)
    status=$?
    got=$(sed -n 's/^got       //p' "$script.run.log" | tail -1)
    case $status in
      0) verdict=same ;;
      1) verdict=DIFFERENT ;;
      2) if grep -q "no CUDA GPU here" "$script.run.log"; then verdict="no GPU: not launched"; else verdict="failed (see $script.run.log)"; fi ;;
      *) verdict="exit $status (see $script.run.log)" ;;
    esac
    printf '%s\t%s[%s]\t%s\t%s\t%s\t%s\n' "$stem" "$name" "$index" "$mode" "${expected:0:16}" "${got:0:16}" "$verdict" >> "$rows"
  done <<< "$launches"
done

echo
python3 - "$rows" <<'EOF'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
head = ["file", "launch", "mode", "expected", "got", "verdict"]
widths = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
for r in [head] + rows:
    print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[5])
same = sum(r[5] == "same" for r in rows)
print(f"\n{same} of {len(rows)} launches: the script compiled the captured hash")
sys.exit(0 if rows and same == len(rows) else 1)
EOF
