#!/usr/bin/env bash
# Bulk export in constant memory, in one run on one
# machine:
#
#   1. generates GAMES 9x9 Go games (`keil generate`, seed 7; kept under
#      OUT and reused when present) and imports them into a new archive;
#   2. exports every game with `keil export --db`, once as one SGF
#      collection and once as a zip of one file per game, and again for a
#      tenth of the games, each under /usr/bin/time: wall time and peak RSS.
#
#   scripts/bench-export.sh [GAMES]     (default 100000)
#
# Constant memory means the peak RSS of the full export is about the
# tenth's: the games stream from SQLite to the output in chunks, none is
# held after it is written (a zip's central directory grows by about 100
# bytes a game, as the format needs).
#
# KEIL_BIN=path uses that keil binary; OUT=dir keeps the outputs (default
# /tmp/keil-bench-export: about 200 MB for 100k games). Not run by the
# tests or CI: it takes minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-100000}
tenth=$((games / 10))
out=${OUT:-/tmp/keil-bench-export}
mkdir -p "$out"
. scripts/keil-bin.sh
for n in "$games" "$tenth"; do
    [ -f "$out/g$n.sgf" ] || "$keil" generate --game go --size 9 --games "$n" --seed 7 --out "$out/g$n.sgf"
    rm -rf "$out/db$n"
    stats=$( { /usr/bin/time -f "%e %M" "$keil" import --db "$out/db$n" "$out/g$n.sgf" > /dev/null; } 2>&1 | tail -1)
    echo "import of $n games: $stats (seconds, peak RSS KB)"
done
echo "machine: $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-5s %10s %14s %12s\n' games form seconds "peak RSS KB" "bytes out"
for n in "$tenth" "$games"; do
    for form in sgf zip; do
        file="$out/out$n.$form"
        rm -f "$file"
        stats=$( { /usr/bin/time -f "%e %M" "$keil" export --db "$out/db$n" -o "$file" > /dev/null; } 2>&1 | tail -1)
        read -r secs rss <<< "$stats"
        printf '%-8s %-5s %10s %14s %12s\n' "$n" "$form" "$secs" "$rss" "$(stat -c %s "$file")"
    done
done
