"""Discards laid in line with the claimed row, or dropped among its groups, on hand-made
detections: the rules set apart the claimed row's lone faces and pairs (it holds groups only)
where only so the layout makes seven groups, and say so; a group split over two columns is
joined instead, and a layout that splits as it lies is left alone."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from layout_cards import det, row

from zipai.vision.layout import HAND, LOOSE, TABLE, Draft, Params, assemble, repair
from zipai.vision.layout.chance import outcome
from zipai.vision.layout.discards import WINS, set_apart_discards, win_without_discards

pytestmark = pytest.mark.usefixtures("fixed_chance")

BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}
TABLE_ROW = [["d5", "d5", "d5"], ["x10", "back", "back"]]
HAND_ROW = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"],
            ["x1", "x2", "x3"]]


def _draft(discards: Sequence[Sequence[str]], params: Params | None = None) -> Draft:
    """The claimed row at y = 0 with ``discards`` laid in line after its groups (columns 100 px
    apart), the hand at y = 600: the geometry's own draft."""
    return Draft.propose(row([*TABLE_ROW, *discards], 0.0) + row(HAND_ROW, 600.0), BASE, params)


def _laid(draft: Draft) -> list[tuple[str, list[str]]]:
    return sorted((c.row, c.cards) for c in draft.columns if c.row in (TABLE, HAND))


def test_the_layout_wins_without_the_discards() -> None:
    """The ground truth: the claimed groups and the hand alone make a winning hand."""
    draft = _draft([])
    assert draft.splits and outcome(draft.columns, draft.base).winning


@pytest.mark.parametrize("discards", [
    [["x3"], ["d8", "d1"]],  # a lone discard and two overlapping, in line with the claimed groups
    [["d1", "x7"]],  # two overlapping: no lone card for settle_strays to leave out
    [["x3"], ["d6"], ["x7", "d1"]],
])
def test_discards_in_the_claimed_row_are_set_apart(discards: list[list[str]]) -> None:
    draft = _draft(discards)
    claimed = [c.cards for c in draft.columns if c.row == TABLE]
    assert all(d in claimed for d in discards if len(d) == 2)  # the geometry took them in
    assert not draft.splits
    got = repair(draft)
    assert got.splits and outcome(got.columns, got.base).winning
    assert _laid(got) == _laid(_draft([]))
    apart = [c for c in got.columns if c.state == LOOSE]
    assert sorted(x for c in apart for x in c.cards) == sorted(x for d in discards for x in d)
    assert any(c.settled.startswith("set apart from the claimed row") for c in apart)
    assert all(c.settled for c in apart)  # each says why: the player checks it
    kinds = {d.kind.value for d in assemble(list(got.columns), list(got.detections), BASE).doubts}
    assert "stray_cards" in kinds


def test_the_rules_can_be_turned_off() -> None:
    """Without the claimed row's rule, the rule of the winning hand sets the pair apart; without
    either, it stays in the claimed row and the layout makes no seven groups."""
    got = repair(_draft([["d1", "x7"]], Params(set_apart_discards=False)))
    assert got.splits and all(c.settled == WINS for c in got.columns if c.state == LOOSE)
    got = repair(_draft([["d1", "x7"]], Params(set_apart_discards=False, win_without_discards=False)))
    assert not got.splits
    assert ["d1", "x7"] in [c.cards for c in got.columns if c.row == TABLE]


def _hand_pair(x: float) -> Draft:
    """The layout with a pair of discards, two overlapping cards, lying in the hand's row ``x``
    px from its first column (its columns 100 px apart: the last at 400)."""
    return Draft.propose([*row(TABLE_ROW, 0.0), *row(HAND_ROW, 600.0), *row([["d1", "x7"]], 600.0, x0=x)],
                         BASE)


def test_a_pair_lying_apart_from_the_hand_is_set_apart_when_only_so_the_hand_wins() -> None:
    draft = _hand_pair(540.0)  # 2.8 glyph sizes from the hand's last column: taken in by the geometry
    assert ["d1", "x7"] in [c.cards for c in draft.columns if c.row == HAND]
    got = repair(draft)
    assert got.splits and outcome(got.columns, got.base).winning
    assert _laid(got) == _laid(_draft([]))
    assert sorted(x for c in got.columns if c.state == LOOSE for x in c.cards) == ["d1", "x7"]
    assert all(c.settled == WINS for c in got.columns if c.state == LOOSE)


def test_a_pair_laid_in_line_with_the_hand_is_the_players() -> None:
    """At the hand's own spacing the pair is weighed as no discard: the layout is left as laid."""
    draft = _hand_pair(500.0)
    assert win_without_discards(draft) is None
    assert ["d1", "x7"] in [c.cards for c in repair(draft).columns if c.row == HAND]


def test_a_layout_that_splits_is_left_alone() -> None:
    assert set_apart_discards(_draft([])) is None
    assert win_without_discards(_draft([])) is None


def test_a_photo_with_no_card_is_left_alone() -> None:
    empty = Draft.propose([], BASE)
    assert set_apart_discards(empty) is None and win_without_discards(empty) is None


def test_a_claimed_group_split_over_two_columns_is_no_discard() -> None:
    """The 伍 of 伍伍伍 lying a column apart is a group's card: joined, not set apart."""
    dets = [*row([["d5", "d5"], ["x10", "back", "back"]], 0.0), det("d5", 200.0, 0.0), *row(HAND_ROW, 600.0)]
    got = repair(Draft.propose(dets, BASE))
    assert got.splits and outcome(got.columns, got.base).winning
    assert not [c for c in got.columns if c.state == LOOSE]
    assert sorted(c.cards for c in got.columns if c.row == TABLE) == sorted(TABLE_ROW)


BLIND_ROW = [["d5", "d5", "d5"], ["back", "back", "back"]]


def test_an_all_back_group_is_read_once_the_discards_are_set_apart() -> None:
    """An all-back group's card is read only once the rest of the layout is right: the pair set
    apart, the group read as the card that makes the hand split."""
    draft = Draft.propose([*row([*BLIND_ROW, ["d1", "x7"]], 0.0), *row(HAND_ROW, 600.0)], BASE)
    assert not draft.splits
    got = repair(draft)
    assert got.splits
    assert sorted(x for c in got.columns if c.state == LOOSE for x in c.cards) == ["d1", "x7"]
    assert [c.reading for c in got.columns if c.cards == ["back"] * 3] == ["d3"]


def test_a_way_that_takes_a_loose_card_in_is_not_taken() -> None:
    """With one of the hand's cards lying loose beside the hand, setting the pair apart splits
    only with that card taken in too (``settle_strays``): two guesses at once (on validation
    such a way took a discard in), so no discard is set apart by a way that takes another card
    in."""
    hand = [list(c) for c in HAND_ROW]
    hand[4] = ["x1", "x2"]
    dets = [*row([*BLIND_ROW, ["d1", "x7"]], 0.0), *row(hand, 600.0), det("x3", 500.0, 900.0)]
    draft = Draft.propose(dets, BASE)
    assert not draft.splits and [c.cards for c in draft.columns if c.state == LOOSE] == [["x3"]]
    assert set_apart_discards(draft) is None
