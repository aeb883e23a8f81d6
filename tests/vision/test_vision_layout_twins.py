"""One card found twice down its column (a split glyph, a far end read again, a back's pattern
found twice), on hand-made detections: the rules leave the double out only where the column is a
group without it and the layout does not win as it stands, and always say so."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from layout_cards import det

from zipai.vision.detector import Detection
from zipai.vision.layout import HAND, LOOSE, TABLE, Column, Draft, Params, assemble, proposed_state, repair
from zipai.vision.layout.chance import outcome
from zipai.vision.layout.twins import leave_twin, twins

pytestmark = pytest.mark.usefixtures("fixed_chance")

BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}
TABLE_ROW = [["d5", "d5", "d5"], ["x10", "back", "back"]]
HAND_ROW = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"],
            ["x1", "x2", "x3"]]


def _draft(table: Sequence[Sequence[str]], hand: Sequence[Sequence[str]], twin: tuple[int, int] | None = None,
           params: Params | None = None) -> Draft:
    """The claimed row at y = 0 and the hand at y = 600 (columns 100 px apart, cards 80 px apart
    down each); ``twin`` (hand column, card): that card found a second time, just under itself
    (half a step down, a weaker find), as the finder finds a split glyph."""
    dets: list[Detection] = []
    cols: list[Column] = []
    for row, y0, laid in ((TABLE, 0.0, table), (HAND, 600.0, hand)):
        for k, cards in enumerate(laid):
            idx, names = [], []
            for j, card in enumerate(cards):
                idx.append(len(dets))
                names.append(card)
                dets.append(det(card, 100.0 * k, y0 + 80.0 * j))
                if row == HAND and twin == (k, j):
                    idx.append(len(dets))
                    names.append(card)
                    dets.append(det(card, 100.0 * k, y0 + 80.0 * j + 40.0, score=0.6))
            cols.append(Column(idx, names, row))
    return Draft(tuple(c.copy(state=proposed_state(c)) for c in cols), tuple(dets), BASE, params or Params())


def test_the_layout_wins_without_the_double() -> None:
    """The ground truth: the same layout with each card found once is a winning hand."""
    draft = _draft(TABLE_ROW, HAND_ROW)
    assert draft.splits and outcome(draft.columns, draft.base).winning


@pytest.mark.parametrize(("cards", "where"), [
    (["x1", "x2", "x2", "x3"], [2]),  # a run with its middle found twice
    (["x5", "x4", "x3", "x3"], [3]),  # its last card's far end read again
    (["d3", "d3", "d3", "d3"], []),  # a quad: a group as it lies
    (["x1", "x2", "x3"], []),  # three cards: nothing too many
    (["x1", "x2", "x2", "x7"], []),  # no group without either: two groups' cards, not a double
    (["back"] * 5, [1, 2, 3, 4]),  # five backs: a concealed group's back found twice
    (["x4", "back", "back", "back"], []),  # one face over three backs: a concealed quad
])
def test_twins_are_neighbours_of_one_card_in_a_column_that_is_a_group_without_one(
        cards: list[str], where: list[int]) -> None:
    c = Column(list(range(len(cards))), cards, HAND)
    assert twins(c, [det(x, 0.0, 80.0 * k) for k, x in enumerate(cards)]) == where


def test_a_card_found_twice_down_a_hand_column_is_left_out() -> None:
    """二 of the hand's 一二三 found twice: 22 cards that make no winning hand; without the
    weaker find the column is a run again and the hand wins, with doubts on both."""
    draft = _draft(TABLE_ROW, HAND_ROW, twin=(4, 1))
    assert not outcome(draft.columns, draft.base).winning
    got = leave_twin(draft)
    assert got is not None and got.splits and outcome(got.columns, got.base).winning
    left = [c for c in got.columns if c.state == LOOSE]
    assert [c.cards for c in left] == [["x2"]]
    assert got.detections[left[0].detections[0]].score == 0.6  # the weaker of the two finds
    assert ["x1", "x2", "x3"] in [c.cards for c in got.columns if c.row == HAND]
    asm = assemble(list(got.columns), list(got.detections), BASE)
    kinds = {d.kind.value for d in asm.doubts}
    assert {"taken_in", "stray_cards"} <= kinds
    assert any("found twice" in d.message for d in asm.doubts if d.kind.value == "taken_in")


def test_the_whole_repair_leaves_the_double_out() -> None:
    got = repair(_draft(TABLE_ROW, HAND_ROW, twin=(4, 1)))
    assert outcome(got.columns, got.base).winning
    assert [c.cards for c in got.columns if c.state == LOOSE] == [["x2"]]


def test_a_winning_layout_and_the_setting_off_are_left_alone() -> None:
    """A column of 一二二三 in a layout that wins as it stands is the hand's cards laid closer
    than its groups (its free cards make 一二三 and 二七十 with the 七十 beside them): no card
    too many, and left alone. The step can be turned off too."""
    assert leave_twin(_draft(TABLE_ROW, HAND_ROW, twin=(4, 1), params=Params(leave_twin=False))) is None
    hand = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["x1", "x2", "x2", "x3"],
            ["x7", "x10"]]
    wins = _draft(TABLE_ROW, hand)
    assert twins(wins.columns[5], wins.detections) == [2]
    assert outcome(wins.columns, wins.base).winning
    assert leave_twin(wins) is None


def _quad_with_double(gap: float) -> Draft:
    """拾 over three backs in the claimed row, the last two backs ``gap`` px apart down the
    column (80: two backs; 15: one back's pattern found twice, the second find weaker)."""
    dets = [det("d5", 0.0, 0.0), det("d5", 0.0, 80.0), det("d5", 0.0, 160.0),
            det("x10", 100.0, 0.0), det("back", 100.0, 80.0), det("back", 100.0, 160.0),
            det("back", 100.0, 160.0 + gap, score=0.6)]
    cols = [Column([0, 1, 2], ["d5"] * 3, TABLE),
            Column([3, 4, 5, 6], ["x10", "back", "back", "back"], TABLE)]
    for k, cards in enumerate(HAND_ROW):
        cols.append(Column(list(range(len(dets), len(dets) + len(cards))), list(cards), HAND))
        dets += [det(card, 100.0 * k, 600.0 + 80.0 * j) for j, card in enumerate(cards)]
    return Draft(tuple(c.copy(state=proposed_state(c)) for c in cols), tuple(dets), BASE)


def test_a_back_found_twice_in_a_concealed_column_of_four_is_left_out() -> None:
    """One back's pattern found twice makes 拾's 偎 a 提 of four, and a 提 wants a pair beside it
    that the hand does not hold: no winning hand. The two finds overlap far more than two backs
    of a column do; without the weaker, the 偎 and the hand win, and both say so."""
    draft = _quad_with_double(15.0)
    assert twins(draft.columns[1], draft.detections) == [3]
    assert not outcome(draft.columns, draft.base).winning
    got = leave_twin(draft)
    assert got is not None and outcome(got.columns, got.base).winning
    assert got.columns[1].cards == ["x10", "back", "back"] and got.columns[1].settled
    left = [c for c in got.columns if c.state == LOOSE]
    assert [c.cards for c in left] == [["back"]] and got.detections[left[0].detections[0]].score == 0.6
    # two backs a step apart are a 提's, whatever the hand makes of it
    apart = _quad_with_double(80.0)
    assert twins(apart.columns[1], apart.detections) == [] and leave_twin(apart) is None


def _pong_with_double(double: bool) -> Draft:
    """The claimed 碰 of 伍, its middle card found a second time half a step down (a weaker find)
    when ``double``, and a fifth 伍 in the hand's 肆伍陆: as laid, the claimed column is four of
    a face, a 跑 the deck cannot hold."""
    dets = [det("d5", 0.0, 0.0), det("d5", 0.0, 80.0), det("d5", 0.0, 160.0)]
    pong = [0, 1, 2]
    if double:
        dets.append(det("d5", 0.0, 120.0, score=0.6))
        pong = [0, 1, 3, 2]
    cols = [Column(pong, ["d5"] * len(pong), TABLE)]
    cols.append(Column(list(range(len(dets), len(dets) + 3)), ["x10", "back", "back"], TABLE))
    dets += [det("x10", 100.0, 0.0), det("back", 100.0, 80.0), det("back", 100.0, 160.0)]
    for k, cards in enumerate([["d4", "d5", "d6"], *HAND_ROW[1:]]):
        cols.append(Column(list(range(len(dets), len(dets) + len(cards))), list(cards), HAND))
        dets += [det(card, 100.0 * k, 600.0 + 80.0 * j) for j, card in enumerate(cards)]
    return Draft(tuple(c.copy(state=proposed_state(c)) for c in cols), tuple(dets), BASE)


def test_four_of_a_face_the_deck_cannot_hold_leave_out_the_least_sure() -> None:
    """Four 伍 down the claimed column make a group as they lie, so the code before kept them,
    and the five 伍 in view made the layout one the engine refuses. Four of a face with a fifth
    in view hold a double: the least sure of the four is left out, the 碰 and the hand win."""
    assert outcome(_pong_with_double(False).columns, BASE).winning
    draft = _pong_with_double(True)
    col = draft.columns[0]
    assert twins(col, draft.detections) == []  # alone, four alike are a group
    assert not outcome(draft.columns, draft.base).winning
    got = leave_twin(draft)
    assert got is not None and outcome(got.columns, got.base).winning
    assert got.columns[0].cards == ["d5"] * 3 and got.columns[0].settled
    left = [c for c in got.columns if c.state == LOOSE]
    assert [c.cards for c in left] == [["d5"]] and got.detections[left[0].detections[0]].score == 0.6
