"""Groups (墩 / 比 / 坒): the seven units of a winning layout, RULINGS section 2.

>>> g = Group.parse("d8d8x8"); g.kind.value, g.name("hunan"), str(g)
('mixed', '半边', 'x8d8d8')
>>> Group.parse("~x10x10x10").name("guilin"), Group.parse("x10x10x10").name("hunan")
('扫', '碰')
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache
from typing import Protocol

from .cards import ALL_CARDS, Card, parse_cards
from .errors import GroupError


class Namer(Protocol):
    """What names a group in a region: a rule set (engine/variants/), which imports this module."""

    def group_name(self, group: Group, traditional: bool = False) -> str: ...


class Kind(StrEnum):
    RUN = "run"
    ONE_TWO_THREE = "123"
    TWO_SEVEN_TEN = "2710"
    MIXED = "mixed"
    TRIPLE = "triple"
    QUAD = "quad"
    PAIR = "pair"


class State(StrEnum):
    OPEN = "open"
    CONCEALED = "concealed"


TRADITIONAL = str.maketrans("顺边绞扫开龙将对贰叁陆", "順邊絞掃開龍將對貳參陸")


def classify(cards: Sequence[Card]) -> Kind | None:
    """The kind of a set of cards, or None when they form no group."""
    n = len(cards)
    if n < 2 or n > 4:
        return None
    idx = sorted(c.index for c in cards)
    if idx[0] == idx[-1]:
        return {2: Kind.PAIR, 3: Kind.TRIPLE, 4: Kind.QUAD}[n]
    if n != 3:
        return None
    a, b, c = idx
    if a // 10 == c // 10:  # one form
        r = a % 10
        if b == a + 1 and c == a + 2:
            return Kind.ONE_TWO_THREE if r == 0 else Kind.RUN
        if r == 1 and b == a + 5 and c == a + 8:
            return Kind.TWO_SEVEN_TEN
        return None
    if a % 10 == b % 10 == c % 10:  # one rank, both forms
        return Kind.MIXED
    return None


class Group:
    """A group of cards with its kind and whether it is open (亮) or concealed (暗/in hand)."""

    __slots__ = ("cards", "kind", "state")

    def __init__(self, cards: Sequence[Card], state: State | str = State.CONCEALED) -> None:
        kind = classify(cards)
        if kind is None:
            text = " ".join(str(c) for c in cards)
            raise GroupError(f"cards {text} form no group (run, 123, 2710, mixed, triple, quad, pair)")
        self.cards: tuple[Card, ...] = tuple(sorted(cards))
        self.kind: Kind = kind
        try:
            self.state = State(state)
        except ValueError:
            raise GroupError(f"group state {state!r} is neither 'open' nor 'concealed'") from None

    @classmethod
    def of(cls, indices: Sequence[int], state: State = State.CONCEALED) -> Group:
        """A group from count-vector indices, as the decomposition yields them (hot path)."""
        cards, kind = _of_indices(tuple(indices))
        g = cls.__new__(cls)
        g.cards, g.kind, g.state = cards, kind, state
        return g

    @classmethod
    def parse(cls, text: str) -> Group:
        """``x1x2x3`` or ``一二三``; a leading ``~`` marks it concealed (on the table, face down)."""
        text = text.strip()
        state = State.OPEN
        if text.startswith("~"):
            state, text = State.CONCEALED, text[1:]
        return cls(parse_cards(text), state)

    @property
    def big(self) -> bool:
        """True when every card is big (大), the form that scores the higher column."""
        return all(c.big for c in self.cards)

    def name(self, region: str | Namer = "hunan", traditional: bool = False) -> str:
        """The group's native name in that region (the rule set's ``group_name``)."""
        if isinstance(region, str):
            from .variants import get_variant  # the rule sets know the names; they import this module

            return get_variant(region).group_name(self, traditional)
        return region.group_name(self, traditional)

    def text(self) -> str:
        return "".join([c.text for c in self.cards])  # a list joins faster than a generator

    def __str__(self) -> str:
        return ("~" if self.state is State.CONCEALED else "") + self.text()

    def __repr__(self) -> str:
        return f"Group.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Group) and (self.cards, self.state) == (other.cards, other.state)

    def __hash__(self) -> int:
        return hash((self.cards, self.state))


@lru_cache(maxsize=4096)
def _of_indices(indices: tuple[int, ...]) -> tuple[tuple[Card, ...], Kind]:
    cards = tuple(sorted(ALL_CARDS[i] for i in indices))
    kind = classify(cards)
    if kind is None:
        raise GroupError(f"cards {' '.join(c.text for c in cards)} form no group")
    return cards, kind
