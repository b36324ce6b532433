#!/usr/bin/env bash
# Two `keil serve` nodes on one PostgreSQL database against one node, under
# wrk ("two nodes on one database under the load script"):
# GAMES generated side-7 Keil games are imported once; then for each
# scenario (game fetch, player list, exact position search) one node is
# driven for DURATION with CONNECTIONS connections, then both nodes at once
# (one wrk each, CONNECTIONS/2 connections each), and the requests/s of the
# pair are printed beside the one node's.
#
#   scripts/bench-nodes.sh                       # 100,000 games, 10 s each
#   GAMES=20000 DURATION=5s scripts/bench-nodes.sh
#
# KEIL_BIN=path uses that keil binary; OUT=dir keeps the outputs (default
# /tmp/keil-bench-nodes). The cluster is scripts/pg-cluster.sh's. On one
# machine the nodes, the database and wrk share its cores: the pair's figure
# says what a second node costs and adds there, not what a second machine
# would add.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/keil-bench-nodes}
games=${GAMES:-100000}
duration=${DURATION:-10s}
connections=${CONNECTIONS:-32}
rm -rf "$out"
mkdir -p "$out"
chmod 777 "$out"
. scripts/keil-bin.sh
command -v wrk >/dev/null || { echo "wrk is needed (apt-get install -y wrk)"; exit 1; }
. scripts/pg-cluster.sh
psql_ "CREATE DATABASE nodes" >/dev/null
db=$(url nodes)
echo "load before: $(uptime)"

"$keil" generate --games "$games" --size 7 --seed 1 >"$out/games.keil"
KEIL_NODE_DIR="$out/importer" "$keil" import --db "$db" "$out/games.keil" >/dev/null

# node NAME PORT: starts a node (its pid in $pid_NAME) and waits until it
# answers.
start_node() {
    "$keil" serve --no-demo --addr "127.0.0.1:$2" --db "$db" --cache-dir "$out/cache-$1" \
        --rate-searches 0 --rate-reads 0 2>"$out/serve-$1.log" &
    eval "pid_$1=$!"
    until curl -fs "http://127.0.0.1:$2/healthz" >/dev/null 2>&1; do sleep 0.1; done
}
start_node a 18181
start_node b 18182
trap 'kill $pid_a $pid_b 2>/dev/null || true; cleanup_cluster' EXIT

# The request mixes, from the archive through the API.
python3 - "http://127.0.0.1:18181" "$out" "$games" <<'PY'
import json, random, sys, urllib.parse, urllib.request
base, out, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
get = lambda p: json.load(urllib.request.urlopen(base + p))
random.seed(7)
listed = get("/api/v1/games?limit=500")["games"]
positions, players = [], set()
for g in listed[:200]:
    ply = min(g["plies"], random.randint(4, 24))
    p = get(f"/api/v1/games/{g['id']}/positions/{ply}")
    positions.append("/api/v1/positions?position=" + urllib.parse.quote(p["notation"]))
    if g["black"]:
        players.add("/api/v1/games?player=" + urllib.parse.quote(g["black"]))
mixes = {
    "games": [f"/api/v1/games/{random.randint(1, games)}" for _ in range(500)],
    "players": sorted(players),
    "positions": positions,
}
for name, paths in mixes.items():
    with open(f"{out}/{name}.lua", "w") as f:
        f.write("paths = {" + ",".join(json.dumps(p) for p in paths) + "}\n")
        f.write("i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(\"GET\", paths[i])\nend\n")
PY

rps() { awk '/^Requests\/sec/ {print $2}' "$1"; }
printf "%-10s %14s %14s %8s\n" scenario "one node r/s" "two nodes r/s" ratio
for mix in games players positions; do
    wrk -t1 -c"$connections" -d"$duration" -s "$out/$mix.lua" http://127.0.0.1:18181 >"$out/$mix-one.txt"
    half=$((connections / 2))
    wrk -t1 -c"$half" -d"$duration" -s "$out/$mix.lua" http://127.0.0.1:18181 >"$out/$mix-a.txt" &
    other=$!
    wrk -t1 -c"$half" -d"$duration" -s "$out/$mix.lua" http://127.0.0.1:18182 >"$out/$mix-b.txt"
    wait "$other"
    one=$(rps "$out/$mix-one.txt")
    two=$(echo "$(rps "$out/$mix-a.txt") + $(rps "$out/$mix-b.txt")" | bc -l)
    printf "%-10s %14.0f %14.0f %7.2fx\n" "$mix" "$one" "$two" "$(echo "$two / $one" | bc -l)"
done
echo "load after: $(uptime)"
