# The steps the scale scripts share (sourced by scripts/bench-scale.sh and
# scripts/bench-grow.sh, in their WORK directory): generating the seeds'
# collections, a timed import under a memory watchdog, what an archive
# holds on disk, and a timed `keil serve` start followed by the searches of
# scripts/bench-queries.py. The caller sets ROOT (the repository), PORT and
# LIMIT_KB (an import past this resident size, in kB, is killed).

# The server of timed_serve, killed if the script stops meanwhile.
S=
trap '[ -z "$S" ] || kill $S 2>/dev/null || true' EXIT

# generate_seeds KEIL N LAST: the collections go-N-1.sgf .. go-N-LAST.sgf
# of N generated 19×19 Go games each, two at a time (one a core on the
# 2-core machine); those already there are kept.
generate_seeds() {
  local K=$1 n=$2 last=$3 s t0
  t0=$(date +%s)
  for s in $(seq 1 "$last"); do
    [ -s "go-$n-$s.sgf" ] || "$K" generate --game go --games "$n" --seed "$s" --out "go-$n-$s.sgf" &
    if [ $((s % 2)) -eq 0 ]; then wait; fi
  done
  wait
  echo "generate: $(( $(date +%s) - t0 )) s"
}

# timed_import KEIL DB LABEL FILE...: imports the files into DB (added to
# what it holds) and prints the time, the exit status, the peak resident
# memory and keil's own summary (games/s); output in import-LABEL.out/.err.
timed_import() {
  local K=$1 db=$2 label=$3 t0 peak=0 P rc=0 r h
  shift 3
  t0=$(date +%s.%N)
  "$K" import --db "$db" "$@" > "import-$label.out" 2> "import-$label.err" &
  P=$!
  while kill -0 $P 2>/dev/null; do
    r=$(awk '/^VmRSS/ {print $2}' /proc/$P/status 2>/dev/null || echo 0)
    h=$(awk '/^VmHWM/ {print $2}' /proc/$P/status 2>/dev/null || echo 0)
    if [ -n "$h" ] && [ "$h" -gt "$peak" ]; then peak=$h; fi
    if [ -n "$r" ] && [ "$r" -gt "$LIMIT_KB" ]; then echo "KILLED at $r kB"; kill $P; fi
    sleep 1
  done
  wait $P || rc=$?
  echo "import: rc=$rc, $(echo "$(date +%s.%N) - $t0" | bc) s, peak RSS $(( peak / 1024 )) MiB"
  tail -1 "import-$label.out"
}

# disk_report DB GAMES: bytes on disk (and per game), the position segments
# and the pattern blocks.
disk_report() {
  local db=$1 games=$2 bytes
  bytes=$(du -sb "$db" | cut -f1)
  echo "on disk: $bytes bytes, $(( bytes / games )) bytes per game"
  echo "position segments (count, postings, bytes, largest postings, largest bytes): $(sqlite3 "$db/archive.sqlite" 'select count(*), sum(postings), sum(length(data)), max(postings), max(length(data)) from position_segments')"
  echo "pattern blocks (count, games, bytes, largest bytes): $(sqlite3 "$db/archive.sqlite" 'select count(*), sum(games), sum(length(data)), max(length(data)) from derived_blocks' 2>/dev/null || echo none)"
}

# timed_serve KEIL DB LABEL [ARG...]: starts `keil serve` on DB (with the
# extra arguments), prints how long until it answers and its resident
# memory (and heap), its start lines, the searches' latencies and its
# memory after them, then stops it; output in serve-LABEL.out/.err.
timed_serve() {
  local K=$1 db=$2 label=$3 t0
  shift 3
  if curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then
    echo "port $PORT already serves something: stop it first" >&2; exit 1
  fi
  t0=$(date +%s.%N)
  "$K" serve --db "$db" --addr "127.0.0.1:$PORT" --no-demo --rate-searches 0 --rate-reads 0 \
    --query-budget "${BUDGET:-60s}" "$@" > "serve-$label.out" 2> "serve-$label.err" &
  S=$!
  until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do
    kill -0 $S 2>/dev/null || { echo "keil serve stopped: see serve-$label.err" >&2; exit 1; }
    sleep 0.2
  done
  echo "serve: answers after $(echo "$(date +%s.%N) - $t0" | bc) s, $(( $(awk '/^VmRSS/ {print $2}' /proc/$S/status) / 1024 )) MiB resident ($(( $(awk '/^RssAnon/ {print $2}' /proc/$S/status) / 1024 )) MiB heap)"
  grep 'indexes loaded\|index memory' "serve-$label.err" || true
  "$ROOT/scripts/bench-queries.py" "http://127.0.0.1:$PORT" "${COUNT:-20}"
  echo "after the searches: $(( $(awk '/^VmRSS/ {print $2}' /proc/$S/status) / 1024 )) MiB resident"
  kill $S; wait $S 2>/dev/null || true
  S=
}
