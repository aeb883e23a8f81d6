"""The rendered scenes a training run learns from: rendered where missing, and a folder already
there checked to hold what the run asks for, since folder names repeat from run to run. Its
``TrainError`` is the one error a training run reports (a bad argument or missing data)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import data as D


class TrainError(ValueError):
    """A bad argument or missing data for training."""


def ensure_split(root: Path, split: str, count: int, seed: int, size: str, folder: str = "",
                 style: int = 1, start: int = 0) -> Path:
    """Render ``root/folder`` (default: the split's name) with the scene generator unless it is
    there already. A folder there already must have been rendered as asked (its font split, and
    no composed 伍 from ``zipai data render --compose-five``): folder names repeat from run to
    run, and a mismatch would train on other scenes than the record says."""
    d = root / (folder or split)
    if (d / "annotations.json").exists():
        had, had_five = rendered_as(d)
        if had is not None and had != split:
            raise TrainError(f"{d} holds scenes of font split {had}, not {split}: render into "
                             "another --data folder")
        if had_five:
            raise TrainError(f"{d} holds scenes rendered with --compose-five {had_five:g}, which no "
                             "recipe trains on: render into another --data folder")
        return d
    try:
        from zipai.datasets.cli import main as data_main  # the scene generator (issue 4)
    except ImportError as exc:
        raise TrainError(f"no data in {d} and the scene generator is not available ({exc})") from None
    print(f"rendering {count} {split} scenes into {d} …", file=sys.stderr)
    rc = data_main(["render", "--out", str(d), "--count", str(count), "--seed", str(seed),
                    "--split", split, "--size", size, "--style", str(style), "--start", str(start)])
    if rc or not (d / "annotations.json").exists():
        raise TrainError(f"rendering {split} into {d} failed (exit {rc})")
    return d


def rendered_as(d: Path) -> tuple[str | None, float]:
    """The font split a rendered folder records (None when it records none) and its share of
    composed 伍 (0 when it records none: every render before the option)."""
    try:
        info = json.loads((d / "annotations.json").read_text()).get("info", {})
    except (OSError, ValueError) as exc:
        raise TrainError(f"cannot read {d / 'annotations.json'}: {exc}") from None
    info = info if isinstance(info, dict) else {}
    split = info.get("split")
    five = info.get("compose_five", 0.0)
    return (split if isinstance(split, str) else None,
            float(five) if isinstance(five, (int, float)) and not isinstance(five, bool) else 0.0)


def extra_scenes(args: argparse.Namespace, part: str, split: str, seed: int) -> list[D.Scene]:
    """The scenes only the finder or only the reader learns from (plain, then decorated; render
    seed ``seed`` and ``seed + 1``), rendered at their own size if missing."""
    total, style2 = getattr(args, f"{part}_extra"), getattr(args, f"{part}_extra_style2")
    if not 0 <= style2 <= max(0, total):
        raise TrainError(f"--{part}-extra-style2 {style2} must lie between 0 and --{part}-extra {total}")
    size = getattr(args, f"{part}_extra_size")
    out: list[D.Scene] = []
    for folder, count, s, style in ((f"train_{part}", total - style2, seed, 1),
                                    (f"train_{part}_style2", style2, seed + 1, 2)):
        if count > 0:
            d = ensure_split(args.data, split, count, s, size, folder, style=style)
            out += D.load_coco(d)
    return out


def finder_extra(args: argparse.Namespace) -> list[D.Scene]:
    """The finder-only scenes, in the train faces, rendered small (it sees photos at 416 px)."""
    return extra_scenes(args, "finder", "train", args.seed + 20)


def reader_extra(args: argparse.Namespace) -> list[D.Scene]:
    """The reader-only scenes, in the faces of ``--reader-extra-split`` (none of the finder's
    ten)."""
    return extra_scenes(args, "reader", args.reader_extra_split, args.seed + 30)


def train_scenes(args: argparse.Namespace) -> tuple[list[D.Scene], list[D.Scene], int]:
    """The training scenes in the finder's faces (plain, then decorated) and the val scenes."""
    if args.reader_only and args.reader_scenes == "own":  # plain ones: the total less the decorated
        style2 = args.reader_train_style2
        if not 0 <= style2 <= args.reader_train:
            raise TrainError(f"--reader-train-style2 {style2} must lie between 0 and --reader-train "
                             f"{args.reader_train}")
        size, count, folder, seed, seed2 = (args.reader_extra_size, args.reader_train - style2,
                                            "train_reader_own", args.seed + 40, args.seed + 41)
    else:
        size, count, style2, folder, seed, seed2 = (args.size, args.train_count, args.style2_count,
                                                    "train", args.seed, args.seed + 8)
    tr_dir = ensure_split(args.data, "train", count, seed, size, folder)
    va_dir = ensure_split(args.data, "val", args.val_count, args.seed + 1, args.size)
    train_sc, val_sc = D.load_coco(tr_dir), D.load_coco(va_dir)
    n_style2 = 0
    if style2 > 0:
        s2_dir = ensure_split(args.data, "train", style2, seed2, size, f"{folder}_style2", style=2)
        s2 = D.load_coco(s2_dir)
        n_style2 = len(s2)
        train_sc = train_sc + s2
    print(f"data: {len(train_sc)} train ({n_style2} decorated), {len(val_sc)} val scenes", file=sys.stderr)
    return train_sc, val_sc, n_style2
