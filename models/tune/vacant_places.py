"""``zipai tune vacant-places``: when a place of the teaching layout the finder missed holds no card.

Teaching by place reads a missed face at its place; a place where no card lies must refuse the
photo instead ("row 1, place 10: no card there"). The learner decides from the crop at the
place (``zipai.vision.deck.vacant_scores``): how far the ring round the glyph lies from the
found faces' paper colour, in spreads of theirs, and its ink as a share of theirs. This tuner
renders validation decks' teaching photos (never held-out ones, which are for figures): good,
slanted and casual photos with 3 faces hidden from the finder (the thin 一, the red 七 and the
faintest print: ``zipai.models.eval_decks.Blindfold``), where a card lies at each missed place,
and photos with one card left out, where the row's last place is bare. It prints both kinds'
scores and each setting's errors on them (no writing: the constants live in the code).
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import Any

import numpy as np

from zipai.datasets.decks import deck_refs
from zipai.datasets.teach import render_teach
from zipai.models.eval_decks import Blindfold, blind_cards
from zipai.models.evaluate import inside
from zipai.vision import deck as D
from zipai.vision.decode import decode
from zipai.vision.detector import Detector

PAPER = (0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.5)
INK = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
BLINDED = ("good", "slanted", "casual")


def _turned(q: int, w: float, h: float, x: float, y: float) -> tuple[float, float]:
    return ((x, y), (y, w - x), (w - x, h - y), (h - y, x))[q]


def samples(det: Any, photo: bytes, label: dict[str, Any]) -> list[tuple[bool, bool, float, float]]:
    """(a card lies there, the reader reads a face there, paper score, ink score) at each place
    the finder missed."""
    decoded = decode(photo, "teaching photo")
    w, h = decoded.width, decoded.height
    q, turned, shown = D.locate(det, decoded)
    places = shown[4]
    if places is None:
        return []
    arr = np.asarray(turned.image, np.uint8)
    found, boxes = D.read_places(det, arr, places.boxes / turned.scale, places, turned.scale)
    scores = D.vacant_scores(arr, boxes, places)
    out = []
    for i, (paper, ink) in scores.items():
        x0, y0, x1, y1 = (float(v) * turned.scale for v in boxes[i])
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        there = any(inside(centre, [_turned(q, w, h, float(x), float(y)) for x, y in f["card_corners"]])
                    for f in label["faces"])
        out.append((there, found[i].card in D.CARD_NAMES, paper, ink))
    return out


def _jpeg(img: Any) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=92)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="zipai tune vacant-places", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--decks", type=int, default=12, help="validation decks to render (default 12)")
    p.add_argument("--seed", type=int, default=3, help="the validation decks' seed (default 3)")
    p.add_argument("--size", type=int, nargs=2, default=(1600, 1200), metavar=("W", "H"))
    a = p.parse_args(argv)
    if a.decks < 1:
        print("zipai tune vacant-places: --decks is at least 1", file=sys.stderr)
        return 2
    det = Detector(embed=True)
    rows: list[tuple[bool, bool, float, float]] = []
    for ref in deck_refs(a.seed, a.decks, "val"):
        for variant in (*BLINDED, "missing"):
            img, label = render_teach(ref, variant, tuple(a.size))
            photo = _jpeg(img)
            seen = det
            if variant != "missing":
                seen = Blindfold(det, photo, label, blind_cards(det, photo, label, 3))
            got = samples(seen, photo, label)
            rows += got
            print(f"  {ref.id} {variant}: " + ", ".join(
                f"{'card' if t else 'bare'} {'face' if f else 'none'} {pa:.2f}/{ink:.2f}"
                for t, f, pa, ink in got),
                file=sys.stderr, flush=True)
    cards = [(f, pa, ink) for t, f, pa, ink in rows if t]
    bare = [(f, pa, ink) for t, f, pa, ink in rows if not t]
    print(f"{len(cards)} missed places with a card ({sum(not f for f, _, _ in cards)} read as no face), "
          f"{len(bare)} bare places ({sum(f for f, _, _ in bare)} read as a face), on {a.decks} "
          "validation decks")
    for what, xs in (("card", cards), ("bare", bare)):
        if xs:
            arr = np.asarray([(pa, ink) for _, pa, ink in xs])
            pa, ink = arr[:, 0], arr[:, 1]
            print(f"  {what}: paper score min {pa.min():.2f} median {np.median(pa):.2f} max {pa.max():.2f}; "
                  f"ink share min {ink.min():.2f} median {np.median(ink):.2f} max {ink.max():.2f}")
    print("a place read as no face is bare when paper > P or ink < I; (P, I): cards called bare / bare "
          "places called cards, counting also the reads alone (a place read as a face is a card)")
    for pa in PAPER:
        cells = []
        for ink in INK:
            wrong_card = sum(not f and (x > pa or y < ink) for f, x, y in cards)
            wrong_bare = sum(f or not (x > pa or y < ink) for f, x, y in bare)
            cells.append(f"{ink:.2f}: {wrong_card}/{wrong_bare}")
        print(f"  paper > {pa:>4.1f}  " + "  ".join(cells))
    # a card the reader cannot name (a brush 貳 read as none): is its paper and ink enough alone?
    print("as if every card were read as no face (paper and ink alone): cards called bare")
    for pa in PAPER:
        print(f"  paper > {pa:>4.1f}  " + "  ".join(
            f"{ink:.2f}: {sum(x > pa or y < ink for _, x, y in cards)}" for ink in INK))
    print(f"shipped: paper > {D.VACANT_PAPER}, ink < {D.VACANT_INK}")
    return 0
