#!/usr/bin/env python3
"""Peer timing: replay the main line of every SGF game under a folder with sgfmill.

Usage: sgfmill_replay.py DATA_DIR [--rounds N]

For each `.sgf`/`.SGF` file: parse with sgfmill (`Sgf_game.from_bytes`), take the setup
and the main line (`sgf_moves.get_setup_and_moves`), and play every move on an
`sgfmill.boards.Board` (captures and suicide; sgfmill checks no ko, turn order or result,
so it does less work than `keil validate`). Files sgfmill refuses (bad syntax, other board
sizes it cannot set up) are counted and skipped.

Prints one JSON object: games, plies, parse seconds, replay seconds, plies per second of
the replay alone and of parse + replay, over the best of N rounds (one core, one process).
"""

import argparse
import json
import os
import sys
import time

from sgfmill import boards, sgf, sgf_moves


def files_under(root):
    for d, _, names in os.walk(root):
        for n in sorted(names):
            if n.lower().endswith(".sgf"):
                yield os.path.join(d, n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    blobs = [open(p, "rb").read() for p in sorted(files_under(args.data_dir))]
    best = None
    for _ in range(args.rounds):
        games = plies = refused = 0
        parse_s = replay_s = 0.0
        for data in blobs:
            t0 = time.perf_counter()
            try:
                game = sgf.Sgf_game.from_bytes(data)
                board, moves = sgf_moves.get_setup_and_moves(game)
            except Exception:
                refused += 1
                continue
            t1 = time.perf_counter()
            for colour, point in moves:
                if point is None:
                    continue
                try:
                    board.play(point[0], point[1], colour)
                except ValueError:
                    break
            t2 = time.perf_counter()
            parse_s += t1 - t0
            replay_s += t2 - t1
            games += 1
            plies += len(moves)
        if best is None or parse_s + replay_s < best["parse_s"] + best["replay_s"]:
            best = dict(games=games, refused=refused, plies=plies,
                        parse_s=round(parse_s, 4), replay_s=round(replay_s, 4))
    best["replay_plies_per_s"] = round(best["plies"] / best["replay_s"])
    best["total_plies_per_s"] = round(best["plies"] / (best["parse_s"] + best["replay_s"]))
    json.dump(best, sys.stdout)
    print()


if __name__ == "__main__":
    main()
