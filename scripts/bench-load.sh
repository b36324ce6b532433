#!/usr/bin/env bash
# Load benchmark: the latency of GET /api/v1/games/{id} while heavy work
# runs beside it (MIX=uploads, the default: three 4,000-game uploads and
# four 5-stone "anywhere" pattern searches; MIX=lists: four clients looping
# on game lists that match few games and four on those pattern searches,
# for SECONDS), for this tree's release binary and, when MAIN_KEIL is set,
# another binary in the same run (e.g. main's, built in its own target
# directory). DB serves an existing archive instead of a generated one of
# GAMES games. Not a timed test: a measurement, printed as a table.
#
#   scripts/bench-load.sh
#   MAIN_KEIL=/tmp/main-base-target/release/keil GAMES=20000 scripts/bench-load.sh
#   MIX=lists DB=/work/bench-data/kgs-x8 MAIN_KEIL=... scripts/bench-load.sh
#
# Builds `keil` in release unless KEIL is given. Needs only python3.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
if [ -z "${KEIL:-}" ]; then
    cargo build --release --locked -p keil-cli
    KEIL="$CARGO_TARGET_DIR/release/keil"
fi
ARGS=(--keil "branch=$KEIL")
if [ -n "${MAIN_KEIL:-}" ]; then ARGS+=(--keil "main=$MAIN_KEIL"); fi
if [ -n "${DB:-}" ]; then ARGS+=(--db "$DB"); fi
exec python3 scripts/bench-load.py "${ARGS[@]}" --games "${GAMES:-20000}" --work "${WORK:-/tmp/keil-load}" \
    --mix "${MIX:-uploads}" --seconds "${SECONDS_OF_LOAD:-120}"
