"""What teaching a deck is worth: on a held-out deck set (``zipai data render --decks``), each
deck learnt from its teaching photo as ``zipai deck learn`` does, then its table scenes scanned
untaught and taught, as ``zipai scan`` and ``zipai scan --deck`` do. Prints per card, scenes
exact, scenes scored as the scene, and the teaching time, overall and per deck style.

With ``--evening K`` a deck also gets better as an evening goes: its first K scenes are scanned
with the deck, every misread card is corrected (as a tap in the app's review does) and added to
the deck, and all three (untaught, taught, taught and corrected) are measured on the scenes left.

    zipai data render --decks --out data/decks/heldout --count 24 --seed 7 --split heldout
    python scripts/eval_decks.py data/decks/heldout [--limit N] [--evening K]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from zipai.datasets.decks import DeckSetError, read_deck_set
from zipai.vision.deck import CROP, CROP_MARGIN, Deck, Example, TeachRefused, deck_detector, derive, learn
from zipai.vision.decode import load
from zipai.vision.detector import Detector
from zipai.vision.evaluate import category_name, labelled_scenes, layout_base, match_scene, same_score
from zipai.vision.preprocess import cut_crops
from zipai.vision.scan import scan_decoded


@dataclass
class Tally:
    """Cards and scenes, each way of reading them (untaught, taught, taught and corrected)."""

    cards: int = 0
    read: list[int] = field(default_factory=lambda: [0, 0, 0])
    scenes: int = 0
    exact: list[int] = field(default_factory=lambda: [0, 0, 0])
    scored: list[int] = field(default_factory=lambda: [0, 0, 0])

    def line(self, what: str, ways: int = 2) -> str:
        def pc(k: int) -> str:
            return f"{self.read[k] / max(1, self.cards):.4f}"

        def sc(v: list[int], k: int) -> str:
            return f"{v[k] / max(1, self.scenes):.3f}"

        def row(f: object) -> str:
            return " -> ".join(f(k) for k in range(ways))  # type: ignore[operator]

        return (f"{what}: {self.cards} cards, {self.scenes} scenes | per card {row(pc)} | "
                f"scenes exact {row(lambda k: sc(self.exact, k))} | "
                f"scored as the scene {row(lambda k: sc(self.scored, k))}")


def scan_deck_scenes(det: Detector, deck: Deck | None, folder: Path, tally: Tally, k: int,
                     limit: int = 0, skip: int = 0) -> None:
    """Scan one deck's scenes after the first ``skip`` (``k`` 0 untaught, 1 taught, 2 taught and
    corrected) into ``tally``."""
    for _, im, anns in labelled_scenes([folder], limit)[skip:]:
        decoded = load(folder / im["file_name"])
        base = layout_base(im["layout"]) if "layout" in im else None
        sc = scan_decoded(decoded, det, base, deck=deck)
        m = match_scene([(d.card, d.box) for d in sc.detections], anns)
        if k == 0:
            tally.cards += m.cards
            tally.scenes += 1
        tally.read[k] += m.read
        tally.exact[k] += m.exact
        if "layout" in im:
            tally.scored[k] += same_score(sc.assembled.layout, sc.assembled.complete, im["layout"])


def evening(det: Detector, deck: Deck, folder: Path, k: int) -> Deck:
    """The deck after its first ``k`` scenes: each misread card's crop added with its true card."""
    new = []
    for _, im, anns in labelled_scenes([folder])[:k]:
        decoded = load(folder / im["file_name"])
        sc = scan_decoded(decoded, det, deck=deck)
        m = match_scene([(d.card, d.box) for d in sc.detections], anns)
        arr = np.asarray(decoded.image, np.uint8)
        for i, a in zip(m.misreads, m.misread_at, strict=True):
            box = np.asarray([sc.detections[i].box], np.float32) / decoded.scale
            card = category_name(int(anns[a]["category_id"]))
            new.append(Example(card, "review", cut_crops(arr, box, CROP, CROP_MARGIN)[0]))
    return derive(det, deck.name, [*deck.examples, *new], deck.created) if new else deck


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("decks", type=Path, help="a folder written by zipai data render --decks")
    ap.add_argument("--limit", type=int, default=0, help="at most this many decks (0: all)")
    ap.add_argument("--scenes", type=int, default=0, help="at most this many scenes a deck (0: all)")
    ap.add_argument("--evening", type=int, default=0, metavar="K",
                    help="correct the misreads of each deck's first K scenes into it, measure on the rest")
    args = ap.parse_args(argv)
    try:
        entries = read_deck_set(args.decks)
    except DeckSetError as exc:
        print(f"eval_decks: {exc}", file=sys.stderr)
        return 2
    entries = entries[: args.limit or None]
    det = deck_detector()
    total, styles = Tally(), {}
    seconds: list[float] = []
    refused = []
    for e in entries:
        try:
            taught = learn(e.teach.read_bytes(), e.id, det)
        except TeachRefused as exc:
            refused.append(f"{e.id}: {exc}")
            continue
        seconds.append(taught.seconds)
        style = styles.setdefault(e.style, Tally())
        decks: list[Deck | None] = [None, taught.deck]
        if args.evening:
            decks.append(evening(det, taught.deck, e.scenes, args.evening))
        for k, deck in enumerate(decks):
            for t in (total, style):
                scan_deck_scenes(det, deck, e.scenes, t, k, args.scenes, args.evening)
        print(f"  {e.id} ({e.font}, style {e.style}): taught in {taught.seconds:.2f} s, "
              f"{len(taught.warnings)} warnings", file=sys.stderr)
    print(f"{len(entries)} held-out decks, {len(refused)} teaching photos refused")
    for r in refused:
        print(f"  refused {r}")
    ways = 3 if args.evening else 2
    head = "untaught -> taught" + (f" -> and corrected on {args.evening} scenes" if args.evening else "")
    print(total.line(head, ways))
    for s in sorted(styles):
        print(styles[s].line(f"  style {s}", ways))
    if seconds:
        print(f"teaching time: median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
