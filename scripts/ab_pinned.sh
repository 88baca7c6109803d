#!/usr/bin/env bash
# Paired A/B of an env's bench step in two source trees, for a machine whose speed drifts (shared VMs):
# both trees run at the same time, one pinned per core (cores swapped every round), so both see the same
# drift. Prints each round's CPU microseconds per env step (scripts/page_faults.py, one JAX device) and
# the medians. Its noise, measured by running one tree against itself (2 rounds, 2026-12-03, an AMD EPYC
# VM): B/A 0.904; so only differences well over 10% mean something.
#
#   scripts/ab_pinned.sh ROUNDS TREE_A TREE_B   # ROUNDS even: the two cores need not run alike
#   ENV=PokemonGen1RandomPool-v0 BATCH=1024 CALLS=20 scripts/ab_pinned.sh 4 /tmp/base .
#
# Each tree is imported from itself (PYTHONPATH) with this checkout's virtual environment (PYTHON, default
# .venv/bin/python next to this script). Needs 2 cores and `taskset` (util-linux).
set -euo pipefail
rounds=$1; tree_a=$(cd "$2" && pwd); tree_b=$(cd "$3" && pwd)
python=${PYTHON:-$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python}
out=$(mktemp -d)
run() {  # tree core -> the round's CPU us per env step, one per line
  (cd "$1" && PYTHONPATH="$1" taskset -c "$2" "$python" scripts/page_faults.py "${ENV:-PokemonGen1Random-v0}" \
     --batch "${BATCH:-2048}" --calls "${CALLS:-40}" --rounds 4 2>&1 | grep "CPU us" | awk '{print $10}' | tail -3)
}
for round in $(seq "$rounds"); do
  if (( round % 2 )); then core_a=0; core_b=1; else core_a=1; core_b=0; fi
  run "$tree_a" $core_a > "$out/a.$round" & run "$tree_b" $core_b > "$out/b.$round"; wait
  echo "round $round  A: $(tr '\n' ' ' < "$out/a.$round")  B: $(tr '\n' ' ' < "$out/b.$round")"
done
"$python" - "$out" <<'PY'
import pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
a = [float(v) for f in sorted(out.glob("a.*")) for v in f.read_text().split()]
b = [float(v) for f in sorted(out.glob("b.*")) for v in f.read_text().split()]
print(f"A median {statistics.median(a):.2f}  B median {statistics.median(b):.2f} CPU us per env step  "
      f"B/A {statistics.median(b) / statistics.median(a):.3f}  ({len(a)} samples each)")
PY
rm -rf "$out"
