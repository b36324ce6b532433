#!/usr/bin/env bash
# Archive benchmark with the CLI: generate side-7 games, import them, print
# throughput and size, then the library bench (player search p50/p99).
#   scripts/bench-archive.sh [GAMES]   (default 100000)
set -euo pipefail
GAMES=${1:-100000}
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -p keil-cli
KEIL="$CARGO_TARGET_DIR/release/keil"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# 1,000 games per file, as the archive bench imports them (a single
# collection of any size would do too: it is read in 32 MiB parts).
mkdir -p "$WORK/games"
for ((i = 0; i < (GAMES + 999) / 1000; i++)); do
  n=$(( GAMES - i * 1000 < 1000 ? GAMES - i * 1000 : 1000 ))
  "$KEIL" generate --games "$n" --size 7 --seed $((2024 + i)) --out "$WORK/games/$i.keil" 2>/dev/null
done
time "$KEIL" import --db "$WORK/db" "$WORK/games"
"$KEIL" stats --db "$WORK/db"
KEIL_BENCH_GAMES="$GAMES" cargo bench -p keil-archive --bench archive
