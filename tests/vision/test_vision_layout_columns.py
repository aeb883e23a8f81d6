"""How cards link into columns, and which cards the layout takes in or leaves out, on hand-made
detections: a group laid askew of the rest, and the cards that lie apart from the layout."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from zipai.engine import score
from zipai.vision.detector import Detection
from zipai.vision.layout import (
    CONCEALED,
    HAND,
    LOOSE,
    OPEN,
    TABLE,
    Column,
    Draft,
    assemble,
    columns,
    gather_loose,
    propose_states,
    proposed_state,
    repair,
    set_apart_pairs,
    trade_ends,
)

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


# ---------------------------------------------------------------- loose cards lying together

BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}


def _draft(table: Sequence[Sequence[str]], hand: Sequence[Sequence[str]],
           loose: Sequence[tuple[float, float, str]]) -> Draft:
    """A draft as the geometry hands it over: the claimed row at y = 0, the hand at y = 600
    (columns 100 px apart, cards 80 px apart), each ``loose`` card a column of its own at its
    (x, y), lying apart from the layout."""
    dets: list[Detection] = []
    cols: list[Column] = []
    for row, y0, laid in ((TABLE, 0.0, table), (HAND, 600.0, hand)):
        for k, cards in enumerate(laid):
            cols.append(Column(list(range(len(dets), len(dets) + len(cards))), list(cards), row))
            dets += [_det(card, 100.0 * k, y0 + 80.0 * j) for j, card in enumerate(cards)]
    for x, y, card in loose:
        cols.append(Column([len(dets)], [card], LOOSE))
        dets.append(_det(card, x, y))
    return Draft(tuple(c.copy(state=proposed_state(c)) for c in cols), tuple(dets), BASE)


def _drafted(draft: Draft) -> list[tuple[str, str, list[str]]]:
    return [(c.row, c.state, c.cards) for c in draft.columns]


def test_a_face_and_its_backs_lying_apart_are_joined_into_the_concealed_group() -> None:
    """拾 over two backs, each card askew and apart from the next (three strays to the
    geometry): the layout makes seven groups only with them as the concealed group."""
    draft = _draft([["d5", "d5", "d5"], ["x1", "x2", "x3"]], HAND_ROW,
                   [(300.0, 0.0, "x10"), (330.0, 110.0, "back"), (290.0, 220.0, "back")])
    assert not draft.splits
    got = gather_loose(draft)
    assert got is not None and got.splits
    assert (TABLE, CONCEALED, ["x10", "back", "back"]) in _drafted(got)
    assert not any(state == LOOSE for _, state, _ in _drafted(got))
    # the full repair reaches it too, and says the cards were taken in
    done = repair(draft)
    asm = assemble(done.columns, done.detections, BASE)
    assert asm.complete and {"cards": ["x10"] * 3, "state": "concealed"} in asm.layout["groups"]
    assert any(d.kind == "taken_in" for d in asm.doubts)


def test_three_faces_side_by_side_in_the_claimed_row_are_one_claimed_group() -> None:
    """一二三 laid side by side beside the claimed groups, not overlapping: one at a time they
    would go to the hand as free cards, and the chi claimed in play scores as revealed."""
    draft = _draft([["d5", "d5", "d5"], ["x10", "back", "back"]], HAND_ROW,
                   [(260.0, 0.0, "x1"), (340.0, 10.0, "x2"), (420.0, 0.0, "x3")])
    done = repair(draft)
    assert (TABLE, OPEN, ["x1", "x2", "x3"]) in [(r, st, sorted(c)) for r, st, c in _drafted(done)]
    asm = assemble(done.columns, done.detections, BASE)
    groups = [{"cards": ["d5"] * 3, "state": "open"}, {"cards": ["x10"] * 3, "state": "concealed"},
              {"cards": ["x1", "x2", "x3"], "state": "open"}]
    truth = {**BASE, "groups": groups, "hand": [c for col in HAND_ROW for c in col]}
    assert score(asm.layout)["points"] == score(truth)["points"]


def test_a_face_further_from_the_backs_than_another_is_not_their_group() -> None:
    """Two backs with 柒 on them and 拾 further off: 柒 is their face, but a concealed 柒
    would be a fifth and sixth 柒 (the hand holds three); 拾 lies nearer a discard's place
    than a face's, so nothing is gathered rather than the far face."""
    hand = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x7", "x7", "x7"], ["d8", "d8", "x8"]]
    draft = _draft([["d5", "d5", "d5"], ["x1", "x2", "x3"]], hand,
                   [(300.0, -60.0, "x7"), (300.0, 40.0, "back"), (300.0, 140.0, "back"),
                    (450.0, 90.0, "x10")])
    assert gather_loose(draft) is None


def test_loose_cards_that_make_no_group_stay_loose() -> None:
    """Two discards and a back lying together make no group (a face over backs needs two backs
    and one face): nothing is gathered."""
    draft = _draft([["d5", "d5", "d5"], ["x10", "back", "back"]], HAND_ROW,
                   [(300.0, 0.0, "x1"), (380.0, 0.0, "d9"), (460.0, 0.0, "back")])
    assert gather_loose(draft) is None


# ---------------------------------------------------------------- a card linked onto the next column

HAND_OTHER = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["d3", "d3", "d3"], ["d6", "d6", "x6"]]


def test_two_columns_that_took_each_others_card_trade_them_back() -> None:
    """壹 over two backs beside 拾 壹 1: each column's head is the other's card (the second is
    no group, and its cards make no free cards either); traded back they are 拾 over two
    backs and 壹壹1, the layout's seven groups."""
    draft = _draft([["x1", "back", "back"], ["x10", "x1", "d1"], ["d5", "d5", "d5"]], HAND_OTHER, [])
    assert not draft.splits
    got = trade_ends(draft)
    assert got is not None and got.splits
    look = _drafted(got)
    assert (TABLE, CONCEALED, ["x10", "back", "back"]) in look and (TABLE, OPEN, ["x1", "x1", "d1"]) in look
    asm = assemble(got.columns, got.detections, BASE)
    assert sum(d.kind == "taken_in" for d in asm.doubts) == 2


def test_two_claimed_columns_that_took_each_others_card_trade_even_where_the_layout_splits() -> None:
    """捌玖 over 8 beside 8 8 over 拾 in the claimed row: neither column is a group, so their
    cards go to the hand as free cards, where they split (捌玖拾, 888) and the claimed groups
    would score as revealed; traded back, they are the two claimed groups, seen once."""
    draft = _draft([["x8", "x9", "d8"], ["d8", "d8", "x10"], ["x1", "back", "back"]], HAND_OTHER, [])
    assert draft.splits
    got = trade_ends(draft)
    assert got is not None and got.splits
    look = _drafted(got)
    assert (TABLE, OPEN, ["x8", "x9", "x10"]) in look and (TABLE, OPEN, ["d8", "d8", "d8"]) in look


def test_a_face_linked_onto_a_column_joins_the_backs_beside_it() -> None:
    """玖玖 and 9 with 拾 linked on at its end, beside two backs: the 拾 is the backs' face."""
    draft = _draft([["d9", "x9", "x9", "x10"], ["back", "back"], ["x1", "x2", "x3"]], HAND_OTHER, [])
    got = trade_ends(draft)
    assert got is not None and got.splits
    assert (TABLE, CONCEALED, ["back", "back", "x10"]) in _drafted(got)
    assert (TABLE, OPEN, ["d9", "x9", "x9"]) in _drafted(got)


def test_a_trade_that_splits_only_with_the_guessed_rows_the_other_way_round_takes_both() -> None:
    """The rows were a guess, and the wrong one: 伍陆柒 with 8 linked on beside 6 7 in the row
    taken as the hand. Traded there, the hand holds three 6s and three 7s (a 坎 is never broken)
    and splits into no groups; claimed, the three columns are 5 6 7, 6 7 8 and 5 6 7 and the
    layout splits. Moving 5 onto 6 7 or 8 onto it leaves the same groups: one way, not two."""
    table = [["d4", "d5", "d6"], ["d5", "d6", "d7"], ["d2", "d7", "d10"], ["x1", "x1", "x1"]]
    hand = [["x5", "x6", "x7", "x8"], ["x6", "x7"], ["x5", "x6", "x7"]]
    draft = _draft(table, hand, [])
    draft = draft.with_columns([c.copy(row_guess="alike") for c in draft.columns])
    assert not draft.splits
    got = trade_ends(draft)
    assert got is not None and got.splits
    look = _drafted(got)
    assert [sorted(cards) for row, state, cards in look if row == TABLE and state == OPEN] == [
        ["x6", "x7", "x8"], ["x5", "x6", "x7"], ["x5", "x6", "x7"]]
    assert all(c.row_guess == "swapped" for c in got.columns)  # the rules chose the rows: a doubt
    assert sum(bool(c.settled) for c in got.columns) == 2
    # told apart by the photo, the rows stay: no trade splits them as they lie
    told = draft.with_columns([c.copy(row_guess="") for c in draft.columns])
    assert trade_ends(told) is None


def test_a_back_is_never_moved_between_columns() -> None:
    """柒 over four backs beside 肆 over two: a back moved across makes both look whole (柒 a
    quad, 肆 a triple), but a back found twice or missed is the finder's commonest error, and
    which group holds four is what the backs tell; nothing is traded."""
    hand = [["d2", "d7", "d10"], ["d3", "d3", "d3"], ["d6", "d6", "x6"], ["d9", "d9"]]
    draft = _draft([["x7", "back", "back", "back", "back"], ["x4", "back", "back"], ["x1", "x2", "x3"]],
                   hand, [])
    assert not draft.splits
    assert trade_ends(draft) is None


# ---------------------------------------------------------------- a face on a back, no group


def test_a_face_lying_on_a_back_that_is_no_group_is_set_apart() -> None:
    """肆 discarded onto the stock's back beside the hand: linked as a column, a face over one
    back is a concealed group a card short (no result at all); set apart, the rest makes the
    layout's seven groups, and the pair is a doubt the player checks: a face over a back is how a
    concealed group is laid, so setting one apart is a move, not a discard left lying."""
    draft = _draft([["d5", "d5", "d5"], ["x10", "back", "back"], ["x1", "x2", "x3"]],
                   [*HAND_ROW, ["d4", "back"]], [])
    assert not draft.splits
    got = set_apart_pairs(draft)
    assert got is not None and got.splits
    assert (LOOSE, LOOSE, ["d4", "back"]) in _drafted(got)
    asm = assemble(got.columns, got.detections, BASE)
    assert asm.complete and any(d.kind == "taken_in" and "d4 back set apart" in d.message for d in asm.doubts)
    assert not any(d.kind == "stray_cards" for d in asm.doubts)


def test_a_face_on_a_back_stays_when_the_layout_splits_no_better_without_it() -> None:
    """With a group of the hand missing as well, leaving the pair out splits nothing: it stays."""
    draft = _draft([["d5", "d5", "d5"], ["x10", "back", "back"], ["x1", "x2", "x3"]],
                   [*HAND_ROW[:3], ["d4", "back"]], [])
    assert set_apart_pairs(draft) is None
