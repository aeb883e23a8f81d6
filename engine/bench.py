"""``zipai bench``: hands per second through the full public call, on a fixed seeded set.

Half the set are winning structures from the layout generator, half random 21-card hands;
the three rule sets take turns. Run it on an idle machine: it measures one core.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from typing import Any

from .api import score
from .generate import random_hand, random_layout
from .options import RULES_VERSIONS

RULES = ("hunan", "guangxi", "guilin")


def bench_set(n: int = 10_000, seed: int = 2026) -> list[dict[str, Any]]:
    """The fixed benchmark inputs: the same list for the same (n, seed)."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for i in range(n):
        rules = RULES[i % 3]
        if i % 2 == 0:
            out.append(random_layout(rng, rules=rules).to_input())
        else:
            hand = [str(c) for c in random_hand(rng, 21)]
            out.append({"rules": rules, "players": 3, "dealer": 0, "winner": 0,
                        "won_by": "self_draw", "groups": [], "hand": hand})
    return out


def results_digest(inputs: list[dict[str, Any]]) -> str:
    """One hash of every result's JSON line, in order: a redesign that must not change the
    engine's output is checked by comparing it with the digest of the version before."""
    h = hashlib.sha256()
    for obj in inputs:
        h.update(json.dumps(score(obj), ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


def result_lines(inputs: list[dict[str, Any]]) -> list[str]:
    """One line per layout: its number and the SHA-256 of its result's JSON without the
    ``rules`` echo (which names the rules version and every option, so it moves whenever an
    option is added): two versions' lines, compared with ``diff``, name the layouts that moved."""
    out = []
    for n, obj in enumerate(inputs):
        r = score(obj)
        r.pop("rules", None)
        out.append(f"{n} {hashlib.sha256(json.dumps(r, ensure_ascii=False).encode()).hexdigest()}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="zipai bench", description=__doc__)
    p.add_argument("--count", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--repeat", type=int, default=3, help="timed passes; the best is reported")
    p.add_argument("--digest", action="store_true",
                   help="instead of timing, print the SHA-256 of every result's JSON, one line each: "
                        "two versions of the engine that print the same digest score the set alike")
    p.add_argument("--each", action="store_true",
                   help="instead of timing, print each layout's number and the SHA-256 of its result "
                        "without the rules echo, one line each: diff two versions' lines to list the "
                        "layouts whose score moved")
    p.add_argument("--rules-version", type=int, choices=sorted(RULES_VERSIONS), metavar="N",
                   help="score every layout under this rules version (default: the current one), to "
                        "compare the readings with --each")
    args = p.parse_args(argv)
    inputs = bench_set(args.count, args.seed)
    if args.rules_version is not None:
        inputs = [{**obj, "options": {"rules_version": args.rules_version}} for obj in inputs]
    if args.each:
        print("\n".join(result_lines(inputs)))
        return 0
    if args.digest:
        print(f"{len(inputs)} layouts, results sha256 {results_digest(inputs)}")
        return 0
    wins = sum(score(obj)["winning"] for obj in inputs)  # also warms nothing: caches are cleared below
    best = float("inf")
    for _ in range(args.repeat):
        from .decompose import free_splits

        free_splits.cache_clear()
        t0 = time.perf_counter()
        for obj in inputs:
            score(obj)
        best = min(best, time.perf_counter() - t0)
    print(f"{len(inputs)} layouts ({wins} winning), best of {args.repeat} passes: "
          f"{best:.3f} s, {len(inputs) / best:,.0f} hands/s on one core")
    return 0
