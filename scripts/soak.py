#!/usr/bin/env python3
"""Soak test of `keil serve`: a bounded mixed load on 127.0.0.1.

Starts `keil serve` over an archive of generated games, then for DURATION
seconds runs client threads side by side:

- readers: game details, positions of a game, game lists, players, pages;
- searchers: position, pattern ("anywhere") and text searches;
- uploaders: collections of freshly generated games with the write token;
- hostile clients: deeply nested text queries, over-long parameters, random
  bytes and empty game trees as uploads, wrong tokens, unknown paths and
  methods, a slow body, junk headers.

It reports p50/p99/max latency per route, answers by status per route, the
server's resident memory (VmRSS) over time, and whether anything was lost:
the archive's game count at the end must equal the count at the start plus
the games that uploads answered as stored. The server must still answer at
the end and no answer may be a 5xx other than a budgeted 503.

Only 127.0.0.1 is ever contacted. Every loop is bounded by the deadline and
by MAX_REQUESTS per thread.

    scripts/soak.py --keil target/release/keil --duration 600
    scripts/soak.py --duration 60 --games 5000   # a short run

Standard library only (Python 3.9+).
"""

import argparse
import collections
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

MAX_REQUESTS = 1_000_000
TOKEN = "soak-token-0123456789abcdef"


class Stats:
    """Latencies (ms) and statuses per route, shared by every thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latency = collections.defaultdict(list)
        self.status = collections.defaultdict(collections.Counter)
        self.stored = 0
        self.upload_answers = 0
        self.failures = collections.Counter()

    def add(self, route, status, ms):
        with self.lock:
            self.latency[route].append(ms)
            self.status[route][status] += 1


def request(stats, port, route, method, path, body=None, headers=None, timeout=30):
    """One request on a fresh connection; returns (status, body bytes) or
    (None, b"") on a transport error (counted under status 'conn')."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        status = r.status
    except (OSError, http.client.HTTPException) as e:
        stats.add(route, "conn:" + type(e).__name__, (time.perf_counter() - start) * 1000)
        return None, b""
    finally:
        conn.close()
    stats.add(route, status, (time.perf_counter() - start) * 1000)
    return status, data


def generate(keil, game, size, games, seed):
    out = subprocess.run(
        [keil, "generate", "--game", game, "--size", str(size), "--games", str(games),
         "--seed", str(seed)],
        check=True, capture_output=True)
    return out.stdout


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def wait_ready(port, proc, seconds=300):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit(f"keil serve exited with {proc.returncode} before answering")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/healthz")
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit("keil serve did not answer in time")


def game_count(port):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", "/api/v1/stats")
    r = c.getresponse()
    return json.loads(r.read())["games"]


def stored_of(answer):
    """Games stored by one upload answer (either answer shape)."""
    if "stored" in answer and isinstance(answer["stored"], int):
        return answer["stored"]
    counts = answer.get("counts") or {}
    return counts.get("stored", 0)


def reader(stats, port, deadline, ids, rng):
    paths = [
        ("game", lambda: f"/api/v1/games/{rng.choice(ids)}"),
        ("position", lambda: f"/api/v1/games/{rng.choice(ids)}/positions/{rng.randint(0, 30)}"),
        ("list", lambda: "/api/v1/games?limit=50"),
        ("players", lambda: "/api/v1/players?q=" + rng.choice("abcdefghij")),
        ("page:game", lambda: f"/games/{rng.choice(ids)}"),
        ("page:home", lambda: "/"),
        ("stats", lambda: "/api/v1/stats"),
    ]
    for _ in range(MAX_REQUESTS):
        if time.time() >= deadline:
            return
        route, make = rng.choice(paths)
        request(stats, port, route, "GET", make())


def searcher(stats, port, deadline, rng, patterns, positions):
    for _ in range(MAX_REQUESTS):
        if time.time() >= deadline:
            return
        kind = rng.random()
        if kind < 0.4 and patterns:
            request(stats, port, "search:pattern", "GET",
                    "/api/v1/patterns?" + urllib.parse.urlencode(rng.choice(patterns)))
        elif kind < 0.7 and positions:
            request(stats, port, "search:position", "GET",
                    "/api/v1/positions?" + urllib.parse.urlencode(rng.choice(positions)))
        else:
            q = rng.choice(["open", "cup round", "league", "final", "keil", "go"])
            request(stats, port, "search:text", "GET",
                    "/api/v1/search?" + urllib.parse.urlencode({"q": q}))


def uploader(stats, port, deadline, chunks):
    for chunk in chunks:
        if time.time() >= deadline:
            return
        status, data = request(
            stats, port, "upload", "POST", "/api/v1/games", body=chunk,
            headers={"Authorization": f"Bearer {TOKEN}",
                     "Content-Type": "application/x-go-sgf"},
            timeout=600)
        if status in (200, 201, 422):
            try:
                answer = json.loads(data)
            except ValueError:
                stats.failures["upload answer not JSON"] += 1
                continue
            with stats.lock:
                stats.stored += stored_of(answer)
                stats.upload_answers += 1
        time.sleep(1)


def slow_body(stats, port):
    """Headers, then one byte a second: the server must cut it off."""
    start = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port), timeout=120)
    try:
        s.sendall((f"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                   "Content-Type: application/x-go-sgf\r\nContent-Length: 100000\r\n\r\n").encode())
        status = "none"
        s.settimeout(1.5)
        for _ in range(120):
            try:
                s.sendall(b"(")
            except OSError:
                break
            try:
                head = s.recv(64)
                if head:
                    status = int(head.split()[1])
                    break
            except socket.timeout:
                continue
            except (OSError, ValueError, IndexError):
                break
    finally:
        s.close()
    stats.add("hostile:slow-body", status, (time.perf_counter() - start) * 1000)


def hostile(stats, port, deadline, rng):
    nested = "(" * 3000 + "a" + ")" * 3000
    junk = bytes(rng.getrandbits(8) for _ in range(200_000))
    empties = b"(;)" * 100_000
    actions = [
        ("hostile:nested-q", lambda: request(
            stats, port, "hostile:nested-q", "GET", "/api/v1/search?q=" + urllib.parse.quote(nested))),
        ("hostile:25-parens", lambda: request(
            stats, port, "hostile:25-parens", "GET",
            "/api/v1/search?q=" + urllib.parse.quote("(" * 25 + "a" + ")" * 25))),
        ("hostile:long-pattern", lambda: request(
            stats, port, "hostile:long-pattern", "GET", "/api/v1/patterns?pattern=" + "X" * 20000)),
        ("hostile:bad-cursor", lambda: request(
            stats, port, "hostile:bad-cursor", "GET", "/api/v1/games?cursor=" + "%ff" * 300)),
        ("hostile:id-past-i64", lambda: request(
            stats, port, "hostile:id-past-i64", "GET", "/api/v1/games/99999999999999999999999")),
        ("hostile:random-upload", lambda: request(
            stats, port, "hostile:random-upload", "POST", "/api/v1/games", body=junk,
            headers={"Authorization": f"Bearer {TOKEN}"})),
        ("hostile:empty-trees", lambda: request(
            stats, port, "hostile:empty-trees", "POST", "/api/v1/games", body=empties,
            headers={"Authorization": f"Bearer {TOKEN}"})),
        ("hostile:wrong-token", lambda: request(
            stats, port, "hostile:wrong-token", "POST", "/api/v1/games", body=b"(;GM[1])",
            headers={"Authorization": "Bearer wrong-token-0000000"})),
        ("hostile:unknown-path", lambda: request(
            stats, port, "hostile:unknown-path", "GET", "/api/v1/nothing/here")),
        ("hostile:wrong-method", lambda: request(
            stats, port, "hostile:wrong-method", "DELETE", "/api/v1/stats")),
        ("hostile:long-uri", lambda: request(
            stats, port, "hostile:long-uri", "GET", "/api/v1/games?player=" + "a" * 40000)),
        ("hostile:many-headers", lambda: request(
            stats, port, "hostile:many-headers", "GET", "/api/v1/stats",
            headers={f"X-Junk-{i}": "y" * 100 for i in range(120)})),
        ("hostile:slow-body", lambda: slow_body(stats, port)),
    ]
    for _ in range(MAX_REQUESTS):
        if time.time() >= deadline:
            return
        _, act = rng.choice(actions)
        act()
        time.sleep(0.2)


def pct(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    k = min(len(values) - 1, max(0, int(round(p / 100 * (len(values) - 1)))))
    return values[k]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keil", default="target/release/keil", help="the keil binary")
    ap.add_argument("--duration", type=int, default=600, help="seconds of load")
    ap.add_argument("--games", type=int, default=20000, help="games in the archive before the load")
    ap.add_argument("--port", type=int, default=18099)
    ap.add_argument("--readers", type=int, default=4)
    ap.add_argument("--searchers", type=int, default=2)
    ap.add_argument("--uploaders", type=int, default=2)
    ap.add_argument("--hostile", type=int, default=2)
    ap.add_argument("--work", default=None, help="a directory for the archive (default: a temporary one)")
    ap.add_argument("--serve-arg", action="append", default=[],
                    help="an extra argument for keil serve (repeatable), e.g. a rate-limit flag")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    work = args.work or tempfile.mkdtemp(prefix="keil-soak-")
    db = os.path.join(work, "archive")
    token_file = os.path.join(work, "token")
    with open(token_file, "w") as f:
        f.write(f"soak {TOKEN}\n")
    os.chmod(token_file, 0o600)

    if not os.path.exists(os.path.join(db, "archive.sqlite")):
        print(f"== generating and importing {args.games} games into {db}", flush=True)
        corpus = os.path.join(work, "corpus.sgf")
        with open(corpus, "wb") as f:
            half = args.games // 2
            f.write(generate(args.keil, "keil", 7, half, 1))
            f.write(generate(args.keil, "go", 19, args.games - half, 2))
        subprocess.run([args.keil, "import", "--db", db, corpus], check=True,
                       stdout=subprocess.DEVNULL)

    print("== starting keil serve", flush=True)
    log = open(os.path.join(work, "serve.log"), "w")
    proc = subprocess.Popen(
        [args.keil, "serve", "--db", db, "--addr", f"127.0.0.1:{args.port}", "--no-demo",
         "--token-file", token_file] + args.serve_arg,
        stdout=log, stderr=log)
    try:
        wait_ready(args.port, proc)
        start_games = game_count(args.port)
        ids = list(range(1, start_games + 1))
        # Upload chunks: new games (other seeds), 2,000 a chunk.
        chunks = [generate(args.keil, "go", 19, 2000, 1000 + i) for i in range(3)]
        chunks += [generate(args.keil, "keil", 7, 2000, 2000 + i) for i in range(3)]
        rng.shuffle(chunks)
        patterns = [
            {"pattern": "X:g7 O:h8 .:f6,f7,g6,g8,h7", "mode": "anywhere", "kind": "keil", "size": "7"},
            {"pattern": "...../...../..O../...X./.....", "mode": "corner", "kind": "go", "size": "19"},
            {"pattern": "X:dd O:cc", "kind": "go", "size": "19"},
            {"pattern": "X:dd O:cc,dc X:cd,ed", "mode": "anywhere", "kind": "go", "size": "19"},
        ]
        positions = [
            {"position": "7/8/9/10/11/12/13/12/11/10/1b7/8/7 w", "symmetry": "true"},
            {"position": "7/8/9/10/11/12/13/12/11/10/9/8/7"},
        ]
        stats = Stats()
        deadline = time.time() + args.duration
        threads = []
        for i in range(args.readers):
            threads.append(threading.Thread(
                target=reader, args=(stats, args.port, deadline, ids, random.Random(rng.random()))))
        for i in range(args.searchers):
            threads.append(threading.Thread(
                target=searcher,
                args=(stats, args.port, deadline, random.Random(rng.random()), patterns, positions)))
        per = max(1, len(chunks) // max(1, args.uploaders))
        for i in range(args.uploaders):
            threads.append(threading.Thread(
                target=uploader, args=(stats, args.port, deadline, chunks[i * per:(i + 1) * per])))
        for i in range(args.hostile):
            threads.append(threading.Thread(
                target=hostile, args=(stats, args.port, deadline, random.Random(rng.random()))))
        print(f"== load for {args.duration} s: {len(threads)} client threads", flush=True)
        for t in threads:
            t.daemon = True
            t.start()
        rss = []
        t0 = time.time()
        while time.time() < deadline:
            rss.append((round(time.time() - t0), rss_kib(proc.pid)))
            time.sleep(min(10, max(0.1, deadline - time.time())))
        for t in threads:
            t.join(timeout=660)
        rss.append((round(time.time() - t0), rss_kib(proc.pid)))
        alive = proc.poll() is None
        end_games = game_count(args.port) if alive else None
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()

    print()
    print("| route | requests | p50 ms | p99 ms | max ms | answers by status |")
    print("|---|---|---|---|---|---|")
    five_xx = 0
    for route in sorted(stats.latency):
        lat = stats.latency[route]
        by = stats.status[route]
        for st, n in by.items():
            if isinstance(st, int) and st >= 500 and st != 503:
                five_xx += n
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(by.items(), key=lambda kv: str(kv[0])))
        print(f"| {route} | {len(lat)} | {pct(lat, 50):.1f} | {pct(lat, 99):.1f} | "
              f"{max(lat):.1f} | {statuses} |")
    print()
    print("RSS over time (s: MiB): " + ", ".join(
        f"{t}: {r / 1024:.0f}" for t, r in rss if r is not None))
    print(f"upload answers: {stats.upload_answers}, games stored by them: {stats.stored}")
    lost = None if end_games is None else start_games + stats.stored - end_games
    print(f"games: {start_games} at start, {end_games} at end; expected {start_games + stats.stored}; "
          f"lost: {lost}")
    print(f"server alive at the end: {alive}; 5xx other than 503: {five_xx}")
    for what, n in stats.failures.items():
        print(f"failure: {what}: {n}")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    ok = alive and lost == 0 and five_xx == 0 and not stats.failures
    print("soak:", "passed" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
