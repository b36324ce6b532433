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
"$KEIL" generate --games "$GAMES" --size 7 --seed 2024 --out "$WORK/games.keil"
time "$KEIL" import --db "$WORK/db" "$WORK/games.keil"
"$KEIL" stats --db "$WORK/db"
KEIL_BENCH_GAMES="$GAMES" cargo bench -p keil-archive --bench archive
