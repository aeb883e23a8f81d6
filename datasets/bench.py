"""Measure scene rendering speed: images per second for one process and for a worker pool.

    zipai bench render --count 40 --size 1600x1200
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time

from zipai.datasets.scene import render_scene


def _one(args: tuple[int, tuple[int, int]]) -> int:
    i, size = args
    _, anns = render_scene(12345, "train", i, size)
    return len(anns)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="zipai bench render", description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=24)
    p.add_argument("--size", default="1600x1200")
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args(argv)
    try:
        size = tuple(int(v) for v in a.size.lower().split("x"))
        assert len(size) == 2 and a.count > 0
    except (ValueError, AssertionError):
        print(f"zipai bench render: bad --size {a.size!r} or --count {a.count}", file=sys.stderr)
        return 2
    jobs = [(i, size) for i in range(a.count)]
    t0 = time.perf_counter()
    labels = sum(_one(j) for j in jobs)
    single = a.count / (time.perf_counter() - t0)
    print(f"{a.size}: 1 process   {single:6.2f} img/s  ({labels / a.count:.1f} labels/img)")
    if a.workers > 1:
        t0 = time.perf_counter()
        with mp.get_context("fork").Pool(a.workers) as pool:
            sum(pool.imap_unordered(_one, jobs))
        multi = a.count / (time.perf_counter() - t0)
        print(f"{a.size}: {a.workers} processes {multi:6.2f} img/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
