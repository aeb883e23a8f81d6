"""The rules repair what the geometry got wrong: an ordered list of named steps (``REPAIRS``).

Seven groups leave no card over and want none, so a layout that the engine cannot split into
seven groups usually holds a vision mistake: a discard taken for a hand card, a back left out of
its group, the rows guessed the wrong way round, a look-alike glyph misread, a weak card missed.
Each step takes a ``Draft`` and returns a new one, or None when it changes nothing; none changes
the draft it was given. ``repair`` runs them in order. After the first, each step acts only on a
draft that does not split, and only on a single way to make it split (two ways are the user's
to choose, as doubts; ``read_backs`` takes the likeliest pay, always a doubt); a step that
repairs leaves a draft that splits, so the later ones pass. The last, ``rescue``, acts on any
draft that makes no winning hand, a player's photo being of one: it reads the card the chances
doubt most otherwise, or leaves it out, when only so the hand wins (always a doubt).
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

from zipai.engine import Card, Group, Result, State, ZipaiError, parse_input, score_hand, splits_into_groups

from ..detector import FACES, Detection
from .assemble import engine_input, group_cards, other_way_round
from .chance import NO_SCORE, Evidence, Outcome, describe, judge, outcome, pays_same
from .column import CONCEALED, FREE, HAND, LOOSE, OPEN, TABLE, Column, Params, proposed_state
from .geometry import card_axis, columns, retell_rows, scale

MAX_LONE = 8  # lone cards settle_strays weighs (2^8 layouts at most, each under a millisecond)
BACK_REACH = 4.0  # glyph sizes from a lone back's centre to the nearest card of a group it may join
MAX_ENDS = 4  # column ends set_apart_ends weighs (15 ways at most, each with its lone cards settled)
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


def join_split_groups(draft: Draft) -> Draft | None:
    """Join two short columns of one row that lie close and together make one group.

    A column of one or two cards in the claimed row is no group (the table holds triples and
    quads), nor is a concealed column of two cards; where a card of a group lies level with or
    askew from the rest, the geometry ends the column at it and the group comes out as a lone
    card beside a pair (or a face beside two backs). Two such columns of the same row, each
    shorter than a group, whose cards together make a group of three or four (a face-up group
    the engine accepts, or one face over backs) and whose nearest cards lie within
    ``BACK_REACH`` glyph sizes, are joined when each is the other's only such partner. In the
    hand row it changes no score (free cards are pooled), but it keeps the group whole if the
    rows are told the other way round. The geometry's repair, asked of every draft."""
    cols, dets = draft.columns, draft.detections
    short = [n for n, c in enumerate(cols) if c.row in (TABLE, HAND) and c.state in (FREE, CONCEALED)
             and len(c.cards) < 3 and not c.name and all(0 <= i < len(dets) for i in c.detections)]
    if len(short) < 2:
        return None
    s = scale(dets)
    pairs = [(a, b) for a, b in itertools.combinations(short, 2) if cols[a].row == cols[b].row
             and _makes_group(cols[a].cards + cols[b].cards)
             and _between(dets, cols[a], cols[b]) < BACK_REACH * s]
    partners = Counter(n for pair in pairs for n in pair)
    pairs = [(a, b) for a, b in pairs if partners[a] == 1 and partners[b] == 1]
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
    return draft.with_columns([c for c in out if c.cards])


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


def _between(dets: Sequence[Detection], a: Column, b: Column) -> float:
    """Pixels between the nearest cards of two columns."""
    return min(math.hypot(dets[i].center[0] - dets[j].center[0], dets[i].center[1] - dets[j].center[1])
               for i in a.detections for j in b.detections)


def read_backs(draft: Draft) -> Draft | None:
    """Let the rules read the card of a concealed column of backs only.

    Only the player can name it (RULINGS section 7: always a doubt), but a photo still narrows
    it: the deck has four of each card, so a column of three backs is a card with at most one
    in view elsewhere, and four backs one with none; and the hand is a winning one. Each card
    the deck leaves is tried (every pair of cards for two such columns); of the readings that
    make the layout split into seven groups (lone cards settled as ``settle_strays`` settles
    them, which it cannot do before the group has a card), those that win are kept if any. They
    are sorted by what they pay (``_pays``): the pay the most readings give, each weighed by the
    deck (the most ways to hold that many of the copies left unseen), is the likeliest, and the
    lesser pay breaks a tie; of its readings the likeliest card is taken. ``assemble`` scores it
    and lists it as a doubt that says whether the other readings pay the same (``reading_why``)."""
    cols = draft.columns
    blind = [n for n, c in enumerate(cols) if c.state == CONCEALED and not c.name and not c.reading
             and len(c.cards) >= 3 and all(x == "back" for x in c.cards)]
    if not blind or len(blind) > MAX_BLIND:
        return None
    seen: Counter[str] = Counter()
    for n, c in enumerate(cols):
        if n not in blind:
            seen.update(group_cards(c) or [] if c.state == CONCEALED else [x for x in c.cards if x != "back"])
    found = _readings(draft, blind, seen)
    if not found and len(blind) == 1 and _swappable(cols):
        # the rows were a guess, and as guessed no reading splits: the other way round, as
        # ``settle_rows`` takes it once the group has a card (for one such column only: two
        # are 400 readings a way, each with its lone cards settled, seconds in the worst case)
        found = _readings(draft.with_columns(other_way_round(cols, "swapped")), blind, seen)
    if not found:
        return None
    wins = [r for r in found if r.pays[0]] or found
    best = likeliest(wins)
    return best.draft.with_columns([c.copy(reading_why=_why(best, wins, bool(best.pays[0])))
                                    if c.reading and not c.reading_why else c for c in best.draft.columns])


def _readings(draft: Draft, blind: Sequence[int], seen: Counter[str]) -> list[Reading]:
    """Each reading of the all-back columns ``blind`` that the deck leaves and that makes the
    layout split into seven groups (lone cards settled), with what it pays."""
    cols = draft.columns
    choices = [[(card, math.comb(4 - seen[card], len(cols[n].cards))) for card in FACES
                if 4 - seen[card] >= len(cols[n].cards)] for n in blind]
    found: list[Reading] = []
    for k, combo in enumerate(itertools.product(*choices)):
        names = tuple(card for card, _ in combo)
        if len(blind) > 1 and any(seen[x] + sum(len(cols[n].cards) for n, y in zip(blind, names, strict=True)
                                                if y == x) > 4 for x in names):
            continue
        tried = draft.with_columns(_named(cols, blind, names, ""))
        if not tried.splits:
            # a discard in line with a row, or a hand card lying apart, is settled as it is in
            # a layout with no all-back group (``settle_strays``)
            settled = settle_strays(tried)
            if settled is None:
                continue
            tried = settled
        result = _result(tried)
        if result is not None:
            found.append(Reading(names, math.prod(w for _, w in combo), k, _pays(result), tried))
    return found


Pays = tuple[bool, int, float, str]  # winning, points, score, payouts: what a reading pays


@dataclass(frozen=True)
class Reading:
    """One way to read the all-back columns: their cards, its weight by the deck, its place in
    the order tried (``k``), what it pays and the draft it gives."""

    cards: tuple[str, ...]
    weight: int
    k: int
    pays: Pays
    draft: Draft


def _pays(result: Result) -> Pays:
    """What a result pays, as ``models.evaluate.same_score`` compares two: two readings that
    differ only in the card of a group (and how the hand splits) but pay the same are one."""
    return result.winning, result.points, float(result.score), repr(list(result.payouts))


def likeliest(readings: Sequence[Reading]) -> Reading:
    """The likeliest reading of those given: the pay with the most weight of readings behind it
    (the lesser pay on a tie), and of its readings the heaviest, then the first tried."""
    weight: Counter[Pays] = Counter()
    for r in readings:
        weight[r.pays] += r.weight
    pays = max(weight, key=lambda x: (weight[x], -x[2], -x[1]))
    return max((r for r in readings if r.pays == pays), key=lambda r: (r.weight, -r.k))


def _why(best: Reading, readings: Sequence[Reading], won: bool) -> str:
    """How ``read_backs`` chose: whether every reading kept pays alike, or which others pay
    otherwise (at most three pays named, with at most four cards each)."""
    what = "make a winning hand" if won else "make seven groups (none wins)"
    n = len(readings)
    if n == 1:
        return f"the only card the deck leaves that makes {'a winning hand' if won else 'seven groups'}"
    same = [r for r in readings if r.pays == best.pays]
    if len(same) == n:
        return f"one of {n} readings the deck leaves that {what}, and all of them pay the same"
    others: dict[Pays, list[str]] = {}
    for r in readings:
        if r.pays != best.pays:
            others.setdefault(r.pays, []).append("+".join(r.cards))
    told = "; ".join(f"{' '.join(cards[:4])}{' ...' if len(cards) > 4 else ''}: {_paid(pays)}"
                     for pays, cards in list(others.items())[:3])
    return (f"the likeliest of {n} readings the deck leaves that {what} ({len(same)} pay "
            f"{_paid(best.pays)}); others pay otherwise ({told})")


def _paid(pays: Pays) -> str:
    return f"{pays[1]} points, score {pays[2]:g}" if pays[0] else f"not a win, {pays[1]} points"


MAX_BLIND = 2  # all-back columns read_backs weighs together (20 x 20 readings at most)


def _named(cols: Sequence[Column], blind: Sequence[int], names: Sequence[str], why: str) -> list[Column]:
    out = list(cols)
    for n, card in zip(blind, names, strict=True):
        out[n] = cols[n].copy(reading=card, reading_why=why)
    return out


def _result(draft: Draft) -> Result | None:
    """The engine's result for a draft that splits; None when it refuses."""
    try:
        return score_hand(engine_input(draft.columns, draft.base).layout)
    except ZipaiError:
        return None


def settle_strays(draft: Draft) -> Draft | None:
    """Let the rules decide the lone face cards that the geometry could not.

    A discard or a card dropped beside the layout looks, to the clustering, like a one-card
    column of the hand, and a hand card nudged out of line looks like a stray. Seven groups
    leave no card over, so when the draft does not split into seven groups, the fewest lone
    cards are moved in or out that make it split (at most ``MAX_LONE`` are weighed). The moved
    columns say why (``settled``), and ``assemble`` lists them as doubts."""
    if draft.splits:
        return None
    cols = draft.columns
    lone = [n for n, c in enumerate(cols) if len(c.cards) == 1 and c.cards[0] != "back"
            and c.state in (FREE, LOOSE)]
    if not lone or len(lone) > MAX_LONE:
        return None
    for k in range(1, len(lone) + 1):
        found = [combo for combo in itertools.combinations(lone, k)
                 if draft.with_columns(_flipped(cols, combo)).splits]
        if len(found) > 1:
            return None
        if found:
            return _retold(draft.with_columns(_flipped(cols, found[0], settle=True)))
    return None


def set_apart_ends(draft: Draft) -> Draft | None:
    """Let the rules set apart a card that the geometry took in at the end of a column.

    A column of four cards that make no group (no quad, no face over three backs) holds a card of
    no group: a discard lying in line with the column's head or past its last card, linked on as
    its next card. When the draft does not split into seven groups, the end card of each such
    column whose other three make a group is tried apart (a loose card, then settled as
    ``settle_strays`` settles lone cards); exactly one way that makes the layout split is taken,
    and the card and its column say so (``settled``, a doubt in ``assemble``)."""
    if draft.splits:
        return None
    cols = draft.columns
    ends = [(n, k) for n, c in enumerate(cols)
            if c.row in (TABLE, HAND) and c.state in (FREE, CONCEALED, OPEN) and len(c.cards) == 4
            and not c.name and not c.reading and not _makes_group(c.cards)
            for k in (0, 3) if _makes_group(c.cards[:k] + c.cards[k + 1:])]
    if not ends or len(ends) > MAX_ENDS:
        return None
    for size in range(1, len({n for n, _ in ends}) + 1):
        found: list[Draft] = []
        for combo in itertools.combinations(ends, size):
            if len({n for n, _ in combo}) < size:
                continue
            tried: Draft | None = draft.with_columns(_apart(cols, combo))
            if tried is not None and not tried.splits:
                tried = settle_strays(tried)
            if tried is not None:
                found.append(tried)
            if len(found) > 1:  # two ways: the player's to choose
                return None
        if found:
            return found[0] if len(found) == 1 else None
    return None


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


def _retold(draft: Draft) -> Draft:
    """The draft with its rows told again (``retell_rows``) once lone cards are left out: a
    discard in the hand's row looks like the lone card that shows a hand, and once it is out
    the rows must be told by what stays, or the hand's triples are scored as claimed ones."""
    cols = retell_rows(draft.columns, draft.detections)
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


def _with_backs(cols: Sequence[Column], moves: Sequence[tuple[int, int]], why: str) -> list[Column]:
    """New columns with each lone back column ``b`` moved into column ``h``, the host's state
    proposed again and marked ``settled`` with ``why``."""
    out = list(cols)
    for b, h in moves:
        host = out[h]
        out[h] = host.copy(detections=host.detections + out[b].detections, cards=host.cards + out[b].cards,
                           settled=f"a back lying apart taken in: {why}")
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


def reread(draft: Draft) -> Draft | None:
    """Let the rules choose between the reader's readings of an unsure face.

    The reader's commonest slips are between look-alike glyphs (伍 and 陆, 七 and 十), and a
    hand with one card misread rarely splits into seven groups. When the layout does not split,
    the least sure faces (``Params.reread_below``, at most ``reread_max``) are tried, one at a
    time, as their second or third choice, never one whose measured ink colour says otherwise;
    a single change that makes the layout split is taken, and the detection keeps the reader's
    choice (``read_as``), which ``assemble`` lists as a doubt. Two changes that each work are
    left to the user."""
    if draft.splits:
        return None
    cols, dets, p = draft.columns, draft.detections, draft.params
    where = {i: (n, k) for n, c in enumerate(cols) if c.state != LOOSE for k, i in enumerate(c.detections)}
    unsure = sorted((i for i in where if 0 <= i < len(dets) and dets[i].card in FACES
                     and dets[i].class_prob < p.reread_below and dets[i].alternatives),
                    key=lambda i: dets[i].class_prob)[:p.reread_max]
    found: list[tuple[int, str, float]] = []
    for i in unsure:
        d = dets[i]
        for alt, prob in d.alternatives[:2]:
            if d.color is not None and d.color_margin > p.color_margin and \
                    (d.color == "red") != Card.parse(alt).is_red:
                continue
            if draft.with_columns(_read(cols, where[i], alt)).splits:
                found.append((i, alt, prob))
    if len(found) != 1:
        return None
    i, alt, prob = found[0]
    d = dets[i]
    again = replace(d, card=alt, class_prob=prob, read_as=d.card, score=d.finder_score * prob,
                    alternatives=((d.card, d.class_prob), *(a for a in d.alternatives if a[0] != alt)))
    return replace(draft, columns=tuple(_read(cols, where[i], alt)),
                   detections=(*dets[:i], again, *dets[i + 1:]))


def _read(cols: Sequence[Column], at: tuple[int, int], card: str) -> list[Column]:
    """The columns with the card at (column, position) ``at`` read as ``card``."""
    n, k = at
    out = list(cols)
    out[n] = cols[n].copy(cards=[card if j == k else x for j, x in enumerate(cols[n].cards)])
    return out


def take_in(draft: Draft) -> Draft | None:
    """Let the rules take in one weak find that the thresholds turned away (``Draft.spare``).

    On a typeface the finder never saw, a real glyph or back can come out weaker than the
    table's print does, and a hand one card short never splits into seven groups. When the
    layout does not split, each spare find is tried in turn: the photo's columns are drawn again
    with it (``Draft.propose``, ``settle_strays``), and if exactly one makes the layout split, it
    joins the detections, marked ``taken_in`` (which ``assemble`` lists as a doubt)."""
    if not draft.spare or draft.splits:
        return None
    found: list[tuple[Detection, Draft]] = []
    for d in draft.spare:
        tried = Draft.propose((*draft.detections, d), draft.base, draft.params)
        fixed = tried if tried.splits else settle_strays(tried)
        if fixed is not None:
            found.append((d, fixed))
    if len(found) != 1:
        return None
    d, tried = found[0]
    return replace(tried, detections=(*draft.detections, replace(d, taken_in=True)),
                   spare=tuple(s for s in draft.spare if s is not d))


NO_BOX = -1  # the detection index of a card no find shows (the app's typed cards use it too)
HIDDEN = "a card no find shows (under another card), read as the likeliest the deck leaves that makes {}"


def read_hidden(draft: Draft) -> Draft | None:
    """Let the rules read a card of the layout that no find shows.

    A card lying under others can show too little of its glyph to read, or nothing: the layout
    is then a card short and splits into no seven groups. When it is short (fewer cards than
    seven groups hold) and does not split, each card the deck leaves (fewer than four in view)
    is tried as one more free card of the hand; of those that make it split, those that win are
    kept if any, the likeliest by the deck (the most copies unseen), then the one that scores
    least. It joins the hand as a column of its own with no detection (``NO_BOX``), and says so
    (``settled``: a doubt in ``assemble``)."""
    if draft.splits:
        return None
    built = engine_input(draft.columns, draft.base)
    groups, hand = built.layout["groups"], built.layout["hand"]
    total = sum(len(g["cards"]) for g in groups) + len(hand)
    quads = sum(len(g["cards"]) == 4 for g in groups)
    if not built.complete or not draft.detections or total >= 21 + max(0, quads - 1):
        return None
    seen = Counter(x for c in draft.columns for x in (group_cards(c) or c.cards) if x != "back")
    found: list[tuple[bool, int, float, int, Draft]] = []
    for k, card in enumerate(FACES):
        if seen[card] >= 4:
            continue
        tried = draft.with_columns([*draft.columns, Column([NO_BOX], [card], HAND, FREE)])
        if not tried.splits:
            continue
        result = _result(tried)
        if result is not None:
            found.append((result.winning, 4 - seen[card], -float(result.score), -k,
                          tried))
    if not found:
        return None
    wins = [f for f in found if f[0]] or found
    best = max(wins, key=lambda f: f[1:4])[4]
    why = HIDDEN.format("a winning hand" if wins[0][0] else "seven groups")
    if len(wins) > 1:
        why += f" (of {len(wins)})"
    return best.with_columns([*best.columns[:-1], best.columns[-1].copy(settled=why)])


MISSED_BACK = ("a back assumed missing under its face (none found): a concealed group shows three or four "
               "cards, and only so the hand makes seven groups and wins")
MISSED_BACKS = ("both backs assumed missing under its face (none found): a lone face of the claimed row read "
                "as a concealed triple, as only so the hand makes seven groups and wins")


def fill_concealed(draft: Draft) -> Draft | None:
    """Let the rules give a concealed group the backs the finder missed under its face.

    A concealed triple is laid as one face over two backs, and a back half covered by the face
    or by the next column is the finder's commonest miss. With one back missed, the column shows
    its face over one back, a card short of any concealed group, and the scan gives no result;
    with both missed, its face lies alone in the claimed row. When the layout does not split
    (``Params.fill_concealed``), every column of one face and one back is read as the concealed
    triple of its face, with a back that no find shows (``NO_BOX``); if that alone does not make
    seven groups, each lone face of the claimed row is tried as a triple with both backs missed
    (``Params.fill_lone_face``), and exactly one that does is taken. Only a hand that then makes
    seven groups and wins is kept, a player's photo being of one, and each column so filled says
    what was assumed (``settled``: a doubt in ``assemble``)."""
    p = draft.params
    if not p.fill_concealed or draft.splits:
        return None
    cols = list(draft.columns)
    short = [n for n, c in enumerate(cols) if c.state == CONCEALED and len(c.cards) == 2
             and c.cards.count("back") == 1]
    for n in short:
        c = cols[n]
        cols[n] = c.copy(detections=[*c.detections, NO_BOX], cards=[*c.cards, "back"], settled=MISSED_BACK)
    if short and (filled := draft.with_columns(cols)).splits:
        return filled if _wins(filled) else None
    if not p.fill_lone_face:
        return None
    found: list[Draft] = []
    for n, c in enumerate(cols):
        if c.row == TABLE and c.state == FREE and len(c.cards) == 1 and c.cards[0] != "back":
            more = list(cols)
            more[n] = c.copy(detections=[*c.detections, NO_BOX, NO_BOX], cards=[*c.cards, "back", "back"],
                             state=CONCEALED, settled=MISSED_BACKS)
            tried = draft.with_columns(more)
            if tried.splits and _wins(tried):
                found.append(tried)
    return found[0] if len(found) == 1 else None


def _wins(draft: Draft) -> bool:
    result = _result(draft)
    return result is not None and result.winning


@dataclass(frozen=True)
class Rescue:
    """One other reading of a doubted card (``card`` None: no card there, an extra find), how
    likely the chances make it, what the hand then pays, and the draft it gives."""

    i: int
    card: str | None
    likelihood: float
    outcome: Outcome
    draft: Draft


def rescue(draft: Draft) -> Draft | None:
    """Read otherwise the card the chances doubt most, when only so the hand wins.

    A player photographs a winning hand, so a layout that, after every repair before, still
    makes no winning hand (no seven groups, too few points, a card too many, a concealed group
    that shows two faces) most likely holds a card read wrong. The ``Params.rescue_cards`` cards
    of the layout likeliest wrong (``layout.chance``), each at least ``Params.rescue_chance``,
    are tried one at a time as the reader's next two readings (not one the ink's colour rules
    out) and as no card at all, each through the repairs that read no card otherwise
    (``AROUND_RESCUE``; without the card, the columns are drawn again, an all-back group keeping
    the card it was read as): a dozen trial layouts at most, whatever the photo. Of the readings
    that make a winning hand, the likeliest is taken: the card's chance of being wrong times the
    share of it the reading has (no card: the reader's own probability, as a card read surely
    but wrongly is most often a find where no card lies; another card: the rest, split by the
    reader's probabilities). Never silent: the detection keeps why (``Detection.rescued``, a
    doubt in ``assemble``), naming what was read and whether other winning readings pay
    otherwise. Unlike the steps before, it also acts on a layout that splits into seven groups
    but does not win."""
    p = draft.params
    cols, dets = draft.columns, draft.detections
    if not p.rescue or not dets or p.rescue_cards <= 0 or outcome(cols, draft.base).winning:
        return None  # a winning hand asks the engine once, and weighs no card
    ev, judged = judge(cols, dets, draft.base, p.chance_model)
    where = {i: (n, k) for n, c in enumerate(cols) if c.state != LOOSE
             for k, i in enumerate(c.detections) if 0 <= i < len(dets)}
    doubted = sorted((i for i in where if judged[i].chance >= p.rescue_chance and not dets[i].rescued),
                     key=lambda i: -judged[i].chance)[:p.rescue_cards]
    found: list[Rescue] = []
    for i in doubted:
        d, chance = dets[i], judged[i].chance
        shares: list[tuple[str | None, float]] = [(None, d.class_prob if d.card != "back" else 1.0)]
        if d.card != "back":
            alts = [(a, q) for a, q in d.alternatives[:2] if a != d.card and not _ink_against(d, a, p)]
            total = sum(q for _, q in alts) or 1.0
            shares += [(a, (1.0 - d.class_prob) * q / total) for a, q in alts]
        for card, share in shares:
            tried = _read_otherwise(draft, i, where[i], card, ev)
            got = outcome(tried.columns, tried.base, memo=ev.memo)
            if got.winning:
                found.append(Rescue(i, card, chance * share, got, tried))
    if not found:
        return None
    best = max(found, key=lambda r: r.likelihood)  # the first tried on a tie: the doubted most
    why = _rescue_why(best, found, ev.now, dets, judged[best.i].chance)
    out = best.draft
    return replace(out, detections=_put(out.detections, best.i, replace(out.detections[best.i], rescued=why)))


def _read_otherwise(draft: Draft, i: int, at: tuple[int, int], card: str | None, ev: Evidence) -> Draft:
    """The draft with detection ``i`` (at column, position ``at``) read as ``card``, or left out
    as no card (in a loose column of its own, the others drawn again without it), and repaired
    by ``AROUND_RESCUE``."""
    cols, dets = draft.columns, draft.detections
    d = dets[i]
    if card is not None:
        prob = dict(d.alternatives).get(card, 0.0)
        again = replace(d, card=card, class_prob=prob, read_as=d.read_as or d.card,
                        score=d.finder_score * prob,
                        alternatives=((d.card, d.class_prob), *(a for a in d.alternatives if a[0] != card)))
        tried = replace(draft, columns=tuple(_read(cols, at, card)), detections=_put(dets, i, again))
        # a reading that already splits needs no repair (each acts only on a draft that does not)
        return tried if ev.tried.get((i, card), NO_SCORE).splits else repair(tried, AROUND_RESCUE)
    rest = (*dets[:i], *dets[i + 1:])

    def back(j: int) -> int:  # an index of ``rest`` (or a find taken in after it) in ``dets``
        return j + 1 if j >= i else j

    drawn = Draft.propose(rest, draft.base, draft.params, draft.spare)
    # an all-back group drawn again keeps the card the rules read it as (``AROUND_RESCUE``)
    read = {tuple(c.detections): c for c in cols if c.reading}
    drawn = drawn.with_columns([c.copy(reading=read[key].reading, reading_why=read[key].reading_why)
                                if (key := tuple(back(j) for j in c.detections)) in read else c
                                for c in drawn.columns])
    drawn = repair(drawn, AROUND_RESCUE)

    out = list(dets)
    for j, e in enumerate(drawn.detections):
        if j < len(rest):
            out[back(j)] = e
        else:
            out.append(e)
    moved = [c.copy(detections=[back(j) if j >= 0 else j for j in c.detections]) for c in drawn.columns]
    left = Column([i], [d.card], LOOSE, LOOSE,
                  settled="left out: a find where no card lies, as only so the hand wins")
    return replace(drawn, columns=(*moved, left), detections=tuple(out))


def _ink_against(d: Detection, card: str, p: Params) -> bool:
    """The measured ink's colour surely says ``card`` is not this detection's (as ``reread``)."""
    return d.color is not None and d.color_margin > p.color_margin and \
        (d.color == "red") != Card.parse(card).is_red


def _put(dets: Sequence[Detection], i: int, d: Detection) -> tuple[Detection, ...]:
    return (*dets[:i], d, *dets[i + 1:])


def _rescue_why(best: Rescue, found: Sequence[Rescue], now: Outcome, dets: Sequence[Detection],
                chance: float) -> str:
    """The rescue's doubt: the card as read and as changed, what each scores, how it was chosen,
    and the other winning readings that pay otherwise (three at most)."""
    def told(r: Rescue) -> str:
        x, y = dets[r.i].center
        return f"{dets[r.i].card} at ({x:.0f}, {y:.0f})"

    change = "left out" if best.card is None else f"read as {best.card}"
    head = (f"{told(best)}: as read, {describe(now)}; {change}, {describe(best.outcome)}: the hand wins "
            f"(chance {chance:.1%} the card is wrong)")
    if len(found) == 1:
        return head + "; the only reading of the doubted cards that wins"
    differ = [r for r in found if not pays_same(r.outcome, best.outcome)]
    if not differ:
        return head + f"; the likeliest of {len(found)} readings that win, and all of them pay the same"
    others = "; ".join(f"{told(r)} as {r.card or 'no card'}, {describe(r.outcome)}" for r in differ[:3])
    return head + f"; the likeliest of {len(found)} readings that win, others pay otherwise: {others}"


REPAIRS: tuple[Repair, ...] = (join_lone_backs, join_split_groups, read_backs, settle_strays,
                               set_apart_ends, settle_backs, settle_rows, reread, take_in, fill_concealed,
                               read_hidden, rescue)
"""The order the repairs run in: the geometry's own repairs (a lone back, a group split over two
short columns), the card of an all-back group, then the lone cards, a card linked on at a
column's end, the lone backs, the rows, a
misread, a missed card a weak find shows, a card no find shows, each tried only if those before
it left a layout that does not split, and last the card the chances doubt most, read otherwise
when the layout makes no winning hand."""

AROUND_RESCUE: tuple[Repair, ...] = (join_lone_backs, join_split_groups, settle_strays, settle_backs,
                                     settle_rows)
"""The repairs ``rescue`` runs on each of its trial readings: those that move lone cards and
backs in or out and swap the rows, not those that read or add a card (``reread``,
``read_hidden``, ``read_backs``, ``take_in``): one card changed a trial, and a trial's work
bounded as each of these steps bounds its own (an all-back group keeps the card it was read
as; reading it again in each trial scored two validation scenes more and took up to half a
second on one photo)."""


def repair(draft: Draft, steps: Sequence[Repair] = REPAIRS) -> Draft:
    """The draft after each step in turn (``REPAIRS``)."""
    for step in steps:
        draft = step(draft) or draft
    return draft
