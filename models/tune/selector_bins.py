"""Where the selector's bar cuts: the finds on either side of it, by the selector's probability.

A bar can only buy cards where, just under it, more finds are cards read right than finds on no
card. This sorts every find the selector weighs (in the look the detections come from) into
probability bins and counts, per bin and separately for faces and backs, the finds that are a
card read right, a card read as another class (kept, it costs nothing per card but is no gain)
and no card (kept, an extra detection). Labels as the selector's trainer gives them
(``zipai.models.selector.labels``). Validation scenes only: the held-out ones are for figures.

    zipai tune selector-bins data/detector/val_tune400 data/detector/val_unseen \\
        data/detector/val_style2 [--model M/manifest.json] [--edges 0.1 0.2 0.3 0.35 0.4 0.5]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from zipai.models.selector import labels, scene_finds
from zipai.vision.detector import Detector

from . import parser

EDGES = (0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.7)


@dataclass(frozen=True, slots=True)
class Bin:
    """The finds of one kind whose selector probability lies in ``[lo, hi)``."""

    kind: str
    lo: float
    hi: float
    right: int
    misread: int
    none: int


def bins(prob: np.ndarray, back: np.ndarray, right: np.ndarray, card: np.ndarray,
         edges: Sequence[float] = EDGES) -> list[Bin]:
    """Count the finds per kind and bin: ``right`` a card read as its class, ``card`` on a card
    at all (its find, read right or not), both per find; ``edges`` rising, the last bin open.

    >>> b = bins(np.array([0.15, 0.15, 0.6]), np.array([False, False, True]),
    ...          np.array([True, False, True]), np.array([True, False, True]), (0.1, 0.5))
    >>> [(x.kind, x.lo, x.right, x.misread, x.none) for x in b]
    [('face', 0.1, 1, 0, 1), ('face', 0.5, 0, 0, 0), ('back', 0.1, 0, 0, 0), ('back', 0.5, 1, 0, 0)]
    """
    prob, back = np.asarray(prob, float), np.asarray(back, bool)
    right, card = np.asarray(right, bool), np.asarray(card, bool)
    ends = [*edges, np.inf]
    out = []
    for kind, of_kind in (("face", ~back), ("back", back)):
        for lo, hi in pairwise(ends):
            m = of_kind & (prob >= lo) & (prob < hi)
            out.append(Bin(kind, float(lo), float(hi), int((m & right).sum()),
                           int((m & card & ~right).sum()), int((m & ~card).sum())))
    return out


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__, "selector-bins")
    p.add_argument("--edges", type=float, nargs="+", default=list(EDGES),
                   help="the bins' lower edges, rising (default: %(default)s)")
    args = p.parse_args(argv)
    edges = list(args.edges)
    if edges != sorted(set(edges)) or not all(0.0 <= e < 1.0 for e in edges):
        print(f"zipai tune selector-bins: --edges {' '.join(f'{e:g}' for e in edges)}: they must rise, each "
              "from 0 up to under 1", file=sys.stderr)
        return 2
    det = Detector(args.model)
    sel = det.config.postprocess.selector
    if sel is None:
        print("zipai tune selector-bins: the manifest has no selector", file=sys.stderr)
        return 2
    probs, backs, rights, cards_on = [], [], [], []
    for f in scene_finds(det, list(args.data), sel.floor, args.limit):
        right = labels(f.cards, f.boxes, f.annotations, False, f.scores)
        on_card = labels(f.cards, f.boxes, f.annotations, True, f.scores)
        keep = on_card >= 0  # finds on cards labelled ``ignore`` teach nothing
        probs.append(sel.probability(f.x)[keep])
        backs.append(np.asarray([c == "back" for c in f.cards], bool)[keep])
        rights.append(right[keep] == 1)
        cards_on.append(on_card[keep] == 1)
    if not probs:
        print("zipai tune selector-bins: no scenes", file=sys.stderr)
        return 2
    table = bins(np.concatenate(probs), np.concatenate(backs), np.concatenate(rights),
                 np.concatenate(cards_on), edges)
    names = ", ".join(str(d) for d in args.data)
    print(f"{len(probs)} scenes of {names}; the selector's bar is {sel.threshold:g}")
    print("  kind  probability    right  misread  no card")
    for b in table:
        hi = "" if np.isinf(b.hi) else f"{b.hi:g}"
        side = "kept" if b.lo >= sel.threshold else "turned away" if b.hi <= sel.threshold else "split"
        print(f"  {b.kind:<4}  {b.lo:g}-{hi:<8} {b.right:>7}  {b.misread:>7}  {b.none:>7}   {side}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
