"""Telling the claimed row from the revealed hand on hand-built detections: what a short column
proves.

Columns 100 px apart, cards 80 px apart down a column, glyphs 50 px, as in
``test_vision_layout.py``.
"""

from __future__ import annotations

import pytest

from zipai.vision.detector import Detection
from zipai.vision.layout import HAND, TABLE, Column, columns
from zipai.vision.layout.geometry import tell_rows

# the layout's logic is tested with a chance model set by hand (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("fixed_chance")

G = 50.0  # glyph size in pixels
RED = {"x2", "x7", "x10", "d2", "d7", "d10"}
HAND_ROW = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]


def _det(card: str, x: float, y: float) -> Detection:
    return Detection(card, (x - G / 2, y - G / 2, x + G / 2, y + G / 2), 0.89,
                     "red" if card in RED else "black", 0.9, 0.99)


def _det_row(cols: list[list[str]], x: float, y: float) -> list[Detection]:
    return [_det(card, x + 100.0 * k, y + 80.0 * j)
            for k, cards in enumerate(cols) for j, card in enumerate(cards)]


def _rows(cols: list[Column]) -> dict[str, tuple[str, str]]:
    """Each column's row and row guess, by its cards joined."""
    return {"".join(c.cards): (c.row, c.row_guess) for c in cols}


def test_two_different_cards_in_a_column_do_not_show_the_hand() -> None:
    """The claimed 三四 (its 二 hidden, or cut off by the photo's edge) beside two claimed groups,
    the hand's four groups below: two different cards are no pair (the hand's pair is two of a
    card) but a group with a card missing, so they no longer prove the claimed row the hand,
    with no doubt. Neither row shows which it is: the first is taken as claimed, a guess the
    player is asked."""
    dets = [*_det_row([["x3", "x4"], ["d5", "d5", "d5"], ["x1", "x2", "x3"]], 0.0, 0.0),
            *_det_row(HAND_ROW, 0.0, 600.0)]
    rows = _rows(columns(dets))
    assert rows["x3x4"] == rows["d5d5d5"] == rows["x1x2x3"] == (TABLE, "alike")
    assert all(rows["".join(c)] == (HAND, "alike") for c in HAND_ROW)
    assert tell_rows([[["x3", "x4"], ["d5", "d5", "d5"]], HAND_ROW]) == (0, "alike")


def test_a_pair_of_one_card_still_shows_the_hand() -> None:
    """Two of a card are the hand's pair: their row is the hand, and the photo shows it."""
    dets = [*_det_row([["x3", "x3"], ["d5", "d5", "d5"], ["x1", "x2", "x3"]], 0.0, 0.0),
            *_det_row(HAND_ROW, 0.0, 600.0)]
    rows = _rows(columns(dets))
    assert rows["x3x3"] == rows["d5d5d5"] == (HAND, "")
    assert all(rows["".join(c)] == (TABLE, "") for c in HAND_ROW)
    assert tell_rows([[["x3", "x3"], ["d5", "d5", "d5"]], HAND_ROW]) == (1, "")
