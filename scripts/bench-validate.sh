#!/usr/bin/env bash
# Times `keil validate --json` over a generated 10,000-game side-7 collection
# and reports games/s and plies/s (budget: 10,000 games/s on 2 cores).
#
#   scripts/bench-validate.sh [GAMES]        (default 10000)
#
# Uses hyperfine when installed (apt-get install -y hyperfine), else `time`.
# Honours CARGO_TARGET_DIR; KEIL_BIN=path uses that binary; KEIL_BENCH_FILE=path
# uses (or writes) that collection.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-10000}
target=${CARGO_TARGET_DIR:-target}
file=${KEIL_BENCH_FILE:-/tmp/keil-bench-g${games}.keil}

# KEIL_BIN: a keil binary already built (skips the build).
if [ -n "${KEIL_BIN:-}" ]; then
    keil=$KEIL_BIN
else
    cargo build --release -q -p keil-cli
    keil="$target/release/keil"
fi
if [ ! -s "$file" ]; then
    "$keil" generate --games "$games" --size 7 --seed 1 --out "$file"
fi
echo "input: $file ($(wc -c <"$file") bytes, $games games)"

# Plies (move nodes on the main lines), from the validator itself.
plies=$("$keil" validate --json "$file" 2>/dev/null \
    | grep -o '"plies":[0-9]*' | awk -F: '{s += $2} END {print s}') || true
echo "plies on the main lines: $plies"

cmd="$keil validate --json $file"
if command -v hyperfine >/dev/null; then
    hyperfine --warmup 2 --runs 10 -i --export-json /tmp/keil-bench-validate.json \
        "$cmd >/dev/null 2>&1"
    mean=$(grep -o '"mean": *[0-9.e-]*' /tmp/keil-bench-validate.json | head -1 | awk -F: '{print $2}')
else
    start=$(date +%s.%N)
    for _ in 1 2 3 4 5; do $cmd >/dev/null 2>&1 || true; done
    end=$(date +%s.%N)
    mean=$(echo "($end - $start) / 5" | bc -l)
fi
awk -v m="$mean" -v g="$games" -v p="$plies" 'BEGIN {
    printf "mean %.3f s: %.0f games/s, %.0f plies/s\n", m, g / m, p / m }'
