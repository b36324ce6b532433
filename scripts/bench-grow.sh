#!/usr/bin/env bash
# The scaling points of docs/scaling.md in one run: one archive grown by
# steps of generated 19×19 Go games (seeds of N games each, generated two at
# a time and kept in WORK), measured after each step: the step's import
# (time, peak resident memory), bytes on disk, two `keil serve` starts on a
# node cache (the first writes it, the second maps it; the searches of
# scripts/bench-queries.py after each) and examples/node_start on one core
# from the cache.
#
#   N=500000 STEPS="2 4 8" WORK=/tmp/w1m scripts/bench-grow.sh   # 1, 2, 4 M
#
# KEIL=path/to/keil (and NODE_START=path/to/node_start) runs another build;
# DROP_SGF=1 deletes each step's SGF files once imported (disk room at 4 M). A server without the cache is not
# started: past ~2 M games its heap (7.7 KB a game) exceeds a 24 GB machine.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${N:-500000}
STEPS=${STEPS:-"2 4 8"}
WORK=${WORK:-/tmp/keil-grow}
PORT=${PORT:-18090}
if [ -z "${KEIL:-}" ]; then
  cargo build --release -p keil-cli
  cargo build --release -p keil-archive --example node_start
  KEIL=$ROOT/target/release/keil
fi
NODE_START=${NODE_START:-$ROOT/target/release/examples/node_start}
mkdir -p "$WORK"
cd "$WORK"
last=${STEPS##* }
t0=$(date +%s)
for s in $(seq 1 "$last"); do
  [ -s "go-$N-$s.sgf" ] || "$KEIL" generate --game go --games "$N" --seed "$s" --out "go-$N-$s.sgf" &
  if [ $((s % 2)) -eq 0 ]; then wait; fi
done
wait
echo "generate: $(( $(date +%s) - t0 )) s"

import() {
  local t0 peak=0 P h
  t0=$(date +%s.%N)
  "$KEIL" import --db db-grow "$@" > import.out 2> import.err &
  P=$!
  while kill -0 $P 2>/dev/null; do
    h=$(awk '/^VmHWM/ {print $2}' /proc/$P/status 2>/dev/null || echo 0)
    if [ -n "$h" ] && [ "$h" -gt "$peak" ]; then peak=$h; fi
    sleep 1
  done
  wait $P
  echo "import: $(echo "$(date +%s.%N) - $t0" | bc) s, peak RSS $(( peak / 1024 )) MiB"
  tail -1 import.out
}

start() {
  local t0 S
  t0=$(date +%s.%N)
  "$KEIL" serve --db db-grow --addr "127.0.0.1:$PORT" --no-demo --rate-searches 0 --rate-reads 0 \
    --query-budget 60s --cache-dir cache > serve.out 2> serve.err &
  S=$!
  until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do
    kill -0 $S 2>/dev/null || { echo "keil serve stopped: see $WORK/serve.err" >&2; exit 1; }
    sleep 0.2
  done
  echo "serve: answers after $(echo "$(date +%s.%N) - $t0" | bc) s, $(( $(awk '/^VmRSS/ {print $2}' /proc/$S/status) / 1024 )) MiB resident ($(( $(awk '/^RssAnon/ {print $2}' /proc/$S/status) / 1024 )) MiB heap)"
  grep 'indexes loaded\|index memory' serve.err || true
  "$ROOT/scripts/bench-queries.py" "http://127.0.0.1:$PORT" "${COUNT:-20}"
  kill $S; wait $S 2>/dev/null || true
}

rm -rf db-grow cache
from=1
for to in $STEPS; do
  files=()
  for s in $(seq "$from" "$to"); do files+=("go-$N-$s.sgf"); done
  echo "== $(( to * N )) games (adding seeds $from-$to)"
  import "${files[@]}"
  [ -z "${DROP_SGF:-}" ] || rm -f "${files[@]}"
  bytes=$(du -sb db-grow | cut -f1)
  echo "on disk: $bytes bytes, $(( bytes / (to * N) )) bytes per game"
  echo "position segments (count, postings, bytes): $(sqlite3 db-grow/archive.sqlite 'select count(*), sum(postings), sum(length(data)) from position_segments')"
  start
  start
  RAYON_NUM_THREADS=1 "$NODE_START" db-grow cache
  echo "cache: $(du -sb cache | cut -f1) bytes; disk: $(df -h . | tail -1)"
  from=$(( to + 1 ))
done
