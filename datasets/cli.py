"""``zipai data``: render synthetic table photos as COCO, and preview their labels."""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from typing import Any

# fonts.SPLITS, kept light to import
SPLITS = ("train", "val", "heldout", "reader", "tune", "wide", "select", "wider")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line and exits 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"zipai data {self.prog.split()[-1]}: {message}", file=sys.stderr)
        raise SystemExit(2)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1600x1200, got {text!r}") from None
    if w < 64 or h < 64 or w > 8000 or h > 8000:
        raise argparse.ArgumentTypeError(f"size {text} out of range (64..8000 per side)")
    return w, h


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {v}")
    return v


def _chance(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {v}")
    return v


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


class _Progress:
    """A plain stderr progress bar (no tqdm)."""

    def __init__(self, total: int, quiet: bool = False) -> None:
        self.total, self.done, self.t0, self.quiet = total, 0, time.time(), quiet
        self.last = 0.0

    def step(self, n: int = 1) -> None:
        self.done += n
        now = time.time()
        if self.quiet or (now - self.last < 0.5 and self.done < self.total):
            return
        self.last = now
        frac = self.done / max(1, self.total)
        rate = self.done / max(1e-6, now - self.t0)
        eta = (self.total - self.done) / max(rate, 1e-6)
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} {rate:.2f} img/s eta {eta:.0f}s ")
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


# out, seed, split, index, size, quality, style, compose_five, layouts
Job = tuple[str, int, str, int, tuple[int, int], int, int, float, str]


def _render_one(job: Job) -> tuple[int, dict[str, Any], list]:
    out, seed, split, index, size, quality, style, compose_five, layouts = job
    from .scene import render_scene_full

    img, anns, meta = render_scene_full(seed, split, index, size, style=style, compose_five=compose_five,
                                        layouts=layouts)
    name = f"images/{index:06d}.jpg"
    img.save(os.path.join(out, name), "JPEG", quality=quality)
    entry = {"file_name": name, "width": img.width, "height": img.height, **meta}
    return index, entry, anns


def render_dataset(out: str, count: int, seed: int, split: str = "train",
                   size: tuple[int, int] = (1600, 1200), workers: int = 2, start: int = 0,
                   quiet: bool = False, quality: int = 92, style: int = 1,
                   compose_five: float = 0.0, layouts: str = "classic") -> dict[str, Any]:
    """Render images ``start .. start+count-1`` into ``out`` and write ``annotations.json``
    (``compose_five``: the share of decks drawing 伍 from their face's 亻 and 五, recorded when
    not 0; ``layouts``: how the groups are laid, recorded when not "classic")."""
    if not 0.0 <= compose_five <= 1.0:
        raise ValueError(f"compose_five {compose_five!r} is a chance: between 0 and 1")
    from .fonts import faces
    from .scene import CATEGORIES

    faces(split)  # a missing font fails here, before any work
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    jobs = [(out, seed, split, i, size, quality, style, compose_five, layouts)
            for i in range(start, start + count)]
    results = run_jobs(_render_one, jobs, workers, quiet)
    images, annotations = [], []
    for idx in sorted(results):
        entry, anns = results[idx]
        images.append({"id": idx, **entry})
        for a in anns:
            annotations.append({"id": len(annotations) + 1, "image_id": idx, **a})
    coco = {
        "info": {"description": "Zipai synthetic table photos", "version": "1", "seed": seed,
                 "split": split, "style": style, "size": list(size), "spec": "datasets/LABELS.md",
                 **({"compose_five": compose_five} if compose_five else {}),
                 **({"layouts": layouts} if layouts != "classic" else {})},
        "categories": CATEGORIES, "images": images, "annotations": annotations,
    }
    with open(os.path.join(out, "annotations.json"), "w", encoding="utf-8") as f:
        json.dump(coco, f, ensure_ascii=False)
    return coco


# out, seed, split, index, size, quality, style, variant
TeachJob = tuple[str, int, str, int, tuple[int, int], int, int, str]


def _teach_one(job: TeachJob) -> tuple[int, dict[str, Any], list]:
    out, seed, split, index, size, quality, style, variant = job
    from .teach import DeckRef, render_teach

    img, label = render_teach(DeckRef.readable(seed, split, index, style), variant, size)
    name = f"images/{index:06d}.jpg"
    img.save(os.path.join(out, name), "JPEG", quality=quality)
    anns = label.pop("annotations")
    label = {"file_name": name, **label}
    write_json(os.path.join(out, "labels", f"{index:06d}.json"), label)
    entry = {"file_name": name, "width": img.width, "height": img.height, "split": split, "style": style,
             "font": label["deck"]["font"], "font_style": label["deck"]["font_style"],
             "deck": label["deck"]["id"], "variant": variant, "seed": seed, "index": index}
    return index, entry, anns


def write_json(path: str, data: Any) -> None:
    """Written whole or not at all: a reader never finds half a file."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
    os.replace(tmp, path)


def run_jobs(fn: Any, jobs: list, workers: int, quiet: bool) -> dict[int, tuple[dict[str, Any], list]]:
    """``fn`` over ``jobs`` in a pool of ``workers`` (one process when 1), results by index."""
    results: dict[int, tuple[dict[str, Any], list]] = {}
    bar = _Progress(len(jobs), quiet)
    if workers > 1 and len(jobs) > 1:
        # forkserver: workers start clean, never inheriting a caller's threads (torch, BLAS)
        ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
        with ctx.Pool(workers) as pool:
            for idx, entry, anns in pool.imap_unordered(fn, jobs, chunksize=1):
                results[idx] = (entry, anns)
                bar.step()
    else:
        for job in jobs:
            idx, entry, anns = fn(job)
            results[idx] = (entry, anns)
            bar.step()
    return results


def coco_file(results: dict[int, tuple[dict[str, Any], list]], info: dict[str, Any]) -> dict[str, Any]:
    from .scene import CATEGORIES

    images, annotations = [], []
    for idx in sorted(results):
        entry, anns = results[idx]
        images.append({"id": idx, **entry})
        for a in anns:
            annotations.append({"id": len(annotations) + 1, "image_id": idx, **a})
    return {"info": info, "categories": CATEGORIES, "images": images, "annotations": annotations}


def render_teach_set(out: str, count: int, seed: int, split: str = "heldout",
                     size: tuple[int, int] = (1600, 1200), workers: int = 2, start: int = 0,
                     quiet: bool = False, quality: int = 92, style: int = 1,
                     variant: str = "good") -> dict[str, Any]:
    """Teaching photos ``start .. start+count-1``, photo i of deck i of (seed, split, style): images/,
    labels/NNNNNN.json (one per photo) and annotations.json (COCO, for ``zipai data preview``)."""
    from .fonts import faces
    from .teach import VARIANTS

    if variant not in VARIANTS:
        raise ValueError(f"unknown teaching variant {variant!r} (use {', '.join(VARIANTS)})")
    faces(split)
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    os.makedirs(os.path.join(out, "labels"), exist_ok=True)
    jobs = [(out, seed, split, i, size, quality, style, variant) for i in range(start, start + count)]
    results = run_jobs(_teach_one, jobs, workers, quiet)
    coco = coco_file(results, {"description": "Zipai teaching photos", "version": "1", "seed": seed,
                           "split": split, "style": style, "variant": variant, "size": list(size),
                           "spec": "datasets/LABELS.md"})
    write_json(os.path.join(out, "annotations.json"), coco)
    return coco


def _cmd_render(argv: list[str]) -> int:
    p = _Parser(prog="zipai data render", description="Render labelled synthetic table photos (COCO).")
    p.add_argument("--out", required=True, help="output folder (images/ and annotations.json)")
    p.add_argument("--count", required=True, type=_positive, help="number of images")
    p.add_argument("--seed", type=_int, default=0, help="image i depends only on (seed, split, i)")
    p.add_argument("--split", choices=SPLITS, default=None,
                   help="font split (default train; heldout with --teach or --decks)")
    p.add_argument("--size", type=_size, default=(1600, 1200), help="WxH, default 1600x1200")
    p.add_argument("--workers", type=_positive, default=min(2, os.cpu_count() or 1))
    p.add_argument("--start", type=_int, default=0, help="first image index")
    p.add_argument("--quality", type=_positive, default=92, help="JPEG quality of the written files")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--style", type=int, choices=(1, 2, 3), default=1,
                   help="1: the generator the first detector was trained on (default); 2: decorated glyphs; "
                        "3: other decorations, which no training data shows")
    p.add_argument("--compose-five", type=_chance, default=0.0,
                   help="the share of decks that draw 伍 from their face's own 亻 and 五 (default 0: "
                        "the faces' own 伍, as every figure's scenes)")
    p.add_argument("--layouts", choices=("classic", "players"), default="classic",
                   help="how the groups are laid: classic (default, as every figure's scenes) or players "
                        "(row gaps tight to wide, rows in line or staggered, a concealed group as a face "
                        "over backs, discards in line: datasets/LABELS.md)")
    p.add_argument("--teach", action="store_true",
                   help="teaching photos instead of scenes: deck i's 20 faces in two rows of ten, with "
                        "labels/NNNNNN.json per photo")
    p.add_argument("--decks", action="store_true",
                   help="a deck set: --count decks, each a teaching photo and --scenes table scenes of that "
                        "deck (datasets/decks.py)")
    p.add_argument("--scenes", type=_positive, default=None,
                   help="with --decks: scenes per deck (default 5)")
    p.add_argument("--variant", default="good",
                   help="with --teach: good (default), upside_down, or a photo a learner must refuse: "
                        "missing, extra, duplicate, swapped, blurred, scene")
    a = p.parse_args(argv)
    if a.start < 0:
        p.error("--start must be 0 or more")
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        p.error(f"--out {a.out} exists and is not a folder")
    if a.teach and a.decks:
        p.error("--teach and --decks are two kinds of render: give one")
    if a.variant != "good" and not a.teach:
        p.error("--variant needs --teach")
    if (a.teach or a.decks) and (a.compose_five or a.start or a.layouts != "classic"):
        p.error("--compose-five, --layouts and --start are scene options, not ones of --teach or --decks")
    if a.decks and a.style != 1:
        p.error("--decks takes the styles 1, 2 and 3 in turn: leave --style out")
    if a.scenes is not None and not a.decks:
        p.error("--scenes needs --decks")
    a.scenes = a.scenes or 5
    if a.split is None:
        a.split = "heldout" if a.teach or a.decks else "train"
    t0 = time.time()
    if a.decks:
        from .decks import render_decks

        manifest = render_decks(a.out, a.count, a.seed, a.scenes, a.split, a.size, a.workers, a.quiet,
                                min(100, a.quality))
        dt = time.time() - t0
        n = a.count * (1 + a.scenes)
        print(f"wrote {len(manifest['decks'])} decks ({a.count} teaching photos, {a.count * a.scenes} "
              f"scenes) to {a.out} in {dt:.1f}s ({n / max(dt, 1e-6):.2f} img/s)")
        return 0
    if a.teach:
        coco = render_teach_set(a.out, a.count, a.seed, a.split, a.size, a.workers, a.start, a.quiet,
                                min(100, a.quality), a.style, a.variant)
    else:
        coco = render_dataset(a.out, a.count, a.seed, a.split, a.size, a.workers, a.start, a.quiet,
                              min(100, a.quality), a.style, a.compose_five, a.layouts)
    dt = time.time() - t0
    print(f"wrote {len(coco['images'])} images, {len(coco['annotations'])} labels to {a.out} "
          f"in {dt:.1f}s ({len(coco['images']) / max(dt, 1e-6):.2f} img/s)")
    return 0


def _cmd_preview(argv: list[str]) -> int:
    p = _Parser(prog="zipai data preview", description="Draw the labels of a few images into one sheet.")
    p.add_argument("dir", help="a folder written by zipai data render")
    p.add_argument("--out", default=None, help="sheet PNG (default DIR/contact_sheet.png)")
    p.add_argument("--count", type=_positive, default=6)
    p.add_argument("--width", type=_positive, default=800, help="width of each tile")
    p.add_argument("--colors", type=_int, default=0, help="save a palette PNG of this many colours (smaller)")
    a = p.parse_args(argv)
    from .preview import PreviewError, contact_sheet

    out = a.out or os.path.join(a.dir, "contact_sheet.png")
    try:
        contact_sheet(a.dir, out, a.count, a.width, a.colors)
    except PreviewError as exc:
        print(f"zipai data preview: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: zipai data {render,preview,sets} ...  (zipai data render --help)"
    if not argv:
        print(f"zipai data: missing subcommand; {usage}", file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help"):
        print(usage)
        return 0
    cmd, rest = argv[0], argv[1:]
    try:
        if cmd == "render":
            return _cmd_render(rest)
        if cmd == "preview":
            return _cmd_preview(rest)
        if cmd == "sets":
            from .render_sets import main as sets_main

            return sets_main(rest)
    except SystemExit as exc:
        return int(exc.code or 0)
    except ValueError as exc:  # FontError and friends: one line, no traceback
        print(f"zipai data {cmd}: {exc}", file=sys.stderr)
        return 2
    print(f"zipai data: unknown subcommand {cmd!r}; {usage}", file=sys.stderr)
    return 2
