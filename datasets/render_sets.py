"""Render every labelled scene set the detector's figures and choices are measured on.

Rendered scenes are not kept in the repository (hundreds of megabytes), and a render depends
only on its seed, split, size, style and index, so one table (``zipai.datasets.sets``) says how
to make each set again on any machine, and the README's figures can be checked from a fresh
clone. A folder that already holds its annotations is left as it is.

    zipai data sets                    # figures and validation (about 10 min)
    zipai data sets --sets selector    # the selector's 1,150 training scenes
    zipai data sets --dry-run          # print the commands only
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

from .sets import SETS, plan


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zipai data sets", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", nargs="+", default=["figures", "validation"], help=f"of {', '.join(SETS)}")
    p.add_argument("--data", type=Path, default=Path("data/detector"),
                   help="the folder the sets go under (default: data/detector)")
    p.add_argument("--dry-run", action="store_true", help="print the commands, render nothing")
    args = p.parse_args(argv)
    try:
        todo = plan(args.sets, args.data)
    except ValueError as exc:
        print(f"zipai data sets: {exc}", file=sys.stderr)
        return 2
    for s, missing in todo:
        cmd = s.command(args.data)
        line = shlex.join(cmd)
        if not missing:
            print(f"# there already: {line}")
            continue
        print(line, flush=True)
        if args.dry_run:
            continue
        run = [sys.executable, "-m", "zipai", *cmd[1:], "--quiet"]
        rc = subprocess.call(run)
        if rc:
            print(f"zipai data sets: rendering {s.folder} failed (exit {rc})", file=sys.stderr)
            return rc
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
