#!/usr/bin/env python3
"""Latency of an explorer's walk through games, against a running `keil
serve` on an archive of 19x19 Go games: for each of COUNT games
from FIRST on, the whole-board position search at plies 9 to 24 in turn, as
a user clicking through a game's moves (each position's notation read from
/api/v1/games/{id}/positions/{ply}). The game before FIRST is walked first,
untimed (a warm-up). Prints p50 and p90 in milliseconds (the client's wall
time, HTTP on 127.0.0.1).

    scripts/bench-walk.py http://127.0.0.1:18090 [COUNT [FIRST]]
"""

import json
import statistics
import sys
import time
import urllib.parse
import urllib.request

BASE = sys.argv[1].rstrip("/")
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 30
FIRST = int(sys.argv[3]) if len(sys.argv) > 3 else 101


def get(path):
    start = time.perf_counter()
    with urllib.request.urlopen(BASE + path, timeout=600) as r:
        body = r.read()
    return time.perf_counter() - start, body


def main():
    times = []
    for gid in range(FIRST - 1, FIRST + COUNT):
        for ply in range(8, 25):
            _, body = get(f"/api/v1/games/{gid}/positions/{ply}")
            notation = json.loads(body)["notation"]
            query = urllib.parse.urlencode({"kind": "go", "position": notation, "limit": 20})
            t, _ = get("/api/v1/positions?" + query)
            # Ply 8 starts a game's walk; the game before FIRST warms up.
            if gid >= FIRST and ply > 8:
                times.append(t * 1000)
    times.sort()
    print(f"walk: n={len(times)}  p50 {statistics.median(times):.2f} ms  "
          f"p90 {times[len(times) * 9 // 10]:.2f} ms")


if __name__ == "__main__":
    main()
