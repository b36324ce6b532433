#!/usr/bin/env bash
# Scale run of the embedded archive on generated 19×19 Go games (issue 23's
# corpus): generates SEEDS collections of N games each in parallel (seeds
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
# Prints per binary: import time and games/s, peak resident memory, bytes
# on disk per game, the position segments (count, largest) and pattern
# blocks, the server's time to answer and resident memory, and the
# searches' latencies.
set -euo pipefail
S=
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${N:-150000}
SEEDS=${SEEDS:-2}
WORK=${WORK:-/tmp/keil-scale}
LIMIT_KB=${LIMIT_KB:-14000000}
PORT=${PORT:-18090}
cargo build --release -p keil-cli
K=$PWD/target/release/keil
mkdir -p "$WORK"
cd "$WORK"

t0=$(date +%s)
files=()
for s in $(seq 1 "$SEEDS"); do
  files+=("go-$N-$s.sgf")
  [ -s "go-$N-$s.sgf" ] || "$K" generate --game go --games "$N" --seed "$s" --out "go-$N-$s.sgf" &
done
wait
echo "generate: $(( $(date +%s) - t0 )) s, $(cat "${files[@]}" | wc -c) bytes"

run() {
  local K=$1 label=$2 db=db-$2
  echo "== $label: import ($K)"
  rm -rf "$db"
  local t0 peak=0 P rc=0 secs games bytes
  t0=$(date +%s.%N)
  "$K" import --db "$db" "${files[@]}" > "import-$label.out" 2> "import-$label.err" &
  P=$!
  while kill -0 $P 2>/dev/null; do
    r=$(awk '/^VmRSS/ {print $2}' /proc/$P/status 2>/dev/null || echo 0)
    h=$(awk '/^VmHWM/ {print $2}' /proc/$P/status 2>/dev/null || echo 0)
    if [ -n "$h" ] && [ "$h" -gt "$peak" ]; then peak=$h; fi
    if [ -n "$r" ] && [ "$r" -gt "$LIMIT_KB" ]; then echo "KILLED at $r kB"; kill $P; fi
    sleep 1
  done
  wait $P || rc=$?
  secs=$(echo "$(date +%s.%N) - $t0" | bc)
  games=$(( N * SEEDS ))
  echo "import: rc=$rc, $secs s, $(echo "$games / $secs" | bc) games/s, peak RSS $(( peak / 1024 )) MiB"
  bytes=$(du -sb "$db" | cut -f1)
  echo "on disk: $bytes bytes, $(( bytes / games )) bytes per game"
  echo "position segments (count, postings, largest postings, largest bytes): $(sqlite3 "$db/archive.sqlite" 'select count(*), sum(postings), max(postings), max(length(data)) from position_segments')"
  echo "pattern blocks (count, games, bytes, largest bytes): $(sqlite3 "$db/archive.sqlite" 'select count(*), sum(games), sum(length(data)), max(length(data)) from derived_blocks' 2>/dev/null || echo none)"
}

serve() {
  local K=$1 label=$2 db=db-$2 t0 cache=()
  [ -z "${3:-}" ] || cache=(--cache-dir "$3")
  [ -z "${4:-}" ] || cache+=(--index-memory "$4")
  echo "== $label: serve"
  if curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then
    echo "port $PORT already serves something: stop it first" >&2; exit 1
  fi
  t0=$(date +%s.%N)
  "$K" serve --db "$db" --addr "127.0.0.1:$PORT" --no-demo --rate-searches 0 --rate-reads 0 --query-budget "${BUDGET:-60s}" "${cache[@]}" > "serve-$label.out" 2> "serve-$label.err" &
  S=$!
  trap '[ -z "$S" ] || kill $S 2>/dev/null || true' EXIT
  until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do
    kill -0 $S 2>/dev/null || { echo "keil serve stopped: see serve-$label.err" >&2; exit 1; }
    sleep 0.2
  done
  echo "serve: answers after $(echo "$(date +%s.%N) - $t0" | bc) s, $(( $(awk '/^VmRSS/ {print $2}' /proc/$S/status) / 1024 )) MiB resident ($(( $(awk '/^RssAnon/ {print $2}' /proc/$S/status) / 1024 )) MiB heap)"
  grep 'indexes loaded\|index memory' "serve-$label.err" || true
  "$ROOT/scripts/bench-queries.py" "http://127.0.0.1:$PORT" "${COUNT:-20}"
  echo "after the searches: $(( $(awk '/^VmRSS/ {print $2}' /proc/$S/status) / 1024 )) MiB resident"
  kill $S; wait $S 2>/dev/null || true
  S=
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
