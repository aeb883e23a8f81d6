"""How a player lays cards, on hand-built detections: two concealed groups laid one under the
other, the head of the next row's column lying in line under a column, a discard of the same
card as a column's head linked on at its end, and a card dropped far from the layout.

Glyphs 50 px, columns 100 px apart, cards 80 px apart down a column unless a test says so.
"""

from __future__ import annotations

import pytest
from layout_cards import det, row

from zipai.vision.detector import Detection
from zipai.vision.layout import (
    CONCEALED,
    LOOSE,
    TABLE,
    Draft,
    columns,
    join_split_groups,
    set_apart_ends,
    settle_strays,
)

# the layout's logic is tested with a chance model set by hand (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("fixed_chance")

BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}
HAND_ROW = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]


def _cards(dets: list[Detection]) -> list[list[str]]:
    return sorted(c.cards for c in columns(dets))


def test_two_concealed_groups_laid_one_under_the_other_are_two_columns() -> None:
    """An all-back 偎 in the claimed row and the hand's 提 laid face-last over three backs just
    under it: links between backs are never cut for their length, so the two chained into one
    column of six backs and a face, no group at all. A concealed group holds three or four
    cards: the chain is cut where the boxes lie furthest apart, between the rows."""
    dets = [*row([["back", "back", "back"], ["d5", "d5", "d5"], ["x1", "x2", "x3"]], 0.0),
            *row([["back", "back", "back", "x6"], ["d8", "d9", "d10"], ["x4", "x4", "x4"]], 360.0)]
    got = _cards(dets)
    assert ["back", "back", "back"] in got
    assert ["back", "back", "back", "x6"] in got
    assert not any(len(c) > 4 for c in got)


def test_a_column_headed_by_a_symmetric_glyph_under_a_column_is_no_far_end() -> None:
    """一二三 of the hand lies in line under the claimed 陆陆陆, nearer the camera (its steps wider
    than the photo's usual one). 一 reads the same turned round, so it was taken for the far end
    of 陆's last card and cut from 二三 instead. Followed by its own column's step, it heads
    that column."""
    dets = [*row([["x6", "x6", "x6"], ["d5", "d5", "d5"], ["d8", "d9", "d10"]], 0.0),
            *row([["x1", "x2", "x3"], ["x4", "x5", "x6"], ["d2", "d7", "d10"]], 460.0, step=130.0)]
    got = _cards(dets)
    assert ["x1", "x2", "x3"] in got
    assert ["x6", "x6", "x6"] in got


def test_a_discard_of_the_same_card_as_the_head_is_set_apart_from_the_far_end() -> None:
    """陆柒捌 with a 陆 discard linked on past its last card: either 陆 set apart leaves 陆柒捌,
    two ways of one layout, so neither was taken. The end lying further from the column's
    next card is the discard, and the layout then splits."""
    table = row([["d5", "d5", "d5"], ["x10", "back", "back"]], 0.0)
    run = [det(c, 200.0, 80.0 * j) for j, c in enumerate(["d6", "d7", "d8"])]
    discard = det("d6", 200.0, 80.0 * 2 + 150.0)
    dets = [*table, *run, discard, *row(HAND_ROW, 600.0)]
    draft = Draft.propose(dets, BASE)
    assert ["d6", "d7", "d8", "d6"] in [c.cards for c in draft.columns]
    got = set_apart_ends(draft)
    assert got is not None and got.splits
    apart = [c for c in got.columns if c.state == LOOSE]
    assert [c.detections for c in apart] == [[dets.index(discard)]]
    assert any(c.cards == ["d6", "d7", "d8"] and c.settled for c in got.columns)


def test_a_card_dropped_far_from_the_layout_is_not_taken_into_the_hand() -> None:
    """A hand that is a card short and a lone card far off (twelve glyph sizes from every column):
    taken in, the hand would split, but a player lays the hand together and a card that far
    off is a discard. One lying by the hand is still taken in."""
    hand = [["x4", "x5"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]
    near = [*row([["d5", "d5", "d5"], ["x10", "back", "back"], ["x1", "x2", "x3"]], 0.0), *row(hand, 600.0)]
    far = Draft.propose([*near, det("x6", 900.0, 600.0)], BASE)
    assert [c.state for c in far.columns if c.cards == ["x6"]] == [LOOSE]
    assert not far.splits
    assert settle_strays(far) is None
    close = Draft.propose([*near, det("x6", 460.0, 600.0)], BASE)  # three glyph sizes off
    assert [c.state for c in close.columns if c.cards == ["x6"]] == [LOOSE]
    got = settle_strays(close)
    assert got is not None and got.splits


def test_a_concealed_groups_face_laid_apart_from_its_backs_joins_them() -> None:
    """The claimed row's 偎 laid as two backs with its face 拾 a column's width and more apart
    (over four glyph sizes off, further than a lone back lies from its group): the only short
    column and the only lone card of the row, together one face over backs, are one group."""
    table = [*row([["d5", "d5", "d5"], ["back", "back"], ["x1", "x2", "x3"]], 0.0), det("x10", 320.0, 0.0)]
    dets = [*table, *row(HAND_ROW, 600.0)]
    draft = Draft.propose(dets, BASE)
    assert {"".join(c.cards): c.row for c in draft.columns}["x10"] == TABLE
    got = join_split_groups(draft)
    assert got is not None
    joined = [c for c in got.columns if sorted(c.cards) == ["back", "back", "x10"]]
    assert len(joined) == 1 and joined[0].state == CONCEALED and joined[0].settled
