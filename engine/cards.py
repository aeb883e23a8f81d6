"""The 20 kinds of Zipai card, written ``x1``…``x10`` (small 小) and ``d1``…``d10`` (big 大).

>>> Card.parse("d10"), str(Card.parse("參")), Card.parse("贰").is_red
(Card.parse('d10'), 'd3', True)
>>> Card.parse("x7").chinese(), Card.parse("d6").chinese(traditional=True)
('七', '陸')
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .errors import CardError

SMALL_CHARS = "一二三四五六七八九十"
BIG_SIMPLIFIED = "壹贰叁肆伍陆柒捌玖拾"
BIG_TRADITIONAL = "壹貳參肆伍陸柒捌玖拾"
# Every glyph a deck or a person may use for a big numeral (RULINGS section 1).
BIG_VARIANTS: dict[int, tuple[str, ...]] = {
    1: ("壹",),
    2: ("贰", "貳"),
    3: ("叁", "叄", "參"),
    4: ("肆",),
    5: ("伍",),
    6: ("陆", "陸"),
    7: ("柒",),
    8: ("捌",),
    9: ("玖",),
    10: ("拾",),
}
RED_RANKS = frozenset({2, 7, 10})
NUM_KINDS = 20


class Card:
    """One kind of card. There are exactly 20 instances; compare them with ``is`` or ``==``."""

    __slots__ = ("big", "index", "rank", "text")
    def __init__(self, big: bool, rank: int) -> None:
        self.big = big
        self.rank = rank
        self.index = (10 if big else 0) + rank - 1
        self.text = f"{'d' if big else 'x'}{rank}"

    @staticmethod
    def from_index(index: int) -> Card:
        """The card at a count-vector position (0–9 small, 10–19 big)."""
        return ALL_CARDS[index]

    @staticmethod
    def parse(text: str) -> Card:
        """Read ``x3``, ``d10``, ``小三``, ``大三``, ``三`` or ``叁``/``叄``/``參``."""
        card = _LOOKUP.get(text.strip().lower()) if isinstance(text, str) else None
        if card is None:
            raise CardError(f"unknown card {text!r} (use x1…x10, d1…d10 or a Chinese numeral)")
        return card

    @property
    def form(self) -> str:
        return "d" if self.big else "x"

    @property
    def is_red(self) -> bool:
        return self.rank in RED_RANKS

    @property
    def color(self) -> str:
        return "red" if self.is_red else "black"

    def chinese(self, traditional: bool = False) -> str:
        """The glyph printed on the card."""
        if not self.big:
            return SMALL_CHARS[self.rank - 1]
        return (BIG_TRADITIONAL if traditional else BIG_SIMPLIFIED)[self.rank - 1]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.index == self.index

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Card.from_index, (self.index,))


ALL_CARDS: tuple[Card, ...] = tuple(Card(big, rank) for big in (False, True) for rank in range(1, 11))
CARD_NAMES: tuple[str, ...] = tuple(c.text for c in ALL_CARDS)  # x1…x10, d1…d10: the one list of names

_LOOKUP: dict[str, Card] = {}
for _c in ALL_CARDS:
    _LOOKUP[str(_c)] = _c
    if _c.big:
        for _g in BIG_VARIANTS[_c.rank]:
            _LOOKUP[_g] = _c
            _LOOKUP["大" + _g] = _c
        _LOOKUP["大" + SMALL_CHARS[_c.rank - 1]] = _c
    else:
        _LOOKUP[SMALL_CHARS[_c.rank - 1]] = _c
        _LOOKUP["小" + SMALL_CHARS[_c.rank - 1]] = _c

_TOKEN = re.compile(r"[xXdD](?:10|[1-9])|[大小]?[" + SMALL_CHARS + "".join(
    "".join(v) for v in BIG_VARIANTS.values()) + "]")


def parse_cards(text: str) -> list[Card]:
    """Read a run of cards written together or apart: ``"x4x5 x6"``, ``"四五六"``.

    >>> [str(c) for c in parse_cards("d8d8x8 貳柒拾")]
    ['d8', 'd8', 'x8', 'd2', 'd7', 'd10']
    """
    cards: list[Card] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        gap = text[pos : m.start()]
        if gap.strip(" ,\t\n"):
            raise CardError(f"unknown card {gap.strip()!r} in {text!r}")
        cards.append(Card.parse(m.group()))
        pos = m.end()
    tail = text[pos:]
    if tail.strip(" ,\t\n"):
        raise CardError(f"unknown card {tail.strip()!r} in {text!r}")
    return cards


def counts_of(cards: Iterable[Card]) -> list[int]:
    """The count vector (20 ints) of some cards."""
    counts = [0] * NUM_KINDS
    for c in cards:
        counts[c.index] += 1
    return counts


def check_deck_limits(cards: Iterable[Card]) -> None:
    """No layout holds a fifth copy of a card (RULINGS section 1)."""
    counts = counts_of(cards)
    for i, n in enumerate(counts):
        if n > 4:
            raise CardError(f"{n} copies of {ALL_CARDS[i]} ({ALL_CARDS[i].chinese()}): a deck has 4",
                            code="too_many_copies")
