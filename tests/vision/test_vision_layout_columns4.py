"""A card whose head glyph lies under the next column shows only its far end, a card's length
past its own column's last card, and the geometry links it onto the column beside it: one group
a card short and one a card over. ``move_far_ends`` moves it back, on hand-built drafts; a
concealed group's face laid apart from its backs is joined to them, not a discard lying nearer
(``join_split_groups``), and to the backs whose line it continues where two groups lie side by
side (``join_in_line``).

Glyphs 50 px, columns 100 px apart, cards 80 px apart down a column unless a test says so.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from layout_cards import det

from zipai.vision.detector import Detection
from zipai.vision.layout import (
    CONCEALED,
    HAND,
    LOOSE,
    OPEN,
    TABLE,
    Column,
    Draft,
    Params,
    join_in_line,
    join_split_groups,
    move_far_ends,
    proposed_state,
    repair,
)

# the layout's logic is tested with a chance model set by hand (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("fixed_chance")

BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}
HAND_ROW = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["d3", "d3", "d3"], ["d6", "d6", "x6"]]

Laid = Sequence[tuple[str, Sequence[tuple[str, float, float]]]]


def _draft(laid: Laid, p: Params | None = None) -> Draft:
    """A draft as the geometry hands it over: each column (its row, its cards at (x, y) in order)."""
    dets: list[Detection] = []
    cols: list[Column] = []
    for row, cards in laid:
        cols.append(Column(list(range(len(dets), len(dets) + len(cards))), [c for c, _, _ in cards], row))
        dets += [det(card, x, y) for card, x, y in cards]
    return Draft(tuple(c.copy(state=proposed_state(c)) for c in cols), tuple(dets), BASE, p or Params())


def _column(cards: Sequence[str], x: float, y: float) -> list[tuple[str, float, float]]:
    return [(card, x, y + 80.0 * j) for j, card in enumerate(cards)]


def _hand(x0: float = 0.0) -> Laid:
    return [(HAND, _column(cards, x0 + 100.0 * k, 600.0)) for k, cards in enumerate(HAND_ROW)]


def _look(draft: Draft) -> list[tuple[str, str, list[str]]]:
    return [(c.row, c.state, c.cards) for c in draft.columns]


def _far_d7(x: float) -> Laid:
    """伍伍伍, 2 7 10 with a 柒 linked on at its end, and 柒柒 whose line the 柒 continues: it
    lies 300 px (six glyph sizes) past the last 柒, ``x`` px across."""
    return [(TABLE, _column(["d5", "d5", "d5"], 0.0, 0.0)),
            (TABLE, [*_column(["x2", "x7", "x10"], 100.0, 0.0), ("d7", x, 380.0)]),
            (TABLE, _column(["d7", "d7"], 200.0, 0.0)), *_hand()]


def test_a_far_end_linked_onto_the_column_beside_it_moves_back() -> None:
    """The 柒 linked onto 2 7 10 lies in line past 柒柒's end, further off than a card ever lies
    from its own column (``trade_ends`` does not reach it): moved back, both columns make groups
    and the layout splits; both say so."""
    draft = _draft(_far_d7(200.0))
    before = [(c.cards, c.detections) for c in draft.columns]
    got = move_far_ends(draft)
    assert [(c.cards, c.detections) for c in draft.columns] == before  # a new draft, this one as it was
    assert got is not None and got.splits
    look = _look(got)
    assert (TABLE, OPEN, ["d7", "d7", "d7"]) in look and (TABLE, OPEN, ["x2", "x7", "x10"]) in look
    assert sum(bool(c.settled) for c in got.columns) == 2
    # the whole repair reaches it too
    assert (TABLE, OPEN, ["d7", "d7", "d7"]) in _look(repair(draft))


def test_a_card_off_the_column_line_is_not_moved() -> None:
    """The same 柒 lying 130 px (over two glyph sizes) across 柒柒's line continues no column of
    its own: nothing is moved. Nor is anything with the step turned off (``Params``)."""
    assert move_far_ends(_draft(_far_d7(330.0))) is None
    assert move_far_ends(_draft(_far_d7(200.0), Params(move_far_ends=False))) is None


def test_two_heads_linked_onto_the_hand_columns_move_back_together() -> None:
    """壹贰 and 壹壹 of the claimed row, each with its last card (叁, 壹) showing its far end among
    the hand's heads, linked at the head of the hand column under it (叁 陆陆陆陆, 壹 1 1). Neither
    move alone makes the layout split (a claimed pair is no group); the two together do, and the
    hand keeps its free cards."""
    draft = _draft([(TABLE, _column(["x1", "x2"], 0.0, 0.0)),
                    (TABLE, _column(["x1", "x1"], 100.0, 0.0)),
                    (TABLE, _column(["d5", "d5", "d5"], 200.0, 0.0)),
                    (HAND, [("x3", 0.0, 420.0), *_column(["x6", "x6", "x6", "x6"], 0.0, 600.0)]),
                    (HAND, [("x1", 100.0, 420.0), *_column(["d1", "d1"], 100.0, 600.0)]),
                    (HAND, _column(["d2", "d7", "d10"], 200.0, 600.0)),
                    (HAND, _column(["d7", "d8", "d9"], 300.0, 600.0))])
    assert not draft.splits
    got = move_far_ends(draft)
    assert got is not None and got.splits
    look = _look(got)
    assert (TABLE, OPEN, ["x1", "x2", "x3"]) in look and (TABLE, OPEN, ["x1", "x1", "x1"]) in look
    assert (HAND, "hand", ["x6", "x6", "x6", "x6"]) in look and (HAND, "hand", ["d1", "d1"]) in look


def test_a_card_of_a_hand_pair_is_not_moved() -> None:
    """A hand's pair is what it seems: its card lying past a claimed 柒柒's end is not moved
    there, though 柒柒柒 would then make the layout split."""
    draft = _draft([(TABLE, _column(["d5", "d5", "d5"], 0.0, 0.0)),
                    (TABLE, _column(["x2", "x7", "x10"], 100.0, 0.0)),
                    (TABLE, _column(["d7", "d7"], 200.0, 0.0)),
                    (HAND, _column(["d7", "d8"], 200.0, 420.0)),
                    *_hand(300.0)])
    assert move_far_ends(draft) is None


def _face_apart(p: Params | None = None) -> Draft:
    """Two backs of the claimed row with their face 壹 laid 220 px (4.4 glyph sizes) to the side,
    and a 伍 discard lying 85 px from the backs, apart from the row."""
    return _draft([(TABLE, _column(["d8", "d8", "d8"], 0.0, 0.0)),
                   (TABLE, _column(["back", "back"], 200.0, 0.0)),
                   (TABLE, [("x1", 420.0, 0.0)]),
                   (LOOSE, [("d5", 260.0, 140.0)]), *_hand()], p)


def test_a_face_laid_apart_from_its_backs_joins_them_before_a_nearer_discard() -> None:
    """Either the 壹 of the row or the loose 伍 makes a group with the two backs; the 伍 lies
    nearer, but a loose card is taken only where no column of the claimed row is a partner, and
    the 壹 is one within ``JOIN_REACH``: the backs take the 壹, and the 伍 stays loose."""
    got = join_split_groups(_face_apart())
    assert got is not None
    look = _look(got)
    assert any(row == TABLE and sorted(cards) == ["back", "back", "x1"] for row, _, cards in look)
    assert (LOOSE, LOOSE, ["d5"]) in look
    # the rule before: the nearer discard was taken, and the 壹 left a lone card of the row
    was = join_split_groups(_face_apart(Params(row_partner_first=False)))
    assert was is not None
    assert any(sorted(cards) == ["back", "back", "d5"] for _, _, cards in _look(was))


def _faces_above_backs(x9: float, x3: float, p: Params | None = None) -> Draft:
    """Two concealed groups side by side, each face laid 200 px (four glyph sizes) above its
    two backs: 玖 at ``x9``, 叁 at ``x3``, the backs at 300 and 520 (each pair, and each face,
    within ``JOIN_REACH`` of the other pair)."""
    return _draft([(TABLE, _column(["d5", "d5", "d5"], 0.0, 0.0)),
                   (TABLE, [("x9", x9, 0.0)]), (TABLE, [("x3", x3, 0.0)]),
                   (TABLE, _column(["back", "back"], 300.0, 200.0)),
                   (TABLE, _column(["back", "back"], 520.0, 200.0)), *_hand()], p)


def test_each_face_joins_the_backs_whose_line_it_continues() -> None:
    """Each face makes a group with either pair of backs, and lies within reach of both, so
    ``join_split_groups`` joins none; each lies in line with its own pair: both are joined, and
    the layout splits."""
    draft = _faces_above_backs(300.0, 520.0)
    assert join_split_groups(draft) is None
    got = join_in_line(draft)
    assert got is not None and got.splits
    look = _look(got)
    assert (TABLE, CONCEALED, ["x9", "back", "back"]) in look
    assert (TABLE, CONCEALED, ["x3", "back", "back"]) in look
    assert sum(bool(c.settled) for c in got.columns) == 2
    assert join_in_line(_faces_above_backs(300.0, 520.0, Params(join_in_line=False))) is None


def test_faces_in_line_with_no_pair_of_backs_are_not_joined() -> None:
    """The same faces lying 110 px (over two glyph sizes) off each pair's line: no line tells
    which backs each face is the card of, and nothing is joined."""
    assert join_in_line(_faces_above_backs(410.0, 630.0)) is None


def test_a_photo_without_cards_has_nothing_to_move_or_join() -> None:
    empty = Draft((), (), BASE)
    assert move_far_ends(empty) is None and join_in_line(empty) is None
