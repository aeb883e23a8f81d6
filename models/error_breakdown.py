"""Where the per-card figure is lost: every labelled card's outcome (read, missed, misread) by how
much of its glyph shows, how large the glyph is in the photo, and which row the card lies in;
and the scenes not exact by what spoils them.

The per-card target asks that errors fall to a fifth of what they are; this says whether they sit
in a few kinds of card a fix could aim at, or spread over every kind. A face's glyph share is
that of its best glyph (the labels' ``glyphs[].visible``; a card under half is labelled
``ignore`` and not counted), its size the shorter side of that glyph's box in photo pixels.

    zipai eval errors data/detector/heldout [--model M/manifest.json] [--limit N]
        [--sheet lost.jpg]

``--sheet`` draws every face card lost, cut from the photo around its label box and captioned
(``x7>x10`` a misread, ``x9>-`` a miss; the glyph's visible share; the row), to judge by eye
which of them a player could have read.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from zipai.models.evaluate import SceneMatch, category_name, labelled_scenes, layout_base, match_scene
from zipai.vision.decode import load
from zipai.vision.detector import Detector
from zipai.vision.scan import scan_decoded

VISIBLE_EDGES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.99)
SIZE_EDGES = (0, 20, 30, 40, 60)
TILE = 128  # a lost card's picture on the sheet, pixels a side


@dataclass(frozen=True, slots=True)
class CardOutcome:
    """One labelled card, as the figures judged it."""

    name: str  # x1..d10 or back
    row: str  # hand, table or loose
    visible: float  # the best glyph's visible share (1.0 for a back)
    size: int  # the shorter side of its label box, photo pixels
    outcome: str  # read, missed or misread
    read_as: str = ""  # a misread's class
    box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # the label box, x y w h


def outcomes(annotations: Sequence[dict[str, Any]], m: SceneMatch) -> list[CardOutcome]:
    """Each labelled card of a scene (ignored ones left out, as the figures leave them) with what
    became of it.

    >>> anns = [{"category_id": 1, "bbox": [0, 0, 30, 40], "row": "hand",
    ...          "glyphs": [{"visible": 0.7}, {"visible": 0.4}]},
    ...         {"category_id": 21, "bbox": [0, 0, 50, 20], "row": "loose", "glyphs": []},
    ...         {"category_id": 2, "bbox": [0, 0, 9, 9], "row": "hand", "glyphs": [], "ignore": True}]
    >>> m = SceneMatch(cards=2, missed_at=[1])
    >>> [(c.name, c.visible, c.size, c.outcome) for c in outcomes(anns, m)]
    [('x1', 0.7, 30, 'read'), ('back', 1.0, 20, 'missed')]
    """
    missed = set(m.missed_at)
    misread = {k: read for k, (_, read) in zip(m.misread_at, m.wrong, strict=True)}
    out = []
    for k, a in enumerate(annotations):
        if a.get("ignore"):
            continue
        glyphs = a.get("glyphs") or []
        visible = max((float(g["visible"]) for g in glyphs), default=1.0)
        outcome = "missed" if k in missed else "misread" if k in misread else "read"
        x, y, w, h = (float(v) for v in a["bbox"])
        out.append(CardOutcome(category_name(int(a["category_id"])), str(a.get("row", "?")), visible,
                               int(min(w, h)), outcome, misread.get(k, ""), (x, y, w, h)))
    return out


def tile(photo: Image.Image, card: CardOutcome, scale: float = 1.0) -> Image.Image:
    """The square around a card's label box, twice its longer side, scaled to ``TILE`` (parts
    outside the photo black, as they are); ``scale`` photo pixels to one of ``photo``'s."""
    x, y, w, h = (v / scale for v in card.box)
    r = max(w, h)
    cx, cy = x + w / 2, y + h / 2
    return photo.crop((round(cx - r), round(cy - r), round(cx + r), round(cy + r))).resize((TILE, TILE))


def caption(card: CardOutcome) -> str:
    """``x7>x10 0.71 hand``: the card, what it was read as (``-`` for a miss), glyph share, row."""
    return f"{card.name}>{card.read_as or '-'} {card.visible:.2f} {card.row}"


def sheet(tiles: Sequence[tuple[Image.Image, str]], columns: int = 10) -> Image.Image:
    """The tiles in rows, each captioned underneath."""
    rows = max(1, -(-len(tiles) // columns))
    out = Image.new("RGB", (columns * (TILE + 2), rows * (TILE + 16)), "white")
    draw = ImageDraw.Draw(out)
    for i, (im, text) in enumerate(tiles):
        x, y = (i % columns) * (TILE + 2), (i // columns) * (TILE + 16)
        out.paste(im, (x, y))
        draw.text((x + 2, y + TILE + 2), text, fill="black")
    return out


@dataclass(frozen=True, slots=True)
class Row:
    """The cards of one bin: how many, and how many of each outcome."""

    label: str
    cards: int
    missed: int
    misread: int

    @property
    def errors(self) -> int:
        return self.missed + self.misread


def binned(cards: Iterable[CardOutcome], value: Callable[[CardOutcome], float],
           edges: Sequence[float], fmt: str = "{:g}") -> list[Row]:
    """Count the outcomes per bin ``[edges[i], edges[i+1])`` of ``value``, the last bin open;
    a card under the first edge is not counted.

    >>> cs = [CardOutcome("x1", "hand", v, 30, o) for v, o in
    ...       ((0.55, "missed"), (0.65, "read"), (1.0, "misread"), (1.0, "read"))]
    >>> [(r.label, r.cards, r.missed, r.misread) for r in binned(cs, lambda c: c.visible, (0.5, 0.99))]
    [('0.5-0.99', 2, 1, 0), ('0.99+', 2, 0, 1)]
    """
    cards = list(cards)
    rows = []
    for i, lo in enumerate(edges):
        hi = edges[i + 1] if i + 1 < len(edges) else None
        sel = [c for c in cards if value(c) >= lo and (hi is None or value(c) < hi)]
        label = f"{fmt.format(lo)}-{fmt.format(hi)}" if hi is not None else f"{fmt.format(lo)}+"
        rows.append(Row(label, len(sel), sum(c.outcome == "missed" for c in sel),
                        sum(c.outcome == "misread" for c in sel)))
    return rows


def grouped(cards: Iterable[CardOutcome], key: Callable[[CardOutcome], str]) -> list[Row]:
    """Count the outcomes per value of ``key``, in the order the values first appear."""
    counts: dict[str, list[int]] = {}
    for c in cards:
        t = counts.setdefault(key(c), [0, 0, 0])
        t[0] += 1
        t[1] += c.outcome == "missed"
        t[2] += c.outcome == "misread"
    return [Row(k, *v) for k, v in counts.items()]


def spoilers(m: SceneMatch) -> str:
    """What keeps a scene from being exact: its missed cards, misreads and extra detections, named
    together (``"exact"`` when there are none)."""
    parts = [name for name, n in (("missed", len(m.missed)), ("misread", len(m.wrong)),
                                  ("extra", m.extra)) if n]
    return " + ".join(parts) or "exact"


def print_table(title: str, rows: Sequence[Row], total_errors: int) -> None:
    print(title)
    print(f"  {'':<14}{'cards':>7}{'missed':>8}{'misread':>9}{'error':>8}{'of errors':>11}")
    for r in rows:
        rate = 100 * r.errors / r.cards if r.cards else 0.0
        share = 100 * r.errors / total_errors if total_errors else 0.0
        print(f"  {r.label:<14}{r.cards:>7}{r.missed:>8}{r.misread:>9}{rate:>7.2f}%{share:>10.1f}%")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zipai eval errors", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, nargs="+",
                   help="rendered COCO folders (annotations.json, images/), pooled")
    p.add_argument("--model", type=Path, default=None, help="manifest.json (default: the shipped model)")
    p.add_argument("--limit", type=int, default=0, help="only the first N images of each folder")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--sheet", type=Path, default=None,
                   help="draw every face card lost into this image (.png or .jpg)")
    args = p.parse_args(argv)
    try:
        scenes = labelled_scenes(args.data, args.limit)
        det = Detector(args.model, threads=args.threads)
    except ValueError as exc:
        print(f"zipai eval errors: {exc}", file=sys.stderr)
        return 2
    cards: list[CardOutcome] = []
    scenes_by: Counter = Counter()
    extras = 0
    tiles: list[tuple[Image.Image, str]] = []
    for folder, im, anns in scenes:
        decoded = load(folder / im["file_name"])
        sc = scan_decoded(decoded, det, layout_base(im["layout"]) if "layout" in im else None)
        m = match_scene([(d.card, d.box) for d in sc.detections], anns)
        these = outcomes(anns, m)
        cards += these
        if args.sheet:
            tiles += [(tile(decoded.image, c, decoded.scale), caption(c)) for c in these
                      if c.outcome != "read" and c.name != "back"]
        scenes_by[spoilers(m)] += 1
        extras += m.extra
    lost = Counter(c.outcome for c in cards)
    errors = lost["missed"] + lost["misread"]
    read = len(cards) - errors
    names = ", ".join(str(f) for f in args.data)
    print(f"{len(scenes)} scenes of {names}: {len(cards)} cards, {read} read "
          f"({100 * read / max(len(cards), 1):.2f}%), {errors} not ({lost['missed']} missed, "
          f"{lost['misread']} misread); {extras} extra detections")
    if cards:
        goal = int(len(cards) * 0.005)
        print(f"at 99.5% per card at most {goal} cards may be lost: {errors - goal} fewer than now "
              f"({100 * (errors - goal) / max(errors, 1):.0f}% of the errors)")
    faces = [c for c in cards if c.name != "back"]
    print_table("faces, by the visible share of the best glyph:",
                binned(faces, lambda c: c.visible, VISIBLE_EDGES), errors)
    print_table("faces, by the glyph's shorter side in photo pixels:",
                binned(faces, lambda c: c.size, SIZE_EDGES, "{:.0f}"), errors)
    by_row = grouped(cards, lambda c: f"{c.row} {'back' if c.name == 'back' else 'face'}")
    print_table("cards, by row:", sorted(by_row, key=lambda r: r.label), errors)
    print_table("faces, by class (the ten most lost):",
                sorted(grouped(faces, lambda c: c.name), key=lambda r: -r.errors)[:10], errors)
    print("scenes, by what keeps them from exact:")
    for k, n in scenes_by.most_common():
        print(f"  {k:<28}{n:>5}")
    if args.sheet:
        sheet(tiles).save(args.sheet, quality=85)  # quality counts for a .jpg only
        print(f"{len(tiles)} face cards lost drawn in {args.sheet}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
