"""Discards taken in as cards of the layout: the claimed row holds groups only
(``set_apart_discards``), and a player photographs a winning hand (``win_without_discards``).

Named pure steps on a ``repairs.Draft``, tried only where the layout does not split into seven
groups, or makes no winning hand (``order.REPAIRS`` gives the order); each card they set apart
says so (``settled``: a stray doubt in ``assemble``) so that the player checks it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from ..detector import Detection
from .chance import outcome
from .column import CONCEALED, FREE, HAND, LOOSE, TABLE, Column, proposed_state
from .geometry import columns, scale
from .readings import read_backs
from .repairs import Draft, _between, _found, join_split_groups

# short face columns that set_apart_discards and win_without_discards weigh (15 ways at most,
# each with its rows drawn again)
MAX_DISCARDS = 4
# glyph sizes from a short column of the hand's row to the nearest column of three or four cards
# past which win_without_discards weighs it as a discard (chosen on validation: 0 to 2.5 score
# alike on the labelled cards and end to end, 3 loses a pair lying 2.8 glyph sizes off; the
# larger keeps a pair laid in line with the hand's columns)
HAND_APART = 2.5
SPLITS = "set apart from the claimed row: it holds groups only, and the layout makes seven groups without it"
WINS = "set apart as a discard: the layout makes a winning hand without it"


def set_apart_discards(draft: Draft) -> Draft | None:
    """Let the rules set apart the discards that the geometry took into the claimed row.

    A claimed row holds triples and quads only, so a lone face or a pair of faces in it is a
    group split over columns (``join_split_groups``), a group with a card hidden (the readings
    weigh that), or cards that are no part of the layout: discards laid in line with the claimed
    groups, or dropped among them, which the geometry reads as the row's cards and assembly as
    free cards of the hand. When the draft does not split into seven groups, the fewest such
    columns set apart as loose cards that make it split are taken when exactly one way does
    (``_fewest``), each card saying so (``settled``: a doubt). Each way draws the rows again
    from the cards that stay (``_apart``) and joins the split groups left (a discard beside a
    claimed group's lone face was its other partner). Where an all-back group's card is still
    unread (it is read only once the rest of the layout is right), every such column is set
    apart at once and the group read (``read_backs``, which settles the lone cards of each
    reading), once: it weighs up to hundreds of readings. A way that takes a loose card
    in sets no discard apart and is not taken. (Settling the lone cards in every way too gained
    no validation scene and cost a tenth of the layout step's time.)"""
    if not draft.params.set_apart_discards or draft.splits:
        return None
    held = _held(draft)

    def tried(combo: tuple[int, ...], blind: bool = False) -> Draft | None:
        got = draft.with_columns(_apart(draft, combo, SPLITS))
        got = join_split_groups(got) or got
        if blind and not got.splits:
            got = read_backs(got) or got
        return got if got.splits and _held(got) <= held else None

    short = _short(draft.columns, draft.detections)
    found = _fewest(short, tried)
    if found is None and short and len(short) <= MAX_DISCARDS and any(_blind(c) for c in draft.columns):
        found = tried(tuple(short), blind=True)
    return found


def _blind(c: Column) -> bool:
    """A concealed column of backs only whose card is neither named nor read yet."""
    return c.state == CONCEALED and not c.name and not c.reading and all(x == "back" for x in c.cards)


def win_without_discards(draft: Draft) -> Draft | None:
    """Let the rules set apart the discards that leave a layout no winning hand.

    A player photographs a winning hand. A discard dropped beside the hand's columns, a lone
    face or two overlapping, looks like free cards of the hand; in the claimed row, like a group
    split over columns. When the layout, after the repairs before, makes no winning hand (it
    does not split, or splits into groups that do not win), the fewest of the claimed row's
    lone faces and pairs, and of the hand row's lying more than ``HAND_APART`` glyph sizes from
    every column of three or four cards, set apart as loose cards (the rows drawn again from
    the cards that stay, ``_apart``) that make a winning hand are taken when exactly one way
    does (``_fewest``); each card says so (``settled``: a doubt). It runs before ``rescue``,
    which reads a card otherwise."""
    if not draft.params.win_without_discards or not draft.detections:
        return None
    if outcome(draft.columns, draft.base).winning:
        return None

    def tried(combo: tuple[int, ...]) -> Draft | None:
        got = draft.with_columns(_apart(draft, combo, WINS))
        return got if got.splits and outcome(got.columns, got.base).winning else None

    return _fewest(_short(draft.columns, draft.detections, HAND_APART * scale(draft.detections)), tried)


def _short(cols: Sequence[Column], dets: Sequence[Detection], apart: float | None = None) -> list[int]:
    """The claimed row's columns of one or two faces (free cards, every one a find); with
    ``apart``, the hand row's too that lie more than ``apart`` pixels from every column of three
    or four cards."""
    groups = [c for c in cols if c.row in (TABLE, HAND) and len(c.cards) >= 3 and _found(c, dets)]

    def lies_apart(c: Column) -> bool:
        return apart is not None and min((_between(dets, c, g) for g in groups), default=0.0) > apart

    return [n for n, c in enumerate(cols) if c.state == FREE and 1 <= len(c.cards) <= 2
            and "back" not in c.cards and not c.name and not c.reading and _found(c, dets)
            and (c.row == TABLE or (c.row == HAND and lies_apart(c)))]


def _fewest(short: Sequence[int], tried: Callable[[tuple[int, ...]], Draft | None]) -> Draft | None:
    """The draft ``tried`` gives for the fewest of the columns ``short`` set apart, when exactly
    one layout comes of as few (ways that end in the same layout are one); None where none
    does, or two do, or ``short`` holds more than ``MAX_DISCARDS``."""
    if not short or len(short) > MAX_DISCARDS:
        return None
    for size in range(1, len(short) + 1):
        ways: dict[frozenset[tuple[object, ...]], Draft] = {}
        for combo in itertools.combinations(short, size):
            got = tried(combo)
            if got is not None:
                ways.setdefault(_laid(got), got)
            if len(ways) > 1:
                return None
        if ways:
            return next(iter(ways.values()))
    return None


def _held(draft: Draft) -> set[int]:
    """The cards (detections) the draft's rows hold."""
    return {i for c in draft.columns if c.row in (TABLE, HAND) for i in c.detections}


def _laid(draft: Draft) -> frozenset[tuple[object, ...]]:
    """The draft's layout: each column of the rows, its cards and what it was read as."""
    return frozenset((c.row, c.state, tuple(sorted(c.detections)), c.reading) for c in draft.columns
                     if c.row in (TABLE, HAND))


def _apart(draft: Draft, apart: tuple[int, ...], why: str) -> list[Column]:
    """The columns with each card of the columns ``apart`` a loose card of its own, and the rows
    drawn again (``geometry.columns``) from the cards that stay: a discard laid in line with the
    claimed row lengthens it, and one long row is split at its widest gap, so the rows it told
    apart with the discards in are no guide. The columns laid in the rows stay whole, with what
    the repairs before said of them. Each card set apart says ``why``."""
    cols, dets = draft.columns, draft.detections
    inrow = [n for n, c in enumerate(cols) if n not in apart and c.row in (TABLE, HAND) and _found(c, dets)]
    laid = [cols[n] for n in inrow]
    keep = sorted(i for c in laid for i in c.detections)
    at = {g: k for k, g in enumerate(keep)}
    was = {tuple(c.detections): c for c in laid}
    out = []
    for c in columns([dets[i] for i in keep], draft.params, [[at[i] for i in c.detections] for c in laid]):
        idx = [keep[i] for i in c.detections]
        old = was.get(tuple(idx))
        new = c.copy(detections=idx, settled=old.settled, name=old.name, reading=old.reading,
                     reading_why=old.reading_why) if old is not None else c.copy(detections=idx)
        new.state = old.state if old is not None and old.row == new.row else proposed_state(new)
        if new.row == LOOSE:  # the rows drawn again set it apart too (a row of strays)
            new.settled = why
        out.append(new)
    # the cards no find shows (read by the rules) and the loose cards stay as they were
    out += [c for n, c in enumerate(cols) if n not in apart and n not in inrow]
    out += [Column([i], [card], LOOSE, LOOSE, settled=why)
            for n in apart for i, card in zip(cols[n].detections, cols[n].cards, strict=True)]
    return out
