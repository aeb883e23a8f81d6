"""A layout card hidden wholly under another, which no find shows, read by the rules on
hand-made detections: in the column it completes (``hidden.complete_group``), or as a free card
of the hand (``readings.read_hidden``), and always named in a doubt."""

from __future__ import annotations

import pytest

from zipai.vision.detector import Detection
from zipai.vision.layout import HAND, TABLE, DoubtKind, Params
from zipai.vision.layout.hidden import completions
from zipai.vision.layout.readings import NO_BOX
from zipai.vision.scan import Scan, scan_detections

# the layout's logic is tested with a chance model set by hand (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("fixed_chance")

G = 50.0  # glyph size in pixels
RED = {"x2", "x7", "x10", "d2", "d7", "d10"}
HAND_ROW = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]


def _det(card: str, x: float, y: float) -> Detection:
    if card == "back":
        return Detection("back", (x - 0.7 * G, y - 0.5 * G, x + 0.7 * G, y + 0.5 * G), 0.9, None, 0.9, 1.0)
    color = "red" if card in RED else "black"
    return Detection(card, (x - G / 2, y - G / 2, x + G / 2, y + G / 2), 0.9, color, 0.9, 1.0)


def _rows(table: list[list[str]], hand: list[list[str]]) -> list[Detection]:
    """The claimed row at y = 0 and the hand at y = 600: columns 100 px apart, cards 80 px apart
    down each column."""
    return [_det(card, 100.0 * k, y0 + 80.0 * j) for y0, row in ((0.0, table), (600.0, hand))
            for k, col in enumerate(row) for j, card in enumerate(col)]


def _scan(dets: list[Detection]) -> Scan:
    return scan_detections(1600, 1200, dets)


def _hidden(sc: Scan) -> list[tuple[str, str, list[str]]]:
    """The columns that hold a card no find shows: row, state, cards."""
    return [(c.row, c.state, c.cards) for c in sc.columns if NO_BOX in c.detections]


def _taken_in(sc: Scan) -> list[str]:
    return [d.message for d in sc.assembled.doubts if d.kind == DoubtKind.TAKEN_IN]


def test_a_chi_shown_as_its_two_ends_is_read_with_its_middle() -> None:
    """六 and 八 in the claimed row, 七 hidden under 八: a claimed 吃 of 六七八 (the code before
    gave no winning hand: the two went to the hand as free cards)."""
    sc = _scan(_rows([["x6", "x8"], ["d5", "d5", "d5"], ["x10", "back", "back"]], HAND_ROW))
    assert _hidden(sc) == [(TABLE, "open", ["x6", "x7", "x8"])]
    assert sc.result is not None and sc.result.winning
    assert any("x7 assumed hidden under this column's cards" in m for m in _taken_in(sc))


def test_two_columns_each_a_card_short_are_read_together() -> None:
    """一三 and 肆陆 in the claimed row, each missing its middle: neither alone makes the hand
    split, both together do, each named."""
    sc = _scan(_rows([["x1", "x3"], ["d4", "d6"], ["x10", "back", "back"]], HAND_ROW))
    assert sorted(_hidden(sc)) == [(TABLE, "open", ["d4", "d5", "d6"]), (TABLE, "open", ["x1", "x2", "x3"])]
    assert sc.result is not None and sc.result.winning
    assert len(_taken_in(sc)) == 2


def test_a_loose_pair_of_faces_is_read_as_the_group_of_its_row() -> None:
    """六 八 lying apart at the claimed row's end (a stray pair to the geometry), 七 under
    them: the claimed 吃, in the row of the column nearest it."""
    laid = _rows([["d5", "d5", "d5"], ["x10", "back", "back"]], HAND_ROW)
    sc = _scan([*laid, _det("x6", 420.0, 0.0), _det("x8", 420.0, 80.0)])
    assert _hidden(sc) == [(TABLE, "open", ["x6", "x7", "x8"])]
    assert sc.result is not None and sc.result.winning
    assert _taken_in(sc)


def test_no_card_is_assumed_that_the_deck_has_no_copy_left_of() -> None:
    """Four 七 in view: 六 八 cannot be a 吃 with one hidden, and nothing is assumed there."""
    sc = _scan(_rows([["x6", "x8"], ["d5", "d5", "d5"], ["x10", "back", "back"]],
                     [["x7", "x7", "x7"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["x7", "x8", "x9"]]))
    assert not any(c.cards == ["x6", "x7", "x8"] for c in sc.columns)


def test_a_layout_that_wins_as_read_is_left_as_it_is() -> None:
    """A hand pair of two different faces would take a card, but the layout wins as read."""
    dets = _rows([["x6", "x7", "x8"], ["d5", "d5", "d5"], ["x10", "back", "back"]], HAND_ROW)
    sc = _scan(dets)
    assert not _hidden(sc) and not _taken_in(sc)
    assert sc.result is not None and sc.result.winning


def test_a_hidden_card_is_sought_beside_two_quads_one_in_the_hand() -> None:
    """A concealed 提 and four 九 in the hand: a winning layout of two quads holds 22 cards, so
    21 in view is a card short (the code before counted the table's quads only and sought none)."""
    sc = _scan(_rows([["back", "back", "back", "d1"], ["d5", "d5", "d5"], ["x1", "x2", "x3"]],
                     [["x9", "x9", "x9", "x9"], ["d2", "d7", "d10"], ["d8", "d8", "x8"], ["d3"]]))
    assert _hidden(sc) == [(HAND, "hand", ["d3"])]
    assert sc.result is not None and sc.result.winning
    assert any("a card no find shows" in m for m in _taken_in(sc))


def test_a_hidden_card_is_sought_beside_an_all_back_group() -> None:
    """An all-back group and a hand a card short: the group's card is unknown until the hidden
    card is in (the code before sought none: the layout was incomplete), then both are read,
    each a doubt. ``read_hidden`` reads it as a free card of the hand where ``complete_group``
    did not put it in the column it completes (``Params.complete_blind``, which now does)."""
    dets = _rows([["back", "back", "back"], ["d5", "d5", "d5"], ["x1", "x2", "x3"]],
                 [["x9", "x9", "x9"], ["d2", "d7", "d10"], ["d8", "d8", "x8"], ["x4", "x6"]])
    assert _hidden(_scan(dets)) == [(HAND, "hand", ["x4", "x5", "x6"])]
    sc = scan_detections(1600, 1200, dets, p=Params(complete_blind=False))
    assert _hidden(sc) == [(HAND, "hand", ["x5"])]
    assert sc.result is not None and sc.result.winning
    assert sc.columns[0].reading is not None
    kinds = {d.kind for d in sc.assembled.doubts}
    assert {DoubtKind.TAKEN_IN, DoubtKind.UNNAMED_CONCEALED} <= kinds


@pytest.mark.parametrize(("cards", "want"), [
    (["x6", "x8"], [("x7", 1)]),
    (["x5", "x5"], [("x5", 2), ("d5", 2)]),
    (["x2", "x10"], [("x7", 1)]),
    (["x1", "d3"], []),
])
def test_the_cards_that_complete_two_faces(cards: list[str], want: list[tuple[str, int]]) -> None:
    assert sorted(completions(cards)) == sorted(want)
