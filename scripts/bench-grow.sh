#!/usr/bin/env bash
# The scaling points of docs/scaling.md in one run: one archive grown by
# steps of generated 19×19 Go games (seeds of N games each, generated two at
# a time and kept in WORK), measured after each step: the step's import
# (time, peak resident memory), bytes on disk, two `keil serve` starts on a
# node cache (the first writes it, the second maps it; the searches of
# scripts/bench-queries.py after each) and examples/node_start on one core
# from the cache (the steps are scripts/scale-lib.sh's).
#
#   N=500000 STEPS="2 4 8" WORK=/tmp/w1m scripts/bench-grow.sh   # 1, 2, 4 M
#
# KEIL=path/to/keil (and NODE_START=path/to/node_start) runs another build;
# DROP_SGF=1 deletes each step's SGF files once imported (disk room at 4 M).
# A server without the cache is not started: past ~2 M games its heap
# (7 KB a game) exceeds a 24 GB machine.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${N:-500000}
STEPS=${STEPS:-"2 4 8"}
WORK=${WORK:-/tmp/keil-grow}
PORT=${PORT:-18090}
LIMIT_KB=${LIMIT_KB:-14000000}
# shellcheck source=scripts/scale-lib.sh
. "$ROOT/scripts/scale-lib.sh"
if [ -z "${KEIL:-}" ]; then
  cargo build --release -p keil-cli
  cargo build --release -p keil-archive --example node_start
  KEIL=$ROOT/target/release/keil
fi
NODE_START=${NODE_START:-$ROOT/target/release/examples/node_start}
mkdir -p "$WORK"
cd "$WORK"
generate_seeds "$KEIL" "$N" "${STEPS##* }"

rm -rf db-grow cache
from=1
for to in $STEPS; do
  files=()
  for s in $(seq "$from" "$to"); do files+=("go-$N-$s.sgf"); done
  echo "== $(( to * N )) games (adding seeds $from-$to)"
  timed_import "$KEIL" db-grow grow "${files[@]}"
  [ -z "${DROP_SGF:-}" ] || rm -f "${files[@]}"
  disk_report db-grow $(( to * N ))
  timed_serve "$KEIL" db-grow grow --cache-dir cache
  timed_serve "$KEIL" db-grow grow --cache-dir cache
  RAYON_NUM_THREADS=1 "$NODE_START" db-grow cache
  echo "cache: $(du -sb cache | cut -f1) bytes; disk: $(df -h . | tail -1)"
  from=$(( to + 1 ))
done
