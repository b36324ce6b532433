#!/usr/bin/env bash
# The PostgreSQL backend against the embedded one and Kombilo, in one run:
#
#   1. the 4,803 real 19x19 games (../shared/data/sgf-real): `keil import`
#      into an embedded archive and into PostgreSQL, and Kombilo's database
#      build (../shared/peers/kombilo/run.sh): games/s and bytes per game;
#   2. GAMES generated 19x19 Go games (default 100,000; `keil generate --game
#      go --seed 1`) on each backend: import time and peak RSS, bytes per
#      game, node start time (`keil serve` with an empty --cache-dir, until
#      it listens) and the searches of scripts/bench-queries.py (p50/p99).
#
#   scripts/bench-postgres.sh [DATA_DIR]
#
# The script starts its own PostgreSQL cluster under $OUT
# (scripts/pg-cluster.sh) and stops it at the end. KEIL_BIN=path uses that keil
# binary; OUT=dir keeps the outputs (default /tmp/keil-bench-postgres);
# SKIP_KOMBILO=1 skips the peer; GAMES=0 skips part 2. PASSES=N runs the
# searches N times after the second start and prints each pass (default 1:
# at a million games the first pass reads cold pages, so compare the later
# ones; after the first, pattern answers come from the node's answer cache
# and positions confirm from the lines it kept, so only the player list
# reads the database as in the first).
# GENERATED=file imports that file (the output of the same `keil generate`
# command, made before) instead of generating it again. LEAN=1 bounds the
# disk a million games take: the generated file (not a GENERATED one) is
# deleted once imported, and each node's cache directory once its
# searches are timed.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data/sgf-real/yenw__computer-go-dataset}
out=${OUT:-/tmp/keil-bench-postgres}
games=${GAMES:-100000}
rm -rf "$out"
mkdir -p "$out"
chmod 777 "$out"
. scripts/keil-bin.sh

. scripts/pg-cluster.sh
psql_ "CREATE DATABASE real" >/dev/null
psql_ "CREATE DATABASE generated" >/dev/null
echo "load before: $(uptime)"

# timed_import NAME DB INPUT: wall seconds and peak RSS of `keil import`.
timed_import() {
    local name=$1 db=$2 input=$3
    KEIL_NODE_DIR="$out/node-$name" /usr/bin/time -f "%e %M" -o "$out/$name.time" \
        "$keil" import --json --db "$db" "$input" >"$out/$name.json"
    read -r secs kib <"$out/$name.time"
    local n
    n=$(python3 -c "import json,sys; print(json.load(open('$out/$name.json'))['counts']['imported'])")
    local bytes
    bytes=$(KEIL_NODE_DIR="$out/node-$name" "$keil" stats --json --db "$db" |
        python3 -c "import json,sys; s=json.load(sys.stdin); print(s['store_bytes'] + s['tantivy_bytes'])")
    printf "%-22s %8d games in %7.1f s = %7.0f games/s, peak RSS %5d MiB, %6d bytes/game\n" \
        "$name" "$n" "$secs" "$(echo "$n / $secs" | bc -l)" $((kib / 1024)) $((bytes / n))
}

echo "== 1. the 4,803 real games"
[ -n "${EXTRA:-}" ] && timed_import sqlite-extra "$out/extra-db" "$EXTRA" && psql_ "CREATE DATABASE extra" >/dev/null && timed_import postgres-extra "$(url extra)" "$EXTRA"
timed_import sqlite-real "$out/real-db" "$data"
timed_import postgres-real "$(url real)" "$data"
if [ -z "${SKIP_KOMBILO:-}" ]; then
    /usr/bin/time -f "%e" -o "$out/kombilo.time" \
        ../shared/peers/kombilo/run.sh "$data" --out "$out/kombilo.json" >"$out/kombilo.log" 2>&1
    grep -E "^built DB" "$out/kombilo.log" || true
    echo "kombilo (whole run, build and searches): $(cat "$out/kombilo.time") s"
fi

if [ "$games" -gt 0 ]; then
    echo "== 2. $games generated 19x19 Go games"
    generated=${GENERATED:-$out/generated.sgf}
    if [ -z "${GENERATED:-}" ]; then
        "$keil" generate --game go --games "$games" --seed 1 >"$generated"
    fi
    timed_import sqlite-gen "$out/gen-db" "$generated"
    timed_import postgres-gen "$(url generated)" "$generated"
    if [ -n "${LEAN:-}" ] && [ -z "${GENERATED:-}" ]; then rm -f "$generated"; fi
    for backend in sqlite postgres; do
        if [ $backend = sqlite ]; then db="$out/gen-db"; else db=$(url generated); fi
        rm -rf "$out/cache-$backend"
        # First start: an empty --cache-dir (the PostgreSQL node also
        # restores its text index from the snapshot the import stored);
        # second: the node started again.
        for start_kind in first again; do
            start=$(date +%s.%N)
            "$keil" serve --no-demo --addr 127.0.0.1:0 --db "$db" --cache-dir "$out/cache-$backend" \
                --rate-searches 0 --rate-reads 0 2>"$out/serve-$backend.log" &
            pid=$!
            until grep -q "listening on" "$out/serve-$backend.log"; do sleep 0.05; done
            addr=$(grep -o "listening on http://[0-9.:]*" "$out/serve-$backend.log" | sed 's|.*http://||')
            printf "%-10s node start (%s) %.1f s, RSS %d MiB\n" "$backend" "$start_kind" \
                "$(echo "$(date +%s.%N) - $start" | bc -l)" $(($(awk '/VmRSS/ {print $2}' /proc/$pid/status) / 1024))
            # Where the start went: the open (the text index), the loads.
            grep -E "archive opened|loaded in" "$out/serve-$backend.log" | sed 's/^/           /'

            if [ $start_kind = again ]; then
                for pass in $(seq "${PASSES:-1}"); do
                    echo "searches on $backend (pass $pass):"
                    python3 scripts/bench-queries.py "http://$addr" 40 2>&1 | tail -6 || true
                done
                printf "%-10s RSS after the searches %d MiB\n" "$backend" \
                    $(($(awk '/VmRSS/ {print $2}' /proc/$pid/status) / 1024))
            fi
            kill $pid
            wait $pid || true
        done
        if [ -n "${LEAN:-}" ]; then rm -rf "$out/cache-$backend"; fi
    done
fi
echo "load after: $(uptime)"
