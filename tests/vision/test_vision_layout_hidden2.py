"""Hidden cards put back in more than two columns, or under a hand's pair (a 坎 a card short),
by ``hidden.complete_group`` on hand-made detections, each always named in a doubt."""

from __future__ import annotations

import pytest
from layout_cards import det, rows

from zipai.vision.detector import Detection
from zipai.vision.layout import HAND, TABLE, DoubtKind, Params
from zipai.vision.layout.readings import NO_BOX
from zipai.vision.scan import Scan, scan_detections

# the layout's logic is tested with a chance model set by hand (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("fixed_chance")



def _scan(dets: list[Detection], p: Params | None = None) -> Scan:
    return scan_detections(1600, 1200, dets, p=p)


def _hidden(sc: Scan) -> list[tuple[str, str, list[str]]]:
    """The columns that hold a card no find shows: row, state, cards."""
    return sorted((c.row, c.state, c.cards) for c in sc.columns if NO_BOX in c.detections)


def _taken_in(sc: Scan) -> list[str]:
    return [d.message for d in sc.assembled.doubts if d.kind == DoubtKind.TAKEN_IN]


# 六 八 claimed (七 under 八), and the hand's 坎 of 九 shown as a pair (its third 九 under the
# others); read as 九 九 玖 the hand makes 12 points, short of the 15 a win needs
PAIR_TABLE = [["x6", "x8"], ["d5", "d5", "d5"], ["d1", "back", "back"]]
PAIR_HAND = [["x4", "x5", "x6"], ["x2", "x7", "x10"], ["x9", "x9"], ["d8", "d8", "x8"]]


def test_a_hand_pair_is_a_kan_with_its_third_card_hidden_beside_a_claimed_column() -> None:
    """Neither card alone makes seven groups, and a hand pair was never completed before: the
    claimed 吃 and the hand's 坎 are read together, each named (玖 would make the hand's three
    seven groups too, but no win)."""
    sc = _scan(rows(PAIR_TABLE, PAIR_HAND))
    assert _hidden(sc) == [(HAND, "hand", ["x9", "x9", "x9"]), (TABLE, "open", ["x6", "x7", "x8"])]
    assert sc.result is not None and sc.result.winning
    assert len(_taken_in(sc)) == 2
    assert all("assumed hidden under this column's cards" in m for m in _taken_in(sc))


def test_a_hand_pair_is_left_alone_where_the_rule_is_off() -> None:
    sc = _scan(rows(PAIR_TABLE, PAIR_HAND), Params(complete_pairs=False))
    assert (TABLE, "open", ["x6", "x7", "x8"]) not in _hidden(sc)


def test_three_columns_each_a_card_short_are_read_together() -> None:
    """一三 and 肆陆 claimed and 四六 in the hand, each missing its middle: no one or two of them
    make the hand split, the three together do, each named."""
    sc = _scan(rows([["x1", "x3"], ["d4", "d6"], ["x10", "back", "back"]],
                     [["x4", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]))
    assert _hidden(sc) == [(HAND, "hand", ["x4", "x5", "x6"]), (TABLE, "open", ["d4", "d5", "d6"]),
                           (TABLE, "open", ["x1", "x2", "x3"])]
    assert sc.result is not None and sc.result.winning
    assert len(_taken_in(sc)) == 3


def test_three_columns_are_not_weighed_where_the_rule_is_off() -> None:
    sc = _scan(rows([["x1", "x3"], ["d4", "d6"], ["x10", "back", "back"]],
                     [["x4", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]),
               Params(complete_three=False))
    assert not any(c.cards == ["d4", "d5", "d6"] for c in sc.columns)


# 六 八 claimed with 七 under 八, a hand of seven groups with it, 12 points: short of the 15 a win needs
SHORT_TABLE = [["x6", "x8"], ["d5", "d5", "d5"], ["x1", "back", "back"]]
SHORT_HAND = [["x4", "x5", "x6"], ["x2", "x7", "x10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]


def test_a_completion_that_makes_seven_groups_but_no_win_is_taken_when_it_is_the_only_one() -> None:
    """No reading wins, so the code before left 六 八 as no group (its cards free cards of the
    hand, 七 read as one more beside them): the claimed 吃 is scored as such, and the hand
    scored as no win, each a doubt."""
    sc = _scan(rows(SHORT_TABLE, SHORT_HAND))
    assert _hidden(sc) == [(TABLE, "open", ["x6", "x7", "x8"])]
    assert sc.result is not None and not sc.result.winning and sc.result.points == 12
    assert any("no reading wins" in m for m in _taken_in(sc))
    assert DoubtKind.NO_WIN in {d.kind for d in sc.assembled.doubts}


def test_a_completion_that_wins_no_hand_is_not_taken_where_the_rule_is_off() -> None:
    sc = _scan(rows(SHORT_TABLE, SHORT_HAND), Params(complete_splits=False))
    assert (TABLE, "open", ["x6", "x7", "x8"]) not in _hidden(sc)


def test_completions_that_make_seven_groups_and_score_otherwise_are_left_to_the_player() -> None:
    """The claimed 伍 伍 takes 伍 (a 碰, 3 points) or 五 (two of one size and one of the other, none):
    seven groups either way and no win, so each pays nothing, but the points differ: neither is
    assumed in the claimed column (the guard on ``Params.complete_splits``)."""
    sc = _scan(rows([["d5", "d5"], ["x6", "x7", "x8"], ["x1", "back", "back"]], SHORT_HAND))
    assert not any(row == TABLE for row, _, _ in _hidden(sc))
    assert not any("assumed hidden under this column's cards" in m for m in _taken_in(sc))


BLIND_TABLE = [["back", "back", "back"], ["d5", "d5", "d5"], ["x1", "x3"]]
BLIND_HAND = [["x9", "x9", "x9"], ["d2", "d3", "d4"], ["d8", "d8", "x8"], ["x4", "x6"]]


def test_columns_a_card_short_are_completed_beside_an_all_back_group() -> None:
    """An all-back group and two columns each missing its middle: the group's card is unknown
    until the hidden cards are in, and the code before weighed no completion while a group had
    no card (and ``read_hidden`` reads one card only): both are put back, then the group read,
    each a doubt. The hand wins only with a large card's 偎 (12 points without the group), so
    the card the group stands in as while they are sought makes no win, and the columns say the
    hand wins as read at last."""
    sc = _scan(rows(BLIND_TABLE, BLIND_HAND))
    assert _hidden(sc) == [(HAND, "hand", ["x4", "x5", "x6"]), (TABLE, "open", ["x1", "x2", "x3"])]
    assert sc.result is not None and sc.result.winning
    assert sc.columns[0].reading is not None
    said = [m for m in _taken_in(sc) if "assumed hidden under this column's cards" in m]
    assert len(said) == 2 and all(m.endswith("make seven groups and win") for m in said)
    kinds = {d.kind for d in sc.assembled.doubts}
    assert {DoubtKind.TAKEN_IN, DoubtKind.UNNAMED_CONCEALED} <= kinds


def test_no_completion_is_weighed_beside_an_all_back_group_where_the_rule_is_off() -> None:
    sc = _scan(rows(BLIND_TABLE, BLIND_HAND), Params(complete_blind=False))
    assert not _hidden(sc)


# 伍 伍 claimed with its third card hidden: 伍 (a 碰) or 五 (two of one size and one of the
# other); the hand wins either way (21 or 18 points), so the two readings pay otherwise
GUESS_TABLE = [["d5", "d5"], ["x6", "x7", "x8"], ["d1", "back", "back"]]
GUESS_HAND = [["x10", "x10", "x10"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]


def test_winning_completions_that_pay_otherwise_take_three_of_a_card_with_a_doubt() -> None:
    """The code before left both to the player and scored no hand (the claimed pair no group);
    now the likeliest is taken: three of a card (a 碰 claimed) before two of one size and one of
    the other, though the deck leaves more 五 than 伍. The doubt names the other reading."""
    sc = _scan(rows(GUESS_TABLE, GUESS_HAND))
    assert _hidden(sc) == [(TABLE, "open", ["d5", "d5", "d5"])]
    assert sc.result is not None and sc.result.winning
    said = [m for m in _taken_in(sc) if "assumed hidden under this column's cards" in m]
    assert len(said) == 1
    assert "the likeliest of 2 winning readings that pay otherwise; the others: x5" in said[0]


def test_winning_completions_that_pay_otherwise_are_left_to_the_player_where_the_rule_is_off() -> None:
    sc = _scan(rows(GUESS_TABLE, GUESS_HAND), Params(complete_guess=False))
    assert not any(row == TABLE for row, _, _ in _hidden(sc))
    assert not any("assumed hidden" in m for m in _taken_in(sc))


def test_winning_completions_alike_by_the_deck_take_the_face_the_finder_misses_most() -> None:
    """二 三 claimed, a card short: 一 and 四 both make a winning hand, and the deck leaves four
    of each. The card a column lacks may be hidden or missed, and the finder misses 一 (one
    stroke) far more often than any other face: 一二三 (24 points), not 二三四 (21)."""
    table = [["x2", "x3"], ["d5", "d5", "d5"], ["d1", "back", "back"]]
    sc = _scan(rows(table, GUESS_HAND))
    assert _hidden(sc) == [(TABLE, "open", ["x2", "x3", "x1"])]
    assert sc.result is not None and sc.result.winning and sc.result.points == 24
    said = [m for m in _taken_in(sc) if "assumed hidden under this column's cards" in m]
    assert len(said) == 1 and "the others: x4" in said[0]


# 壹 of the hand, and 叁 three card steps down its line: 贰 hidden between them left a gap, so the
# geometry made 壹 a column of its own and 叁 a card lying apart (two cards short of 21)
APART_TABLE = [["x6", "x7", "x8"], ["d5", "back", "back"]]
APART_HAND = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["x1", "x2", "x3"], ["d1"]]


def _apart(gap: float) -> list[Detection]:
    return [*rows(APART_TABLE, APART_HAND), det("d3", 400.0, 600.0 + gap)]


def test_two_lone_cards_in_line_are_one_group_with_the_card_hidden_between_them() -> None:
    """The code before left 叁 out and scored no hand; now 壹 贰 叁 is one column, 贰 named."""
    sc = _scan(_apart(240.0))
    assert (HAND, "hand", ["d1", "d2", "d3"]) in _hidden(sc)
    assert not any(c.state == "loose" for c in sc.columns)
    assert sc.result is not None and sc.result.winning and sc.result.points == 24
    assert any("d2 assumed hidden under this column's cards" in m for m in _taken_in(sc))


@pytest.mark.parametrize("gap, p", [(400.0, Params()), (240.0, Params(complete_apart=False))])
def test_lone_cards_too_far_apart_or_with_the_rule_off_are_not_joined(gap: float, p: Params) -> None:
    """Past seven glyph sizes along the line (400 px here) 叁 is no part of 壹's column."""
    sc = _scan(_apart(gap), p)
    assert not _hidden(sc)
    assert any(c.state == "loose" and c.cards == ["d3"] for c in sc.columns)


# 一 and 叁 of the claimed row's 一二三, 贰 hidden between them: each lies off the row's line, so
# the geometry set both apart, and the hand is two cards short of 21
LOOSE_TABLE = [["x6", "x7", "x8"], ["d5", "back", "back"]]
LOOSE_HAND = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d1", "d2", "d3"]]


def _both_apart(x: float) -> list[Detection]:
    return [*rows(LOOSE_TABLE, LOOSE_HAND), det("x1", x, 0.0), det("x3", x + 50.0, 240.0)]


def test_two_cards_both_lying_apart_are_one_group_with_the_card_hidden_between_them() -> None:
    """The code before weighed a pair only with one card laid in a row, and left both out (no
    hand); now 一 贰 叁 is a column of the claimed row, the row nearest them, 贰 named."""
    sc = _scan(_both_apart(300.0))
    assert _hidden(sc) == [(TABLE, "open", ["x1", "x2", "x3"])]
    assert not any(c.state == "loose" for c in sc.columns)
    assert sc.result is not None and sc.result.winning
    assert any("x2 assumed hidden under this column's cards" in m for m in _taken_in(sc))


def test_two_cards_lying_apart_far_from_the_layout_are_discards() -> None:
    """Past ``FAR_LOOSE`` glyph sizes from every column (900 px here) the two are discards."""
    sc = _scan(_both_apart(900.0))
    assert not _hidden(sc)
    assert sorted(c.cards[0] for c in sc.columns if c.state == "loose") == ["x1", "x3"]
