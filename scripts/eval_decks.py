"""What teaching a deck is worth: on a held-out deck set (``zipai data render --decks``), each
deck learnt from its teaching photo as ``zipai deck learn`` does, then its table scenes scanned
untaught and taught, as ``zipai scan`` and ``zipai scan --deck`` do. Prints per card, scenes
exact, scenes scored as the scene, and the teaching time, overall and per deck style.

    zipai data render --decks --out data/decks/heldout --count 24 --seed 7 --split heldout
    python scripts/eval_decks.py data/decks/heldout [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

from zipai.datasets.decks import DeckSetError, read_deck_set
from zipai.vision.deck import Deck, TeachRefused, deck_detector, learn
from zipai.vision.decode import load
from zipai.vision.detector import Detector
from zipai.vision.evaluate import labelled_scenes, layout_base, match_scene, same_score
from zipai.vision.scan import scan_decoded


@dataclass
class Tally:
    """Cards and scenes, untaught and taught."""

    cards: int = 0
    read: list[int] = field(default_factory=lambda: [0, 0])
    scenes: int = 0
    exact: list[int] = field(default_factory=lambda: [0, 0])
    scored: list[int] = field(default_factory=lambda: [0, 0])

    def line(self, what: str) -> str:
        def pc(k: int) -> str:
            return f"{self.read[k] / max(1, self.cards):.4f}"

        def sc(v: list[int], k: int) -> str:
            return f"{v[k] / max(1, self.scenes):.3f}"

        return (f"{what}: {self.cards} cards, {self.scenes} scenes | per card {pc(0)} -> {pc(1)} | "
                f"scenes exact {sc(self.exact, 0)} -> {sc(self.exact, 1)} | "
                f"scored as the scene {sc(self.scored, 0)} -> {sc(self.scored, 1)}")


def scan_deck_scenes(det: Detector, deck: Deck | None, folder: Path, tally: Tally, k: int,
                     limit: int = 0) -> None:
    """Scan one deck's scenes (``k`` 0 untaught, 1 taught) into ``tally``."""
    for _, im, anns in labelled_scenes([folder], limit):
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("decks", type=Path, help="a folder written by zipai data render --decks")
    ap.add_argument("--limit", type=int, default=0, help="at most this many decks (0: all)")
    ap.add_argument("--scenes", type=int, default=0, help="at most this many scenes a deck (0: all)")
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
        for k, deck in enumerate((None, taught.deck)):
            for t in (total, style):
                scan_deck_scenes(det, deck, e.scenes, t, k, args.scenes)
        print(f"  {e.id} ({e.font}, style {e.style}): taught in {taught.seconds:.2f} s, "
              f"{len(taught.warnings)} warnings", file=sys.stderr)
    print(f"{len(entries)} held-out decks, {len(refused)} teaching photos refused")
    for r in refused:
        print(f"  refused {r}")
    print(total.line("untaught -> taught"))
    for s in sorted(styles):
        print(styles[s].line(f"  style {s}"))
    if seconds:
        print(f"teaching time: median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
