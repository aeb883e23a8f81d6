"""One card found twice down its column, one of the finds left out by the rules (``leave_twin``).

The finder can find one card twice: a glyph split in two (a stroke of 二 on its own, a radical),
a card's far end read as the same face turned round, a back's pattern found twice. Down a column
the two finds lie next to each other, and the column then holds a card too many: four faces
that are no group (``x1 x2 x2 x3``), five cards of a concealed group, or a 偎 of three taken for
a 提 of four (two backs whose boxes overlap far more than a column's cards do). Where the column
without one of the two is a group, that find is the double.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..detector import Detection
from ..postprocess import iou_matrix
from .chance import outcome
from .column import LOOSE, Column, proposed_state
from .repairs import Draft, _makes_group, laid_columns

TWIN_KEPT = ("without the {card} found twice here (one card's glyph found twice, next to each other "
             "down the column): the other cards make a group")
TWIN_LEFT = ("left out: the same card found twice next to each other down its column, and the column is a "
             "group without it")


# two backs next to each other down a concealed column of four whose boxes overlap this much
# (intersection over union) are one back found twice: on validation the doubles overlapped 0.31
# to 0.50, two backs of a 提 at most 0.29 (the backs of a column overlap by the step only)
TWIN_BACKS = 0.3


def twins(c: Column, dets: Sequence[Detection], seen: Counter[str] | None = None) -> list[int]:
    """Where in column ``c`` a find may be its neighbour's double: the later of each two finds
    of one card next to each other down a column of four or five cards that is no group, where
    the column without it is one (a column holds three or four cards, four of them alike); in a
    concealed column of four (a 提, or a 偎 with a back found twice), two backs whose boxes
    overlap over ``TWIN_BACKS``; in a column of four of one face (a 跑 or a 提 laid face up)
    whose face the layout shows more often than the deck's four (``seen``), each find after the
    first (a 碰 with a card found twice)."""
    if len(c.cards) == 4 and len(set(c.cards)) == 1 and c.cards[0] != "back":
        return [1, 2, 3] if seen is not None and seen[c.cards[0]] > 4 else []
    if len(c.cards) == 4 and c.cards.count("back") >= 3 and _makes_group(c.cards):
        return [k for k in range(1, 4) if c.cards[k] == c.cards[k - 1] == "back"
                and _iou(dets[c.detections[k]].box, dets[c.detections[k - 1]].box) > TWIN_BACKS]
    if not 4 <= len(c.cards) <= 5 or _makes_group(c.cards):
        return []
    return [k for k in range(1, len(c.cards)) if c.cards[k] == c.cards[k - 1]
            and _makes_group(c.cards[:k] + c.cards[k + 1:])]


def _iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Two boxes' intersection over union, as the finder's own suppression measures it."""
    return float(iou_matrix(np.asarray(a), np.asarray(b))[0, 0])


def leave_twin(draft: Draft) -> Draft | None:
    """Let the rules leave out a card found twice down its column.

    Each laid column (claimed or the hand's, every card a find) of four or five cards that is no
    group but would be one without one of two finds of a card lying next to each other down it,
    or of four of a face the layout shows a fifth time (``twins``), gives that find up: of the
    two (of the four), the one the finder and reader are less sure of, set apart as a loose card.
    Only where the layout does not win as it stands (a card too many spoils the hand's split or
    its points) and exactly one such column exists, or every one does it the same way; the
    column and the find left out both say so (``settled``: doubts in ``assemble``), so the player
    checks it."""
    cols, dets = draft.columns, draft.detections
    if not draft.params.leave_twin:
        return None
    seen = Counter(x for c in cols if c.state != LOOSE for x in c.cards if x != "back")
    found = [(n, ks) for n in laid_columns(cols, dets) if not cols[n].name and not cols[n].reading
             and (ks := twins(cols[n], dets, seen))]
    if not found or any(len({cols[n].cards[k] for k in ks}) > 1 for n, ks in found):
        return None  # two different cards doubled in one column: no single way
    if outcome(cols, draft.base).winning:
        return None
    out = list(cols)
    for n, ks in found:
        c = cols[n]
        k = ks[0]
        # of the two finds, leave out the one the finder and reader are less sure of (of four alike,
        # the least sure of the four)
        pool = range(len(c.cards)) if len(set(c.cards)) == 1 and c.cards[0] != "back" else (k - 1, k)
        k = min(pool, key=lambda j: (dets[c.detections[j]].score, -j))
        kept = c.copy(detections=c.detections[:k] + c.detections[k + 1:], cards=c.cards[:k] + c.cards[k + 1:],
                      settled=TWIN_KEPT.format(card=c.cards[k]))
        kept.state = proposed_state(kept)
        out[n] = kept
        out.append(Column([c.detections[k]], [c.cards[k]], LOOSE, LOOSE, settled=TWIN_LEFT))
    return draft.with_columns(out)
