"""Telling the claimed row from the revealed hand on hand-built detections: a discard at a short
row's end, a group broken into a pair and a lone card, rows bridged by a long column, what a
short column proves, discards laid in a row of their own or in line with one.

Columns 100 px apart, cards 80 px apart down a column, glyphs 50 px, as in
``test_vision_layout.py``.
"""

from __future__ import annotations

import pytest

from zipai.vision.detector import Detection
from zipai.vision.layout import HAND, LOOSE, TABLE, Column, Draft, columns, join_split_groups
from zipai.vision.layout.rows import tell_rows

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


def _rows_states(cols: list[Column]) -> dict[str, tuple[str, str]]:
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
    rows = _rows_states(columns(dets))
    assert rows["x3x4"] == rows["d5d5d5"] == rows["x1x2x3"] == (TABLE, "alike")
    assert all(rows["".join(c)] == (HAND, "alike") for c in HAND_ROW)
    assert tell_rows([[["x3", "x4"], ["d5", "d5", "d5"]], HAND_ROW]) == (0, "alike")


def test_a_pair_of_one_card_still_shows_the_hand() -> None:
    """Two of a card are the hand's pair: their row is the hand, and the photo shows it."""
    dets = [*_det_row([["x3", "x3"], ["d5", "d5", "d5"], ["x1", "x2", "x3"]], 0.0, 0.0),
            *_det_row(HAND_ROW, 0.0, 600.0)]
    rows = _rows_states(columns(dets))
    assert rows["x3x3"] == rows["d5d5d5"] == (HAND, "")
    assert all(rows["".join(c)] == (TABLE, "") for c in HAND_ROW)
    assert tell_rows([[["x3", "x3"], ["d5", "d5", "d5"]], HAND_ROW]) == (1, "")


def test_a_row_of_lone_cards_side_by_side_is_a_discard_row() -> None:
    """Five discards laid side by side between the claimed row and the hand's: a row of more
    than a card or two, so it was taken for a row of the layout and its cards for the hand's.
    A hand lays its groups as columns; a row of lone cards only is the discards, left out."""
    discards = ["d1", "x7", "d4", "x10", "d9"]
    dets = [*_det_row([["d5", "d5", "d5"], ["x1", "x2", "x3"], ["d6", "d7", "d8"]], 0.0, 0.0),
            *[_det(card, -150.0 + 100.0 * k, 450.0) for k, card in enumerate(discards)],
            *_det_row(HAND_ROW, 0.0, 800.0)]
    cols = columns(dets)
    rows = _rows_states(cols)
    assert all(rows[card][0] == LOOSE for card in discards)
    assert rows["d5d5d5"][0] == TABLE
    assert all(rows["".join(c)][0] == HAND for c in HAND_ROW)


def test_four_lone_cards_in_a_row_stay_a_row() -> None:
    """Four lone cards side by side may be a group laid apart and a card: they stay a row."""
    dets = [*_det_row([["d5", "d5", "d5"], ["x1", "x2", "x3"], ["d6", "d7", "d8"]], 0.0, 0.0),
            *[_det(card, -50.0 + 100.0 * k, 450.0) for k, card in enumerate(["d1", "x7", "d4", "x10"])],
            *_det_row(HAND_ROW, 0.0, 800.0)]
    rows = _rows_states(columns(dets))
    assert all(rows[card][0] == HAND for card in ["d1", "x7", "d4", "x10"])


def test_one_row_of_groups_beside_the_hands_pair_is_not_split() -> None:
    """Six claimed groups in one row, a wide gap after the third, and the hand's pair 捌捌 laid
    below: the long row was split at its widest gap as if the claimed and the revealed groups
    lay side by side, and the pair left out. The table holds no pairs, so the pair is the hand
    and the whole row is claimed."""
    table = [["d5", "d5", "d5"], ["x10", "x10", "x10"], ["x1", "x2", "x3"], ["x4", "x5", "x6"],
             ["d2", "d7", "d10"], ["x9", "x9", "x9"]]
    dets = [d for k, cards in enumerate(table)
            for d in _det_row([cards], 100.0 * k + (150.0 if k >= 3 else 0.0), 0.0)]
    dets += _det_row([["d8", "d8"]], 300.0, 600.0)
    rows = _rows_states(columns(dets))
    assert rows["d8d8"] == (HAND, "")
    assert all(rows["".join(c)] == (TABLE, "") for c in table)


def test_a_claimed_pair_takes_in_the_loose_card_that_makes_it_a_group() -> None:
    """The claimed 拾拾拾 with its last card lying apart, below and beside the row, a stray,
    beside a concealed 伍 that shows the row claimed: the pair 拾拾 stayed in the claimed row as
    free cards (no group), and the stray went to the hand. The table holds no pairs: the pair
    takes in the loose card that makes it a group."""
    dets = [*_det_row([["x10", "x10"], ["d5", "back", "back"], ["x1", "x2", "x3"]], 0.0, 0.0),
            _det("x10", -80.0, 250.0), *_det_row(HAND_ROW, 0.0, 600.0)]
    draft = Draft.propose(dets, BASE)
    assert _rows_states(list(draft.columns))["x10x10"][0] == TABLE
    mended = join_split_groups(draft)
    assert mended is not None
    joined = next(c for c in mended.columns if c.cards == ["x10"] * 3)
    assert joined.row == TABLE and joined.state == "open" and joined.settled
    assert not [c for c in mended.columns if c.row == LOOSE]


def test_a_claimed_pair_joins_its_own_row_before_a_loose_card() -> None:
    """A pair beside a lone card of its own row that makes a group with it is joined to that
    card, not to a loose one lying further off that would too."""
    dets = [*_det_row([["x10", "x10"], ["x10"], ["d5", "back", "back"]], 0.0, 0.0),
            _det("x10", -80.0, 250.0), *_det_row(HAND_ROW, 0.0, 600.0)]
    mended = join_split_groups(Draft.propose(dets, BASE))
    assert mended is not None
    joined = next(c for c in mended.columns if len(c.cards) == 3 and set(c.cards) == {"x10"})
    loose = [c for c in mended.columns if c.row == LOOSE]
    assert [c.cards for c in loose] == [["x10"]] and loose[0].detections[0] not in joined.detections


def test_two_different_cards_beside_a_column_of_four_that_is_no_quad_are_weighed() -> None:
    """八九 beside 捌捌捌拾, a column of four that is no quad: its 拾 may be their missing card, so
    they are weighed as the hand's short column still, and the rows are a guess ("broken")."""
    assert tell_rows([[["x1", "x2", "x3"]], [["x8", "x9"], ["d8", "d8", "d8", "x10"]]]) == (0, "broken")
    assert tell_rows([[["x1", "x2", "x3"]], [["x8", "x9"], ["d8", "d8", "d8"]]]) == (0, "alike")


def test_discards_laid_in_line_with_a_row_are_set_apart() -> None:
    """Six discards laid side by side in line with the claimed row, level with its columns: in
    the row by their extents, they showed it as the hand's (lone cards), with no doubt. Five
    lone cards or more next to each other across are discards, strays; the rows are then told
    by what stays."""
    discards = ["d1", "x7", "d4", "x10", "d9", "x6"]
    dets = [*_det_row([["d5", "d5", "d5"], ["x1", "x2", "x3"], ["d6", "d7", "d8"]], 0.0, 0.0),
            *[_det(card, 300.0 + 100.0 * k, 80.0) for k, card in enumerate(discards)],
            *_det_row(HAND_ROW, 0.0, 600.0)]
    rows = _rows_states(columns(dets))
    assert all(rows[card][0] == LOOSE for card in discards)
    assert rows["d5d5d5"] == (TABLE, "alike")
    assert all(rows["".join(c)] == (HAND, "alike") for c in HAND_ROW)
