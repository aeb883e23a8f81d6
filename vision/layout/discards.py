"""Discards lying in the claimed row (``set_apart_discards``): the claimed row holds groups only.

A named pure step on a ``repairs.Draft``, tried only where the layout does not split into seven
groups (``order.REPAIRS`` gives the order); each card it sets apart says so (``settled``: a
stray doubt in ``assemble``) so that the player checks it.
"""

from __future__ import annotations

import itertools

from .column import FREE, HAND, LOOSE, TABLE, Column, proposed_state
from .geometry import columns
from .readings import read_backs
from .repairs import Draft, _found, join_split_groups, settle_strays

# short face columns of the claimed row that set_apart_discards weighs (15 ways at most, each
# with the split groups joined and the lone cards settled)
MAX_DISCARDS = 4
WHY = "set apart from the claimed row: it holds groups only, and the layout makes seven groups without it"


def set_apart_discards(draft: Draft) -> Draft | None:
    """Let the rules set apart the discards that the geometry took into the claimed row.

    A claimed row holds triples and quads only, so a lone face or a pair of faces in it is a
    group split over columns (``join_split_groups``), a group with a card hidden (the readings
    weigh that), or cards that are no part of the layout: discards laid in line with the claimed
    groups, or dropped among them, which the geometry reads as the row's cards and assembly as
    free cards of the hand. When the draft does not split into seven groups, the fewest such
    columns (at most ``MAX_DISCARDS`` are weighed) set apart as loose cards that make it split
    are taken when exactly one way does, each card saying so (``settled``: a doubt). Each way
    draws the rows again from the cards that stay (``_apart``), joins the split groups left (a
    discard beside a claimed group's lone face was its other partner), settles the lone cards as
    ``settle_strays`` settles them and reads an all-back group (``read_backs``, which needs the
    rest of the layout right first); a way that takes a loose card in sets no discard apart and
    is not taken, and ways that end in the same layout are one."""
    if not draft.params.set_apart_discards or draft.splits:
        return None
    cols, dets = draft.columns, draft.detections
    short = [n for n, c in enumerate(cols) if c.row == TABLE and c.state == FREE and 1 <= len(c.cards) <= 2
             and "back" not in c.cards and not c.name and not c.reading and _found(c, dets)]
    if not short or len(short) > MAX_DISCARDS:
        return None
    held = _held(draft)  # a way that takes a loose card in sets no discard apart
    for size in range(1, len(short) + 1):
        ways: dict[frozenset[tuple[object, ...]], Draft] = {}
        for combo in itertools.combinations(short, size):
            tried = draft.with_columns(_apart(draft, combo))
            tried = join_split_groups(tried) or tried
            for then in (settle_strays, read_backs):
                if not tried.splits:
                    tried = then(tried) or tried
            if tried.splits and _held(tried) <= held:
                # a discard set apart here and its partner by ``settle_strays`` is one way
                ways.setdefault(_laid(tried), tried)
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


def _apart(draft: Draft, apart: tuple[int, ...]) -> list[Column]:
    """The columns with each card of the columns ``apart`` a loose card of its own, and the rows
    drawn again (``geometry.columns``) from the cards that stay: a discard laid in line with the
    claimed row lengthens it, and one long row is split at its widest gap, so the rows it told
    apart with the discards in are no guide. The columns laid in the rows stay whole, with what
    the repairs before said of them."""
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
            new.settled = WHY
        out.append(new)
    # the cards no find shows (read by the rules) and the loose cards stay as they were
    out += [c for n, c in enumerate(cols) if n not in apart and n not in inrow]
    out += [Column([i], [card], LOOSE, LOOSE, settled=WHY)
            for n in apart for i, card in zip(cols[n].detections, cols[n].cards, strict=True)]
    return out
