#!/usr/bin/env bash
# Load benchmark of `keil serve`: builds the release binary, makes an archive
# of GAMES generated side-7 games (kept between runs in WORK), starts the
# server, and drives it from a second process on loopback for DURATION per
# scenario with CONNECTIONS connections: exact position search, player
# search, game fetch (the API), and the web pages: the game viewer at a
# random ply (`viewer`), and a mix of game list, explorer and player pages
# (`pages`). Prints requests/s, latency percentiles and the server's
# resident memory.
#
#   scripts/bench-server.sh                      # 100,000 games, 20 s each
#   GAMES=20000 DURATION=10s scripts/bench-server.sh
#   PROFILE=dev ...    # the dev build (dependencies optimised, workspace at opt-level 1)
#   KEIL=/path/to/keil ...  # that binary, not built (e.g. an older build, to compare)
#   WORKERS=1 ...      # `keil serve --workers 1` (default: actix's, one per core)
#   CONNECTIONS=32 THREADS=1 ...  # wrk's connections and threads
#   SCENARIOS="viewer pages" ...  # only these (default: all five)
#   RENDER="viewer pages explorer" ...  # the render-time pass (one
#                      connection, 10 s each; RENDER= skips it)
#
# The load generator is wrk (apt-get install -y wrk), or oha when wrk is
# missing and apt is not available (cargo install oha).
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=${GAMES:-100000}
DURATION=${DURATION:-20s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-1}
PORT=${PORT:-18080}
WORK=${WORK:-/tmp/keil-bench}
PROFILE=${PROFILE:-release}
CHUNK=${CHUNK:-10000}
WORKERS=${WORKERS:-}
SCENARIOS=${SCENARIOS:-positions players games viewer pages}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
if [ "$PROFILE" = release ]; then BUILT="$CARGO_TARGET_DIR/release/keil"; else BUILT="$CARGO_TARGET_DIR/debug/keil"; fi
KEIL=${KEIL:-$BUILT}
DB="$WORK/archive-$GAMES"
BASE="http://127.0.0.1:$PORT"

if [ "$KEIL" = "$BUILT" ]; then
  echo "== build ($PROFILE)"
  if [ "$PROFILE" = release ]; then cargo build --release -p keil-cli; else cargo build -p keil-cli; fi
else
  echo "== binary $KEIL (not built)"
fi

echo "== load generator"
if ! command -v wrk >/dev/null && ! command -v oha >/dev/null; then
  if command -v apt-get >/dev/null; then
    (apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; })
  else
    cargo install oha --locked
  fi
fi
command -v wrk >/dev/null && echo "wrk: $(command -v wrk)" || echo "oha: $(command -v oha)"

mkdir -p "$WORK"
if [ ! -e "$DB/archive.sqlite" ]; then
  # A file holds at most CHUNK games, so the corpus is several collections
  # with seeds 1, 2, ... in one directory, imported together (generation
  # stays reproducible per file; one big collection would import as well).
  echo "== archive of $GAMES games"
  CORPUS="$WORK/corpus-$GAMES"
  rm -rf "$CORPUS" "$DB"
  mkdir -p "$CORPUS"
  left=$GAMES seed=1
  while [ "$left" -gt 0 ]; do
    n=$(( left < CHUNK ? left : CHUNK ))
    "$KEIL" generate --games "$n" --size 7 --seed "$seed" --out "$CORPUS/games-$seed.keil"
    left=$(( left - n )) seed=$(( seed + 1 ))
  done
  "$KEIL" import --db "$DB" "$CORPUS"
fi

echo "== server"
# The per-client rate limits off: one load generator is one client, and
# this measures the server, not its limiter.
RUST_LOG=warn "$KEIL" serve --db "$DB" --addr "127.0.0.1:$PORT" --no-demo --rate-searches 0 --rate-reads 0 ${WORKERS:+--workers "$WORKERS"} 2>"$WORK/server.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  curl -fs "$BASE/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "$BASE/healthz" >/dev/null

echo "== request mixes"
# Positions after plies 4..24 of 200 games, player-name prefixes, game ids:
# taken from the archive through the API itself.
python3 - "$BASE" "$WORK" <<'PY'
import json, random, sys, urllib.parse, urllib.request
base, work = sys.argv[1], sys.argv[2]
get = lambda p: json.load(urllib.request.urlopen(base + p))
random.seed(7)
games = []
cursor = None
while len(games) < 2000:
    q = "/api/v1/games?limit=1000" + ("&cursor=" + urllib.parse.quote(cursor) if cursor else "")
    page = get(q)
    games += page["games"]
    cursor = page["next_cursor"]
    if not cursor:
        break
positions, players, ids = [], set(), [g["id"] for g in games]
explorer, names = [], set()
for g in random.sample(games, min(200, len(games))):
    ply = min(g["plies"], random.randint(4, 24))
    p = get(f"/api/v1/games/{g['id']}/positions/{ply}")
    positions.append("/api/v1/positions?position=" + urllib.parse.quote(p["notation"]))
    explorer.append("/positions?position=" + urllib.parse.quote(p["notation"]))
    for name in (g["black"], g["white"]):
        if name:
            players.add("/api/v1/players?q=" + urllib.parse.quote(name.split()[-1][:4].lower()))
            names.add(name)
events = sorted({g["event"] for g in games if g.get("event")})
lists = ["/games"] + [f"/games?event={urllib.parse.quote(e)}" for e in events[:50]]
lists += [f"/games?player={urllib.parse.quote(n)}" for n in sorted(names)[:50]]
mixes = {
    "positions": positions,
    "players": sorted(players)[:200],
    "games": [f"/api/v1/games/{i}" for i in random.sample(ids, min(500, len(ids)))],
    "viewer": [f"/games/{g['id']}?ply={random.randint(0, g['plies'])}" for g in random.sample(games, min(500, len(games)))],
    "pages": lists + explorer[:100] + [f"/players/{urllib.parse.quote(n)}" for n in sorted(names)[:50]],
    "explorer": ["/positions"] + explorer,
}
for name, paths in mixes.items():
    with open(f"{work}/{name}.txt", "w") as f:
        f.write("\n".join(paths) + "\n")
    with open(f"{work}/{name}.lua", "w") as f:
        f.write("paths = {" + ",".join(json.dumps(p) for p in paths) + "}\n")
        f.write("i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(\"GET\", paths[i])\nend\n")
PY

rss() { awk '/^VmRSS/ {print $2}' "/proc/$SERVER/status"; }
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$SERVER/status"; }
# The server's CPU time (user + system), in clock ticks.
cpu() { awk '{print $14 + $15}' "/proc/$SERVER/stat"; }
TICK=$(getconf CLK_TCK)

declare -A RPS P50 P99 CPU
for mix in $SCENARIOS; do
  echo "== $mix: $DURATION, $CONNECTIONS connections"
  cpu0=$(cpu)
  if command -v wrk >/dev/null; then
    out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$WORK/$mix.lua" "$BASE")
    echo "$out"
    RPS[$mix]=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
    P50[$mix]=$(awk '$1=="50%" {print $2}' <<<"$out")
    P99[$mix]=$(awk '$1=="99%" {print $2}' <<<"$out")
    non2xx=$(awk '/Non-2xx/ {print $4}' <<<"$out")
    [ -z "$non2xx" ] || echo "WARNING: $non2xx non-2xx answers"
  else
    # oha takes one URL: the first path of the mix.
    out=$(oha -z "$DURATION" -c "$CONNECTIONS" --no-tui "$BASE$(head -1 "$WORK/$mix.txt")")
    echo "$out"
    RPS[$mix]=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    P50[$mix]=$(awk '/50.00%/ {print $3 $4}' <<<"$out")
    P99[$mix]=$(awk '/99.00%/ {print $3 $4}' <<<"$out")
  fi
  # Server CPU per request, in microseconds (both cores count).
  requests=$(awk '/requests in/ {print $1}' <<<"$out")  # wrk's count; none from oha
  CPU[$mix]=$(awk -v c=$(( $(cpu) - cpu0 )) -v t="$TICK" -v n="${requests:-0}" \
    'BEGIN { if (n > 0) printf "%.0f", c / t * 1e6 / n; else print "?" }')
done

echo
echo "== results: $GAMES games, $CONNECTIONS connections, $DURATION per scenario, $(nproc) cores shared by server and load generator"
printf '%-12s %12s %10s %10s %16s\n' scenario "requests/s" p50 p99 "server CPU/req"
for mix in $SCENARIOS; do
  printf '%-12s %12s %10s %10s %13s us\n' "$mix" "${RPS[$mix]}" "${P50[$mix]}" "${P99[$mix]}" "${CPU[$mix]}"
done
echo "load: $(uptime | sed 's/.*load/load/')"

# Render time: one connection and one thread, so no request waits for
# another; a page's latency is then the server's time to answer it (query
# and render) plus the loopback round trip: an upper bound of the render
# time, whose p99 the target bounds at 5 ms.
RENDER=${RENDER-viewer pages explorer}
if [ -n "$RENDER" ] && command -v wrk >/dev/null; then
  echo
  echo "== render time: one connection, 10 s per page mix"
  printf '%-12s %12s %10s %10s %10s\n' pages "requests/s" p50 p90 p99
  for mix in $RENDER; do
    out=$(wrk -t1 -c1 -d10s --latency -s "$WORK/$mix.lua" "$BASE")
    non2xx=$(awk '/Non-2xx/ {print $4}' <<<"$out")
    printf '%-12s %12s %10s %10s %10s%s\n' "$mix" "$(awk '/^Requests\/sec/ {print $2}' <<<"$out")" \
      "$(awk '$1=="50%" {print $2}' <<<"$out")" "$(awk '$1=="90%" {print $2}' <<<"$out")" \
      "$(awk '$1=="99%" {print $2}' <<<"$out")" "${non2xx:+  WARNING: $non2xx non-2xx}"
  done
fi
echo "server resident memory: now $(( $(rss) / 1024 )) MB, peak $(( $(hwm) / 1024 )) MB"
