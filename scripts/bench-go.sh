#!/usr/bin/env bash
# Go benchmarks on the 4,803 real 19x19 games, side by side with the peers,
# in one run (issue: Go records and the Kee rules):
#
#   1. validation on one core: `keil validate --json` (RAYON_NUM_THREADS=1),
#      CPU seconds and plies per CPU second, then sgfmill replaying the same
#      main lines (scripts/peers/sgfmill_replay.py, in a venv under /tmp);
#   2. Kombilo's database build and searches (../shared/peers/kombilo/run.sh);
#   3. keil's import of the same folder and the same whole-board queries
#      (crates/keil-archive/examples/kombilo_compare.rs), with the games found
#      compared with Kombilo's.
#
#   scripts/bench-go.sh [DATA_DIR]
#
# KEIL_BIN=path uses that keil binary; OUT=dir keeps the outputs (default /tmp/keil-bench-go).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data/sgf-real/yenw__computer-go-dataset}
out=${OUT:-/tmp/keil-bench-go}
mkdir -p "$out"
. scripts/keil-bin.sh
cargo build --release -q -p keil-archive --example kombilo_compare
echo "load before: $(uptime)"

echo "== 1. validation, one core"
for _ in 1 2 3; do
    RAYON_NUM_THREADS=1 /usr/bin/time -f "keil validate: %U s user + %S s sys, %e s wall" \
        "$keil" validate --json "$data" 2>"$out/validate.err" >"$out/validate.jsonl" || true
    tail -2 "$out/validate.err"
done
plies=$(grep -o '"plies":[0-9]*' "$out/validate.jsonl" | awk -F: '{s += $2} END {print s}')
echo "plies on the main lines: $plies"
venv=/tmp/sgfmill-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" && "$venv/bin/pip" install -q sgfmill
fi
/usr/bin/time -f "sgfmill: %U s user + %S s sys, %e s wall" \
    "$venv/bin/python" scripts/peers/sgfmill_replay.py "$data" --rounds 1

echo "== 2. Kombilo"
../shared/peers/kombilo/run.sh "$data" --out "$out/kombilo.json" >"$out/kombilo.log" 2>&1
grep -E "^built DB" "$out/kombilo.log"

echo "== 3. keil archive"
"$target/release/examples/kombilo_compare" "$out/kombilo.json" "$data" "$out/archive"
echo "load after: $(uptime)"
