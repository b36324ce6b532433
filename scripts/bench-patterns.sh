#!/usr/bin/env bash
# Pattern search at scale, in one run on one machine:
#
#   1. generates GAMES 19x19 Go games and GAMES side-7 Keil games with
#      `keil generate` (seed 1; files kept under OUT and reused when
#      present);
#   2. imports each collection into a new archive under OUT (`keil import`,
#      all cores, timed);
#   3. runs crates/keil-archive/examples/pattern_scale.rs on each archive
#      on one core (RAYON_NUM_THREADS=1): index load time, index bytes, RSS
#      before and after the load, and p50/p99 of 10 uncached searches of
#      the built-in pattern set (Go: the Kombilo harness's 7x7 corner
#      patterns and its 5x5 side pattern; Keil: a 7-point local pattern,
#      anywhere, 12 symmetries and colour swap).
#
#   scripts/bench-patterns.sh [GAMES]     (default 100000)
#
# Targets: Go 100k, one core: a 7x7 corner pattern <= 20 ms p50,
# the side pattern <= 100 ms p50; Keil side 7, 100k: the local pattern
# anywhere with 12 symmetries <= 50 ms p50.
#
# KEIL_BIN=path uses that keil binary; OUT=dir keeps the outputs (default
# /tmp/keil-bench-patterns: about 1 GB for 100k games of each; remove it
# when done). REIMPORT=0 reuses archives already imported. RUNS=n sets the
# timed runs per query (default 10). Not run by the tests or CI: it takes
# minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-100000}
out=${OUT:-/tmp/keil-bench-patterns}
runs=${RUNS:-10}
mkdir -p "$out"
. scripts/keil-bin.sh
cargo build --release -q -p keil-archive --example pattern_scale
scale="$target/release/examples/pattern_scale"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"

go="$out/go19-g$games-s1.sgf"
keil7="$out/keil7-g$games-s1.keil"
echo "== 1. generate ($games games each, seed 1)"
for spec in "go 19 $go" "keil 7 $keil7"; do
    read -r game size file <<<"$spec"
    if [ -s "$file" ]; then
        echo "$(basename "$file"): present, $(du -h "$file" | cut -f1)"
    else
        /usr/bin/time -f "$(basename "$file"): generated in %e s wall" \
            "$keil" generate --game "$game" --size "$size" --games "$games" --seed 1 \
            --out "$file.tmp"
        mv "$file.tmp" "$file"
    fi
done

echo "== 2. import (all cores)"
for name in go keil7; do
    if [ "$name" = go ]; then file=$go; else file=$keil7; fi
    db="$out/$name-archive"
    if [ "${REIMPORT:-1}" = 0 ] && [ -d "$db" ]; then
        echo "$name: archive present, $(du -sh "$db" | cut -f1)"
        continue
    fi
    rm -rf "$db"
    /usr/bin/time -f "$name: import %e s wall, %U s user, %M KiB max RSS" \
        "$keil" import --db "$db" "$file" 2>&1 | tail -2
    echo "$name: archive $(du -sh "$db" | cut -f1)"
done

echo "== 3. pattern search, one core (RAYON_NUM_THREADS=1), $runs runs per query"
echo "load before: $(uptime)"
RAYON_NUM_THREADS=1 "$scale" --runs "$runs" "$out/go-archive"
echo "load between: $(uptime)"
RAYON_NUM_THREADS=1 "$scale" --runs "$runs" "$out/keil7-archive"
echo "load after: $(uptime)"
