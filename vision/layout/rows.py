"""The rows of a layout: which columns lie in one row, and which row holds the claimed groups.

Pure functions of the columns' places (``geometry.columns`` draws the columns) and their cards'
classes: rows stacked one over the other or side by side, cards lying apart at a row's end or
in a run of their own (discards), and the claimed row told from the hand's by what only the
hand holds (a pair, a lone card). The rules of the game come later, in the repairs.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence

from ..detector import Detection
from .column import HAND, LOOSE, TABLE, Column, Params

# a column's cards, its extent along v, its head's place across
_Placed = tuple[list[int], float, float, float]


def rows_of(placed: Sequence[_Placed], dets: Sequence[Detection],
            fr: Sequence[tuple[float, float, float, float]], p: Params) -> list[Column]:
    """The columns (``placed``: indices into ``dets``, each with its extent along the layout and
    its head's place across; ``fr``: each detection's box in the layout's frame) as rows, each
    column named for its row (``TABLE``, ``HAND``, ``LOOSE``), the claimed row first."""
    # rows: columns whose extents along v overlap (unless their groups' heads lie apart); the
    # claimed row usually comes first
    cols = sorted(placed, key=lambda c: c[1])
    rows: list[list[_Placed]] = []
    end = -math.inf
    for c in cols:
        if rows and c[1] < end:
            rows[-1].append(c)
            end = max(end, c[2])
        else:
            rows.append([c])
            end = c[2]
    rows = [piece for row in rows for piece in _heads_apart(row, p)]
    split = False
    guess = ""
    # one long row besides strays (rows of a card or two): the two rows may sit side by side
    long = [r for r in range(len(rows)) if _cards(rows[r]) > p.stray_max and not _discards(rows[r], dets, p)]
    if len(long) == 1 and len(rows[long[0]]) >= 3 and not _pair_rows(rows, dets):
        pieces, split = _split_long_row(sorted(rows[long[0]], key=lambda c: c[3]), p,
                                        _widths(dets, fr))
        rows[long[0]:long[0] + 1] = pieces
    elif len(long) > 1:
        # a card or two at a row's end past a gap wider than the row's columns keep is a
        # discard beside the row, not the hand's lone card (nor evidence of which row is which)
        # (a row of three columns is measured against the photo's usual spacing)
        spread = [b[3] - a[3] for r in long
                  for a, b in itertools.pairwise(sorted(rows[r], key=lambda c: c[3]))]
        usual = statistics.median(spread) if spread else 0.0
        for r in long:
            row, apart = _ends_apart(sorted(rows[r], key=lambda c: c[3]), p, usual)
            rows[r] = row
            rows += apart
    # five lone cards or more side by side within a row are discards laid in line with it
    for r in range(len(rows)):
        rows[r], apart = _discard_run(rows[r], dets, p)
        rows += apart
    # a row of one or two cards away from the layout is a stray (a discard, the stock)
    size = [_cards(row) for row in rows]
    main = [r for r in range(len(rows)) if size[r] > p.stray_max and not _discards(rows[r], dets, p)]
    names = {r: LOOSE for r in range(len(rows))}
    # a row of one column of two of a card is no stray but the hand's pair: the table holds no
    # pairs, and a discard is not laid down a column; beside one row of groups, those are claimed
    pairs = _pair_rows(rows, dets)
    if len(main) == 1 and len(pairs) == 1:
        names[main[0]] = TABLE
        names[pairs[0]] = HAND
    elif len(main) == 1:
        names[main[0]] = HAND
    elif main:
        first, second = sorted(sorted(main, key=lambda r: -size[r])[:2])
        names.update({r: HAND for r in main})
        table, guess = tell_rows([[[dets[i].card for i in c[0]] for c in rows[r]] for r in (first, second)])
        names[(first, second)[table]] = TABLE
        # a long row split at its widest gap may be split in the wrong place: a doubt (assemble)
        if split:
            guess = "split"
    out = []
    for r, row in enumerate(rows):
        for comp, _, _, _ in sorted(row, key=lambda c: c[3]):
            out.append(Column(list(comp), [dets[i].card for i in comp], names[r],
                              row_guess="" if names[r] == LOOSE else guess))
    return out


def _pair_rows(rows: list[list[_Placed]], dets: Sequence[Detection]) -> list[int]:
    """The rows that are one column of two of a card: the hand's pair (the table holds no
    pairs, and a discard is not laid down a column)."""
    return [r for r in range(len(rows)) if len(rows[r]) == 1 and len(rows[r][0][0]) == 2
            and len({dets[i].card for i in rows[r][0][0]}) == 1 and dets[rows[r][0][0][0]].card != "back"]


def _discard_run(row: list[_Placed], dets: Sequence[Detection], p: Params,
                 ) -> tuple[list[_Placed], list[list[_Placed]]]:
    """A row without its runs of ``Params.discard_row`` lone face cards or more lying next to
    each other across (discards laid in line with the row), and those cards, each a row of its
    own (a stray); a row that is nothing but such a run is left whole (``_discards``)."""
    order = sorted(row, key=lambda c: c[3])
    lone = [_lone_face(c, dets) for c in order]
    if all(lone):
        return row, []
    apart: list[_Placed] = []
    run: list[_Placed] = []
    for c, one in zip([*order, None], [*lone, False], strict=True):
        if one and c is not None:
            run.append(c)
            continue
        if len(run) >= p.discard_row:
            apart += run
        run = []
    return [c for c in row if c not in apart], [[c] for c in apart]


def _discards(row: list[_Placed], dets: Sequence[Detection], p: Params) -> bool:
    """Whether a row is ``Params.discard_row`` lone face cards or more and nothing else, side by
    side: a discard row, not the hand (the hand lays its groups as columns, a lone card of it
    beside them)."""
    return len(row) >= p.discard_row and all(_lone_face(c, dets) for c in row)


def _lone_face(c: _Placed, dets: Sequence[Detection]) -> bool:
    """Whether a column is one face card: how a discard lies (a group is laid down a column,
    and a lone back is the stock)."""
    return len(c[0]) == 1 and dets[c[0][0]].card != "back"


def tell_rows(rows: Sequence[Sequence[Sequence[str]]]) -> tuple[int, str]:
    """Which of two rows (each its columns' cards, the first row first) holds the claimed
    groups, and why that is a guess (a key of ``ROW_GUESSES``; "" when the photo shows it).

    The table holds only whole triples and quads, so a pair (two of a card) or a lone card shows
    the hand (two different cards show neither row: a group with a card hidden, cut off by the
    photo's edge or lying apart, for the hand's pair is two of a card); a
    back shows a concealed group, which the claimed row holds more often than the hand (the row
    showing backs, and not a pair or a lone card, is proposed as claimed). Only the pair or lone
    card proves it: a concealed 偎 or 提 on the table and a 坎 or 提 the hand reveals are both
    laid face over backs, so rows told apart by anything else are a guess; with nothing to tell
    them apart the first row is taken as claimed. A pair beside a column of four that is no quad
    (in either row: with the rows close, a column's last card may be the other row's) proves
    nothing either: that column holds another group's card, and the pair may be the rest."""
    broken = any(len(c) >= 4 and not _quad(c) for row in rows for c in row)
    short = shows_hand(rows)
    backs = [any("back" in c for c in row) for row in rows]
    evidence = [2 * b - s for b, s in zip(backs, short, strict=True)]
    table = 1 if evidence[1] > evidence[0] else 0
    if evidence[0] == evidence[1]:
        return table, "alike"
    if not short[1 - table] or short[table]:
        return table, "backs"
    # a column of four that is no quad holds a card of another group: the short column beside
    # it or below it may be that group, broken, and no pair
    if broken:
        return table, "broken"
    return table, ""


def shows_hand(rows: Sequence[Sequence[Sequence[str]]]) -> list[bool]:
    """Whether each row (its columns' cards) shows what only the hand holds, a pair or a lone
    card (``tell_rows``)."""
    # a column of a back and a face is a concealed group a card short, not the hand's pair;
    # two different cards are weighed as one only beside a column of four that is no quad,
    # which may hold their missing card (the rows are then a guess, "broken")
    broken = any(len(c) >= 4 and not _quad(c) for row in rows for c in row)
    return [any(len(c) < 3 and "back" not in c and (len(set(c)) == 1 or broken) for c in row)
            for row in rows]


def _quad(cards: Sequence[str]) -> bool:
    """Whether four cards are a quad as laid: four of a card, or one face over three backs."""
    faces = [x for x in cards if x != "back"]
    return len(set(faces)) <= 1 and len(faces) in (0, 1, len(cards))


def _cards(row: list[_Placed]) -> int:
    return sum(len(c[0]) for c in row)


def _widths(dets: Sequence[Detection], fr: Sequence[tuple[float, float, float, float]]) -> dict[int, float]:
    """Each card's glyph width across the layout, faces only (a back's box is its card's)."""
    return {i: fr[i][1] - fr[i][0] for i, d in enumerate(dets) if d.card != "back"}


def _gap(a: _Placed, b: _Placed, width: dict[int, float], usual: float) -> float:
    """The gap between two columns' heads in their own glyph widths: in a photo from low down
    the near columns' gaps are wider in pixels than the far ones', the same on the table."""
    ws = [width[i] for c in (a, b) for i in c[0] if i in width]
    return (b[3] - a[3]) / (statistics.median(ws) if ws else usual)


def _split_long_row(row: list[_Placed], p: Params, width: dict[int, float] | None = None,
                    ) -> tuple[list[list[_Placed]], bool]:
    """One long row (columns in order across) as rows: split at its widest gap when that is
    well over the usual spacing. A piece of one or two cards at an end is a stray (a discard
    beside the layout), not a row of groups, and its gap is often the widest; so it is set apart
    and the rest looked at again, for the gap between the claimed and the revealed groups."""
    apart: list[list[_Placed]] = []
    width = width or {}
    usual = statistics.median(width.values()) if width else 1.0
    # measured in glyph widths only where the row's columns differ in size (a photo from low
    # down or from the side); in a row seen square on, pixels are steadier than glyph boxes
    meds = [statistics.median(ws) for c in row if (ws := [width[i] for i in c[0] if i in width])]
    if not meds or max(meds) < p.row_depth * min(meds):
        width = {}
    while len(row) >= 3:
        gaps = [_gap(a, b, width, usual) for a, b in itertools.pairwise(row)]
        k = max(range(len(gaps)), key=lambda n: gaps[n])
        if gaps[k] <= p.row_split * sorted(gaps)[len(gaps) // 2]:
            break
        left, right = row[:k + 1], row[k + 1:]
        small = [piece for piece in (left, right) if _cards(piece) <= p.stray_max]
        if not small:
            return [left, right, *apart], True
        apart.append(small[0])
        row = right if small[0] is left else left
    return [row, *apart], False


def _heads_apart(row: list[_Placed], p: Params) -> list[list[_Placed]]:
    """A row whose columns' extents overlap, as rows again where the heads of its groups (its
    columns of three cards or more) fall into two sets lying apart along the columns by more
    than ``Params.head_jump`` of their usual length: a long column (a discard linked on at its
    end) or a card between the rows bridges two rows stacked one over the other, but each row's
    groups start level. A shorter column (a pair, a lone card, a stray) goes with the set its
    head lies nearer."""
    groups = sorted((c for c in row if len(c[0]) >= 3), key=lambda c: c[1])
    if len(groups) < 2:
        return [row]
    jumps = [b[1] - a[1] for a, b in itertools.pairwise(groups)]
    k = max(range(len(jumps)), key=lambda n: jumps[n])
    if jumps[k] <= p.head_jump * statistics.median(c[2] - c[1] for c in groups):
        return [row]
    cut = (groups[k][1] + groups[k + 1][1]) / 2
    top, bottom = [c for c in row if c[1] < cut], [c for c in row if c[1] >= cut]
    return _heads_apart(top, p) + _heads_apart(bottom, p)


def _ends_apart(row: list[_Placed], p: Params, usual: float = 0.0,
                ) -> tuple[list[_Placed], list[list[_Placed]]]:
    """A row (columns in order across) without the cards at its ends, one or two in all
    (``Params.stray_max``), that lie past a gap over ``Params.stray_gap`` times the row's usual
    spacing; and those cards' columns, each a row of its own (a stray). A row of three columns
    keeps too few gaps to tell its own spacing: there only a lone card is set apart, past
    ``Params.stray_gap`` times ``usual`` (the photo's spacing between columns), for a pair at
    its end may be a group's broken part."""
    apart: list[list[_Placed]] = []
    while len(row) >= (3 if usual else 4):
        gaps = [b[3] - a[3] for a, b in itertools.pairwise(row)]
        short = len(row) < 4
        wide = p.stray_gap * (usual if short else sorted(gaps)[len(gaps) // 2])
        most = 1 if short else p.stray_max
        left = next((k + 1 for k in range(len(gaps)) if _cards(row[:k + 1]) <= most and gaps[k] > wide), 0)
        right = next((k + 1 for k in range(len(gaps) - 1, -1, -1)
                      if _cards(row[k + 1:]) <= most and gaps[k] > wide), len(row))
        if not left and right == len(row):
            break
        apart += [[c] for c in row[:left] + row[right:]]
        row = row[left:right]
    return row, apart
