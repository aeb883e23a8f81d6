"""How a player lays cards, on hand-built detections: a discard laid at the claimed row's end,
where it looks like the hand's lone card and tells the rows the wrong way round; and a discard
linked on at a column whose either end, set apart, leaves a group.

Glyphs 50 px, columns 100 px apart, cards 80 px apart down a column unless a test says so.
"""

from __future__ import annotations

import dataclasses

import pytest
from layout_cards import det, row

from zipai.vision.layout import (
    HAND,
    LOOSE,
    TABLE,
    Draft,
    Params,
    repair,
    rows_other_way,
    set_apart_ends,
    settle_strays,
)
from zipai.vision.layout.chance import outcome

# the layout's logic is tested with a chance model set by hand (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("fixed_chance")



BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "self_draw"}


def _rows(draft: Draft) -> dict[str, str]:
    return {" ".join(c.cards): c.row for c in draft.columns}


def test_a_discard_at_the_claimed_rows_end_is_left_out_and_the_rows_told_again() -> None:
    """The claimed row's three groups with a 拾 discarded at its end, a column's spacing off: the
    lone card shows the hand, so the rows came out the wrong way round, and the hand's 玖玖玖
    claimed as a 碰 beside 捌玖拾 in the hand breaks the rules (its fourth card makes it a 跑).
    Left out, the discard no longer tells the rows apart: told again, they split."""
    base = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 2, "won_by": "self_draw"}
    claimed = [["d8", "d9", "d10"], ["x2", "x7", "x10"], ["d2", "d7", "d10"], ["d10"]]
    hand = [["d6", "d6", "d6"], ["x8", "x8", "d8"], ["d1", "d2", "d3"], ["d9", "d9", "d9"]]
    draft = Draft.propose([*row(claimed, 0.0), *row(hand, 400.0)], base)
    assert _rows(draft)["d8 d9 d10"] == HAND and not draft.splits
    got = settle_strays(draft)
    assert got is not None and got.splits
    rows = _rows(got)
    assert rows["d8 d9 d10"] == rows["x2 x7 x10"] == TABLE
    assert rows["d9 d9 d9"] == rows["d6 d6 d6"] == HAND
    assert rows["d10"] == LOOSE
    assert [c.settled for c in got.columns if c.cards == ["d10"]] != [""]


def test_a_discard_that_told_the_rows_leaves_them_told_by_backs_the_other_way() -> None:
    """As above, with the hand's 坎 of 贰 laid face over two backs: once the discard is out only
    the backs tell the rows, and they name the hand's row claimed, where four 一 in the other
    row's groups break the rules (four of a card in the hand are a 提). A hand's 坎 laid face
    over backs looks like a claimed 偎, so the other way round is taken, and it is a doubt."""
    base = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}
    claimed = [["x1", "x1", "x1"], ["d2", "d10", "d7"], ["x1", "x3", "x2"], ["d3", "d4", "d5"],
               ["d8", "d9", "d10"], ["d9"]]
    hand = [["x3", "x5", "x4"], ["back", "back", "x2"]]
    draft = Draft.propose([*row(claimed, 0.0), *row(hand, 400.0)], base)
    assert _rows(draft)["x1 x1 x1"] == HAND and not draft.splits
    got = settle_strays(draft)
    assert got is not None and got.splits
    rows = _rows(got)
    assert rows["x1 x1 x1"] == rows["d8 d9 d10"] == TABLE
    assert rows["back back x2"] == rows["x3 x5 x4"] == HAND
    assert rows["d9"] == LOOSE
    assert {c.row_guess for c in got.columns if c.row in (TABLE, HAND)} == {"swapped"}


def test_a_discard_linked_on_at_a_run_of_four_is_set_apart_from_the_end_lying_off() -> None:
    """壹 discarded above the hand's 贰叁肆, linked on as its head: 壹贰叁肆 is no group, and
    either end set apart leaves one (壹贰叁 or 贰叁肆) and a layout that splits, two ways, so
    neither was taken. A discard lies further from the column's next card than the group's own
    cards do: the end lying off is the one tried, and the layout splits without it."""
    base = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}
    table = row([["d5", "d5", "d5"], ["x10", "back", "back"], ["x1", "x2", "x3"]], 0.0)
    run = [det(c, 0.0, 600.0 + 80.0 * j) for j, c in enumerate(["d2", "d3", "d4"])]
    discard = det("d1", 0.0, 600.0 - 150.0)
    hand = row([["x4", "x5", "x6"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]], 600.0, x0=100.0)
    dets = [*table, *run, discard, *hand]
    draft = Draft.propose(dets, base)
    assert ["d1", "d2", "d3", "d4"] in [c.cards for c in draft.columns]
    got = set_apart_ends(draft)
    assert got is not None and got.splits
    assert [c.detections for c in got.columns if c.state == LOOSE] == [[dets.index(discard)]]
    assert any(c.cards == ["d2", "d3", "d4"] and c.settled for c in got.columns)


# the hand's four groups above, the claimed 碰 of 六, 伍柒 (its 陆 hidden under them) and 壹贰叁
# below: no back, pair or lone card tells the rows apart, so the first is taken as claimed
OTHER_HAND = [["x1", "x2", "x3"], ["d4", "d5", "d6"], ["d10", "d10", "d10"], ["x7", "x8", "x9"]]
OTHER_CLAIMED = [["x6", "x6", "x6"], ["x5", "x7"], ["d1", "d2", "d3"]]


def test_the_repairs_run_again_with_guessed_rows_the_other_way_round() -> None:
    """As guessed, the hand holds three 六 and 伍柒, which no hidden card mends (a fourth 六
    keeps the 坎 a 提), and the rows swapped alone leave 伍柒 a card short: the two mends were
    never weighed together. Run again with the rows the other way round, 陆 is put back under
    伍柒 and the hand wins, the rows saying they were swapped."""
    draft = Draft.propose([*row(OTHER_HAND, 0.0), *row(OTHER_CLAIMED, 600.0)], BASE)
    assert {c.row_guess for c in draft.columns} == {"alike"} and _rows(draft)["x6 x6 x6"] == HAND
    alone = repair(dataclasses.replace(draft, params=Params(rows_other_way=False)))
    assert not alone.splits
    got = repair(draft)
    assert got.splits and outcome(got.columns, got.base).winning
    rows = _rows(got)
    assert rows["x6 x6 x6"] == rows["x5 x6 x7"] == rows["d1 d2 d3"] == TABLE
    assert rows["x1 x2 x3"] == rows["d10 d10 d10"] == HAND
    assert {c.row_guess for c in got.columns} == {"swapped"}
    assert rows_other_way(draft, alone) is not None
    assert rows_other_way(draft, got) is None  # a layout that splits is left as it is


def test_rows_told_apart_are_not_run_again_the_other_way_round() -> None:
    """A back in the claimed row tells the rows: nothing is run again, whatever is left."""
    claimed = [*OTHER_CLAIMED[:2], ["d1", "back", "back"]]
    draft = Draft.propose([*row(OTHER_HAND, 0.0), *row(claimed, 600.0)], BASE)
    assert not any(c.row_guess in ("alike", "split", "broken") for c in draft.columns)
    assert rows_other_way(draft, draft) is None
