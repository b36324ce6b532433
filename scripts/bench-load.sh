#!/usr/bin/env bash
# Load benchmark (issue 22, item 2): the latency of GET /api/v1/games/{id}
# while three 4,000-game uploads and four 5-stone "anywhere" pattern
# searches run, for this tree's release binary and, when MAIN_KEIL is set,
# another binary in the same run (e.g. main's, built in its own target
# directory). Not a timed test: a measurement, printed as a table.
#
#   scripts/bench-load.sh
#   MAIN_KEIL=/tmp/main-base-target/release/keil GAMES=20000 scripts/bench-load.sh
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
exec python3 scripts/bench-load.py "${ARGS[@]}" --games "${GAMES:-20000}" --work "${WORK:-/tmp/keil-load}"
