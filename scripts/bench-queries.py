#!/usr/bin/env python3
"""Latency of the searches a Go database answers, against a running
`keil serve` on an archive of 19x19 Go games (the node's search latencies).

Each kind runs COUNT distinct queries once (so that no answer comes from the
server's answer caches) from one client, one at a time, and prints p50,
p99 and max in milliseconds (the client's wall time, HTTP on 127.0.0.1):

- position: the whole board after PLY moves of games 1, 2, ... (their
  notation read from /api/v1/games/{id}/positions/{ply});
- corner 7x7: a 7x7 corner region, empty but for 2 or 3 stones;
- side 5x5: a 5x5 region on the top edge, empty but for 1 or 2 stones;
- wildcard corner: a 7x7 corner region with 2 stones and a 3x3 of `*`;
- wildcard centre, wildcard anywhere: a 5x5 (centre) or 4x4 (anywhere)
  shape of 3 or 4 stones, its middle 3x3's other points `*`;
- player list: /api/v1/games?player=NAME for the Black players of the
  latest games.

Before the timed queries, WARMUP (default 10) other queries of each kind
run untimed (other games, patterns and players: none of the timed ones),
so that the first requests after a node start (connections opened,
statements prepared, pages mapped) are not what the p50 measures.

    scripts/bench-queries.py http://127.0.0.1:18090 [COUNT [WARMUP [ROUNDS]]]

With ROUNDS 2 (issue 51's "first queries and warm", in one run: start the
node, then this with WARMUP 0), the first round is the first COUNT queries
of each kind after the node listens, and a second round of COUNT other
queries (other games, other patterns, other players) follows, warm.
"""

import json
import random
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

BASE = sys.argv[1].rstrip("/")
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 20
WARMUP = int(sys.argv[3]) if len(sys.argv) > 3 else 10
ROUNDS = int(sys.argv[4]) if len(sys.argv) > 4 else 1
PLY = 12
# The patterns drawn so far: each is asked once.
SEEN = set()
LETTERS = "abcdefghijklmnopqrs"


def get(path):
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(BASE + path, timeout=600) as r:
            body = r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        # A refusal (503 past the server's query budget) is timed too.
        body = e.read()
        status = e.code
    return time.perf_counter() - start, status, body


def q(params):
    return urllib.parse.urlencode(params)


def rows(cells, w, h, at="aa"):
    """Rows notation of a w x h region, `cells` {(x, y): char}."""
    lines = ["".join(cells.get((x, y), ".") for x in range(w)) for y in range(h)]
    return "/".join(lines) + "@" + at


def corner(rng, stones, wild=False):
    cells = {}
    points = rng.sample([(x, y) for x in range(1, 6) for y in range(1, 6)], stones)
    for i, p in enumerate(points):
        cells[p] = "X" if i % 2 == 0 else "O"
    if wild:
        x0, y0 = rng.choice([(3, 3), (4, 2), (2, 4)])
        for x in range(x0, x0 + 3):
            for y in range(y0, y0 + 3):
                if (x, y) not in cells and x < 7 and y < 7:
                    cells[(x, y)] = "*"
    return rows(cells, 7, 7)


def side(rng, stones):
    cells = {}
    points = rng.sample([(x, y) for x in range(5) for y in range(2, 5)], stones)
    for i, p in enumerate(points):
        cells[p] = "X" if i % 2 == 0 else "O"
    # Columns h..l of the top edge: touches one edge only.
    return rows(cells, 5, 5, at="ha")


def shape(rng, stones, w):
    """A w x w shape with `stones` stones (alternating colours) and the
    other points of its middle 3x3 `*`: for mode centre or anywhere (no
    position given: it is placed where it fits)."""
    cells = {}
    points = rng.sample([(x, y) for x in range(w) for y in range(w)], stones)
    for i, p in enumerate(points):
        cells[p] = "X" if i % 2 == 0 else "O"
    m = w // 2
    for x in range(m - 1, m + 2):
        for y in range(m - 1, m + 2):
            cells.setdefault((x, y), "*")
    lines = ["".join(cells.get((x, y), ".") for x in range(w)) for y in range(w)]
    return "/".join(lines)


def kinds(rng, first, count, oldest=False):
    """`count` queries of each kind: positions of games `first`,
    `first` + 1, ... (those of at least PLY plies), patterns drawn from
    `rng`, and the Black players of the latest games from the `first`-th
    on (`oldest`: of the oldest games, from the first); and under "last
    game" the last game id read."""
    out = {"position": [], "corner 7x7": [], "side 5x5": [], "wildcard corner": [],
           "wildcard centre": [], "wildcard anywhere": [], "player list": []}
    gid = first
    while len(out["position"]) < count:
        _, _, body = get(f"/api/v1/games/{gid}/positions/{PLY}")
        gid += 1
        # A game shorter than PLY plies (or removed) has no such position.
        notation = json.loads(body).get("notation")
        if notation is None:
            if gid > first + 10 * count:
                sys.exit(f"fewer than {count} games of {PLY} plies from game {first}")
            continue
        out["position"].append("/api/v1/positions?" + q({"kind": "go", "position": notation, "limit": 20}))
    for i in range(count):
        for kind, mode, draw in [
            ("corner 7x7", "corner", lambda: corner(rng, 2 + i % 2)),
            ("side 5x5", "side", lambda: side(rng, 1 + i % 2)),
            ("wildcard corner", "corner", lambda: corner(rng, 2, wild=True)),
            ("wildcard centre", "centre", lambda: shape(rng, 3 + i % 2, 5)),
            ("wildcard anywhere", "anywhere", lambda: shape(rng, 3 + i % 2, 4)),
        ]:
            # A pattern asked before (in this round or an earlier one)
            # would be answered from the server's cache: drawn again.
            for _ in range(50):
                path = "/api/v1/patterns?" + q({"kind": "go", "size": 19, "mode": mode, "pattern": draw()})
                if path not in SEEN:
                    break
            SEEN.add(path)
            out[kind].append(path)
    _, _, body = get("/api/v1/games?limit=1000" + ("&order=asc" if oldest else ""))
    names = []
    for g in json.loads(body)["games"]:
        if g.get("black") and g["black"] not in names:
            names.append(g["black"])
    start = 0 if oldest else first - 1
    for name in names[start:start + count]:
        out["player list"].append("/api/v1/games?" + q({"player": name, "limit": 20}))
    out["last game"] = gid - 1
    return out


def measure(timed, label):
    for kind, paths in timed.items():
        if not paths:
            continue
        times = []
        bad = 0
        for p in paths:
            t, status, _ = get(p)
            bad += status != 200
            times.append(t * 1000)
        times.sort()
        p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
        print(f"{label}{kind:18} n={len(times):3}  p50 {statistics.median(times):9.2f} ms  "
              f"p99 {p99:9.2f} ms  max {times[-1]:9.2f} ms  non-200 {bad}")


def main():
    timed = kinds(random.Random(23), 1, COUNT)
    # The warm-up's games follow the timed ones (which skip short games).
    after = timed.pop("last game") + 1
    if WARMUP > 0:
        warmup = kinds(random.Random(99), after, WARMUP)
        after = warmup.pop("last game") + 1
        for paths in warmup.values():
            for p in paths:
                get(p)
    rounds = [timed]
    for r in range(1, ROUNDS):
        # Other games, other patterns, the players of the oldest games.
        more = kinds(random.Random(23 + r), after, COUNT, oldest=True)
        after = more.pop("last game") + 1
        rounds.append(more)
    for r, queries in enumerate(rounds):
        label = "" if ROUNDS == 1 else ("first " if r == 0 else "warm  ")
        measure(queries, label)


if __name__ == "__main__":
    main()
