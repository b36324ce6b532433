#!/bin/bash
# A new node's start, one node at a time: starts
#   keil serve --db DB --cache-dir CACHE --no-demo --rate-searches 0 --rate-reads 0
# on an EMPTY cache directory (CACHE is deleted first), prints the seconds
# until GET /api/v1/stats answers and the resident memory then, then waits
# for the log's "pattern index merged" line (the merge and the snapshot's
# write a node does while it serves) and prints that time too. NOMERGE=1
# skips the wait (a keil from before the merge moved after listening).
# QUERIES=cmd runs `cmd PORT` as soon as the node answers (before the
# merge is waited for).
#
#   scripts/bench-node-start.sh KEIL DB CACHE [PORT]
set -u
KEIL=$1; DB=$2; CACHE=$3; PORT=${4:-18080}
rm -rf "$CACHE"; mkdir -p "$CACHE"
LOG=/tmp/node-start.$PORT.log
start=$(date +%s.%N)
RUST_LOG=info $KEIL serve --db "$DB" --cache-dir "$CACHE" --addr 127.0.0.1:$PORT --no-demo --rate-searches 0 --rate-reads 0 >"$LOG" 2>&1 &
pid=$!
until curl -sf "http://127.0.0.1:$PORT/api/v1/stats" >/dev/null 2>&1; do sleep 0.1; kill -0 $pid || { cat $LOG; exit 1; }; done
t1=$(date +%s.%N)
echo "listening after $(echo "$t1 - $start" | bc) s; RSS $(ps -o rss= -p $pid | awk '{print int($1/1024)}') MiB"
if [ -n "${QUERIES:-}" ]; then $QUERIES $PORT; fi
[ -z "${NOMERGE:-}" ] && for i in $(seq 1 1200); do grep -q "merged\|snapshot not written" $LOG && break; sleep 0.1; done
t2=$(date +%s.%N)
echo "merged after $(echo "$t2 - $start" | bc) s; RSS $(ps -o rss= -p $pid | awk '{print int($1/1024)}') MiB"
kill $pid; wait $pid 2>/dev/null
grep -E "loaded in|merged|index memory" $LOG | sed 's/\x1b\[[0-9;]*m//g'
