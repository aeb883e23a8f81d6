"""Split the free hand cards into groups: a count-vector search, memoised on the counts.

Cards are indices 0–19 (x1…x10, d1…d10). A *piece* is a sorted tuple of indices.
The rules that shape the search (RULINGS sections 2 and 5):

- three or four identical cards held in the hand are always a concealed triple or
  quad (坎/提), never split, except the winning card taken from another player;
- the other cards form runs, 123, 2710, mixed groups and at most one pair, and a
  pair appears exactly when the layout holds a quad.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

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
    the win), ``upgrade`` the index of a table triple the winning card turned into a quad.
    """

    sets: tuple[Piece, ...]
    pieces: tuple[Piece, ...]
    open_set: int = -1
    upgrade: int = -1


def hand_splits(
    counts: list[int],
    table_groups: int,
    table_quads: int,
    winning: int = -1,
    from_other: bool = False,
    table_triples: tuple[int, ...] = (),
    table_pairs: int = 0,
) -> list[Split]:
    """Every complete split of the hand that gives exactly seven groups in all.

    ``winning`` is the winning card's index (or -1), ``from_other`` whether it came from
    another player; ``table_triples`` gives, per table group, the card index of a triple
    (or -1), for the 跑 made by adding the winning card to it. ``table_pairs`` counts the
    pairs laid among the table groups: with them, the one pair a quad allows is already there.
    """
    variants: list[tuple[list[int], int, int, int]] = []  # (free counts, open set card, upgrade, held)
    base = list(counts)
    c = counts[winning] if winning >= 0 else 0
    if from_other and c >= 3:
        # A: the winning card with the held cards makes an open 碰 or 跑.
        variants.append((base, winning, -1, -1))
        # B: it goes into another group; the held cards stay as they were (搶招和, 破跑胡).
        variants.append((base, -1, -1, winning))
    else:
        variants.append((base, -1, -1, -1))
    if from_other and c == 1:
        for t, card in enumerate(table_triples):
            if card == winning:
                variants.append((base, -1, t, -1))
    out: list[Split] = []
    for free, open_card, upgrade, held in variants:
        free = list(free)
        sets: list[Piece] = []
        open_idx = -1
        quads = table_quads
        for i in range(20):
            n = free[i]
            if n < 3:
                continue
            if i == held:
                if n == 4:  # the held triple stays concealed, the winning card is free
                    sets.append((i, i, i))
                    free[i] = 1
                # n == 3: the held pair and the winning card are free; the search
                # makes no triples, so they never regroup into variant A's 碰.
                continue
            if i == open_card:
                open_idx = len(sets)
            sets.append((i,) * n)
            quads += n == 4
            free[i] = 0
        if upgrade >= 0:
            free[winning] -= 1
            quads += 1
        n_free = sum(free)
        need = 7 - table_groups - len(sets)
        pairs = (1 if quads else 0) - table_pairs
        if need < 0 or pairs < 0 or n_free != 3 * need - pairs:
            continue
        for pieces in free_splits(tuple(free), pairs):
            out.append(Split(tuple(sets), pieces, open_idx, upgrade))
    return out
