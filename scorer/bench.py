"""Benchmark (not a test): record 10,000 hands in one session, then settle.

Prints hands recorded per second (each hand scored by the engine and committed in its
own durable transaction) and the time to settle, cold (a fresh process state that
replays every event) and warm. Usage: zipai bench ledger [--hands N] [--db PATH]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from zipai.scorer import Ledger

L1_GROUPS = [{"cards": ["d5", "d5", "d5"], "state": "open"},
             {"cards": ["x10", "x10", "x10"], "state": "concealed"},
             {"cards": ["x1", "x2", "x3"], "state": "open"}]
L1_HAND = "x4 x5 x6 d2 d7 d10 x9 x9 x9 d8 d8 x8".split()


def hand(rng: random.Random, players: int, dealer: int) -> dict[str, Any]:
    """A varied L1 hand: random winner and manner (never the 数审 seat)."""
    seats = [s for s in range(players) if players != 4 or s != (dealer + 2) % 4]
    winner = rng.choice(seats)
    won_by = rng.choice(["stock", "self_draw", "discard"])
    obj: dict[str, Any] = {"winner": winner, "won_by": won_by, "groups": L1_GROUPS, "hand": L1_HAND}
    if won_by == "discard":
        obj["from"] = rng.choice([s for s in seats if s != winner])
    return obj


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="zipai bench ledger", description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=10_000)
    ap.add_argument("--rules", default="hunan")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--db", help="ledger file (default: a temporary folder)")
    args = ap.parse_args(argv)
    path = Path(args.db) if args.db else Path(tempfile.mkdtemp()) / "bench.db"
    rng = random.Random(1)
    names = ["甲", "乙", "丙", "丁"][: args.players]
    with Ledger(path) as led:
        s = led.new_session(f"bench {time.time():.0f}", args.rules, names)
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(args.hands):
            led.record_hand(s, hand(rng, args.players, led.state(s).dealer))
        rec, cpu = time.perf_counter() - t0, time.process_time() - c0
    with Ledger(path) as led:  # a fresh object: settling replays every event from the file
        t0 = time.perf_counter()
        res = led.settle(s.id)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        led.settlement(s.id, "pairwise")
        warm = time.perf_counter() - t0
        st = led.state(s.id)
    size = path.stat().st_size + sum(p.stat().st_size for p in path.parent.glob(path.name + "-*"))
    print(f"recorded {args.hands} {args.rules} hands in {rec:.2f} s: {args.hands / rec:.0f} hands/s "
          f"({rec / args.hands * 1000:.2f} ms per hand, of which {cpu / args.hands * 1000:.2f} ms CPU; "
          "each hand is its own fsynced transaction)")
    print(f"settle (cold: replay {st.events} events, {len(st.rounds)} rounds, lock): {cold * 1000:.0f} ms; "
          f"pairwise settlement (warm): {warm * 1000:.1f} ms")
    print(f"final points {res.points}; {len(res.transfers)} payments; file {size / 1e6:.1f} MB at {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
