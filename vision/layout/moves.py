"""Moves of whole cards between columns, by the rules: loose cards lying together joined into
the group they make (``gather_loose``), a card linked onto the next column traded back
(``trade_ends``), and a face on a single back that is no group set apart (``set_apart_pairs``).

Each is a named pure step on a ``repairs.Draft``, tried only where the layout does not split
into seven groups (``order.REPAIRS`` gives the order), and each column it moves says so
(``settled``: a doubt in ``assemble``) so that the player checks it.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence

from ..detector import Detection
from .assemble import other_way_round
from .column import CONCEALED, FREE, HAND, LOOSE, OPEN, TABLE, Column, proposed_state
from .geometry import card_axis, scale
from .repairs import (
    BACK_REACH,
    MAX_ENDS,
    Draft,
    _between,
    _distance,
    _found,
    _makes_group,
    _one_way,
    _swappable,
    laid_columns,
    nearest_row,
    settle_strays,
)


def gather_loose(draft: Draft) -> Draft | None:
    """Let the rules join loose cards lying together into the one group they make.

    A group laid with its cards apart (a face beside its backs, three faces side by side that
    do not overlap) comes out of the geometry as lone cards or a pair, each a row of a card or
    two lying apart from the layout (``Params.stray_max``), and is left out; settled one by one
    (``settle_strays``) its faces would go to the hand as free cards, and a group claimed in
    play scored as one revealed from the hand. When the draft does not split into seven groups,
    the loose cards and pairs are gathered where their nearest cards lie within ``BACK_REACH``
    glyph sizes of each other; each set of them, each lying so near another of the set, of
    three or four cards that makes one group (a face-up group the engine accepts, or one face
    over backs, the loose face nearest them) is a candidate column, in the row of the layout's
    column nearest it. The fewest candidates that make the layout split (lone
    cards left then settled as ``settle_strays`` settles them) are taken when exactly one way
    does, and the column says so (``settled``, a doubt in ``assemble``)."""
    if draft.splits:
        return None
    cols, dets = draft.columns, draft.detections
    loose = [n for n, c in enumerate(cols) if c.state == LOOSE and len(c.cards) <= 2 and not c.settled
             and c.detections and _found(c, dets)]
    laid = laid_columns(cols, dets)
    if len(loose) < 2 or not laid:
        return None
    s = scale(dets)
    near = [(a, b) for a, b in itertools.combinations(loose, 2)
            if _between(dets, cols[a], cols[b]) < BACK_REACH * s]
    found = [part for comp in _gatherings(loose, near) for part in _parts(comp, near)
             if 3 <= sum(len(cols[n].cards) for n in part) <= 4
             and _makes_group([x for n in part for x in cols[n].cards])
             and _nearest_face(cols, dets, part, loose)]
    if not found or len(found) > MAX_GATHER:
        return None
    def apart(combo: tuple[tuple[int, ...], ...]) -> bool:  # a loose card joins one group
        return len({n for part in combo for n in part}) == sum(len(part) for part in combo)

    return _one_way(draft, found, len(found), lambda combo: _gathered(cols, dets, combo, laid), apart)


MAX_GATHER = 6  # groups gather_loose weighs (63 ways at most, each with its lone cards settled)


MAX_GATHERED = 8  # loose cards and pairs lying together that gather_loose parts into groups


def _parts(members: Sequence[int], links: Sequence[tuple[int, int]]) -> list[tuple[int, ...]]:
    """The sets of two to four of ``members`` that ``links`` join (each one linked to another of
    the set): where more loose cards lie together than one group holds, the groups among them."""
    if len(members) > MAX_GATHERED:
        return []
    linked = {frozenset(pair) for pair in links}
    return [part for k in (2, 3, 4) for part in itertools.combinations(members, k)
            if all(any(frozenset((a, b)) in linked for b in part if b != a) for a in part)]


def _nearest_face(cols: Sequence[Column], dets: Sequence[Detection], part: Sequence[int],
                  loose: Sequence[int]) -> bool:
    """Whether a set of loose columns with backs holds the loose face nearest its backs (or no
    face): a concealed group's face lies on its backs, and a face further off is a discard."""
    backs = [i for n in part for i, x in zip(cols[n].detections, cols[n].cards, strict=True) if x == "back"]
    faces = [i for n in loose for i, x in zip(cols[n].detections, cols[n].cards, strict=True) if x != "back"]
    own = {i for n in part for i in cols[n].detections}
    if not backs or not faces or not own - set(backs):
        return True

    def off(i: int) -> float:
        return min(math.hypot(dets[i].center[0] - dets[b].center[0], dets[i].center[1] - dets[b].center[1])
                   for b in backs)

    return min(faces, key=off) in own


def _gatherings(members: Sequence[int], links: Sequence[tuple[int, int]]) -> list[list[int]]:
    """The members joined by ``links`` (pairs of members), as groups of two or more."""
    parent = {n: n for n in members}

    def find(a: int) -> int:
        while parent[a] != a:
            a = parent[a]
        return a

    for a, b in links:
        parent[max(find(a), find(b))] = min(find(a), find(b))
    out: dict[int, list[int]] = {}
    for n in members:
        out.setdefault(find(n), []).append(n)
    return [g for g in out.values() if len(g) > 1]


def _gathered(cols: Sequence[Column], dets: Sequence[Detection], gatherings: Sequence[Sequence[int]],
              laid: Sequence[int]) -> list[Column]:
    """The columns with each gathering of loose columns joined into one column (its cards down
    the layout's axis) in the row of the nearest of the ``laid`` columns, in its proposed state."""
    out: list[Column] = list(cols)
    for g in gatherings:
        order = _down(dets, [i for n in g for i in cols[n].detections])
        row = nearest_row(cols, dets, g, laid)
        joined = Column(order, [dets[i].card for i in order], row,
                        settled="cards lying apart taken in: together they make one group")
        joined.state = proposed_state(joined)
        out[g[0]] = joined
        for n in g[1:]:
            out[n] = cols[n].copy(detections=[], cards=[])
    return [c for c in out if c.cards]


def trade_ends(draft: Draft) -> Draft | None:
    """Let the rules move a card linked on at a column's end into the group it belongs to.

    Where two groups lie close (columns staggered, a concealed group's face beside the next
    column's head), the geometry can link a card of one onto the other's end: a column of four
    or five that is no group beside a short one (``d9 x9 x9 x10`` beside ``back back``), or two
    columns that each took the other's card (``x8 x9 d8`` beside ``d8 d8 x10``). When the draft
    does not split into seven groups, each face at an end (first or last) of a column that is
    no group is tried at the end of another column whose nearest card lies within ``BACK_REACH``
    glyph sizes of it, or traded for that column's face at an end (a back is never moved: it
    tells a concealed triple from a quad); a way is kept when both columns then make groups
    (``_makes_group``), and taken when it is the only one that makes the layout split (a trade
    between two columns that are no group, seen from both, is one way, and so are two moves that
    leave the same groups in the same rows: the nearer is taken). Where the rows were a guess, a
    trade that splits the layout only with them the other way round counts too, and takes them
    so (``swapped``: a doubt, as ``settle_rows``'s): the hand never breaks a 坎, so a claimed
    group's card linked onto the next column leaves no split either way until traded back. A
    claimed column that is no group is tried even where the layout splits (its cards then go to
    the hand as free cards, which may split anyway, and score as revealed). Both columns say so
    (``settled``, a doubt in ``assemble``)."""
    cols, dets = draft.columns, draft.detections
    laid = [n for n, c in enumerate(cols) if c.row in (TABLE, HAND) and c.state != LOOSE and not c.name
            and not c.reading and c.detections and _found(c, dets)]
    broken = [n for n in laid if len(cols[n].cards) >= 2 and not _makes_group(cols[n].cards)]
    if not broken or (draft.splits and not any(cols[n].state in (OPEN, CONCEALED) for n in broken)):
        return None
    s = scale(dets)
    swappable = _swappable(cols)
    ways: dict[tuple[tuple[str, str, tuple[str, ...]], ...], tuple[float, list[Column]]] = {}
    for a in broken:
        for k in {0, len(cols[a].detections) - 1}:
            e = cols[a].detections[k]
            if dets[e].card == "back":  # a back counts a concealed group's cards: a quad or a triple
                continue
            for b in laid:
                reach = min(_distance(dets, e, i) for i in cols[b].detections) if b != a else math.inf
                if reach >= BACK_REACH * s:
                    continue
                ends = dict.fromkeys(i for i in (cols[b].detections[0], cols[b].detections[-1])
                                     if dets[i].card != "back")
                for f in (None, *ends):
                    got = _traded(cols, dets, a, e, b, f)
                    if got is None:
                        continue
                    if not draft.with_columns(got).splits:
                        # rows that were only a guess may be the other way round (``settle_rows``)
                        if not swappable:
                            continue
                        got = other_way_round(got, "swapped")
                        if not draft.with_columns(got).splits:
                            continue
                    # two moves that leave the same groups in the same rows (x5 moved onto x6 x7,
                    # or x8 from x5 x6 x7 x8) are one way: the nearer move is taken
                    key = _groups(got)
                    if key not in ways or reach < ways[key][0]:
                        ways[key] = (reach, got)
                    if len(ways) > 1:  # two ways: the player's to choose
                        return None
    return draft.with_columns(next(iter(ways.values()))[1]) if ways else None


def _groups(cols: Sequence[Column]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """The columns' groups as a layout holds them: each one's row, state and cards, in order."""
    return tuple(sorted((c.row, c.state, tuple(sorted(c.cards))) for c in cols if c.cards))


def _traded(cols: Sequence[Column], dets: Sequence[Detection], a: int, e: int, b: int,
            f: int | None) -> list[Column] | None:
    """The columns with card ``e`` of column ``a`` moved into column ``b`` (and card ``f`` of
    ``b``, if given, into ``a``), each column's cards down the layout's axis; None unless both
    then make groups."""
    into_a = _down(dets, [i for i in cols[a].detections if i != e] + ([f] if f is not None else []))
    into_b = _down(dets, [i for i in cols[b].detections if i != f] + [e])
    cards_a, cards_b = [dets[i].card for i in into_a], [dets[i].card for i in into_b]
    if not _makes_group(cards_a) or not _makes_group(cards_b):
        return None
    why = "a card linked on at the end of the column beside it moved here: both then make groups"
    out = list(cols)
    for n, idx, cards in ((a, into_a, cards_a), (b, into_b, cards_b)):
        out[n] = cols[n].copy(detections=idx, cards=cards, settled=why)
        out[n].state = proposed_state(out[n])
    return out


def set_apart_pairs(draft: Draft) -> Draft | None:
    """Let the rules set apart a face and a back lying together that are no group.

    A concealed group shows three or four cards, so a column of one face over one back is a
    card short of any: a group with a back missed (``fill_concealed`` weighs that first), or a
    discard lying on the stock's back, linked as a column. When the draft still does not split
    into seven groups, the fewest such columns set apart as loose cards that make it split (lone
    cards then settled as ``settle_strays`` settles them) are taken when exactly one way does,
    and each says so (``settled``: a stray doubt in ``assemble``)."""
    if draft.splits:
        return None
    cols = draft.columns
    pairs = [n for n, c in enumerate(cols) if c.row in (TABLE, HAND) and c.state == CONCEALED
             and len(c.cards) == 2 and c.cards.count("back") == 1 and not c.name]
    if not pairs or len(pairs) > MAX_ENDS:
        return None
    why = "set apart: a face and a back are no group, and the layout makes seven groups without them"
    return _one_way(draft, pairs, len(pairs), lambda combo: [
        c.copy(row=LOOSE, state=LOOSE, settled=why) if n in combo else c for n, c in enumerate(cols)])


def _down(dets: Sequence[Detection], idx: Sequence[int]) -> list[int]:
    """Cards (indices into ``dets``) in order down the layout's axis: a column's order."""
    a = math.radians(card_axis(dets))
    gx, gy = -math.sin(a), math.cos(a)
    return sorted(idx, key=lambda i: dets[i].center[0] * gx + dets[i].center[1] * gy)


# glyph sizes past the nearest end of a column that a card linked onto the column beside it may
# lie and still be moved back to it by ``move_far_ends``: a card whose head glyph lies under the
# next column shows only its far end, a card's length past its column's last card
FAR_REACH = 7.0
# glyph sizes across a column's own line (through its end cards) that such a card may lie
FAR_ACROSS = 2.0
MAX_FAR_MOVES = 8  # (card, column) moves move_far_ends weighs: 36 ways of one or two at most


def move_far_ends(draft: Draft) -> Draft | None:
    """Let the rules move a card linked onto the wrong column back to the column it continues.

    A card whose head glyph lies under the next column's cards shows only its far end, a card's
    length past its own column's last card, where it lies as close to the end of the column
    beside it, or of the next row's column, as to its own; the geometry links it on there, and
    two groups come out wrong at once: one a card short (``d7 d7``) and one a card over
    (``x2 x7 x10 d7``). ``trade_ends`` moves only cards within ``BACK_REACH`` of their column;
    this step weighs each face at an end of a column of three cards or more that is no group, or
    of the hand's (whose rest the engine pools; a hand's pair is what it seems), that lies past
    an end of another column, within ``FAR_REACH`` glyph sizes of it along that column's own
    line (``FAR_ACROSS`` across it), where the column then makes a group and the card's own
    column a group too (or stays free cards of the hand). When the draft does not split into
    seven groups, or splits with a claimed column that is no group (its cards then pass to the
    hand as free cards, as in ``trade_ends``), of the ways of one or two such moves (each column
    in one) that make it split, lone cards then settled as ``settle_strays`` settles them, the one
    whose moves leave the fewest claimed columns that are no group, then the fewest moves, is
    taken when no other way does as well. Both columns say so (``settled``, a doubt in
    ``assemble``)."""
    if not draft.params.move_far_ends:
        return None
    cols, dets = draft.columns, draft.detections
    laid = [n for n, c in enumerate(cols) if c.row in (TABLE, HAND) and c.state != LOOSE and not c.name
            and not c.reading and c.detections and _found(c, dets)]
    if not laid or (draft.splits and not any(cols[n].state in (OPEN, CONCEALED)
                                             and not _makes_group(cols[n].cards) for n in laid)):
        return None
    s = scale(dets)
    moves = [(a, e, b) for a in laid for e in dict.fromkeys((cols[a].detections[0], cols[a].detections[-1]))
             if len(cols[a].cards) >= 3 and dets[e].card != "back"
             and (cols[a].row == HAND or not _makes_group(cols[a].cards))
             for b in laid if b != a and _continues(dets, cols[b].detections, e, s)
             and _moved(cols, dets, ((a, e, b),)) is not None]
    if not moves or len(moves) > MAX_FAR_MOVES:
        return None

    built = []
    for combo in (*itertools.combinations(moves, 1), *itertools.combinations(moves, 2)):
        touched = [n for a, _, b in combo for n in (a, b)]
        got = _moved(cols, dets, combo) if len(set(touched)) == len(touched) else None
        if got is not None:
            built.append(((_claimed_broken(got), len(combo)), got))
    # the ways in order of claimed columns left no group, then of moves; the first that splits wins
    # where no other as good does (lone cards settled as ``settle_strays`` settles them)
    found: list[Draft] = []
    best = None
    for key, got in sorted(built, key=lambda way: way[0]):
        if best is not None and key > best:
            break
        moved = draft.with_columns(got)
        tried = moved if moved.splits else settle_strays(moved)
        if tried is not None:
            best = key
            found.append(tried)
        if len(found) > 1:  # two ways as good: the player's to choose
            return None
    return found[0] if found else None


def _claimed_broken(cols: Sequence[Column]) -> int:
    """How many columns of the claimed row make no group: a way that leaves a claimed pair passes
    its cards to the hand as free cards, and may split, but a way that makes it a group is the
    layout as laid."""
    return sum(c.row == TABLE and c.state != LOOSE and not c.name and not c.reading
               and not _makes_group(c.cards) for c in cols)


def _continues(dets: Sequence[Detection], col: Sequence[int], e: int, s: float,
               across_most: float = FAR_ACROSS) -> bool:
    """Whether card ``e`` lies past an end of the column of cards ``col`` (in its order down the
    layout), within ``FAR_REACH`` glyph sizes ``s`` of that end along the column's own line and
    ``across_most`` across it (a lone card's line: the layout's axis)."""
    if e in col:
        return False
    ends = ((col[0], col[1]), (col[-1], col[-2])) if len(col) > 1 else ((col[0], None),)
    for end, nxt in ends:
        (ex, ey), (cx, cy) = dets[e].center, dets[end].center
        if nxt is None:
            a = math.radians(card_axis(dets))
            ux, uy = -math.sin(a), math.cos(a)
            for sign in (1.0, -1.0):  # a lone card: past either end along the layout's axis
                along, across = _along(ex - cx, ey - cy, sign * ux, sign * uy)
                if 0 < along < FAR_REACH * s and abs(across) < across_most * s:
                    return True
            continue
        nx, ny = dets[nxt].center
        length = math.hypot(cx - nx, cy - ny)
        if length == 0:
            continue
        along, across = _along(ex - cx, ey - cy, (cx - nx) / length, (cy - ny) / length)
        if 0 < along < FAR_REACH * s and abs(across) < across_most * s:
            return True
    return False


def _along(dx: float, dy: float, ux: float, uy: float) -> tuple[float, float]:
    """The offset (dx, dy) along the unit direction (ux, uy) and across it."""
    return dx * ux + dy * uy, dx * uy - dy * ux


def _moved(cols: Sequence[Column], dets: Sequence[Detection],
           moves: Sequence[tuple[int, int, int]]) -> list[Column] | None:
    """The columns with each card ``e`` of ``moves`` moved from column ``a`` into column ``b``
    (its cards down the layout's axis); None unless ``b`` then makes a group, and ``a`` too
    unless it lies in the hand (free cards, pooled by the engine)."""
    out = list(cols)
    why = "a card linked onto the column beside it past a long gap moved here: both then make groups"
    for a, e, b in moves:
        rest = [i for i in cols[a].detections if i != e]
        into = _down(dets, [*cols[b].detections, e])
        got_a, got_b = [dets[i].card for i in rest], [dets[i].card for i in into]
        if not _makes_group(got_b) or not (cols[a].row == HAND or _makes_group(got_a)):
            return None
        out[a] = cols[a].copy(detections=rest, cards=got_a, settled=why)
        out[b] = cols[b].copy(detections=into, cards=got_b, settled=why)
        for n in (a, b):
            out[n].state = proposed_state(out[n])
    return out


# glyph sizes across a short column's line (through its two cards) that the card of another
# short column may lie and still be taken for its continuation by ``join_in_line``
IN_LINE = 0.5


def join_in_line(draft: Draft) -> Draft | None:
    """Join two short columns of the claimed row where one continues the other's line.

    ``join_split_groups`` joins two short columns of the claimed row (a concealed group's face
    apart from its backs) only where each is the other's one partner within reach; where two
    such groups lie side by side (two faces above two pairs of backs) each face is a partner of
    both, and none is joined, or the face lies further off than ``JOIN_REACH``. A group's cards
    lie in one line, so of such columns that together make a group, two are joined where a card
    of one lies past an end of the other, within ``FAR_REACH`` glyph sizes of it along its line
    and ``IN_LINE`` across it, and each is the other's only such partner. The geometry's
    repair, asked of every draft; the column says so (``settled``, a doubt in ``assemble``)."""
    if not draft.params.join_in_line:
        return None
    cols, dets = draft.columns, draft.detections
    short = [n for n, c in enumerate(cols) if c.row == TABLE and c.state in (FREE, CONCEALED)
             and len(c.cards) < 3 and not c.name and not c.reading and c.detections and _found(c, dets)]
    if len(short) < 2:
        return None
    s = scale(dets)

    def in_line(a: int, b: int) -> bool:  # a card of ``a`` continues ``b``'s line (two cards or more)
        return len(cols[b].detections) > 1 and any(
            _continues(dets, cols[b].detections, e, s, IN_LINE) for e in cols[a].detections)

    found = [(a, b) for a, b in itertools.combinations(short, 2)
             if _makes_group(cols[a].cards + cols[b].cards) and (in_line(a, b) or in_line(b, a))]
    partners = Counter(n for pair in found for n in pair)
    pairs = [(a, b) for a, b in found if partners[a] == 1 and partners[b] == 1]
    if not pairs:
        return None
    out = list(cols)
    for a, b in pairs:
        order = _down(dets, cols[a].detections + cols[b].detections)
        joined = cols[a].copy(detections=order, cards=[dets[i].card for i in order],
                              settled="a card lying apart taken in: it lies in line with the column "
                                      "beside it, and with it makes one group")
        joined.state = proposed_state(joined)
        out[a], out[b] = joined, cols[b].copy(detections=[], cards=[])
    return draft.with_columns([c for c in out if c.cards])
