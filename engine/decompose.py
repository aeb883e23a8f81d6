"""Split the free hand cards into groups: a count-vector search, memoised on the counts.

Cards are indices 0–19 (x1…x10, d1…d10). A *piece* is a sorted tuple of indices.
The rules that shape the search (RULINGS sections 2 and 5):

- three or four identical cards held in the hand are always a concealed triple or
  quad (坎/提), never split, except the winning card taken from another player;
- the winning card that is the fourth of a table triple goes where ``fourth_card_moves``
  says: forced into it when self-drawn, never into an open 碰 from another player's hand;
  self-drawn and unmarked, such a fourth copy is the winning card (rules version 3);
- the other cards form runs, 123, 2710, mixed groups and at most one pair, and a
  pair appears exactly when the layout holds a quad.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

Piece = tuple[int, ...]

# Three-card pieces whose smallest card is i, for each i (no triples: see module doc).
_THREES: list[tuple[Piece, ...]] = []
for _i in range(20):
    _opts: list[Piece] = []
    _r = _i % 10  # rank - 1
    if _r <= 7:
        _opts.append((_i, _i + 1, _i + 2))
    if _r == 1:
        _opts.append((_i, _i + 5, _i + 8))
    if _i < 10:
        _opts.append((_i, _i, _i + 10))
        _opts.append((_i, _i + 10, _i + 10))
    _THREES.append(tuple(_opts))


@lru_cache(maxsize=200_000)
def free_splits(counts: tuple[int, ...], pairs: int) -> tuple[tuple[Piece, ...], ...]:
    """Every way to split ``counts`` into three-card pieces and exactly ``pairs`` pairs.

    >>> free_splits((1, 1, 1) + (0,) * 17, 0)
    (((0, 1, 2),),)
    """
    first = next((i for i, n in enumerate(counts) if n), -1)
    if first < 0:
        return ((),) if pairs == 0 else ()
    out: list[tuple[Piece, ...]] = []
    c = list(counts)
    if pairs and c[first] >= 2:
        c[first] -= 2
        for rest in free_splits(tuple(c), pairs - 1):
            out.append(((first, first), *rest))
        c[first] += 2
    for piece in _THREES[first]:
        ok = True
        for j in piece:
            c[j] -= 1
            if c[j] < 0:
                ok = False
        if ok:
            for rest in free_splits(tuple(c), pairs):
                out.append((piece, *rest))
        for j in piece:
            c[j] += 1
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Split:
    """One way to lay out the hand: forced sets, free pieces, and where the winning card went.

    ``open_set`` is the index of a set in ``sets`` made open by the winning card (碰/跑 on
    the win), ``upgrade`` the index of a table triple the winning card turned into a quad,
    open (跑/開招) or, for a self-drawn card onto a concealed triple, concealed (提/掃穿).
    """

    sets: tuple[Piece, ...]
    pieces: tuple[Piece, ...]
    open_set: int = -1
    upgrade: int = -1
    upgrade_open: bool = True


class TableTriple(NamedTuple):
    """A triple laid on the table, as the fourth card sees it: its card and whether it is a 碰."""

    card: int
    open: bool


def fourth_card_moves(won_by: str, triple: TableTriple, version: int = 2) -> tuple[str, ...]:
    """Where the winning card may go when it is the fourth of a table triple (RULINGS section 5).

    ``open``/``concealed``: onto the triple as a quad of that state; ``free``: into another
    group. Self-drawn, the quad is forced (seed 000 "必須開招", seed 003 掃穿 "都不給"); a card
    played from another player's hand never joins an open 碰 (seed 000 "不可開招").

    >>> fourth_card_moves("discard", TableTriple(4, open=True))
    ('free',)
    >>> fourth_card_moves("self_draw", TableTriple(4, open=False))
    ('concealed',)
    """
    if version < 2:  # the first reading: another player's card anywhere, a self-drawn one free
        return ("open", "free") if won_by in ("stock", "discard") else ("free",)
    if won_by == "self_draw":
        return ("open",) if triple.open else ("concealed",)
    if won_by == "stock" or (won_by == "discard" and not triple.open):
        return ("open", "free")
    return ("free",)


def hand_splits(
    counts: list[int],
    table_groups: int,
    table_quads: int,
    winning: int = -1,
    won_by: str = "",
    table_triples: tuple[TableTriple | None, ...] = (),
    table_pairs: int = 0,
    version: int = 2,
    beyond_held: bool = False,
) -> list[Split]:
    """Every complete split of the hand that gives exactly seven groups in all.

    ``winning`` is the winning card's index (or -1) and ``won_by`` how it came;
    ``table_triples`` gives, per table group, its triple (or None), for the quad the winning
    card may make of it. ``table_pairs`` counts the pairs laid among the table groups: with
    them, the one pair a quad allows is already there. ``version`` is the rules version.
    ``beyond_held`` leaves out the placements whose splits are those of the hand scored as
    held (the open 碰/跑 and the card left free), for a caller that knows those already.
    """
    from_other = won_by in ("stock", "discard")
    # (free counts, open set card, upgrade, upgrade open, held)
    variants: list[tuple[list[int], int, int, bool, int]] = []
    base = list(counts)
    c = counts[winning] if winning >= 0 else 0
    fourth = [(t, tt) for t, tt in enumerate(table_triples) if tt is not None and tt.card == winning
              ] if c == 1 else []
    if winning < 0 and won_by == "self_draw" and version >= 3:
        # The unmarked fourth copy of a table triple's card can only be the card just drawn
        # (drawn earlier, it would have been forced onto the triple): it is the winning card.
        fourth = [(t, tt) for t, tt in enumerate(table_triples) if tt is not None and counts[tt.card] == 1]
        c = 1 if fourth else 0
    if from_other and c >= 3:
        # A: the winning card with the held cards makes an open 碰 or 跑.
        if not beyond_held:
            variants.append((base, winning, -1, True, -1))
        # B: it goes into another group; the held cards stay as they were (搶招和, 破跑胡).
        variants.append((base, -1, -1, True, winning))
    elif c == 1 and fourth:
        for t, tt in fourth:
            for move in fourth_card_moves(won_by, tt, version):
                if move == "free":
                    if not beyond_held:
                        variants.append((base, -1, -1, True, -1))
                else:
                    variants.append((base, -1, t, move == "open", -1))
    else:
        variants.append((base, -1, -1, True, -1))
    out: list[Split] = []
    many = [i for i in range(20) if counts[i] >= 3]
    total = sum(counts)
    for free, open_card, upgrade, upgrade_open, held in variants:
        free = list(free)
        sets: list[Piece] = []
        open_idx = -1
        quads = table_quads
        n_free = total
        for i in many:
            n = free[i]
            if i == held:
                if n == 4:  # the held triple stays concealed, the winning card is free
                    sets.append((i, i, i))
                    free[i] = 1
                    n_free -= 3
                # n == 3: the held pair and the winning card are free; the search
                # makes no triples, so they never regroup into variant A's 碰.
                continue
            if i == open_card:
                open_idx = len(sets)
            sets.append((i,) * n)
            quads += n == 4
            free[i] = 0
            n_free -= n
        if upgrade >= 0:
            onto = table_triples[upgrade]
            assert onto is not None
            free[onto.card] -= 1
            quads += 1
            n_free -= 1
        need = 7 - table_groups - len(sets)
        pairs = (1 if quads else 0) - table_pairs
        if need < 0 or pairs < 0 or n_free != 3 * need - pairs:
            continue
        for pieces in free_splits(tuple(free), pairs):
            out.append(Split(tuple(sets), pieces, open_idx, upgrade, upgrade_open))
    return out


def splits_into_groups(
    hand: Sequence[int],
    table: Sequence[tuple[Sequence[int], bool]] = (),
    winning: int = -1,
    won_by: str = "",
    version: int = 2,
) -> bool:
    """Whether the free cards ``hand`` and the ``table`` groups make seven groups in all.

    The scoring search's yes/no, by its own rules (``hand_splits``), for a caller that weighs
    many candidate layouts and needs no points, settlement or alternatives (the photo layout's
    repairs). Cards are indices; ``table`` gives each table group's cards, already a group,
    and whether it lies open. An instant win after the deal is not seven groups and is not
    asked here.

    >>> from zipai.engine.cards import parse_cards
    >>> def idx(text): return [c.index for c in parse_cards(text)]
    >>> table = [(idx("d5d5d5"), True), (idx("x10x10x10"), False), (idx("x1x2x3"), True)]
    >>> splits_into_groups(idx("x4x5x6 d2d7d10 x9x9x9 d8d8x8"), table)
    True
    >>> splits_into_groups(idx("x4x5x6 d2d7d10 x9x9x9 d8d8x7"), table)
    False
    """
    counts = [0] * 20
    for i in hand:
        counts[i] += 1
    quads = pairs = 0
    triples: list[TableTriple | None] = []
    for cards, is_open in table:
        same = len(set(cards)) == 1
        quads += same and len(cards) == 4
        pairs += same and len(cards) == 2
        triples.append(TableTriple(cards[0], is_open) if same and len(cards) == 3 else None)
    fourths = {t.card for t in triples if t is not None and counts[t.card] == 1}
    if won_by == "self_draw" and version >= 3 and winning >= 0 and fourths and winning not in fourths:
        return False  # only the held fourth can be the card just drawn: the scorer refuses the mark
    return bool(hand_splits(counts, len(table), quads, winning, won_by, tuple(triples), pairs, version))
