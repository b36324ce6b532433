#!/usr/bin/env bash
# Scale run of the embedded archive on generated 19×19 Go games (issue 23's
# corpus): generates SEEDS collections of N games each in parallel (seeds
# 1..SEEDS, kept in WORK between runs), imports them in one `keil import`
# under a watchdog (killed past LIMIT_KB resident), then starts `keil serve`
# on the archive and times its start and three searches.
#
#   scripts/bench-scale.sh                  # 2 × 150,000 games
#   N=500000 SEEDS=2 scripts/bench-scale.sh # a million
#
# Prints: generation time, import time and games/s, peak resident memory,
# bytes on disk per game, the position segments (count, largest), the
# server's time to answer and resident memory, and the searches' times.
set -euo pipefail
cd "$(dirname "$0")/.."
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

rm -rf db
t0=$(date +%s.%N)
"$K" import --db db "${files[@]}" > import.out 2> import.err &
P=$!
peak=0
while kill -0 $P 2>/dev/null; do
  r=$(awk '/^VmRSS/ {print $2}' /proc/$P/status 2>/dev/null || echo 0)
  h=$(awk '/^VmHWM/ {print $2}' /proc/$P/status 2>/dev/null || echo 0)
  if [ -n "$h" ] && [ "$h" -gt "$peak" ]; then peak=$h; fi
  if [ -n "$r" ] && [ "$r" -gt "$LIMIT_KB" ]; then echo "KILLED at $r kB"; kill $P; fi
  sleep 1
done
rc=0; wait $P || rc=$?
secs=$(echo "$(date +%s.%N) - $t0" | bc)
games=$(( N * SEEDS ))
echo "import: rc=$rc, $secs s, $(echo "$games / $secs" | bc) games/s, peak RSS $(( peak / 1024 )) MiB"
bytes=$(du -sb db | cut -f1)
echo "on disk: $bytes bytes, $(( bytes / games )) bytes per game"
echo "position segments (count, postings, largest postings, largest bytes): $(sqlite3 db/archive.sqlite 'select count(*), sum(postings), max(postings), max(length(data)) from position_segments')"

t0=$(date +%s.%N)
"$K" serve --db db --addr "127.0.0.1:$PORT" --no-demo --rate-searches 0 --rate-reads 0 > serve.out 2> serve.err &
S=$!
trap 'kill $S 2>/dev/null || true' EXIT
until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do sleep 0.2; done
echo "serve: answers after $(echo "$(date +%s.%N) - $t0" | bc) s, $(( $(awk '/^VmRSS/ {print $2}' /proc/$S/status) / 1024 )) MiB resident"
q() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1"; }
empty=$(printf '19/%.0s' $(seq 1 18))19
for what in "position: the empty board|/api/v1/positions?kind=go&position=$(q "$empty b")" \
            "corner pattern X:dd O:cf|/api/v1/patterns?mode=corner&pattern=$(q 'X:dd O:cf')" \
            "side pattern X:jd|/api/v1/patterns?mode=side&pattern=$(q 'X:jd')"; do
  curl -s -o /dev/null -w "${what%%|*}: %{time_total} s\n" "http://127.0.0.1:$PORT${what#*|}"
done
