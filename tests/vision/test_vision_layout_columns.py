"""How cards link into columns, and which cards the layout takes in or leaves out, on hand-made
detections: a group laid askew of the rest, and the cards that lie apart from the layout."""

from __future__ import annotations

import math

import pytest

from zipai.vision.detector import Detection
from zipai.vision.layout import columns, propose_states

# the layout's logic is tested with a chance model set by hand (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("fixed_chance")

G = 50.0  # glyph size in pixels
RED = {"x2", "x7", "x10", "d2", "d7", "d10"}
TABLE_ROW = [["d5", "d5", "d5"], ["x10", "back", "back"]]
HAND_ROW = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]


def _det(card: str, x: float, y: float, down: tuple[float, float] = (0.0, 1.0)) -> Detection:
    if card == "back":
        return Detection("back", (x - 0.7 * G, y - 0.5 * G, x + 0.7 * G, y + 0.5 * G), 0.9, None, 0.9, 1.0,
                         down=down)
    color = "red" if card in RED else "black"
    return Detection(card, (x - G / 2, y - G / 2, x + G / 2, y + G / 2), 0.9, color, 0.9, 1.0, down=down)


def _rows(table: list[list[str]], hand: list[list[str]]) -> list[Detection]:
    """The claimed row at y = 0 and the hand at y = 600: columns 100 px apart, cards 80 px apart
    down each column, every glyph upright."""
    return [_det(card, 100.0 * k, y0 + 80.0 * j) for y0, row in ((0.0, table), (600.0, hand))
            for k, col in enumerate(row) for j, card in enumerate(col)]


def _turned(cards: list[str], x: float, y: float, deg: float) -> list[Detection]:
    """A column whose cards and glyphs run ``deg`` degrees away from the layout's down, from
    its head at (x, y), 80 px apart."""
    a = math.radians(deg)
    down = (-math.sin(a), math.cos(a))
    return [_det(card, x + 80.0 * j * down[0], y + 80.0 * j * down[1], down) for j, card in enumerate(cards)]


def _look(dets: list[Detection]) -> list[tuple[str, str, list[str]]]:
    cols = columns(dets)
    propose_states(cols)
    return [(c.row, c.state, c.cards) for c in cols]


@pytest.mark.parametrize("deg", [45.0, -50.0, 60.0])
def test_a_group_laid_askew_of_the_rest_is_a_column_of_its_row(deg: float) -> None:
    """一二三 laid at an angle at the claimed row's end: its glyphs turn away from the layout's
    axis as a discard's do, but three overlapping down a column of their own are a group."""
    dets = _rows(TABLE_ROW, HAND_ROW) + _turned(["x1", "x2", "x3"], 260.0, 0.0, deg)
    got = _look(dets)
    assert ("table", "open", ["x1", "x2", "x3"]) in got
    assert not any(state == "loose" for _, state, _ in got)


def test_lone_cards_turned_askew_still_lie_apart() -> None:
    """Two discards turned across the layout, apart from each other, are no column: loose."""
    dets = _rows([*TABLE_ROW, ["x1", "x2", "x3"]], HAND_ROW)
    dets += [_det("d3", 600.0, 300.0, (1.0, 0.0)), _det("x7", 900.0, 300.0, (1.0, 0.0))]
    got = _look(dets)
    assert ("loose", "loose", ["d3"]) in got and ("loose", "loose", ["x7"]) in got
    assert ("table", "open", ["x1", "x2", "x3"]) in got
