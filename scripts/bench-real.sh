#!/usr/bin/env bash
# Benchmarks on real games: the import of real
# collections, what it made of them, a node's start and the searches'
# latencies, in one run on one machine:
#
#   1. builds the release CLI (scripts/keil-bin.sh; KEIL_BIN=path uses that
#      binary instead);
#   2. imports DIR... (folders, files, archives: whatever `keil import`
#      reads) into a fresh archive under $KEIL_BENCH_DIR, under
#      /usr/bin/time -v: wall time, games read per second, peak RSS;
#   3. prints what the import made of the records, from the archive
#      (sqlite3) and the import's --json report: games stored, exact
#      duplicates, records merged into a stored game by merge kind
#      (game_sources.merge_kind: identical, symmetric, prefix, transposed,
#      discrepancy; "unclassified" is a record merged by a version before
#      schema 14, merge_kind NULL), games kept apart but linked (game_links by kind:
#      similar), and refused records by reason (import_problems.reason);
#   4. starts `keil serve` on the archive (an empty --cache-dir, no demo,
#      no rate limits) and times its start: until /healthz answers, until
#      /api/v1/stats answers (resident memory then), and until the node
#      settled (its "pattern index ... merged" log line, or its CPU idle
#      for 2 s; at most SETTLE seconds);
#   5. runs scripts/bench-queries.py against it (COUNT queries of each
#      kind, p50 and p99 in ms: whole-board position, 7x7 corner, 5x5 side,
#      wildcard corner, player list; 19x19 Go games expected);
#   6. prints one summary table, a column per mode.
#
#   scripts/bench-real.sh [--transform | --both] DIR...
#
# Modes: `plain` (the default) imports DIR... as they are, with the
# default --duplicates signature. `--transform` (or TRANSFORM=1) imports
# the 8-symmetry set instead: `keil generate --transform-of DIR` writes
# every Go game of each DIR under the 8 symmetries of the board (GN ending
# " (t0)" ... " (t7)"), imported with --duplicates exact, so 8 games a
# game: a realistic set 8 times larger (26,127 KGS games give 209,016).
# `--both` runs plain, then transformed, and tables them side by side.
# `--merging` imports the 8-symmetry set with the default --duplicates
# signature: the 8 orientations of each game must merge into one game
# (7 `symmetric` merges a game), which measures the merge rule at scale;
# `--all` runs plain, transformed and merging.
#
# Environment: KEIL_BENCH_DIR (default /work/bench-data if it exists, else
# /tmp/keil-bench-real) holds the archives and the transformed sets
# (about 1 GB for the transformed KGS set: deleted at the end unless
# KEEP=1); PORT (default 18097) the node's port; COUNT (default 50) and
# WARMUP (default 10) the queries per kind; SETTLE (default 300) the most
# seconds to wait for the node to settle. Needs curl and python3; sqlite3
# for the merge kinds (without it, the report's totals and reasons only).
# Not run by the tests or CI: minutes per mode.
set -euo pipefail
cd "$(dirname "$0")/.."
modes=(plain)
case "${1:-}" in
    --transform) modes=(transformed); shift ;;
    --both) modes=(plain transformed); shift ;;
    --merging) modes=(merging); shift ;;
    --all) modes=(plain transformed merging); shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
[ "${TRANSFORM:-}" = 1 ] && modes=(transformed)
if [ $# -eq 0 ]; then
    echo "usage: scripts/bench-real.sh [--transform | --both] DIR..." >&2
    exit 2
fi
inputs=("$@")
for d in "${inputs[@]}"; do [ -e "$d" ] || { echo "no such input: $d" >&2; exit 2; }; done
if [ -z "${KEIL_BENCH_DIR:-}" ]; then
    if [ -d /work/bench-data ]; then KEIL_BENCH_DIR=/work/bench-data; else KEIL_BENCH_DIR=/tmp/keil-bench-real; fi
fi
work="$KEIL_BENCH_DIR/real"
port=${PORT:-18097}
count=${COUNT:-50}
warmup=${WARMUP:-10}
settle=${SETTLE:-300}
mkdir -p "$work"
. scripts/keil-bin.sh
have_sqlite=$(command -v sqlite3 >/dev/null && echo 1 || echo 0)
[ "$have_sqlite" = 1 ] || echo "note: sqlite3 not installed: merge kinds and links not counted (apt-get install -y sqlite3)"

node_pid=
cleanup() {
    if [ -n "$node_pid" ]; then kill "$node_pid" 2>/dev/null; wait "$node_pid" 2>/dev/null || true; fi
    if [ "${KEEP:-}" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT

# Results: R[mode,key] = value; rows in the order of `keys`.
declare -A R
keys=()
put() { # mode key value
    R["$1,$2"]=$3
    local k
    for k in "${keys[@]}"; do [ "$k" = "$2" ] && return; done
    keys+=("$2")
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{printf "%.1f", $2 - $1}'; }

echo "machine: $(nproc) cores, $(free -g | awk '/^Mem/ {print $2}') GiB; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in "${modes[@]}"; do
    echo "== $mode"
    db="$work/archive-$mode"
    rm -rf "$db" "$work/cache-$mode"
    sources=("${inputs[@]}")
    dup=signature
    put "$mode" "generate --transform-of (s)" -
    put "$mode" "records generated (MB)" -
    if [ "$mode" = transformed ] || [ "$mode" = merging ]; then
        [ "$mode" = transformed ] && dup=exact
        sources=()
        t0=$(now)
        i=0
        for d in "${inputs[@]}"; do
            out="$work/transformed-$i.sgf"
            [ -s "$out" ] || "$keil" generate --transform-of "$d" --out "$out"
            sources+=("$out")
            i=$((i + 1))
        done
        put "$mode" "generate --transform-of (s)" "$(secs "$t0" "$(now)")"
        put "$mode" "records generated (MB)" "$(du -cm "${sources[@]}" | tail -1 | cut -f1)"
    fi

    # The import, timed.
    /usr/bin/time -v -o "$work/time-$mode.txt" \
        "$keil" import --json --duplicates "$dup" --db "$db" "${sources[@]}" >"$work/report-$mode.json"
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$work/time-$mode.txt")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/time-$mode.txt")
    # Counts from the report: tab-separated key, value lines.
    while IFS=$'\t' read -r k v; do put "$mode" "$k" "$v"; done < <(python3 - "$work/report-$mode.json" "$wall" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["counts"]
wall = float(sys.argv[2])
print(f"import: records read\t{c['games_read']}")
print(f"import: wall (s)\t{wall:.1f}")
print(f"import: games/s (read, wall)\t{c['games_read'] / max(wall, 1e-9):.0f}")
print(f"stored\t{c['imported']}")
print(f"duplicates (same record)\t{c['duplicates']}")
print(f"merged into a stored game\t{c['merged']}")
print(f"linked as similar\t{c.get('similar', 0)}")
print(f"replaced by a longer record\t{c.get('promoted', 0)}")
print(f"refused\t{c['invalid']}")
EOF
    )
    put "$mode" "import: peak RSS (MiB)" "$rss"
    put "$mode" "archive on disk (MB)" "$(du -sm "$db" | cut -f1)"
    if [ "$have_sqlite" = 1 ]; then
        sql() { sqlite3 -batch -separator $'\t' "$db/archive.sqlite" "$1"; }
        # Every merge kind named, even when none: the columns line up.
        for kind in identical symmetric prefix transposed discrepancy; do put "$mode" "  merged: $kind" 0; done
        put "$mode" "  merged: unclassified" 0
        while IFS=$'\t' read -r k v; do put "$mode" "  merged: $k" "$v"; done < <(
            sql "SELECT COALESCE(merge_kind, 'unclassified'), COUNT(*) FROM game_sources GROUP BY 1 ORDER BY 2 DESC" 2>/dev/null ||
                sql "SELECT 'unclassified', COUNT(*) FROM game_sources")
        put "$mode" "linked apart: similar" 0
        while IFS=$'\t' read -r k v; do put "$mode" "linked apart: $k" "$v"; done < <(
            sql "SELECT kind, COUNT(*) FROM game_links GROUP BY 1 ORDER BY 2 DESC" 2>/dev/null || true)
        while IFS=$'\t' read -r k v; do put "$mode" "  refused: $k" "$v"; done < <(
            sql "SELECT reason, COUNT(*) FROM import_problems GROUP BY 1 ORDER BY 2 DESC, 1")
    else
        while IFS=$'\t' read -r k v; do put "$mode" "  refused: $k" "$v"; done < <(
            python3 -c 'import json, sys
for k, v in sorted(json.load(open(sys.argv[1]))["reasons"].items(), key=lambda kv: -kv[1]):
    print(f"{k}\t{v}")' "$work/report-$mode.json")
    fi

    # The node's start.
    log="$work/serve-$mode.log"
    mkdir -p "$work/cache-$mode"
    t0=$(now)
    RUST_LOG=info "$keil" serve --db "$db" --cache-dir "$work/cache-$mode" --addr "127.0.0.1:$port" \
        --no-demo --rate-searches 0 --rate-reads 0 >"$log" 2>&1 &
    node_pid=$!
    healthz=
    until curl -sf "http://127.0.0.1:$port/api/v1/stats" >/dev/null 2>&1; do
        kill -0 "$node_pid" 2>/dev/null || { cat "$log"; echo "keil serve stopped" >&2; exit 1; }
        [ -z "$healthz" ] && curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && healthz=$(secs "$t0" "$(now)")
        sleep 0.1
    done
    stats=$(secs "$t0" "$(now)")
    put "$mode" "node: /healthz answers (s)" "${healthz:-$stats}"
    put "$mode" "node: /api/v1/stats answers (s)" "$stats"
    put "$mode" "node: RSS then (MiB)" "$(ps -o rss= -p "$node_pid" | awk '{printf "%.0f", $1 / 1024}')"
    # Settled: the merge's log line, or 2 s without CPU (the node has
    # nothing left to do), whichever first.
    settled="(not within ${settle} s)"
    deadline=$(echo "$t0 $settle" | awk '{printf "%.3f", $1 + $2}')
    while awk -v n="$(now)" -v d="$deadline" 'BEGIN {exit !(n < d)}'; do
        if grep -q "merged\|not settled" "$log"; then settled=$(secs "$t0" "$(now)"); break; fi
        a=$(cpu_ticks "$node_pid"); sleep 2; b=$(cpu_ticks "$node_pid")
        if [ $((b - a)) -le 2 ]; then settled="$(secs "$t0" "$(now)") (idle)"; break; fi
    done
    put "$mode" "node: settled (s)" "$settled"
    put "$mode" "node: RSS settled (MiB)" "$(ps -o rss= -p "$node_pid" | awk '{printf "%.0f", $1 / 1024}')"

    # The searches.
    if python3 scripts/bench-queries.py "http://127.0.0.1:$port" "$count" "$warmup" >"$work/queries-$mode.txt" 2>&1; then
        cat "$work/queries-$mode.txt"
        while IFS=$'\t' read -r k p50 p99 bad; do
            put "$mode" "query $k: p50 / p99 (ms)" "$p50 / $p99"
            [ "$bad" = 0 ] || put "$mode" "query $k: non-200" "$bad"
        done < <(sed -nE 's/^(.{16}) n= *[0-9]+ +p50 +([0-9.]+) ms +p99 +([0-9.]+) ms.*non-200 ([0-9]+)$/\1\t\2\t\3\t\4/p' "$work/queries-$mode.txt" |
            sed -E 's/ +\t/\t/')
    else
        echo "bench-queries.py failed (its output below); no latencies for $mode" >&2
        cat "$work/queries-$mode.txt" >&2
    fi
    kill "$node_pid" 2>/dev/null; wait "$node_pid" 2>/dev/null || true
    node_pid=
    put "$mode" "load after (1/5/15 min)" "$(cut -d' ' -f1-3 /proc/loadavg)"
done

echo
echo "== summary: $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores; inputs: ${inputs[*]}"
printf '%-40s' "measure"
for mode in "${modes[@]}"; do printf ' %22s' "$mode"; done
echo
for k in "${keys[@]}"; do
    printf '%-40s' "$k"
    for mode in "${modes[@]}"; do printf ' %22s' "${R[$mode,$k]:--}"; done
    echo
done
