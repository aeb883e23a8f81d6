"""The rules repair what the geometry got wrong: named steps over a frozen ``Draft``.

Seven groups leave no card over and want none, so a layout that the engine cannot split into
seven groups usually holds a vision mistake: a discard taken for a hand card, a back left out of
its group, the rows guessed the wrong way round, a look-alike glyph misread, a weak card missed.
Each step takes a ``Draft`` and returns a new one, or None when it changes nothing; none changes
the draft it was given. This module holds the draft and the steps that move cards between
columns and rows; ``readings`` the steps that read a card otherwise (an all-back group's card, a
misread, a card no find shows, the rescue of a winning hand); ``order`` the order they run in
(``REPAIRS``). After the first, each step acts only on a draft that does not split, and only on
a single way to make it split (two ways are the user's to choose, as doubts).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any

from zipai.engine import Card, Group, State, ZipaiError, parse_input, score_hand, splits_into_groups

from ..detector import Detection
from .assemble import engine_input, other_way_round
from .column import CONCEALED, FREE, HAND, LOOSE, OPEN, TABLE, Column, Params, proposed_state
from .geometry import Frame, card_axis, columns, layout_frame, retell_rows, scale
from .rows import shows_hand

# glyph sizes from a loose card to the nearest laid column past which settle_strays does not take
# it in: a player lays the hand together, and a card dropped that far off is a discard (chosen on
# validation: on the labelled cards 3.5 to 4.5 gain most, but end to end, where the reader misses
# cards of the hand, 4.5 loses two scenes net and 6 loses two for two gained; docs/lab/layout.md)
FAR_LOOSE = 7.0
MAX_LONE = 8  # lone cards settle_strays weighs (2^8 layouts at most, each under a millisecond)
BACK_REACH = 4.0  # glyph sizes from a lone back's centre to the nearest card of a group it may join
# glyph sizes between the nearest cards of two short columns of the claimed row that
# join_split_groups may join when neither has a partner within BACK_REACH: a card of a claimed
# group laid apart (a concealed group's face beside its backs) lies further off than a lone back
# from its group (chosen on the validation scenes' labelled cards: 5 to 7 score alike)
JOIN_REACH = 6.0
# how many times further from the card next to it one end of a column of four must lie than the
# other for set_apart_ends to try only that end, where either end leaves a group of other cards
# (a discard linked on; a run laid evenly, 肆伍陆柒, stays two ways: the player's to choose)
END_OFF = 1.25
MAX_ENDS = 4  # column ends set_apart_ends weighs (15 ways at most, each with its lone cards settled)
# weak finds take_in takes together: a hand two cards short (a back and a glyph on a typeface
# the finder never saw) splits only with both; three at once the rules would guess (docs/lab/layout.md)
MAX_TAKEN = 2
# a concealed column of three and a lone back lying in line with it, its whole last card
# (``join_fourth_back``): the back's centre within this many glyph sizes of the column's cards,
# and within ``FOURTH_ACROSS`` of its line (on validation seven of eight fourth backs lay at most
# 3.0 off and 0.67 across; eleven of twelve other lone backs near such a column 0.77 across or more)
FOURTH_REACH = 3.5
FOURTH_ACROSS = 0.75
MAX_BACK_MOVES = 10  # (lone back, column) pairs settle_backs weighs: 55 layouts at most


@dataclass(frozen=True)
class Draft:
    """The columns proposed for a photo's detections, as the repairs pass them on.

    Frozen, and its columns and detections are never changed in place: a step that repairs
    builds new ones. (The app's editable layout is ``zipai.mobile.draft.Draft``, which takes
    the repaired columns.) ``base`` is the engine input's seat and win fields; ``spare`` holds
    the weak finds the thresholds turned away, which ``take_in`` may weigh."""

    columns: tuple[Column, ...]
    detections: tuple[Detection, ...]
    base: Mapping[str, Any] = field(default_factory=dict)
    params: Params = field(default_factory=Params)
    spare: tuple[Detection, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "base", MappingProxyType(dict(self.base)))

    @classmethod
    def propose(cls, dets: Sequence[Detection], base: Mapping[str, Any], p: Params | None = None,
                spare: Sequence[Detection] = ()) -> Draft:
        """The geometry's columns (``columns``), each in its proposed state."""
        p = p or Params()
        cols = columns(dets, p)
        return cls(tuple(c.copy(state=proposed_state(c)) for c in cols), tuple(dets), base, p, tuple(spare))

    def with_columns(self, cols: Sequence[Column]) -> Draft:
        return replace(self, columns=tuple(cols))

    @cached_property
    def splits(self) -> bool:
        """Whether the columns give a complete layout (``assemble``) that the engine splits into
        seven groups; whether it then reaches the rule set's minimum does not matter here. Cards
        over the deck's four, and an empty layout, the engine refuses or cannot split."""
        built = engine_input(self.columns, self.base)
        return built.complete and bool(self.detections) and layout_splits(built.layout)


def layout_splits(layout: Mapping[str, Any]) -> bool:
    """Whether the engine splits this input into seven groups; False for input it refuses."""
    try:
        hand = parse_input(layout)
        if hand.ctx.won_by == "dealt":
            # after the deal the engine also scores an instant win, which is no seven groups,
            # under the rule sets that have one: the whole engine answers for it
            return bool(score_hand(layout).groups)
    except ZipaiError:
        return False
    return splits_into_groups([c.index for c in hand.hand],
                              [([c.index for c in g.cards], g.state is State.OPEN) for g in hand.groups],
                              hand.winning_card.index if hand.winning_card is not None else -1,
                              hand.ctx.won_by, hand.rules.options.rules_version)


Repair = Callable[[Draft], "Draft | None"]


def join_lone_backs(draft: Draft) -> Draft | None:
    """Put a lone back into the concealed group it lies beside when that group is short.

    A concealed group holds three or four cards (RULINGS section 7), so a concealed column of
    one face and one back, or of two backs, is certainly missing one: laid askew, or with its
    face card lying on top of the backs, its last back was left unchained and taken for the
    stock. Each short concealed column takes the nearest lone back within ``BACK_REACH`` glyph
    sizes, when no other short column is nearer to that back; the column says so (``settled``).
    The geometry's repair, asked of every draft: it needs no engine."""
    cols, dets = draft.columns, draft.detections
    lone = [n for n, c in enumerate(cols) if c.state == LOOSE and c.cards == ["back"]]
    short = [n for n, c in enumerate(cols) if c.state == CONCEALED and len(c.cards) < 3]
    if not lone or not short:
        return None
    s = scale(dets)
    moves = []
    for h in short:
        d, b = min((_reach(cols, dets, b, h), b) for b in lone)
        if d < BACK_REACH * s and min(_reach(cols, dets, b, o) for o in short) >= d:
            moves.append((b, h))
    if not moves or len({b for b, _ in moves}) < len(moves):
        return None
    return draft.with_columns(_with_backs(cols, moves, "a concealed group shows three or four cards"))


def join_fourth_back(draft: Draft) -> Draft | None:
    """Put a lone card lying in line with a concealed column of three into it: a 提 of four.

    A concealed group of four is laid as a face over three backs (or four backs), and its last
    card, the only one that shows whole, lies with its centre a card's length on: the geometry
    ends the column before it, and the group is left a 偎 of three with a card over, which
    leaves the hand's pair (its 将 beside a group of four) no place. A concealed column of three
    (two backs at least) takes the lone back whose centre lies within ``FOURTH_REACH`` glyph
    sizes of its cards and within ``FOURTH_ACROSS`` of its line; a column of three backs the lone
    face there too (the face laid last, as seen from the other side), when each is the other's
    only such partner and the deck holds a fourth copy of the face (none shows elsewhere). The
    column says so (``settled``, a doubt). The geometry's repair, asked of every draft."""
    cols, dets = draft.columns, draft.detections
    if not draft.params.join_fourth_back:
        return None
    three = [n for n, c in enumerate(cols) if c.state == CONCEALED and len(c.cards) == 3
             and c.cards.count("back") >= 2 and not c.name and _found(c, dets)]
    lone = [n for n, c in enumerate(cols) if len(c.cards) == 1 and _found(c, dets)
            and (c.state == LOOSE or (c.row == TABLE and c.cards != ["back"]))]
    if not lone or not three:
        return None
    s = scale(dets)
    shown = Counter(x for c in cols for x in c.cards if x != "back")
    near = [(b, h) for b in lone for h in three if _reach(cols, dets, b, h) < FOURTH_REACH * s
            and _across(cols[h], dets, dets[cols[b].detections[0]].center) < FOURTH_ACROSS * s
            and (cols[b].cards == ["back"] or cols[h].cards.count("back") == 3)]
    # each the other's only partner: two lone cards by one column are a stock pile, not its card
    moves = [(b, h) for b, h in near if sum(x == b or y == h for x, y in near) == 1
             and not any(shown[x] > 1 for x in cols[h].cards + cols[b].cards if x != "back")]
    if not moves:
        return None
    what = "a back" if all(cols[b].cards == ["back"] for b, _ in moves) else "a card"
    why = "a concealed group of four shows its last card whole"
    return draft.with_columns(_with_backs(cols, moves, why, what))


def _across(c: Column, dets: Sequence[Detection], at: tuple[float, float]) -> float:
    """Pixels from ``at`` to the line through a column's first and last cards."""
    (x0, y0), (x1, y1) = dets[c.detections[0]].center, dets[c.detections[-1]].center
    length = math.hypot(x1 - x0, y1 - y0)
    if length == 0:
        return math.hypot(at[0] - x0, at[1] - y0)
    return abs((at[0] - x0) * (y1 - y0) - (at[1] - y0) * (x1 - x0)) / length


def join_split_groups(draft: Draft) -> Draft | None:
    """Join two short columns of one row that lie close and together make one group.

    A column of one or two cards in the claimed row is no group (the table holds triples and
    quads), nor is a concealed column of two cards; where a card of a group lies level with or
    askew from the rest, the geometry ends the column at it and the group comes out as a lone
    card beside a pair (or a face beside two backs). Two such columns of the same row, each
    shorter than a group, whose cards together make a group of three or four (a face-up group
    the engine accepts, or one face over backs) and whose nearest cards lie within
    ``BACK_REACH`` glyph sizes, are joined when each is the other's only such partner; two of
    the claimed row with no such partner, within ``JOIN_REACH`` (a concealed group's face laid
    a column's width or more from its backs), the same way. In the
    hand row it changes no score (free cards are pooled), but it keeps the group whole if the
    rows are told the other way round. A claimed column of two (faces, or a face and a back)
    joins a loose lone face lying apart the same way, when no column of its row does: the
    table holds no pairs, and a card of a claimed group may lie too far off to be taken into
    its row. The geometry's repair, asked of every draft."""
    cols, dets = draft.columns, draft.detections
    short = [n for n, c in enumerate(cols) if c.row in (TABLE, HAND) and c.state in (FREE, CONCEALED)
             and len(c.cards) < 3 and not c.name and _found(c, dets)]
    # a lone card lying apart may be the rest of a claimed column of two: the table holds no pairs
    loose = [n for n, c in enumerate(cols) if c.state == LOOSE and len(c.cards) == 1 and c.cards[0] != "back"
             and not c.settled and _found(c, dets)]
    if len(short) + len(loose) < 2:
        return None
    s = scale(dets)
    found = [(a, b) for a, b in itertools.combinations(short + loose, 2)
             if (cols[a].row == cols[b].row if b not in loose else cols[a].row == TABLE and a not in loose)
             and _makes_group(cols[a].cards + cols[b].cards)
             and _between(dets, cols[a], cols[b]) < JOIN_REACH * s]
    near = [(a, b) for a, b in found if _between(dets, cols[a], cols[b]) < BACK_REACH * s]
    if draft.params.row_partner_first:
        # a column with a partner of its own row within JOIN_REACH takes no loose card lying nearer
        inrow = {n for a, b in found if b not in loose and cols[a].row == cols[b].row == TABLE
                 for n in (a, b)}
        near = [(a, b) for a, b in near if b not in loose or a not in inrow]
    pairs = _partners(near, loose)
    # further off, only two columns of the claimed row with no partner near (the table holds
    # no pairs and no lone cards; in the hand a pair and a lone card are what they seem)
    taken = {n for pair in near for n in pair}
    pairs += _partners([(a, b) for a, b in found if (a, b) not in near and a not in taken and b not in taken
                        and b not in loose and cols[a].row == cols[b].row == TABLE], loose)
    if not pairs:
        return None
    a_ = math.radians(card_axis(dets))
    gx, gy = -math.sin(a_), math.cos(a_)
    out = list(cols)
    for a, b in pairs:
        order = sorted(cols[a].detections + cols[b].detections,
                       key=lambda i: dets[i].center[0] * gx + dets[i].center[1] * gy)
        joined = cols[a].copy(detections=order, cards=[dets[i].card for i in order],
                              settled="a card lying apart taken in: with the column beside it, it makes "
                                      "one group")
        joined.state = proposed_state(joined)
        out[a], out[b] = joined, cols[b].copy(detections=[], cards=[])
    return _retold(draft.with_columns([c for c in out if c.cards]))


def _partners(pairs: Sequence[tuple[int, int]], loose: Sequence[int]) -> list[tuple[int, int]]:
    """The ``pairs`` of columns that ``join_split_groups`` joins: a loose card only where no
    column of its row is a partner, then only the columns that are each other's one partner."""
    inrow = {n for a, b in pairs if b not in loose for n in (a, b)}
    pairs = [(a, b) for a, b in pairs if b not in loose or a not in inrow]
    partners = Counter(n for pair in pairs for n in pair)
    return [(a, b) for a, b in pairs if partners[a] == 1 and partners[b] == 1]


def _one_way(draft: Draft, candidates: Sequence[Any], most: int,
             build: Callable[[tuple[Any, ...]], list[Column]],
             allowed: Callable[[tuple[Any, ...]], bool] = lambda combo: True) -> Draft | None:
    """The draft with the fewest ``candidates`` (at most ``most``) taken together by ``build``
    that makes it split, lone cards left then settled as ``settle_strays`` settles them; None
    where none does, or where two ways of as few do (the player's to choose)."""
    for size in range(1, most + 1):
        ways: list[Draft] = []
        for combo in itertools.combinations(candidates, size):
            if not allowed(combo):
                continue
            tried: Draft | None = draft.with_columns(build(combo))
            if tried is not None and not tried.splits:
                tried = settle_strays(tried)
            if tried is not None:
                ways.append(tried)
            if len(ways) > 1:
                return None
        if ways:
            return ways[0]
    return None


def _makes_group(cards: Sequence[str]) -> bool:
    """Whether three or four cards make a group: faces the engine accepts as a group, or one
    face over backs (a concealed group)."""
    if not 3 <= len(cards) <= 4:
        return False
    faces = [x for x in cards if x != "back"]
    if len(faces) < len(cards):
        return len(set(faces)) <= 1 and len(faces) <= 1
    try:
        Group([Card.parse(x) for x in faces], State.OPEN)
    except ZipaiError:
        return False
    return True


def _found(c: Column, dets: Sequence[Detection]) -> bool:
    """Every card of the column is a find (none assumed by the rules with no box, ``NO_BOX``)."""
    return all(0 <= i < len(dets) for i in c.detections)


def laid_columns(cols: Sequence[Column], dets: Sequence[Detection]) -> list[int]:
    """The columns laid in the claimed row or the hand whose every card is a find: those a card
    lying apart may be told to join."""
    return [n for n, c in enumerate(cols) if c.row in (TABLE, HAND) and c.state != LOOSE
            and c.detections and _found(c, dets)]


def nearest_row(cols: Sequence[Column], dets: Sequence[Detection], members: Sequence[int],
                laid: Sequence[int]) -> str:
    """The row of the ``laid`` column nearest any of the columns ``members``."""
    return cols[min(laid, key=lambda h: min(_between(dets, cols[n], cols[h]) for n in members))].row


def _between(dets: Sequence[Detection], a: Column, b: Column) -> float:
    """Pixels between the nearest cards of two columns."""
    return min(_distance(dets, i, j) for i in a.detections for j in b.detections)


def _distance(dets: Sequence[Detection], i: int, j: int) -> float:
    """Pixels between two cards' centres."""
    (ax, ay), (bx, by) = dets[i].center, dets[j].center
    return math.hypot(ax - bx, ay - by)


def settle_strays(draft: Draft) -> Draft | None:
    """Let the rules decide the lone face cards that the geometry could not.

    A discard or a card dropped beside the layout looks, to the clustering, like a one-card
    column of the hand, and a hand card nudged out of line looks like a stray. Seven groups
    leave no card over, so when the draft does not split into seven groups, the fewest lone
    cards are moved in or out that make it split (at most ``MAX_LONE`` are weighed). A loose card
    lying more than ``FAR_LOOSE`` glyph sizes from every laid column of two cards or more is not
    weighed: a player lays the hand together, and a card that far off is a discard (taken in, it
    makes a hand that is no winning hand split). The moved columns say why (``settled``), and
    ``assemble`` lists them as doubts."""
    if draft.splits:
        return None
    cols, dets = draft.columns, draft.detections
    laid = [n for n in laid_columns(cols, dets) if len(cols[n].cards) > 1]
    far = FAR_LOOSE * scale(dets) if laid else 0.0
    lone = [n for n, c in enumerate(cols) if len(c.cards) == 1 and c.cards[0] != "back"
            and (c.state == FREE or (c.state == LOOSE and _near_laid(cols, dets, n, laid, far)))]
    if not lone or len(lone) > MAX_LONE:
        return None
    fr = layout_frame(dets)
    for k in range(1, len(lone) + 1):
        found = [way for combo in itertools.combinations(lone, k)
                 if (way := _settled(draft, combo, fr)) is not None]
        if len(found) > 1:
            return None
        if found:
            return found[0]
    return None


def _settled(draft: Draft, flip: Sequence[int], fr: Frame | None = None) -> Draft | None:
    """The draft with the lone cards ``flip`` moved (``_flipped``) and its rows told again, when
    that splits; else None. A discard at the claimed row's end looks like the hand's lone card
    and tells the rows the wrong way round: the hand's triples then claimed break the rules (a
    claimed 碰 whose fourth card lies in the hand must be a 跑), so once a card of the layout is
    left out the rows told again count too, and where only backs tell them (a hand's 坎 laid face
    over backs looks like a claimed 偎), the other way round (``swapped``, a doubt). ``fr``: the
    detections' boxes in the layout's frame (``layout_frame``), computed once by the caller."""
    moved = draft.with_columns(_flipped(draft.columns, flip, settle=True))
    if moved.splits:
        return _retold(moved)
    if all(draft.columns[n].state == LOOSE for n in flip) or _hand_shown(moved) == _hand_shown(draft):
        return None  # no card that told the rows apart was left out
    retold = _retold(moved, fr)
    if retold is moved:
        return None
    # rows told the same way split as they did (the guess aside)
    if any(a.row != b.row for a, b in zip(moved.columns, retold.columns, strict=True)) and retold.splits:
        return retold
    # the other way round only where the card left out had told the rows (no guess before)
    if any(c.row_guess == "backs" for c in retold.columns) and not _rows_guessed(draft):
        other = draft.with_columns(other_way_round(retold.columns, "swapped"))
        if other.splits:
            return other
    return None


def _rows_guessed(draft: Draft) -> bool:
    """Whether the claimed row was a guess (``Column.row_guess``)."""
    return any(c.row_guess for c in draft.columns if c.row in (TABLE, HAND))


def _hand_shown(draft: Draft) -> list[bool]:
    """Whether the claimed row and the hand's each show a pair or a lone card (``shows_hand``)."""
    return shows_hand([[c.cards for c in draft.columns if c.row == r and c.cards] for r in (TABLE, HAND)])


def _near_laid(cols: Sequence[Column], dets: Sequence[Detection], n: int, laid: Sequence[int],
               far: float) -> bool:
    """Whether loose column ``n`` lies within ``far`` pixels of a ``laid`` column (or there is
    none to measure by, or it is no find)."""
    if not laid or not _found(cols[n], dets):
        return True
    return min(_between(dets, cols[n], cols[h]) for h in laid) < far


def set_apart_ends(draft: Draft) -> Draft | None:
    """Let the rules set apart a card that the geometry took in at the end of a column.

    A column of four cards that make no group (no quad, no face over three backs) holds a card of
    no group: a discard lying in line with the column's head or past its last card, linked on as
    its next card. When the draft does not split into seven groups, the end card of each such
    column whose other three make a group is tried apart (a loose card, then settled as
    ``settle_strays`` settles lone cards); exactly one way that makes the layout split is taken,
    and the card and its column say so (``settled``, a doubt in ``assemble``). A column whose
    two ends each leave a group tries only the end lying further from the card next to it: where
    both ends are the same card (``d6 d7 d8 d6``), as either leaves the same group; else
    (``d1 d2 d3 d4``) where that end lies ``END_OFF`` times further off than the other, for a
    discard linked on lies further off than the group's own cards."""
    if draft.splits:
        return None
    cols = draft.columns
    ends = [(n, k) for n, c in enumerate(cols)
            if c.row in (TABLE, HAND) and c.state in (FREE, CONCEALED, OPEN) and len(c.cards) == 4
            and not c.name and not c.reading and not _makes_group(c.cards)
            for k in (0, 3) if _makes_group(c.cards[:k] + c.cards[k + 1:])]
    # both ends leave a group: one way, the end lying off (``d6 d7 d8 d6``; ``d1 d2 d3 d4`` with
    # one end clearly further off)
    dets = draft.detections
    both = {n for n, k in ends if k == 0 and (n, 3) in ends and _found(cols[n], dets)
            and (cols[n].cards[0] == cols[n].cards[-1] or _end_lies_off(cols[n], dets))}
    ends = [(n, k) for n, k in ends if n not in both or k == _further_end(cols[n], dets)]
    if not ends or len(ends) > MAX_ENDS:
        return None
    return _one_way(draft, ends, len({n for n, _ in ends}), lambda combo: _apart(cols, combo),
                    lambda combo: len({n for n, _ in combo}) == len(combo))  # one end a column


def _end_gaps(c: Column, dets: Sequence[Detection]) -> tuple[float, float]:
    """Pixels from a column's first card to its second, and from its last to the one before."""
    return (_distance(dets, c.detections[0], c.detections[1]),
            _distance(dets, c.detections[-1], c.detections[-2]))


def _end_lies_off(c: Column, dets: Sequence[Detection]) -> bool:
    """Whether one end of a column lies ``END_OFF`` times further from the card next to it than
    the other end does: a discard linked on, where a run laid evenly shows no end apart."""
    head, tail = _end_gaps(c, dets)
    return max(head, tail) > END_OFF * min(head, tail)


def _further_end(c: Column, dets: Sequence[Detection]) -> int:
    """The end (0: the first card, 3: the last) lying further from the card next to it: a
    discard linked on at an end lies further from its column than the group's own cards do."""
    head, tail = _end_gaps(c, dets)
    return 0 if head > tail else 3


def _apart(cols: Sequence[Column], ends: Sequence[tuple[int, int]]) -> list[Column]:
    """The columns with card ``k`` (the first or the last) of each column ``n`` of ``ends`` set
    apart as a loose card, the rest of the column in its proposed state."""
    out = list(cols)
    for n, k in ends:
        c = cols[n]
        # the column says so too: a card set apart lies apart, which the review shows without
        # asking, but the rules chose it, so it is a doubt the player looks at (``assemble``)
        rest = c.copy(detections=c.detections[:k] + c.detections[k + 1:], cards=c.cards[:k] + c.cards[k + 1:],
                      settled=f"without the {c.cards[k]} linked on at its {'head' if k == 0 else 'end'}: "
                              "the layout makes seven groups without it")
        rest.state = proposed_state(rest)
        out[n] = rest
        out.append(Column([c.detections[k]], [c.cards[k]], LOOSE, LOOSE,
                          settled="set apart from the end of its column: the other three make a group, "
                                  "and the layout makes seven groups without it"))
    return out


def _retold(draft: Draft, fr: Frame | None = None) -> Draft:
    """The draft with its rows told again (``retell_rows``) once lone cards are left out: a
    discard in the hand's row looks like the lone card that shows a hand, and once it is out
    the rows must be told by what stays, or the hand's triples are scored as claimed ones."""
    cols = retell_rows(draft.columns, draft.detections, fr)
    if cols is None:
        return draft
    return draft.with_columns([c.copy(state=proposed_state(c)) if c.row in (TABLE, HAND) else c
                               for c in cols])


def _flipped(cols: Sequence[Column], flip: Sequence[int], settle: bool = False) -> list[Column]:
    """The columns with each lone card of ``flip`` moved out of the layout, or into the hand
    when it lay apart; with ``settle``, each says why."""
    out = list(cols)
    for n in flip:
        c = cols[n]
        if c.state == LOOSE:
            out[n] = c.copy(row=HAND, state=FREE)
            why = "taken in: the layout makes seven groups with it"
        else:
            out[n] = c.copy(row=LOOSE, state=LOOSE)
            why = "left out: the layout makes seven groups without it"
        if settle:
            out[n].settled = why
    return out


def settle_backs(draft: Draft) -> Draft | None:
    """Let the rules put a lone back into the group it lies beside.

    A single back on its own is taken for the stock pile (``columns``). But a concealed group
    laid askew, or with its face card lying on top of its backs (the face's far end then ends
    the column), leaves its backs unchained, and the group comes out a card short: the layout
    then splits into no groups. When it does not split, each lone back is tried in each column of
    the layout within ``BACK_REACH`` glyph sizes of it that could take a card (three at most),
    then two backs at once; exactly one way that makes the layout split is taken, and the
    column says so (``settled``, a doubt in ``assemble``). More than ``MAX_BACK_MOVES`` ways to
    try are left alone (backs everywhere, a spilt stock: no telling)."""
    if draft.splits:
        return None
    cols, dets = draft.columns, draft.detections
    lone = [n for n, c in enumerate(cols) if c.state == LOOSE and c.cards == ["back"]]
    if not lone:
        return None
    s = scale(dets)
    moves = [(b, h) for b in lone for h, c in enumerate(cols)  # (lone back column, host column)
             if c.state != LOOSE and len(c.cards) <= 3 and _reach(cols, dets, b, h) < BACK_REACH * s]
    if not moves or len(moves) > MAX_BACK_MOVES:
        return None
    found: list[tuple[tuple[int, int], ...]] = []
    for k in (1, 2):
        found = [combo for combo in itertools.combinations(moves, k) if len({b for b, _ in combo}) == k
                 and draft.with_columns(_with_backs(cols, combo, "")).splits]
        if found:
            break
    if len(found) != 1:
        return None
    return draft.with_columns(_with_backs(cols, found[0], "the layout makes seven groups with it"))


def _reach(cols: Sequence[Column], dets: Sequence[Detection], b: int, h: int) -> float:
    """Pixels from lone back column ``b``'s centre to the nearest card of column ``h``."""
    bx, by = dets[cols[b].detections[0]].center
    return min(math.hypot(dets[i].center[0] - bx, dets[i].center[1] - by) for i in cols[h].detections)


def _with_backs(cols: Sequence[Column], moves: Sequence[tuple[int, int]], why: str,
                what: str = "a back") -> list[Column]:
    """New columns with each lone back column ``b`` (``what`` it is) moved into column ``h``,
    the host's state proposed again and marked ``settled`` with ``why``."""
    out = list(cols)
    for b, h in moves:
        host = out[h]
        out[h] = host.copy(detections=host.detections + out[b].detections, cards=host.cards + out[b].cards,
                           settled=f"{what} lying apart taken in: {why}")
        out[h].state = proposed_state(out[h])
        out[b] = out[b].copy(detections=[], cards=[])
    return [c for c in out if c.cards]


def _swappable(cols: Sequence[Column]) -> bool:
    """Whether the rules may take the rows the other way round: only where nothing in the photo
    told them apart. A row that shows backs is proposed as claimed, and ``claimed_row`` asks when
    the other way scores otherwise, but the rules do not swap it back."""
    return any(c.row_guess not in ("", "backs") for c in cols if c.row in (TABLE, HAND))


def settle_rows(draft: Draft) -> Draft | None:
    """Let the rules say which row was claimed when the geometry only guessed.

    With nothing to tell the two rows apart (``Column.row_guess``), the first is taken as
    claimed. A triple claimed in play lies open; the same triple in the hand is free cards, so a
    wrong guess can leave a hand that splits into no groups at all (four of a card in it, say)
    where the rows the other way round split. Then the other way is taken, lone cards settled
    again (``settle_strays``), and ``claimed_row`` names it a doubt. (Taking the other way also
    when both split but only it wins scored the same validation scenes and fewer held-out ones:
    a spoiled layout, which no reading wins, lost its rows. Where both ways score, they stay as
    guessed and ``claimed_row`` asks when the two score differently.)"""
    if draft.splits or not _swappable(draft.columns):
        return None
    other = draft.with_columns(other_way_round(draft.columns, "swapped"))
    return other if other.splits else settle_strays(other)


def take_in(draft: Draft) -> Draft | None:
    """Let the rules take in the weak finds that the thresholds turned away (``Draft.spare``).

    On a typeface the finder never saw, a real glyph or back can come out weaker than the
    table's print does, and a hand one card short never splits into seven groups. When the
    layout does not split, each spare find is tried in turn: the photo's columns are drawn again
    with it (``Draft.propose``, ``settle_strays``), and if exactly one makes the layout split, it
    joins the detections, marked ``taken_in`` (which ``assemble`` lists as a doubt). Where none
    does alone, a hand two cards short: each pair of spares is tried the same way
    (``MAX_TAKEN``), and exactly one pair that makes it split is taken, each find a doubt."""
    if not draft.spare or draft.splits:
        return None
    for size in range(1, MAX_TAKEN + 1):
        found: list[tuple[tuple[Detection, ...], Draft]] = []
        for combo in itertools.combinations(draft.spare, size):
            tried = Draft.propose((*draft.detections, *combo), draft.base, draft.params)
            fixed = tried if tried.splits else settle_strays(tried)
            if fixed is not None:
                found.append((combo, fixed))
            if len(found) > 1:
                return None  # two ways: the player's to choose
        if found:
            combo, tried = found[0]
            return replace(tried, detections=(*draft.detections, *(replace(d, taken_in=True) for d in combo)),
                           spare=tuple(s for s in draft.spare if all(s is not d for d in combo)))
    return None


def run(draft: Draft, steps: Sequence[Repair]) -> Draft:
    """The draft after each step in turn."""
    for step in steps:
        draft = step(draft) or draft
    return draft
