#!/usr/bin/env python3
"""Load benchmark of `keil serve` (issue 22, item 2): how long a plain read
(`GET /api/v1/games/{id}`) takes while three large uploads and four heavy
pattern searches run beside it, for one or more `keil` binaries in one run.

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

Only the standard library; the servers listen on 127.0.0.1 only, every loop
is bounded in count and time, and the servers are stopped at the end.

    scripts/bench-load.py --keil branch=target/release/keil \\
        --keil main=/tmp/main-base-target/release/keil [--games 20000]
"""

import argparse
import http.client
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

# 5-stone patterns (rows notation, 3x3: X black, O white, . empty); each
# request takes the next one, so that no answer comes from the cache.
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


def reads(port, games, stop, out, count=None):
    """Random game fetches, one after another, until `stop` is set (or
    `count` done); appends latencies in ms and non-200 statuses to `out`."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    n = 0
    while not stop.is_set() and (count is None or n < count):
        gid = random.randint(1, games)
        t = time.perf_counter()
        c.request("GET", f"/api/v1/games/{gid}")
        r = c.getresponse()
        r.read()
        out["ms"].append((time.perf_counter() - t) * 1000.0)
        if r.status != 200:
            out["errors"].append(r.status)
        n += 1
        time.sleep(0.002)


def search(port, index, stop, out):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    i = index
    while not stop.is_set():
        shape = SHAPES[i % len(SHAPES)]
        i += SEARCHERS
        path = ("/api/v1/patterns?kind=go&size=19&mode=anywhere&limit=20&pattern="
                + shape.replace("/", "%2F"))
        t = time.perf_counter()
        c.request("GET", path)
        r = c.getresponse()
        r.read()
        out.append((r.status, (time.perf_counter() - t) * 1000.0))


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
    db = os.path.join(work, f"archive-{name}-{args.games}")
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
         "--no-demo", "--max-upload", str(64 << 20)] + args.extra.get(name, []),
        stdout=log, stderr=log, env=dict(os.environ, RUST_LOG="warn"))
    try:
        wait_healthy(port, proc)
        idle = {"ms": [], "errors": []}
        reads(port, args.games, threading.Event(), idle, count=300)
        stop, reading = threading.Event(), threading.Event()
        loaded = {"ms": [], "errors": []}
        searches, uploads = [], []
        load_before = os.getloadavg()
        threads = [threading.Thread(target=search, args=(port, i, stop, searches))
                   for i in range(SEARCHERS)]
        threads += [threading.Thread(target=upload, args=(port, b, uploads)) for b in bodies]
        reader = threading.Thread(target=reads, args=(port, args.games, reading, loaded))
        t0 = time.time()
        reader.start()
        for t in threads:
            t.start()
        for t in threads[SEARCHERS:]:
            t.join(timeout=max(1, args.limit - (time.time() - t0)))
        stop.set()
        for t in threads[:SEARCHERS]:
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
        "uploads": uploads, "elapsed": elapsed, "loadavg": (load_before, load_after),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--keil", action="append", required=True, metavar="NAME=PATH",
                   help="a keil binary to measure (repeat to compare)")
    p.add_argument("--games", type=int, default=20000)
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
    for i in range(UPLOADS):
        # New games for every binary's archive: seeds no corpus used.
        path = corpus(first, args.work, f"upload-{i}.sgf", "go", UPLOAD_GAMES, 100 + i)
        with open(path, "rb") as f:
            bodies.append(f.read())
    results = []
    for k, spec in enumerate(args.keil):
        name, path = spec.split("=", 1)
        results.append(run(name, path, args, args.port + k, bodies))
    print()
    print(f"{args.games} games; {UPLOADS} uploads of {UPLOAD_GAMES} Go 19x19 games and "
          f"{SEARCHERS} clients searching 5-stone anywhere patterns at once; "
          f"{os.cpu_count()} cores")
    print()
    print("| binary | idle p50 / p99 / max ms | under load: reads | p50 ms | p99 ms | "
          "slowest ms | read errors | uploads (status, s) | searches (status: n, median s) | "
          "load s | loadavg before/after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        idle, load = r["idle"], r["load"]
        by_status = {}
        for status, ms in r["searches"]:
            by_status.setdefault(status, []).append(ms)
        searches = ", ".join(
            f"{s}: {len(v)}, {sorted(v)[len(v) // 2] / 1000:.1f}" for s, v in sorted(by_status.items()))
        uploads = ", ".join(f"{s} {ms / 1000:.1f}" for s, ms in sorted(r["uploads"]))
        print(f"| {r['name']} | {pct(idle, 50):.2f} / {pct(idle, 99):.2f} / {idle[-1]:.2f} | "
              f"{len(load)} | {pct(load, 50):.2f} | {pct(load, 99):.2f} | {load[-1]:.1f} | "
              f"{len(r['read_errors'])} | {uploads} | {searches} | {r['elapsed']:.0f} | "
              f"{r['loadavg'][0][0]:.2f} / {r['loadavg'][1][0]:.2f} |")


if __name__ == "__main__":
    main()
