"""Render every labelled scene set the detector's figures and choices are measured on.

Rendered scenes are not kept in the repository (hundreds of megabytes), and a render depends
only on its seed, split, size, style and index, so one table (``zipai.datasets.sets``) says how
to make each set again on any machine, and the README's figures can be checked from a fresh
clone. A folder that already holds its annotations is left as it is.

    python scripts/render_scenes.py                    # figures and validation (about 10 min)
    python scripts/render_scenes.py --sets selector    # the selector's 1,150 training scenes
    python scripts/render_scenes.py --dry-run          # print the commands only
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

from zipai.datasets.sets import SETS, SceneSet, plan

__all__ = ["SETS", "SceneSet", "main", "plan"]

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", nargs="+", default=["figures", "validation"], help=f"of {', '.join(SETS)}")
    p.add_argument("--data", type=Path, default=ROOT / "data" / "detector")
    p.add_argument("--dry-run", action="store_true", help="print the commands, render nothing")
    args = p.parse_args(argv)
    try:
        todo = plan(args.sets, args.data)
    except ValueError as exc:
        print(f"render_scenes: {exc}", file=sys.stderr)
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
            print(f"render_scenes: rendering {s.folder} failed (exit {rc})", file=sys.stderr)
            return rc
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
