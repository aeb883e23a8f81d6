"""Seeded random layouts: winning structures and near misses, for tests, the benchmark
and the scene generator. Every layout respects the deck (at most four of a card) and the
hand rule (three or four identical held cards are one concealed set).

>>> import random
>>> lay = random_layout(random.Random(7))
>>> len(lay.groups), sum(len(g.cards) for g in lay.groups) >= 21
(7, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from .cards import ALL_CARDS, Card
from .groups import Group, Kind

TABLE, HAND = "table", "hand"


@dataclass(frozen=True)
class LaidGroup:
    """A group as it lies on the table: its cards, open/concealed, and its row."""

    cards: tuple[Card, ...]
    state: str
    row: str

    @property
    def kind(self) -> Kind:
        return Group(self.cards, self.state).kind


@dataclass
class Layout:
    groups: list[LaidGroup] = field(default_factory=list)
    rules: str = "hunan"
    players: int = 3
    dealer: int = 0
    winner: int = 1
    won_by: str = "self_draw"

    def cards(self) -> list[Card]:
        return [c for g in self.groups for c in g.cards]

    def to_input(self) -> dict[str, Any]:
        """The engine's input object: table row as groups, hand row as free cards."""
        return {
            "rules": self.rules, "players": self.players, "dealer": self.dealer,
            "winner": self.winner, "won_by": self.won_by,
            "groups": [{"cards": [str(c) for c in g.cards], "state": g.state}
                       for g in self.groups if g.row == TABLE],
            "hand": [str(c) for g in self.groups if g.row == HAND for c in g.cards],
        }


def _three(rng: random.Random) -> tuple[tuple[int, ...], str]:
    """A random three-card group as indices and its kind name."""
    roll = rng.random()
    form = rng.choice((0, 10))
    if roll < 0.45:
        r = rng.randrange(1, 8)
        return (form + r, form + r + 1, form + r + 2), "run"
    if roll < 0.55:
        return (form, form + 1, form + 2), "123"
    if roll < 0.65:
        return (form + 1, form + 6, form + 9), "2710"
    if roll < 0.78:
        r = rng.randrange(10)
        return ((r, r, r + 10) if rng.random() < 0.5 else (r, r + 10, r + 10)), "mixed"
    i = rng.randrange(20)
    return (i, i, i), "triple"


def random_layout(rng: random.Random, rules: str = "hunan", winning: bool = True,
                  players: int = 3) -> Layout:
    """Seven groups in two rows; ``winning=False`` swaps one hand card so it (usually) fails."""
    while True:
        lay = _try_layout(rng, rules, players)
        if lay is not None:
            break
    if not winning:
        _spoil(rng, lay)
    return lay


def _try_layout(rng: random.Random, rules: str, players: int) -> Layout | None:
    roll = rng.random()
    quads = 0 if roll < 0.65 else (1 if roll < 0.92 else 2)
    specs: list[tuple[tuple[int, ...], str]] = []
    for _ in range(quads):
        i = rng.randrange(20)
        specs.append(((i,) * 4, "quad"))
    if quads:
        i = rng.randrange(20)
        specs.append(((i, i), "pair"))
    while len(specs) < 7:
        specs.append(_three(rng))
    counts = [0] * 20
    for cards, _ in specs:
        for i in cards:
            counts[i] += 1
    if max(counts) > 4:
        return None
    groups: list[LaidGroup] = []
    hand_loose = [0] * 20  # hand cards outside hand sets
    hand_sets: set[int] = set()
    for cards, kind in specs:
        if kind == "pair":
            row, state = HAND, "concealed"
        elif kind in ("quad", "triple"):
            row = TABLE if rng.random() < 0.6 else HAND
            state = "open" if row == TABLE and rng.random() < 0.5 else "concealed"
        else:
            row = TABLE if rng.random() < 0.3 else HAND
            state = "open" if row == TABLE else "concealed"
        if row == HAND:
            if kind in ("quad", "triple"):
                hand_sets.add(cards[0])
            else:
                for i in cards:
                    hand_loose[i] += 1
        groups.append(LaidGroup(tuple(ALL_CARDS[i] for i in cards), state, row))
    # The hand rule: a set held in the hand shares its card with no other hand group,
    # and no card is held three times outside a set.
    if any(hand_loose[i] for i in hand_sets) or max(hand_loose) > 2:
        return None
    groups.sort(key=lambda g: g.row != TABLE)
    dealer = 0
    winner = rng.randrange(players)
    return Layout(groups, rules, players, dealer, winner, rng.choice(("self_draw", "stock")))


def _spoil(rng: random.Random, lay: Layout) -> None:
    """Replace one hand card with another card the deck still has (a card of any group when
    every group lies in the table row)."""
    hand_idx = [n for n, g in enumerate(lay.groups) if g.row == HAND] or list(range(len(lay.groups)))
    n = rng.choice(hand_idx)
    g = lay.groups[n]
    counts = [0] * 20
    for c in lay.cards():
        counts[c.index] += 1
    old = rng.randrange(len(g.cards))
    choices = [i for i in range(20) if counts[i] < 4 and i != g.cards[old].index]
    new = list(g.cards)
    new[old] = ALL_CARDS[rng.choice(choices)]
    lay.groups[n] = LaidGroup(tuple(new), g.state, g.row)


def random_hand(rng: random.Random, n: int = 21) -> list[Card]:
    """``n`` cards dealt from a shuffled 80-card deck."""
    deck = [c for c in ALL_CARDS for _ in range(4)]
    return sorted(rng.sample(deck, n))
