#!/usr/bin/env python3
"""Load benchmark of `keil serve`: how long a plain read
(`GET /api/v1/games/{id}`) takes while heavy work runs beside it, for one
or more `keil` binaries in one run. Two mixes:

- `--mix uploads` (the default): three large uploads and four heavy
  pattern searches;
- `--mix lists`: four clients looping on game lists whose filters match
  few games (a rare result, komi, handicap, event: lists no index serves)
  and four on heavy pattern searches, for `--seconds`; with `--db` an
  existing archive (the KGS set and its 8 symmetric transforms, say) is
  served as it is, for every binary (opened read-write: it must have the
  binaries' schema).

Per binary: an archive of GAMES generated games (half Keil side 7, half Go
19x19; imported once per binary and kept in WORK), a server on 127.0.0.1,
then
  1. idle: 300 reads of random games, one after another;
  2. load: three uploads of 4,000 new Go 19x19 games each (one POST each, at
     once) and four clients searching 5-stone "anywhere" patterns on 19x19
     (a new pattern per request) while one client reads random games, one
     request after another, until the uploads have answered (at most
     LIMIT seconds).
Prints, per binary, the reads' p50, p99 and slowest latency in ms, the
uploads' answers and times, the searches' answers, and the load average.

Each client thread is a client of its own to the rate limits (an
X-Forwarded-For address of its own; the servers run with --trust-proxy).
Only the standard library; the servers listen on 127.0.0.1 only, every loop
is bounded in count and time, and the servers are stopped at the end.

    scripts/bench-load.py --keil branch=target/release/keil \\
        --keil main=/tmp/main-base-target/release/keil [--games 20000]
"""

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time

TOKEN = "bench-load-token-0123456789abcdef"
UPLOADS = 3
UPLOAD_GAMES = 4000
SEARCHERS = 4
LISTERS = 4

# 5-stone patterns (rows notation, 3x3: X black, O white, . empty); each
# request takes the next one (after the first round, the archive's answer
# cache serves them).
SHAPES = [
    "XO./.XO/..X", "OX./.OX/..O", "X.O/.X./O.X", "XXO/.O./...", "OOX/.X./...",
    ".X./XOX/...", ".O./OXO/...", "X../OX./.OX", "XO./OX./X..", "..X/.XO/OX.",
]


def sh(cmd, **kw):
    print("$", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, **kw)


def corpus(keil, work, name, game, games, seed):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        sh([keil, "generate", "--game", game, "--games", str(games), "--seed", str(seed),
            "--out", path])
    return path


def pct(sorted_ms, p):
    if not sorted_ms:
        return float("nan")
    i = min(len(sorted_ms) - 1, int(round(p / 100.0 * (len(sorted_ms) - 1))))
    return sorted_ms[i]


def wait_healthy(port, proc, limit=300):
    start = time.time()
    while time.time() - start < limit:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode})")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/healthz")
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("the server did not come up")


class Client:
    """One keep-alive connection to 127.0.0.1:`port` as client `address`
    (X-Forwarded-For), opened again when the server closed it (its
    keep-alive timeout passes while a client waits out a Retry-After)."""

    def __init__(self, port, address, timeout):
        self.port, self.address, self.timeout = port, address, timeout
        self.conn = None

    def get(self, path):
        """(status, ms, Retry-After or None); status 0 when the request failed
        on a fresh connection too."""
        for _ in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                                       timeout=self.timeout)
            t = time.perf_counter()
            try:
                self.conn.request("GET", path, headers={"X-Forwarded-For": self.address})
                r = self.conn.getresponse()
                r.read()
                return r.status, (time.perf_counter() - t) * 1000.0, r.getheader("Retry-After")
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
        return 0, (time.perf_counter() - t) * 1000.0, None


def reads(port, games, stop, out, count=None):
    """Random game fetches, one after another, until `stop` is set (or
    `count` done); appends latencies in ms and non-200 statuses to `out`."""
    c = Client(port, "10.0.0.1", 60)
    n = 0
    while not stop.is_set() and (count is None or n < count):
        gid = random.randint(1, games)
        status, ms, _ = c.get(f"/api/v1/games/{gid}")
        out["ms"].append(ms)
        if status != 200:
            out["errors"].append(status)
        n += 1
        time.sleep(0.002)


def search(port, index, stop, out):
    c = Client(port, f"10.0.1.{index}", 120)
    i = index
    while not stop.is_set():
        shape = SHAPES[i % len(SHAPES)]
        i += SEARCHERS
        limit = 1 + (i // len(SHAPES)) % 100
        status, ms, retry = c.get(f"/api/v1/patterns?kind=go&size=19&mode=anywhere&limit={limit}"
                                  "&pattern=" + shape.replace("/", "%2F"))
        out.append((status, ms))
        if status in (429, 503):
            stop.wait(min(5.0, float(retry or 1)))


# Game lists whose filters match few games or none on a real Go archive:
# each reads the archive in date order testing every game, unless the
# server runs it as a search.
LISTS = [
    "result=0", "komi=99", "result=B%2B999.5", "handicap=9&komi=0.5&winner=W",
    "event=zzzz-no-such-event", "result=W%2B0.5&handicap=7", "komi=-3.5",
    "min_rank=9d&max_rank=9d&result=0",
]


def lists(port, index, stop, out):
    """Loops on LISTS (client `index` starts at its own) until `stop`;
    appends (status, ms) to `out`; honours Retry-After on 429 and 503, as a
    client of a public server should."""
    c = Client(port, f"10.0.2.{index}", 120)
    i = index
    while not stop.is_set():
        query = LISTS[i % len(LISTS)]
        i += 1
        status, ms, retry = c.get(f"/api/v1/games?limit=20&{query}")
        out.append((status, ms))
        if status in (429, 503):
            stop.wait(min(5.0, float(retry or 1)))


def games_in(port):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", "/api/v1/stats")
    r = c.getresponse()
    return json.loads(r.read())["games"]


def upload(port, body, out):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    t = time.perf_counter()
    c.request("POST", "/api/v1/games", body=body, headers={
        "Authorization": f"Bearer {TOKEN}", "Content-Type": "application/x-go-sgf"})
    r = c.getresponse()
    r.read()
    out.append((r.status, (time.perf_counter() - t) * 1000.0))


def run(name, keil, args, port, bodies):
    work = args.work
    db = args.db or os.path.join(work, f"archive-{name}-{args.games}")
    if not os.path.exists(db):
        half = args.games // 2
        sh([keil, "import", "--db", db,
            corpus(keil, work, f"keil7-{half}.sgf", "keil", half, 1),
            corpus(keil, work, f"go19-{half}.sgf", "go", args.games - half, 1)],
           stdout=subprocess.DEVNULL)
    token = os.path.join(work, "token")
    with open(token, "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(token, 0o600)
    log = open(os.path.join(work, f"serve-{name}.log"), "w")
    proc = subprocess.Popen(
        [keil, "serve", "--db", db, "--addr", f"127.0.0.1:{port}", "--token-file", token,
         "--no-demo", "--max-upload", str(64 << 20), "--trust-proxy"] + (["--cache-dir", os.path.join(work, f"cache-{name}")] if args.db else []) + args.extra.get(name, []),
        stdout=log, stderr=log, env=dict(os.environ, RUST_LOG="warn"))
    try:
        wait_healthy(port, proc)
        games = games_in(port)
        idle = {"ms": [], "errors": []}
        reads(port, games, threading.Event(), idle, count=300)
        stop, reading = threading.Event(), threading.Event()
        loaded = {"ms": [], "errors": []}
        searches, uploads, listed = [], [], []
        load_before = os.getloadavg()
        threads = [threading.Thread(target=search, args=(port, i, stop, searches))
                   for i in range(SEARCHERS)]
        if args.mix == "uploads":
            work_threads = [threading.Thread(target=upload, args=(port, b, uploads))
                            for b in bodies]
        else:
            work_threads = [threading.Thread(target=lists, args=(port, i, stop, listed))
                            for i in range(LISTERS)]
        reader = threading.Thread(target=reads, args=(port, games, reading, loaded))
        t0 = time.time()
        reader.start()
        for t in threads + work_threads:
            t.start()
        if args.mix == "uploads":
            for t in work_threads:
                t.join(timeout=max(1, args.limit - (time.time() - t0)))
        else:
            stop.wait(args.seconds)
        stop.set()
        for t in threads + work_threads:
            t.join(timeout=130)
        reading.set()
        reader.join()
        elapsed = time.time() - t0
        load_after = os.getloadavg()
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()
    return {
        "name": name, "idle": sorted(idle["ms"]), "load": sorted(loaded["ms"]),
        "read_errors": loaded["errors"] + idle["errors"], "searches": searches,
        "uploads": uploads, "lists": listed, "games": games, "elapsed": elapsed, "loadavg": (load_before, load_after),
    }


def per_status(answers, median):
    """`status: count, median` of (status, ms) answers, by status."""
    by = {}
    for status, ms in answers:
        by.setdefault(status, []).append(ms)
    return ", ".join(f"{s}: {len(v)}, {median(sorted(v)[len(v) // 2])}"
                     for s, v in sorted(by.items())) or "-"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--keil", action="append", required=True, metavar="NAME=PATH",
                   help="a keil binary to measure (repeat to compare)")
    p.add_argument("--games", type=int, default=20000,
                   help="games of the generated archive (without --db)")
    p.add_argument("--db", help="serve this existing archive instead of a generated one")
    p.add_argument("--mix", choices=["uploads", "lists"], default="uploads")
    p.add_argument("--seconds", type=float, default=120,
                   help="seconds of load of the lists mix")
    p.add_argument("--serve-arg", action="append", default=[], metavar="NAME=ARG",
                   help="an extra `keil serve` argument for binary NAME only (repeatable), "
                        "e.g. branch=--rate-searches=0 to measure without rate limits")
    p.add_argument("--work", default="/tmp/keil-load")
    p.add_argument("--port", type=int, default=18090)
    p.add_argument("--limit", type=float, default=600, help="seconds of load at most")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    random.seed(1)
    args.extra = {}
    for spec in args.serve_arg:
        who, arg = spec.split("=", 1)
        args.extra.setdefault(who, []).append(arg)
    first = args.keil[0].split("=", 1)[1]
    bodies = []
    for i in range(UPLOADS if args.mix == "uploads" else 0):
        # New games for every binary's archive: seeds no corpus used.
        path = corpus(first, args.work, f"upload-{i}.sgf", "go", UPLOAD_GAMES, 100 + i)
        with open(path, "rb") as f:
            bodies.append(f.read())
    results = []
    for k, spec in enumerate(args.keil):
        name, path = spec.split("=", 1)
        results.append(run(name, path, args, args.port + k, bodies))
    print()
    if args.mix == "uploads":
        work = f"{UPLOADS} uploads of {UPLOAD_GAMES} Go 19x19 games"
    else:
        work = f"{LISTERS} clients looping on game lists that match few games"
    print(f"{results[0]['games']} games; {work} and {SEARCHERS} clients searching 5-stone "
          f"anywhere patterns at once; {os.cpu_count()} cores")
    print()
    print("| binary | idle p50 / p99 / max ms | under load: reads | p50 ms | p99 ms | "
          "slowest ms | read errors | uploads (status, s) | lists (status: n, median ms) | "
          "searches (status: n, median s) | load s | loadavg before/after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        idle, load = r["idle"], r["load"]
        searches = per_status(r["searches"], lambda ms: f"{ms / 1000:.1f}")
        uploads = ", ".join(f"{s} {ms / 1000:.1f}" for s, ms in sorted(r["uploads"])) or "-"
        listed = per_status(r["lists"], lambda ms: f"{ms:.0f}")
        print(f"| {r['name']} | {pct(idle, 50):.2f} / {pct(idle, 99):.2f} / {idle[-1]:.2f} | "
              f"{len(load)} | {pct(load, 50):.2f} | {pct(load, 99):.2f} | {load[-1]:.1f} | "
              f"{len(r['read_errors'])} | {uploads} | {listed} | {searches} | {r['elapsed']:.0f} | "
              f"{r['loadavg'][0][0]:.2f} / {r['loadavg'][1][0]:.2f} |")


if __name__ == "__main__":
    main()
