#!/usr/bin/env bash
# Kaomi benchmarks beside Keil's, in one run on the same machine (issue:
# Kaomi end to end; no Kaomi peer exists):
#
#   1. validation on one core: `keil validate --json` (RAYON_NUM_THREADS=1,
#      taskset to one CPU) over a generated 10,000-game 7x7 Kaomi
#      collection and a generated 10,000-game side-7 Keil collection;
#      plies per second of wall and of CPU time;
#   2. archive import: `keil import` of each collection into a new archive
#      (all cores), games per second.
#
#   scripts/bench-kaomi.sh [GAMES]     (default 10000)
#
# KEIL_BIN=path uses that keil binary; OUT=dir keeps the outputs
# (default /tmp/keil-bench-kaomi). The placement itself is measured by
# `cargo bench -p keil-rules --bench kaomi`.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-10000}
out=${OUT:-/tmp/keil-bench-kaomi}
mkdir -p "$out"
. scripts/keil-bin.sh
kaomi="$out/kaomi7-g$games.kaomi"
keil7="$out/keil7-g$games.keil"
[ -s "$kaomi" ] || "$keil" generate --game kaomi --size 7 --games "$games" --seed 1 --out "$kaomi"
[ -s "$keil7" ] || "$keil" generate --game keil --size 7 --games "$games" --seed 1 --out "$keil7"
echo "load before: $(uptime)"

echo "== 1. validation, one core"
for f in "$kaomi" "$keil7"; do
    plies=$("$keil" validate --json "$f" 2>/dev/null | grep -o '"plies":[0-9]*' | awk -F: '{s += $2} END {print s}') || true
    # The file five times in one process (0.01 s timer resolution).
    for _ in 1 2 3; do
        RAYON_NUM_THREADS=1 /usr/bin/time -f "%U %S %e" -o "$out/time" \
            taskset -c 0 "$keil" validate "$f" "$f" "$f" "$f" "$f" >/dev/null 2>&1 || true
        read -r user sys wall <"$out/time"
        awk -v f="$(basename "$f")" -v p="$((5 * plies))" -v u="$user" -v s="$sys" -v w="$wall" \
            'BEGIN {printf "%s x5: %d plies, %.2f s wall, %.2f s CPU: %.0f plies/s wall, %.0f plies/s CPU\n", f, p, w, u + s, p / w, p / (u + s)}'
    done
done

echo "== 2. import"
for f in "$kaomi" "$keil7"; do
    rm -rf "$out/archive"
    "$keil" import --db "$out/archive" "$f" 2>&1 | tail -1
done
echo "load after: $(uptime)"
