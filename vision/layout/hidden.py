"""A card hidden wholly under another card of its column, read by the rules (``complete_group``).

Columns overlap, and a card laid under the next one can show nothing of itself: a claimed 碰
then shows as two of a card, a 吃 as its two ends, a 2-7-10 as two of its three. The finder
cannot see it, so no find does; ``readings.read_hidden`` reads such a card as one more free
card of the hand, which gives a claimed group's card to the hand and leaves its column no group.
Here the card is put back where it lies: in the column that makes a group with it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from zipai.engine import Card

from ..detector import FACES
from .assemble import group_cards
from .chance import Outcome, pays_same
from .chance import outcome as outcome_of
from .column import CONCEALED, FREE, HAND, LOOSE, TABLE, Column, proposed_state
from .geometry import scale
from .moves import _continues, _down
from .readings import NO_BOX, read_backs
from .repairs import (
    FAR_LOOSE,
    Draft,
    _found,
    _makes_group,
    _near_laid,
    laid_columns,
    nearest_row,
    settle_strays,
)

HIDDEN_IN_GROUP = ("{card} assumed hidden under this column's cards (no find shows it): {shown} make no "
                   "group, and only with it does the hand make seven groups and win")
# the same where no completion wins (``Params.complete_splits``): every one that splits pays alike
HIDDEN_NO_WIN = ("{card} assumed hidden under this column's cards (no find shows it): {shown} make no "
                 "group, and only with it does the hand make seven groups (no reading wins; every one "
                 "that makes seven groups pays the same)")
# winning completions that pay otherwise (``Params.complete_guess``): the likeliest, and the others
HIDDEN_GUESS = " (the likeliest of {n} winning readings that pay otherwise; the others: {also})"

# the face the finder misses most often: a card a column lacks was missed, not only hidden, and
# where the deck leaves as many of each, 一 (its one stroke) is the likelier (on the 800
# validation scenes, ``zipai eval detector`` "missed cards by class": 一 53, the next face 二 17)
OFTEN_MISSED = "x1"


@dataclass(frozen=True)
class Completion:
    """One way to put hidden cards back: the columns completed (indices into the draft's
    columns, which settling lone cards keeps in place), the cards, the copies of them left unseen
    (the fewest of any), the engine's outcome of the hand, and the draft it gives (lone cards
    settled)."""

    columns: tuple[int, ...]
    cards: tuple[str, ...]
    unseen: int
    outcome: Outcome
    draft: Draft

    @property
    def winning(self) -> bool:
        return self.outcome.winning


@dataclass(frozen=True)
class Candidate:
    """Column ``n`` read with a hidden card: the column as completed, and the card."""

    n: int
    column: Column
    card: str
    gone: int = -1  # a lone card's column joined into ``column`` (``Params.complete_apart``), emptied


def completions(cards: Sequence[str]) -> list[tuple[str, int]]:
    """Each card that, laid among two face cards, makes a face-up group of three (a 碰, a run,
    2-7-10, or two of one number and one of the other size), with the place it takes: between
    two cards of a run whose middle is missing, else after them."""
    if len(cards) != 2 or "back" in cards:
        return []
    out: list[tuple[str, int]] = []
    for card in FACES:
        three = [*cards, card]
        if not _makes_group(three):
            continue
        ranks = sorted(Card.parse(x).rank for x in three)
        middle = Card.parse(card).rank == ranks[1] and ranks[0] < ranks[1] < ranks[2]
        out.append((card, 1 if middle else 2))
    return out


def _unseen(cols: Sequence[Column]) -> Counter[str]:
    seen = Counter(x for c in cols if c.state != LOOSE for x in (group_cards(c) or c.cards) if x != "back")
    return Counter({card: 4 - seen[card] for card in FACES})


def _candidates(n: int, c: Column, unseen: Counter[str], row: str | None = None,
                pairs: bool = False) -> list[Candidate]:
    """Each way column ``n`` is a group with a card hidden under it: two faces that are no group
    where they lie, with a card the deck leaves that makes them three; with ``pairs``, a pair of
    the hand too (a 坎 with its third card hidden)."""
    if row is not None:
        c = c.copy(row=row, state=FREE)
    if c.state == LOOSE or c.row not in (TABLE, HAND) or c.name or c.reading or "back" in c.cards:
        return []
    out: list[Candidate] = []
    if len(c.cards) == 2 and (pairs or not (c.row == HAND and c.cards[0] == c.cards[1])):
        for card, at in completions(c.cards):
            if unseen[card] > 0:
                filled = c.copy(detections=[*c.detections[:at], NO_BOX, *c.detections[at:]],
                                cards=[*c.cards[:at], card, *c.cards[at:]])
                filled.state = proposed_state(filled) if c.row == TABLE else FREE
                out.append(Candidate(n, filled, card))
    return out


def _apart_candidates(draft: Draft, unseen: Counter[str]) -> list[Candidate]:
    """Each way two lone face cards lying in line are one group with a card hidden between them:
    a card hidden under a column leaves a gap there, and the geometry, which links cards that
    overlap, takes its two neighbours for two columns (or one for a card lying apart). One must
    lie past the other along the layout's axis, within ``FAR_REACH`` glyph sizes of it and
    ``APART_ACROSS`` across; one laid in a row (a free card of the claimed row or the hand),
    whose row the group takes, or both lying apart (the geometry sets a lone card apart when it
    lies off its row's line), one within ``FAR_LOOSE`` glyph sizes of a column of the layout,
    the group then taking the row of the column nearest them."""
    cols, dets = draft.columns, draft.detections
    lone = [n for n, c in enumerate(cols) if len(c.cards) == 1 and c.cards[0] != "back" and _found(c, dets)
            and not c.name and not c.reading
            and (c.state == LOOSE or (c.state == FREE and c.row in (TABLE, HAND)))]
    if len(lone) < 2 or len(lone) > MAX_APART:
        return []
    s = scale(dets)
    laid = laid_columns(cols, dets)
    # two cards both lying apart are weighed only near a column of the layout, as lone cards are
    # (``settle_strays``): a card further off is a discard
    near = [n for n in laid if len(cols[n].cards) > 1]
    out: list[Candidate] = []
    for a, b in itertools.combinations(lone, 2):
        ca, cb = cols[a], cols[b]
        both_loose = ca.state == LOOSE and cb.state == LOOSE
        if both_loose and not (near and any(_near_laid(cols, dets, n, near, FAR_LOOSE * s) for n in (a, b))):
            continue
        if ca.state != LOOSE and cb.state != LOOSE and ca.row != cb.row:
            continue
        ia, ib = ca.detections[0], cb.detections[0]
        if not (_continues(dets, [ia], ib, s, APART_ACROSS) or _continues(dets, [ib], ia, s, APART_ACROSS)):
            continue
        keep, gone = (a, b) if ca.state != LOOSE else (b, a)
        row = nearest_row(cols, dets, (a, b), laid) if both_loose else cols[keep].row
        order = _down(dets, [ia, ib])
        for card, _ in completions([dets[i].card for i in order]):
            if unseen[card] > 0:
                filled = cols[keep].copy(detections=[order[0], NO_BOX, order[1]],
                                         cards=[dets[order[0]].card, card, dets[order[1]].card], row=row)
                filled.state = proposed_state(filled) if row == TABLE else FREE
                out.append(Candidate(keep, filled, card, gone))
    return out


MAX_APART = 8  # lone cards ``_apart_candidates`` pairs (28 pairs at most)
APART_ACROSS = 2.0  # glyph sizes across the layout's axis two lone cards may lie apart and be one group
MAX_PAIRS = 64  # pairs of completions weighed together, two columns each a card short
MAX_THREES = 64  # threes of completions weighed together, three columns each a card short


def complete_group(draft: Draft) -> Draft | None:
    """Let the rules give a column the card hidden under its cards.

    When the layout does not split into seven groups (``Params.complete_group``), each column
    of two face cards that is no group where it lies (any such column of the claimed row, which
    holds no pairs; a hand column that is no pair) is tried with each card that makes it a group
    of three and that the deck leaves (fewer than four in view), the card hidden under the
    column with no detection (``NO_BOX``), and lone cards then settled as ``settle_strays``
    settles them; where no one column does, two columns are tried together, then three
    (``Params.complete_three``); with more than one column, a pair of the hand is tried too (a
    坎 with its third card hidden, ``Params.complete_pairs``: one card alone there is
    ``read_hidden``'s). Only completions that make the hand split count, and of those the ones
    that **win** if any (a player photographs a winning hand), else (``Params.complete_splits``)
    every one that splits: a layout no reading wins is still scored, and where every reading
    pays the same the score does not hang on which card it is. One is taken when it is the only
    one, or when every one pays the same (the card with the most copies unseen, then the first
    tried), or (``Params.complete_guess``) of winning ones that pay otherwise the likeliest:
    the most columns made three of one card, then the most copies unseen, then 一 (the face the
    finder misses most, ``OFTEN_MISSED``), then the least score, its doubt naming the others;
    the column says what was assumed (``settled``: a doubt in ``assemble``; a hand that does
    not win is a ``no_win`` doubt too), so the player checks it.
    One group laid as backs only, unread (no reading splits while cards are hidden), stands in
    as a card with no copy in view while they are sought, and is read by ``read_backs`` once they are in
    (``Params.complete_blind``); with two readings at once, only a winning hand is taken."""
    p = draft.params
    if not p.complete_group or draft.splits:
        return None
    cols = draft.columns
    unseen = _unseen(cols)
    each = [cand for n, c in enumerate(cols) for cand in _candidates(n, c, unseen)]
    if p.complete_loose:
        dets = draft.detections
        laid = laid_columns(cols, dets)
        for n, c in enumerate(cols):
            if c.state == LOOSE and len(c.cards) == 2 and laid and _found(c, dets):
                each += _candidates(n, c, unseen, nearest_row(cols, dets, (n,), laid))
    if p.complete_apart:
        each += _apart_candidates(draft, unseen)
    if p.complete_pairs:
        pairs = [cand for n, c in enumerate(cols) if c.row == HAND and len(c.cards) == 2
                 and c.cards[0] == c.cards[1] for cand in _candidates(n, c, unseen, pairs=True)]
    else:
        pairs = []
    blind = [n for n, c in enumerate(cols) if c.state == CONCEALED and not c.name and not c.reading
             and len(c.cards) >= 3 and all(x == "back" for x in c.cards)]
    search = draft
    if blind:
        # an all-back group stands in as a card with no copy in view that no completion takes while
        # the hidden cards are sought, and is read by ``read_backs`` once they are in
        taken = {cand.card for cand in each + pairs}
        spare = [card for card in FACES if unseen[card] == 4 and card not in taken]
        if len(blind) > 1 or not p.complete_blind or not spare or not each:
            return None
        search = draft.with_columns([c.copy(reading=spare[0]) if n == blind[0] else c
                                     for n, c in enumerate(cols)])
    found = [f for cand in each if (f := _tried(search, (cand,), unseen)) is not None]
    each += pairs
    for k, most, on in ((2, MAX_PAIRS, p.complete_two), (3, MAX_THREES, p.complete_three)):
        if found or not on:
            break
        combos = [combo for combo in itertools.combinations(each, k) if _apart(combo, unseen)]
        if len(combos) > most:
            return None  # too many ways to weigh: the player's to tell
        found = [f for combo in combos if (f := _tried(search, combo, unseen)) is not None]
    if blind:  # two readings at once, the hidden cards' and the group's: only a winning hand
        found = [g for f in found if (g := _read_blind(f, blind[0])) is not None]
    chosen = [f for f in found if f.winning] or (found if p.complete_splits else [])
    if not chosen:
        return None
    outcomes = [f.outcome for f in chosen]
    # a hand that does not win pays nothing, but its points are still its score
    if any(not pays_same(o, outcomes[0]) or o.points != outcomes[0].points for o in outcomes[1:]):
        if not (p.complete_guess and chosen[0].winning):
            return None  # completions that pay otherwise: the player's to tell
        # a group is likelier three of a card (a 碰 claimed, a 坎 held) than two of a number
        # and one of the other size; then the deck; then the card the finder misses most; then
        # the score that claims least
        best = max(chosen, key=lambda f: (_triples(f), f.unseen, f.cards.count(OFTEN_MISSED),
                                          -(f.outcome.points or 0)))
        also = ", ".join(sorted({" ".join(f.cards) for f in chosen if f is not best}))
        return _noted(best, HIDDEN_GUESS.format(n=len(chosen), also=also))
    best = max(chosen, key=lambda f: f.unseen)  # the first tried on a tie
    if len(chosen) == 1:
        return _noted(best, "")
    return _noted(best, f" (one of {len(chosen)} such readings, all paying the same)")


def _noted(f: Completion, note: str) -> Draft:
    """The completion's draft, each completed column's doubt saying ``note`` too, and the
    columns a join emptied gone."""
    return f.draft.with_columns([c.copy(settled=c.settled + note) if n in f.columns else c
                                 for n, c in enumerate(f.draft.columns) if c.cards])


def _triples(f: Completion) -> int:
    """How many of the completed columns the hidden cards make three of one card."""
    return sum(len(set(f.draft.columns[n].cards)) == 1 for n in f.columns)


def _read_blind(f: Completion, n: int) -> Completion | None:
    """A completion found with the all-back column ``n`` standing in as a card, its group read
    by ``read_backs`` with the hidden cards in; None unless the hand then wins."""
    cols = f.draft.columns
    read = read_backs(f.draft.with_columns([c.copy(reading=None, reading_why="") if k == n else c
                                             for k, c in enumerate(cols)]))
    if read is None:
        return None
    got = outcome_of(read.columns, read.base)
    if not got.winning:
        return None
    return replace(f, outcome=got, draft=_said(read, f.columns, f.cards, True))


def _apart(combo: Sequence[Candidate], unseen: Counter[str]) -> bool:
    """Each completion in a column of its own, and no card assumed more often than the deck
    leaves it."""
    used = [n for c in combo for n in (c.n, c.gone) if n >= 0]
    return len(set(used)) == len(used) and \
        all(unseen[card] >= k for card, k in Counter(c.card for c in combo).items())


def _tried(draft: Draft, cands: Sequence[Candidate], unseen: Counter[str]) -> Completion | None:
    """The draft with these columns completed, lone cards settled; None unless it splits."""
    cols = list(draft.columns)
    for cand in cands:
        cols[cand.n] = cand.column
        if cand.gone >= 0:  # emptied in place, so that every column keeps its index
            cols[cand.gone] = Column([], [], HAND, FREE)
    tried = draft.with_columns(cols)
    if not tried.splits:
        tried = settle_strays(tried) or tried
    if not tried.splits:
        return None
    got = outcome_of(tried.columns, tried.base)
    ns, cards = tuple(c.n for c in cands), tuple(c.card for c in cands)
    unseen_least = min(unseen[c.card] for c in cands)
    return Completion(ns, cards, unseen_least, got, _said(tried, ns, cards, got.winning))


def _said(draft: Draft, ns: Sequence[int], cards: Sequence[str], won: bool) -> Draft:
    """The draft with each completed column ``ns[k]`` saying that ``cards[k]`` was assumed under
    it (``settled``), and whether the hand then wins."""
    out = list(draft.columns)
    for n, card in zip(ns, cards, strict=True):
        c = out[n]
        shown = " ".join(x for i, x in zip(c.detections, c.cards, strict=True) if i != NO_BOX)
        out[n] = c.copy(settled=(HIDDEN_IN_GROUP if won else HIDDEN_NO_WIN).format(card=card, shown=shown))
    return draft.with_columns(out)
