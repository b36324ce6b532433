#!/usr/bin/env bash
# Scale run of the embedded archive on generated 19×19 Go games:
# generates SEEDS collections of N games each, two at a time (seeds
# 1..SEEDS, kept in WORK between runs), imports them in one `keil import`
# under a watchdog (killed past LIMIT_KB resident), then starts `keil serve`
# on the archive, times its start (a node start: every index loaded before
# it answers) and runs scripts/bench-queries.py (p50/p99 of whole-board
# position, 7×7 corner, 5×5 side, wildcard corner and player-list searches).
# With OLD=path/to/another/keil, the same again with that binary, side by
# side (e.g. a build of the previous main). With CACHE=1, the new binary's
# server is started twice more with `--cache-dir WORK/cache` (the first
# start writes the node's cache, the second maps it), and
# examples/node_start times each index's load on one core from that cache;
# with INDEX_MEMORY=SIZE too (e.g. 2GiB), one more start on the cache with
# `--index-memory SIZE` (the hottest mapped parts pinned into the heap).
# With SKIP_IMPORT=1, the archive WORK/db-new of an earlier run is served
# again without a new import.
#
#   scripts/bench-scale.sh                  # 2 × 150,000 games
#   N=50000 SEEDS=2 OLD=/tmp/oldmain/target/release/keil scripts/bench-scale.sh
#   N=500000 SEEDS=2 scripts/bench-scale.sh # a million
#
# The steps are scripts/scale-lib.sh's. Prints per binary: import time and
# games/s, peak resident memory, bytes
# on disk per game, the position segments (count, largest) and pattern
# blocks, the server's time to answer and resident memory, and the
# searches' latencies.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${N:-150000}
SEEDS=${SEEDS:-2}
WORK=${WORK:-/tmp/keil-scale}
LIMIT_KB=${LIMIT_KB:-14000000}
PORT=${PORT:-18090}
# shellcheck source=scripts/scale-lib.sh
. "$ROOT/scripts/scale-lib.sh"
cargo build --release -p keil-cli
K=$PWD/target/release/keil
mkdir -p "$WORK"
cd "$WORK"

generate_seeds "$K" "$N" "$SEEDS"
files=()
for s in $(seq 1 "$SEEDS"); do files+=("go-$N-$s.sgf"); done

run() {
  local K=$1 label=$2
  echo "== $label: import ($K)"
  rm -rf "db-$label"
  timed_import "$K" "db-$label" "$label" "${files[@]}"
  disk_report "db-$label" $(( N * SEEDS ))
}

serve() {
  local K=$1 label=$2 extra=()
  [ -z "${3:-}" ] || extra=(--cache-dir "$3")
  [ -z "${4:-}" ] || extra+=(--index-memory "$4")
  echo "== $label: serve"
  timed_serve "$K" "db-$label" "$label" "${extra[@]}"
}

[ -n "${SKIP_IMPORT:-}" ] || run "$K" new
serve "$K" new
if [ -n "${CACHE:-}" ]; then
  rm -rf cache
  serve "$K" new "$WORK/cache"
  serve "$K" new "$WORK/cache"
  [ -z "${INDEX_MEMORY:-}" ] || serve "$K" new "$WORK/cache" "$INDEX_MEMORY"
  (cd "$ROOT" && cargo build --release -p keil-archive --example node_start)
  RAYON_NUM_THREADS=1 "$ROOT/target/release/examples/node_start" db-new "$WORK/cache"
fi
if [ -n "${OLD:-}" ]; then
  run "$OLD" old
  serve "$OLD" old
  # Again in the other order: the first server of a run tends to be
  # slower (a cold page cache, the CPU's state after an import).
  serve "$OLD" old
  serve "$K" new
fi
