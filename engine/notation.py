"""A compact text notation for layouts, for quick typing and for printing results.

Groups laid on the table come first, each written as its cards run together, a leading
``~`` for a concealed one; then ``|``; then the free hand cards, spaced any way. A ``!``
after a hand card marks the winning card. Chinese numerals work anywhere.

>>> lay = parse_layout("d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9!x9x9 d8d8x8")
>>> [str(g) for g in lay.groups], len(lay.hand), str(lay.winning_card)
(['d5d5d5', '~x10x10x10', 'x1x2x3'], 12, 'x9')
>>> format_layout(lay.groups, lay.hand, lay.winning_card)
'd5d5d5 ~x10x10x10 x1x2x3 | x4 x5 x6 x8 x9! x9 x9 d2 d7 d8 d8 d10'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, parse_cards
from .errors import InputError
from .groups import Group


@dataclass(frozen=True)
class TextLayout:
    groups: tuple[Group, ...]
    hand: tuple[Card, ...]
    winning_card: Card | None = None


def parse_layout(text: str) -> TextLayout:
    """Read the notation; errors name the offending token."""
    if text.count("|") > 1:
        raise InputError("layout text has more than one '|' (table groups | hand cards)")
    table_text, hand_text = text.split("|") if "|" in text else ("", text)
    groups = []
    for token in table_text.split():
        try:
            groups.append(Group.parse(token))
        except ValueError as exc:
            raise InputError(f"table group {token!r}: {exc}") from None
    winning = None
    hand: list[Card] = []
    for part in hand_text.replace(",", " ").split("!"):
        cards = parse_cards(part) if part.strip() else []
        hand.extend(cards)
    # each '!' follows the card it marks
    if "!" in hand_text:
        marks = hand_text.count("!")
        if marks > 1:
            raise InputError("more than one winning card marked with '!'")
        before = hand_text.split("!")[0]
        marked = parse_cards(before)
        if not marked:
            raise InputError("'!' must follow the winning card, as in x9!")
        winning = marked[-1]
    return TextLayout(tuple(groups), tuple(hand), winning)


def format_layout(groups: Sequence[Group], hand: Sequence[Card], winning: Card | None = None) -> str:
    """The notation of an input layout; hand cards sorted, the winning card marked once."""
    cards = []
    marked = False
    for c in sorted(hand):
        if c == winning and not marked:
            cards.append(f"{c}!")
            marked = True
        else:
            cards.append(str(c))
    left = " ".join(str(g) for g in groups)
    right = " ".join(cards)
    return f"{left} | {right}" if left else right
