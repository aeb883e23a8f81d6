"""Render every labelled scene set the detector's figures and choices are measured on.

Rendered scenes are not kept in the repository (hundreds of megabytes), and a render depends
only on its seed, split, size, style and index, so this one table says how to make each set
again on any machine, and the README's figures can be checked from a fresh clone. A folder
that already holds its annotations is left as it is.

    python scripts/render_scenes.py                    # figures and validation (about 10 min)
    python scripts/render_scenes.py --sets selector    # the selector's 1,150 training scenes
    python scripts/render_scenes.py --dry-run          # print the commands only
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class SceneSet:
    """One ``zipai data render`` folder under ``data/detector``."""

    folder: str
    count: int
    seed: int
    split: str
    style: int = 1
    start: int = 0

    def command(self, data: Path) -> list[str]:
        cmd = ["zipai", "data", "render", "--out", str(data / self.folder), "--count", str(self.count),
               "--seed", str(self.seed), "--split", self.split]
        if self.start:
            cmd += ["--start", str(self.start)]
        if self.style != 1:
            cmd += ["--style", str(self.style)]
        return cmd


SETS: dict[str, tuple[SceneSet, ...]] = {
    # held-out fonts, never trained or tuned on: the README's figures only
    "figures": (SceneSet("heldout", 300, 7, "heldout"),
                SceneSet("heldout_style2", 100, 11, "heldout", style=2),
                SceneSet("heldout_style3", 100, 11, "heldout", style=3)),
    # the 800 validation scenes every setting and model was chosen on
    "validation": (SceneSet("val_tune400", 400, 6, "val", start=200),
                   SceneSet("val_unseen", 200, 12, "tune"),
                   SceneSet("val_style2", 200, 14, "tune", style=2)),
    # what the selector learns from (python -m zipai.models.selector): the recipe's val scenes
    # and 950 in the reader's fourteen faces
    "selector": (SceneSet("val", 200, 6, "val"),
                 SceneSet("sel_reader", 300, 60, "reader"),
                 SceneSet("sel_reader3", 200, 62, "reader", style=3),
                 SceneSet("sel_reader2", 150, 61, "reader", style=2),
                 SceneSet("sel_reader4", 300, 63, "reader")),
}


def plan(names: list[str], data: Path) -> list[tuple[SceneSet, bool]]:
    """Each set of the named groups, and whether it still has to be rendered."""
    unknown = [n for n in names if n not in SETS]
    if unknown:
        raise ValueError(f"unknown scene set {unknown[0]!r} (use {', '.join(SETS)})")
    return [(s, not (data / s.folder / "annotations.json").exists()) for n in names for s in SETS[n]]


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
