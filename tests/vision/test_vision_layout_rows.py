"""Telling the claimed row from the revealed hand on hand-built detections: a discard at a short
row's end, a group broken into a pair and a lone card, rows bridged by a long column.

Columns 100 px apart, cards 80 px apart down a column, glyphs 50 px, as in
``test_vision_layout.py``.
"""

from __future__ import annotations

import pytest

from zipai.vision.detector import Detection
from zipai.vision.layout import HAND, LOOSE, TABLE, Column, Draft, columns, join_split_groups
from zipai.vision.layout.geometry import tell_rows

# the layout's logic is tested with a chance model set by hand (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("fixed_chance")

G = 50.0  # glyph size in pixels
RED = {"x2", "x7", "x10", "d2", "d7", "d10"}
BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}
HAND_ROW = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]


def _det(card: str, x: float, y: float) -> Detection:
    if card == "back":
        return Detection("back", (x - 0.7 * G, y - 0.5 * G, x + 0.7 * G, y + 0.5 * G), 0.9, None, 0.9)
    return Detection(card, (x - G / 2, y - G / 2, x + G / 2, y + G / 2), 0.89,
                     "red" if card in RED else "black", 0.9, 0.99)


def _column(cards: list[str], x: float, y: float, step: float = 80.0) -> list[Detection]:
    return [_det(card, x, y + step * j) for j, card in enumerate(cards)]


def _rows(cols: list[Column]) -> dict[str, str]:
    """Each column's row, by its cards joined (a lone card by its card)."""
    return {"".join(c.cards): c.row for c in cols}


def test_a_discard_past_the_end_of_a_row_of_three_columns_lies_apart() -> None:
    """The claimed 伍伍伍 and 一二三 with a discard 柒 lying level with them, six columns' spacing
    away: a row of three columns, too short to measure its own spacing, so the discard was
    taken for the hand's lone card and the claimed row for the hand. Measured against the
    photo's usual spacing it lies apart, and no longer tells the rows."""
    dets = [*_det_row([["d5", "d5", "d5"], ["x1", "x2", "x3"]], 0.0, 0.0), _det("x7", -500.0, 0.0),
            *_det_row(HAND_ROW, 0.0, 600.0)]
    rows = _rows(columns(dets))
    assert rows["x7"] == LOOSE
    assert rows["d5d5d5"] == rows["x1x2x3"] == TABLE
    assert all(rows["".join(c)] == HAND for c in HAND_ROW)


def test_a_discard_beside_a_row_spaced_as_the_photo_stays_in_it() -> None:
    """A lone card one usual spacing from a row of three columns is the hand's, and shows it."""
    dets = [*_det_row([["d5", "d5", "d5"], ["x1", "x2", "x3"]], 0.0, 0.0), _det("x7", -100.0, 0.0),
            *_det_row(HAND_ROW, 0.0, 600.0)]
    rows = _rows(columns(dets))
    assert rows["x7"] == rows["d5d5d5"] == HAND
    assert all(rows["".join(c)] == TABLE for c in HAND_ROW)


def _det_row(cols: list[list[str]], x: float, y: float) -> list[Detection]:
    return [d for k, cards in enumerate(cols) for d in _column(cards, x + 100.0 * k, y)]


def test_a_pair_and_a_lone_card_joined_into_a_group_tell_the_rows_again() -> None:
    """The claimed 柒柒七 laid as a pair 柒柒 with 七 beside it: the pair showed the first row as
    the hand, with no doubt. Joined into one group it shows nothing, so the rows are told again
    by what stays: a guess (the first row taken as claimed), which the player is asked."""
    top = [*_column(["x7", "x7"], 0.0, 0.0), _det("d7", 100.0, 0.0),
           *_det_row([["d5", "d5", "d5"], ["x1", "x2", "x3"]], 200.0, 0.0)]
    dets = [*top, *_det_row(HAND_ROW, 0.0, 600.0)]
    draft = Draft.propose(dets, BASE)
    assert _rows(list(draft.columns))["x7x7"] == HAND  # the pair shows a hand
    mended = join_split_groups(draft)
    assert mended is not None
    joined = next(c for c in mended.columns if "d7" in c.cards and "x7" in c.cards)
    assert sorted(joined.cards) == ["d7", "x7", "x7"]
    rows = _rows(list(mended.columns))
    assert joined.row == rows["d5d5d5"] == rows["x1x2x3"] == TABLE
    assert all(rows["".join(c)] == HAND for c in HAND_ROW)
    assert {c.row_guess for c in mended.columns if c.row in (TABLE, HAND)} == {"alike"}


def test_rows_bridged_by_a_column_with_a_card_linked_on_at_its_end_are_two() -> None:
    """The claimed row over the hand, close together and staggered: a discard 柒 in line past the
    end of 伍伍伍 was linked on as its fourth card, and that column's extent reached the hand's,
    so the two rows were taken as one long row and split across at its widest gap. The columns'
    heads lie in two sets a column's length apart: two rows."""
    table = [["d5", "d5", "d5", "x7"], ["x1", "x2", "x3"], ["x10", "d10", "d10"]]
    dets = [*_det_row(table, 0.0, 0.0), *_det_row(HAND_ROW, 50.0, 260.0)]
    cols = columns(dets)
    rows = _rows(cols)
    assert rows["d5d5d5x7"] == rows["x1x2x3"] == rows["x10d10d10"] == TABLE
    assert all(rows["".join(c)] == HAND for c in HAND_ROW)
    assert all(c.row_guess != "split" for c in cols)


def test_a_pair_beside_a_claimed_column_of_four_that_is_no_group_proves_nothing() -> None:
    """The hand's 一一 under a claimed 贰柒拾 that took the hand's 一 as its fourth card (rows
    close together): the pair may be the rest of that group, so the rows are a guess ("broken"),
    asked of the player. One face over three backs is a quad as laid, and proves nothing of it."""
    table = [["x2", "x7", "x10", "x1"], ["d6", "d6", "d6"]]
    hand = [["x1", "x1"], ["x4", "x5", "x6"]]
    assert tell_rows([table, hand]) == (0, "broken")
    assert tell_rows([[["back", "back", "back", "d6"], ["x1", "x2", "x3"]], hand]) == (0, "")


def test_a_pair_laid_as_a_row_of_its_own_beside_one_row_of_groups_is_the_hand() -> None:
    """Six groups claimed in one row and the hand's last two cards, a pair 捌捌, laid as a column
    below them: a row of two cards looked like a stray, and the one row of groups was taken as
    the hand. The table holds no pairs, and two of a card laid down a column are the hand's."""
    table = [["d5", "d5", "d5"], ["x10", "back", "back"], ["x1", "x2", "x3"], ["x4", "x5", "x6"],
             ["d2", "d7", "d10"], ["x9", "x9", "x9"]]
    dets = [*_det_row(table, 0.0, 0.0), *_column(["x8", "x8"], 250.0, 600.0)]
    rows = _rows(columns(dets))
    assert rows["x8x8"] == HAND
    assert all(rows["".join(c)] == TABLE for c in table)
    # a lone card below the row is a stray still, and the row the hand
    dets = [*_det_row(table, 0.0, 0.0), _det("x8", 250.0, 600.0)]
    rows = _rows(columns(dets))
    assert rows["x8"] == LOOSE and rows["d5d5d5"] == HAND
