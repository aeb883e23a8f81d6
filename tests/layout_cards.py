"""Hand-made detections for the layout's tests: glyph boxes of one size, every glyph upright, laid
in columns (cards 80 px apart down a column, columns 100 px apart) and rows."""

from __future__ import annotations

from collections.abc import Sequence

from zipai.vision.constants import RED
from zipai.vision.detector import Detection

G = 50.0  # glyph size in pixels


def det(card: str, x: float, y: float, score: float = 0.9) -> Detection:
    """A card read surely at (x, y): a face's glyph box, or a back's (its card's, wider)."""
    if card == "back":
        box = (x - 0.7 * G, y - 0.5 * G, x + 0.7 * G, y + 0.5 * G)
        return Detection("back", box, score, None, score, 1.0)
    color = "red" if card in RED else "black"
    return Detection(card, (x - G / 2, y - G / 2, x + G / 2, y + G / 2), score, color, score, 1.0)


def row(cols: Sequence[Sequence[str]], y: float, step: float = 80.0, x0: float = 0.0) -> list[Detection]:
    """One row of columns, their heads at ``y``, ``step`` px between a column's cards."""
    return [det(card, x0 + 100.0 * k, y + step * j)
            for k, col in enumerate(cols) for j, card in enumerate(col)]


def rows(table: Sequence[Sequence[str]], hand: Sequence[Sequence[str]]) -> list[Detection]:
    """The claimed row at y = 0 and the hand at y = 600."""
    return row(table, 0.0) + row(hand, 600.0)
