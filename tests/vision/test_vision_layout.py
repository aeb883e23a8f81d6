"""From hand-made detections to the engine's input: columns, rows, groups and doubts."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from zipai.engine import score
from zipai.vision.config import BackDoubles, FarEnds
from zipai.vision.detection import Detection
from zipai.vision.filters import body_between, drop_back_doubles, drop_far_ends, drop_weak_far_ends, spares
from zipai.vision.layout import (
    Assembled,
    Draft,
    Params,
    assemble,
    card_axis,
    columns,
    join_lone_backs,
    propose_states,
    reread,
    settle_backs,
    settle_rows,
    settle_strays,
    take_in,
)
from zipai.vision.layout.answers import take_claimed
from zipai.vision.layout.geometry import concealed_cuts
from zipai.vision.layout.rows import tell_rows
from zipai.vision.scan import scan_detections

# the layout's logic is tested with a chance model set by hand (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("fixed_chance")

G = 50.0  # glyph size in pixels

# RULINGS section 8, layout L1: the claimed row, then the revealed hand.
TABLE_ROW = [["d5", "d5", "d5"], ["x10", "back", "back"], ["x1", "x2", "x3"]]
HAND_ROW = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]


def _det(card: str, cx: float, cy: float, down: tuple[float, float] = (0.0, 1.0), prob: float = 0.99,
         color: str | None = None) -> Detection:
    if card == "back":
        box = (cx - 0.7 * G, cy - 0.5 * G, cx + 0.7 * G, cy + 0.5 * G)
        return Detection("back", box, 0.9, None, 0.9, 1.0, down=down)
    red = card in ("x2", "x7", "x10", "d2", "d7", "d10")
    col = color or ("red" if red else "black")
    box = (cx - G / 2, cy - G / 2, cx + G / 2, cy + G / 2)
    return Detection(card, box, 0.9 * prob, col, 0.9, prob, down=down)


def _scene(rows: list[list[list[str]]], angle: float = 0.0, side_by_side: bool = False) -> list[Detection]:
    """Columns 100 px apart, cards 80 px apart down a column; rows 600 px apart (or, side by
    side, 250 px apart along one line); the whole layout turned by ``angle`` degrees."""
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    down = (-s, c)
    dets = []
    x0 = 0.0
    for r, row in enumerate(rows):
        for k, col in enumerate(row):
            for j, card in enumerate(col):
                x = (x0 + 100.0 * k) if side_by_side else 100.0 * k
                y = 80.0 * j + (0 if side_by_side else 600.0 * r)
                dets.append(_det(card, 800 + c * x - s * y, 600 + s * x + c * y, down))
        x0 += 100.0 * len(row) + 250.0
    return dets


def _groups(dets: list[Detection], p: Params | None = None) -> list[tuple[str, str, list[str]]]:
    cols = columns(dets, p)
    propose_states(cols)
    return [(c.row, c.state, c.cards) for c in cols]


@pytest.mark.parametrize("angle", [0.0, 12.0, 90.0, -90.0, 180.0, 135.0])
def test_two_rows_become_table_groups_and_hand(angle: float) -> None:
    dets = _scene([TABLE_ROW, HAND_ROW], angle)
    assert abs((card_axis(dets) - angle + 180) % 360 - 180) < 1e-6
    got = _groups(dets)
    assert got == [("table", "open", ["d5", "d5", "d5"]), ("table", "concealed", ["x10", "back", "back"]),
                   ("table", "open", ["x1", "x2", "x3"])] + [("hand", "hand", col) for col in HAND_ROW]


def test_layout_scores_like_the_rulings_example() -> None:
    dets = _scene([TABLE_ROW, HAND_ROW])
    cols = columns(dets)
    propose_states(cols)
    asm = assemble(cols, dets, {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"})
    # only the 偎's backs tell the rows apart, and a hand's 坎 may be laid so too: the rows the
    # other way round pay otherwise, so the player is asked (once an evening, in the app)
    assert asm.complete and [d.kind for d in asm.doubts] == ["claimed_row"]
    assert asm.layout["groups"] == [{"cards": ["d5"] * 3, "state": "open"},
                                    {"cards": ["x10"] * 3, "state": "concealed"},
                                    {"cards": ["x1", "x2", "x3"], "state": "open"}]
    assert sorted(asm.layout["hand"]) == sorted(c for col in HAND_ROW for c in col)
    result = score(asm.layout)
    assert result["winning"] and result["points"] == 18


def test_one_long_row_splits_at_the_wide_gap() -> None:
    got = _groups(_scene([TABLE_ROW, HAND_ROW], side_by_side=True))
    assert [r for r, _, _ in got] == ["table"] * 3 + ["hand"] * 4


@pytest.mark.parametrize("where", ["in line", "below"])
def test_a_discard_beside_one_long_row_does_not_stop_the_split(where: str) -> None:
    """A lone discard in line with the row, past a gap wider than the rows' own, or lying below
    it: either way it is set apart, and the row still splits between claimed and revealed."""
    dets = _scene([TABLE_ROW, HAND_ROW], side_by_side=True)
    right = max(d.center[0] for d in dets)
    dets.append(_det("x7", right + 600, 600) if where == "in line" else _det("x7", right, 1000))
    cols = columns(dets)
    propose_states(cols)
    assert [(c.row, c.cards) for c in cols if c.row == "loose"] == [("loose", ["x7"])]
    got = [(c.row, c.row_guess) for c in cols if c.row != "loose"]
    assert got == [("table", "split")] * 3 + [("hand", "split")] * 4


def test_all_back_column_is_a_doubt_until_named() -> None:
    rows = [[["back"] * 3, ["d5", "d5", "d5"], ["x1", "x2", "x3"]], HAND_ROW]
    dets = _scene(rows)
    cols = columns(dets)
    propose_states(cols)
    asm = assemble(cols, dets)
    assert not asm.complete
    assert [d.kind for d in asm.doubts] == ["unnamed_concealed"]
    assert len(asm.doubts[0].detections) == 3
    cols[0].name = "x10"
    asm = assemble(cols, dets, {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"})
    assert asm.complete and asm.layout["groups"][0] == {"cards": ["x10"] * 3, "state": "concealed"}


def test_deck_limit_colour_and_confidence_doubts() -> None:
    rows = [[["x4", "x4", "x4"]], [["x4", "x4", "x5"], ["d2", "d7", "d10"]]]
    dets = _scene(rows)
    dets[-1] = _det("d10", *dets[-1].center, color="black")  # red card seen black
    dets[-2] = _det("d7", *dets[-2].center, prob=0.4)  # unsure read
    cols = columns(dets)
    propose_states(cols)
    asm = assemble(cols, dets)
    kinds = [d.kind for d in asm.doubts]
    assert "deck_limit" in kinds and not asm.complete
    limit = next(d for d in asm.doubts if d.kind == "deck_limit")
    assert "x4" in limit.message and len(limit.detections) == 5
    assert "colour" in kinds and "low_confidence" in kinds and "missing_cards" in kinds


def test_no_detections() -> None:
    asm = assemble(columns([]), [])
    assert not asm.complete and [d.kind for d in asm.doubts] == ["no_cards"]


def test_far_end_of_a_fully_shown_card_is_dropped() -> None:
    top = _det("d6", 100, 100)
    far = _det("d6", 100, 100 + 3.2 * G, down=(0.0, -1.0))  # same card's bottom glyph, turned round
    other = _det("x2", 300, 100)
    assert drop_far_ends([top, far, other]) == [top, other]


def test_two_cards_head_to_toe_are_told_from_one_card_by_the_edge_between() -> None:
    """The same rank at both ends of a plain stretch is one card; with a card's edge and its
    shadow across the stretch it is two cards laid head to toe, and both stay."""
    top = _det("d6", 100, 100)
    far = _det("d6", 100, 100 + 3.2 * G, down=(0.0, -1.0))
    plain = np.full((400, 300, 3), 235, np.uint8)
    assert drop_far_ends([top, far], image=plain) == [top]
    two = plain.copy()
    two[100 + int(1.7 * G):, 60:140] = 205  # the lower card lies over the upper one
    two[100 + int(1.7 * G):100 + int(1.7 * G) + 3, 60:140] = 60  # and casts a thin shadow
    assert drop_far_ends([top, far], image=two) == [top, far]
    edge, dark = body_between(plain, (100, 100), (100, 260), G)
    assert edge < 0.1 and dark > 0.95
    edge, dark = body_between(two, (100, 100), (100, 260), G)
    assert edge > 1.0 and dark < 0.5


def test_the_median_across_the_path_sees_an_edge_but_not_a_cards_middle_ornament() -> None:
    plain = np.full((400, 300, 3), 235, np.uint8)
    dot = plain.copy()
    dot[170:190, 90:110] = 40  # an ornament in the middle of the card, a third of its width
    _, mean_dark = body_between(dot, (100, 100), (100, 260), G)
    med_edge, med_dark = body_between(dot, (100, 100), (100, 260), G, across="median")
    assert mean_dark < 0.75 and med_dark > 0.95 and med_edge < 0.1
    top, far = _det("d6", 100, 100), _det("d6", 100, 100 + 3.2 * G, down=(0.0, -1.0))
    assert drop_far_ends([top, far], image=dot) == [top, far]
    assert drop_far_ends([top, far], FarEnds(across="median"), image=dot) == [top]
    two = plain.copy()
    two[100 + int(1.7 * G):, 60:140] = 205  # a card lying over the other, across the whole path
    two[100 + int(1.7 * G):100 + int(1.7 * G) + 3, 60:140] = 60
    edge, dark = body_between(two, (100, 100), (100, 260), G, across="median")
    assert edge > 1.0 and dark < 0.5
    with pytest.raises(ValueError, match="mean or median"):
        body_between(plain, (100, 100), (100, 260), G, across="max")


def test_a_glyph_that_reads_the_same_turned_round_follows_the_photos_card_axis() -> None:
    """十 reads the same turned a quarter round, so its own down direction says nothing: two 十
    side by side across the columns are two cards, one above the other may be one card."""
    upright = [_det("x5", 500, 100), _det("d4", 600, 100)]  # the photo's cards run down the page
    side = [_det("x10", 100, 100, down=(1.0, 0.0)), _det("x10", 100 + 3 * G, 100, down=(-1.0, 0.0))]
    assert len(drop_far_ends([*upright, *side])) == 4
    column = [_det("x10", 100, 100, down=(1.0, 0.0)), _det("x10", 100, 100 + 3 * G, down=(1.0, 0.0))]
    assert len(drop_far_ends([*upright, *column])) == 3


def test_one_two_three_lying_across_the_layout_may_follow_their_own_axis() -> None:
    """A loose 二 lying across a layout that runs down the page shows both ends side by side:
    the photo's axis says they are two cards, the reader's own axis for 二 (known up to its sign)
    says one. 十 has no axis of its own (it reads the same turned a quarter round), so two 十
    side by side stay two cards either way."""
    upright = [_det("x5", 500, 100), _det("d4", 600, 100)]
    across = [_det("x2", 100, 100, down=(1.0, 0.0)), _det("x2", 100 + 3 * G, 100, down=(1.0, 0.0))]
    assert len(drop_far_ends([*upright, *across])) == 4
    assert len(drop_far_ends([*upright, *across], FarEnds(own_axis=True))) == 3
    tens = [_det("x10", 100, 100, down=(1.0, 0.0)), _det("x10", 100 + 3 * G, 100, down=(1.0, 0.0))]
    assert len(drop_far_ends([*upright, *tens], FarEnds(own_axis=True))) == 4


def test_a_far_end_may_lie_off_the_down_direction_by_up_to_max_sin() -> None:
    top = _det("d6", 100, 100)
    far = _det("d6", 100 + 0.75 * G, 100 + 3 * G, down=(0.0, -1.0))  # 14 degrees off: sine 0.24
    assert len(drop_far_ends([top, far])) == 2
    assert drop_far_ends([top, far], FarEnds(max_sin=0.3)) == [top]


def test_after_the_selector_the_surer_end_stays_and_a_sure_find_is_never_dropped() -> None:
    """Among the selector's finds (``SelectedFarEnds``) the pair test may keep the end the
    selector is surer of, and spares a find it is at least ``protect`` sure of."""
    top = _det("d6", 100, 100)
    far = _det("d6", 100, 100 + 3.2 * G, down=(0.0, -1.0))
    top, far = dataclasses.replace(top, selected=0.6), dataclasses.replace(far, selected=0.97)
    assert drop_far_ends([top, far]) == [top]  # the rules keep the upright end
    assert drop_far_ends([top, far], prefer="selected") == [far]
    assert drop_far_ends([top, far], protect=0.95) == [top, far]  # the far end is too sure to drop
    assert drop_far_ends([top, far], prefer="selected", protect=0.5) == [top, far]  # 0.6 is sure enough
    assert drop_far_ends([top, far], prefer="selected", protect=0.7) == [far]


def test_a_column_of_one_card_keeps_every_copy() -> None:
    col = [_det("x9", 100, 100 + 1.6 * G * k) for k in range(4)]  # 提: four x9, 1.6 glyphs apart
    assert len(drop_far_ends(col)) == 4
    apart = [_det("x9", 100, 100), _det("x9", 100, 100 + 3 * G)]  # far apart, same way up,
    between = _det("d1", 100, 100 + 1.5 * G)  # but a card lies between them
    assert len(drop_far_ends([*apart, between])) == 3


def _weak(card: str, cx: float, cy: float, down: tuple[float, float] = (0.0, 1.0)) -> Detection:
    """A find under the finder's threshold (0.35) that the second chance let in."""
    return dataclasses.replace(_det(card, cx, cy, down), finder_score=0.25, score=0.25)


def test_a_weak_find_at_a_found_cards_far_end_is_dropped() -> None:
    """The finder gives far ends no peak; a weak one there, the same rank turned round, is the
    far end showing through. Facing the same way it is the next card of a column and stays; a
    strong find is never dropped here, nor one of another rank."""
    top = _det("d6", 100, 100)
    far = _weak("d6", 100, 100 + 3.2 * G, down=(0.0, -1.0))
    assert drop_weak_far_ends([top, far], 0.35) == [top]
    assert drop_weak_far_ends([top, far], 0.2) == [top, far]  # above this threshold it is strong
    same_way = _weak("d6", 100, 100 + 1.6 * G)
    assert drop_weak_far_ends([top, same_way], 0.35) == [top, same_way]
    other = _weak("d9", 100, 100 + 3.2 * G, down=(0.0, -1.0))
    assert drop_weak_far_ends([top, other], 0.35) == [top, other]
    across = _weak("d6", 100 + 3.2 * G, 100, down=(0.0, -1.0))  # beside it, not along the card
    assert drop_weak_far_ends([top, across], 0.35) == [top, across]


def test_a_weak_glyph_that_reads_the_same_turned_round_needs_a_cards_length() -> None:
    """三 gives no direction: a weak 三 a card's length below a found one, along the photo's
    card axis, is its far end; one step below, as in a column of 三, is a card of its own."""
    upright = [_det("x5", 500, 100), _det("d4", 600, 100)]  # the photo's cards run down the page
    top = _det("x3", 100, 100, down=(1.0, 0.0))
    far = _weak("x3", 100, 100 + 2.8 * G, down=(1.0, 0.0))
    assert drop_weak_far_ends([*upright, top, far], 0.35) == [*upright, top]
    step = _weak("x3", 100, 100 + 1.7 * G, down=(1.0, 0.0))
    assert drop_weak_far_ends([*upright, top, step], 0.35) == [*upright, top, step]


def test_row_with_backs_is_the_table_row_and_strays_are_left_out() -> None:
    hand_first = _scene([HAND_ROW, TABLE_ROW])  # the hand laid nearer the top of the photo
    stray = _det("d9", 800 + 150.0, 600 + 1800.0)  # a discard lying far below the layout
    dets = [*hand_first, stray]
    got = _groups(dets)
    assert [r for r, _, _ in got] == ["hand"] * 4 + ["table"] * 3 + ["loose"]
    cols = columns(dets)
    propose_states(cols)
    asm = assemble(cols, dets)
    assert "d9" not in asm.layout["hand"]
    assert [d.kind for d in asm.doubts] == ["stray_cards"]


def test_a_card_turned_across_the_layout_lies_apart() -> None:
    dets = _scene([TABLE_ROW, HAND_ROW])
    dropped = _det("d3", 800 + 200.0, 600 + 300.0, down=(1.0, 0.0))  # lying sideways between the rows
    got = _groups([*dets, dropped])
    assert ("loose", "loose", ["d3"]) in got
    assert [c for r, _, c in got if r != "loose"] == TABLE_ROW + HAND_ROW


def test_a_glyph_turned_round_ends_its_column() -> None:
    """The last card of a column shows its far end turned round; the next row's column starts
    close below it, closer than the column's own cards are to one another."""
    col = [_det("d5", 100, 100 + 80.0 * k) for k in range(2)]
    last = _det("d6", 100, 100 + 160.0, down=(0.0, -1.0))  # far end of the last card
    below = [_det("x4", 100, 100 + 160.0 + 70.0 + 80.0 * k) for k in range(3)]
    got = [c.cards for c in columns([*col, last, *below])]
    assert ["d5", "d5", "d6"] in got and ["x4", "x4", "x4"] in got


def test_a_long_step_in_a_column_starts_a_new_column() -> None:
    """Four cards 60 px apart, then 190 px (a card's length and the gap between the rows), then
    three more: two columns, though 190 px is within the photo-wide step limit."""
    top = [_det("x7", 100, 100 + 60.0 * k) for k in range(4)]
    bottom = [_det("d2", 100, 100 + 180.0 + 190.0 + 60.0 * k) for k in range(3)]
    got = [c.cards for c in columns([*top, *bottom])]
    assert ["x7"] * 4 in got and ["d2"] * 3 in got
    joined = [c.cards for c in columns([*top, *bottom], Params(column_break=100.0))]
    assert ["x7"] * 4 + ["d2"] * 3 in joined


def test_a_lone_back_is_the_stock_pile_not_a_group() -> None:
    dets = _scene([TABLE_ROW, HAND_ROW])
    stock = _det("back", 800 + 900.0, 600 + 100.0)  # the face-down stock beside the layout
    got = _groups([*dets, stock])
    assert got[-1] == ("loose", "loose", ["back"])
    assert [c for r, _, c in got if r != "loose"] == TABLE_ROW + HAND_ROW


BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}


def _askew_back(dets: list[Detection], x: float, y: float) -> list[Detection]:
    """The scene with the last back of 坎 of 拾 moved to (x, y): out of line with its column."""
    last = [d for d in dets if d.card == "back"][-1]
    return [d for d in dets if d is not last] + [_det("back", x, y)]


def test_a_short_concealed_group_takes_the_lone_back_beside_it() -> None:
    """坎 of 拾 laid askew: its last back lies off the column, unchained, and the column of 拾
    and one back is a concealed group a card short, which no group is; the back beside it joins."""
    dets = _askew_back(_scene([TABLE_ROW, HAND_ROW]), 945.0, 800.0)
    draft = Draft.propose(dets, BASE)
    cols = draft.columns
    assert ("concealed", ["x10", "back"]) in [(c.state, c.cards) for c in cols]
    assert cols[-1].cards == ["back"] and cols[-1].state == "loose"
    joined = join_lone_backs(draft)
    assert joined is not None
    cols = joined.columns
    assert [(c.state, c.cards) for c in cols if c.row == "table"][1] == ("concealed", ["x10", "back", "back"])
    assert not any(c.state == "loose" for c in cols)
    sc = scan_detections(1600, 1200, dets, BASE)
    assert {"cards": ["x10", "x10", "x10"], "state": "concealed"} in sc.assembled.layout["groups"]
    assert sc.result is not None and sc.result.groups
    # a stock win given without its winning card: the held triple's card is asked for too
    assert [d.kind for d in sc.assembled.doubts] == ["taken_in", "claimed_row", "winning_card"]
    assert "a back lying apart taken in" in sc.assembled.doubts[0].message


def test_a_concealed_column_a_card_short_is_no_group_but_a_doubt() -> None:
    """Backs show a concealed triple or quad (RULINGS section 7): 拾 and one back is not a pair."""
    dets = _scene([TABLE_ROW, HAND_ROW])
    last = [d for d in dets if d.card == "back"][-1]
    dets = [d for d in dets if d is not last]
    cols = columns(dets)
    propose_states(cols)
    asm = assemble(cols, dets, BASE)
    assert not asm.complete
    short = [d.message for d in asm.doubts if d.kind == "short_concealed"]
    assert short == ["column 2: x10 back: a concealed group shows three or four cards; one is missing"]
    assert all("x10" not in g["cards"] for g in asm.layout["groups"]) and "x10" not in asm.layout["hand"]
    assert [d.kind for d in asm.doubts if d.kind == "missing_cards"] == ["missing_cards"]  # 20 of 21


def test_a_back_out_of_reach_stays_the_stock_pile() -> None:
    dets = _askew_back(_scene([TABLE_ROW, HAND_ROW]), 900.0 + 250.0, 800.0)  # 5 glyph sizes off
    draft = Draft.propose(dets, BASE)
    assert join_lone_backs(draft) is None
    cols = draft.columns
    assert cols[-1].cards == ["back"] and cols[-1].state == "loose"
    assert settle_backs(draft) is None  # no column within reach, so the rules try none
    assert ("concealed", ["x10", "back"]) in [(c.state, c.cards) for c in cols]


def test_backs_under_their_face_card_join_it_when_only_that_makes_seven_groups() -> None:
    """拾 lying on top of its two backs: neither back chains to it (both lie off its column),
    so 拾 looks like a lone card and the backs like the stock; the rules put both backs with 拾,
    the one way the layout splits into seven groups."""
    table = [["d5", "back", "back"], ["x10"], ["x1", "x2", "x3"]]  # 坎 of 伍 shows its backs
    dets = [*_scene([table, HAND_ROW]), _det("back", 945.0, 680.0), _det("back", 855.0, 760.0)]
    draft = Draft.propose(dets, BASE)
    cols = draft.columns
    assert sum(c.cards == ["back"] for c in cols) == 2
    assert ("table", "hand", ["x10"]) in [(c.row, c.state, c.cards) for c in cols]
    settled = settle_backs(draft)
    assert settled is not None and settled.splits
    cols = settled.columns
    host = next(c for c in cols if "x10" in c.cards)
    assert (host.state, host.cards) == ("concealed", ["x10", "back", "back"]) and host.settled
    assert not any(c.state == "loose" for c in cols)
    sc = scan_detections(1600, 1200, dets, BASE)
    assert {"cards": ["x10", "x10", "x10"], "state": "concealed"} in sc.assembled.layout["groups"]
    assert sc.result is not None and sc.result.groups
    assert [d.kind for d in sc.assembled.doubts] == ["taken_in", "claimed_row", "winning_card"]


def _settled(dets: list[Detection]) -> tuple[list[tuple[str, str, list[str]]], list[str], Assembled]:
    """Columns after the rules weighed the lone cards: (row, state, cards), their reasons, and
    the assembled layout."""
    draft = Draft.propose(dets, BASE)
    cols = (settle_strays(draft) or draft).columns
    return [(c.row, c.state, c.cards) for c in cols], [c.settled for c in cols if c.settled], \
        assemble(cols, dets, BASE)


def test_a_lone_card_in_line_with_the_hand_is_left_out_when_the_groups_need_it_out() -> None:
    """A discard lying in line with the hand row looks like a one-card column of the hand; the
    seven groups leave no card over, so the rules put it out."""
    dets = [*_scene([TABLE_ROW, HAND_ROW]), _det("x7", 800 + 400.0, 600 + 600.0)]
    before = _groups(dets)
    assert ("hand", "hand", ["x7"]) in before  # the geometry alone takes it in
    got, why, asm = _settled(dets)
    assert ("loose", "loose", ["x7"]) in got
    assert why == ["left out: the layout makes seven groups without it"]
    assert "x7" not in asm.layout["hand"] and asm.complete
    assert score(asm.layout)["groups"]
    assert [d.kind for d in asm.doubts] == ["stray_cards", "claimed_row"]


def test_a_hand_card_knocked_askew_is_taken_in_when_the_groups_need_it() -> None:
    """A hand card turned across the layout lies apart by the geometry; without it the hand
    is a card short, and with it the layout makes seven groups."""
    hand = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9"], ["d8", "d8", "x8"]]
    dets = [*_scene([TABLE_ROW, hand]), _det("x9", 800 + 200.0, 600 + 900.0, down=(1.0, 0.0))]
    assert ("loose", "loose", ["x9"]) in _groups(dets)
    got, why, asm = _settled(dets)
    assert ("hand", "hand", ["x9"]) in got
    assert why == ["taken in: the layout makes seven groups with it"]
    assert asm.complete and sorted(asm.layout["hand"]).count("x9") == 3
    assert [d.kind for d in asm.doubts] == ["taken_in"]
    assert score(asm.layout)["groups"]


def test_two_lone_cards_that_each_complete_the_hand_are_left_to_the_user() -> None:
    """x3 or x6 each make a run with x4 x5: the rules cannot choose, so nothing moves."""
    hand = [["x4", "x5"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]
    strays = [_det("x3", 800 + 200.0, 600 + 900.0, down=(1.0, 0.0)),
              _det("x6", 800 + 300.0, 600 + 1000.0, down=(1.0, 0.0))]
    dets = [*_scene([TABLE_ROW, hand]), *strays]
    got, why, _ = _settled(dets)
    assert got == _groups(dets) and why == []
    draft = Draft.propose(dets, BASE)
    assert settle_strays(draft) is None and not draft.splits  # the layout still does not split


def test_a_layout_that_already_makes_seven_groups_is_left_alone() -> None:
    """A lone card the rules could take in is not taken when the layout already splits."""
    dets = [*_scene([TABLE_ROW, HAND_ROW]), _det("x6", 800 + 200.0, 600 + 300.0, down=(1.0, 0.0))]
    got, why, asm = _settled(dets)
    assert got == _groups(dets) and why == [] and asm.layout["hand"].count("x6") == 1
    draft = Draft.propose(dets, BASE)
    assert draft.splits and settle_strays(draft) is None


def _reread(dets: list[Detection], d: Detection) -> tuple[Detection, Assembled]:
    """Detection ``d`` after the rules weighed the reader's readings, and the assembled layout;
    ``d`` itself is never changed."""
    before = dataclasses.replace(d)
    draft = Draft.propose(dets, BASE)
    draft = reread(draft) or draft
    assert d == before
    after = draft.detections[next(i for i, x in enumerate(dets) if x is d)]
    return after, assemble(draft.columns, draft.detections, BASE)


def _misread(dets: list[Detection], card: str, read: str, prob: float,
             alternatives: list[tuple[str, float]]) -> Detection:
    """Make the first detection of ``card`` in the hand row a misread as ``read``."""
    d = next(d for d in dets if d.card == card and d.center[1] > 1000)
    return _put(dets, d, card=read, class_prob=prob, alternatives=tuple(alternatives))


def _put(dets: list[Detection], d: Detection, **changes: object) -> Detection:
    """``d`` with ``changes``, in its place in ``dets`` (a detection is a value)."""
    new = dataclasses.replace(d, **changes)  # type: ignore[arg-type]
    dets[next(i for i, x in enumerate(dets) if x is d)] = new
    return new


def test_an_unsure_misread_takes_the_readers_second_choice_when_only_that_makes_seven_groups() -> None:
    """伍 read as 陆 (x5 as x6) leaves the hand x4 x6 x6, which splits no way; x5 does."""
    dets = _scene([TABLE_ROW, HAND_ROW])
    d, asm = _reread(dets, _misread(dets, "x5", "x6", 0.55, [("d6", 0.25), ("x5", 0.15)]))
    assert (d.card, d.read_as, d.class_prob) == ("x5", "x6", 0.15)
    assert d.alternatives[0] == ("x6", 0.55) and d.to_json()["read_as"] == "x6"
    assert sorted(asm.layout["hand"]) == sorted(c for col in HAND_ROW for c in col)
    assert "reread" in [x.kind for x in asm.doubts] and score(asm.layout)["groups"]


def test_a_sure_read_or_one_the_ink_contradicts_is_not_changed() -> None:
    dets = _scene([TABLE_ROW, HAND_ROW])
    d = _misread(dets, "x5", "x6", 0.95, [("x5", 0.04)])  # sure enough: the user is asked
    d, _ = _reread(dets, d)
    assert d.card == "x6" and d.read_as is None
    dets = _scene([TABLE_ROW, HAND_ROW])
    d = _misread(dets, "d7", "d8", 0.5, [("d7", 0.45)])  # 柒 is red; this ink is clearly black
    d = _put(dets, d, color="black", color_margin=0.2)
    d, _ = _reread(dets, d)
    assert d.card == "d8" and d.read_as is None


def test_two_changes_that_each_make_seven_groups_are_left_to_the_user() -> None:
    """x4 x5 ? read as x4 x5 x9: x3 or x6 would each make a run."""
    dets = _scene([TABLE_ROW, HAND_ROW])
    d, asm = _reread(dets, _misread(dets, "x6", "x9", 0.5, [("x3", 0.2), ("x6", 0.2)]))
    assert d.card == "x9" and d.read_as is None and "reread" not in [x.kind for x in asm.doubts]


def _spare(card: str, cx: float, cy: float, score: float = 0.2) -> Detection:
    """A find the thresholds turned away (``Detector.spare``)."""
    d = _det(card, cx, cy)
    return dataclasses.replace(d, finder_score=score, score=score * d.class_prob)


def _taken(dets: list[Detection], spare: list[Detection]) -> tuple[list[Detection], Assembled]:
    """The detections after the rules weighed the spare finds, and the assembled layout."""
    draft = Draft.propose(dets, BASE, spare=spare)
    draft = settle_strays(draft) or draft
    draft = take_in(draft) or draft
    return list(draft.detections), assemble(draft.columns, draft.detections, BASE)


def _without(dets: list[Detection], card: str) -> tuple[list[Detection], Detection]:
    """The hand row's first ``card`` left out of the detections, as the finder left it out."""
    gone = next(d for d in dets if d.card == card and d.center[1] > 1000)
    return [d for d in dets if d is not gone], gone


def test_a_weak_find_that_alone_completes_the_hand_is_taken_in() -> None:
    """The hand is one 伍 short and splits no way; of the weak finds, only the 伍 where the card
    lies makes seven groups. A weak find on the table cloth does not, and stays out."""
    dets, gone = _without(_scene([TABLE_ROW, HAND_ROW]), "x5")
    weak = _spare("x5", *gone.center)
    cloth = _spare("d3", 2400.0, 200.0)
    before = len(dets)
    dets, asm = _taken(dets, [cloth, weak])
    assert len(dets) == before + 1
    assert dets[-1] == dataclasses.replace(weak, taken_in=True, chance=dets[-1].chance)
    assert not weak.taken_in and not cloth.taken_in  # the spare finds given are left as they were
    assert asm.complete and score(asm.layout)["groups"]
    assert sorted(asm.layout["hand"]) == sorted(c for col in HAND_ROW for c in col)
    assert [d.kind for d in asm.doubts] == ["taken_in_find", "claimed_row"]
    assert dets[-1].to_json()["taken_in"] is True


def test_a_missing_back_of_a_concealed_group_is_taken_in() -> None:
    """坎 of 拾 shown as 拾 and two backs: with one back missed the column is two cards, no group."""
    dets = _scene([TABLE_ROW, HAND_ROW])
    gone = [d for d in dets if d.card == "back"][-1]
    dets = [d for d in dets if d is not gone]
    back = dataclasses.replace(_det("back", *gone.center), finder_score=0.3, score=0.3)
    dets, asm = _taken(dets, [back])
    assert dets[-1] == dataclasses.replace(back, taken_in=True, chance=dets[-1].chance) and asm.complete
    assert {"cards": ["x10", "x10", "x10"], "state": "concealed"} in asm.layout["groups"]


def test_two_weak_finds_that_each_complete_the_hand_are_left_to_the_user() -> None:
    """x4 x5 and a gap: weak finds reading x3 and x6 each make a run, so neither is taken."""
    dets, gone = _without(_scene([TABLE_ROW, HAND_ROW]), "x6")
    x, y = gone.center
    a, b = _spare("x6", x, y), _spare("x3", x, y - 3 * 80.0)
    before = list(dets)
    dets, asm = _taken(dets, [a, b])
    assert dets == before
    assert not asm.complete or not score(asm.layout).get("groups")  # still short: not seven groups
    assert not a.taken_in and not b.taken_in


def test_a_layout_that_splits_takes_in_nothing() -> None:
    dets = _scene([TABLE_ROW, HAND_ROW])
    extra = _spare("x5", 800 + 900.0, 600 + 600.0)
    before = list(dets)
    dets, asm = _taken(dets, [extra])
    assert dets == before and not extra.taken_in and asm.complete


def test_spares_leave_out_finds_on_kept_cards_and_far_ends() -> None:
    top = _det("d6", 100, 100)
    on_top = _spare("d6", 110, 105)  # a second peak on a card already read
    # the same rank turned round, a card's length away: its far end
    far = dataclasses.replace(_spare("d6", 100, 100 + 3.2 * G), down=(0.0, -1.0))
    lone = _spare("x2", 900, 900, score=0.15)
    other = _spare("x8", 600, 100, score=0.3)
    assert spares([on_top, far, lone, other], [top], 0.35, 8) == [other, lone]
    assert spares([on_top, far, lone, other], [top], 0.35, 1) == [other]
    assert spares([], [top], 0.35, 8) == []


def test_spares_offer_the_weak_back_beside_a_kept_back_whose_box_spreads_over_its_group() -> None:
    """The finder drew one kept back's box over the whole concealed group (300 px long) and
    missed the group's next back, 80 px down: that weak back is no second peak on the kept one
    and is offered. A weak back on the kept back's own centre is not; nor is a face on it."""
    spread = _back_box(60, 100, 140, 400, 0.8)  # centre (100, 250)
    next_back = _spare("back", 100, 330, score=0.4)
    again = _spare("back", 105, 255, score=0.4)
    face = _spare("x5", 100, 330, score=0.4)
    assert spares([next_back, again, face], [spread], 0.35, 8) == [next_back]


def _back_box(x0: float, y0: float, x1: float, y1: float, score: float) -> Detection:
    return Detection("back", (x0, y0, x1, y1), score, None, score, 1.0)


def test_one_long_back_found_twice_is_one_back() -> None:
    """The whole last back of a column, found as two peaks whose boxes cover each other, is one
    back; the column's other back, a step away, stays, and so does a stock pile's back."""
    faces = [_det("x5", 100, 100), _det("x6", 300, 100)]  # glyph size G = 50
    upper = _back_box(75, 150, 125, 200, 0.8)  # a column's middle back: a strip
    whole = _back_box(70, 200, 130, 360, 0.9)  # the last back, the whole card
    twice = _back_box(72, 260, 128, 360, 0.5)  # a second peak inside it, 0.6 glyph sizes off
    pile = _back_box(500, 500, 560, 660, 0.4)  # lying apart
    limits = BackDoubles(0.7, 1.5)
    got = drop_back_doubles([*faces, upper, whole, twice, pile], limits)
    assert got == [*faces, upper, whole, pile]
    near = BackDoubles(0.7, 0.3)  # centres must lie within 15 px: these lie 30 apart
    assert drop_back_doubles([*faces, upper, whole, twice], near) == [*faces, upper, whole, twice]
    assert drop_back_doubles([upper, whole, twice], limits) == [upper, whole, twice]  # no face: no scale


# a claimed row with no backs: whether its groups were claimed or revealed changes the score
FACE_UP_ROW = [["d5", "d5", "d5"], ["x1", "x2", "x3"], ["d8", "d9", "d10"]]
L1_BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}


def _claimed(dets: list[Detection], p: Params | None = None) -> tuple[list, Assembled]:
    cols = columns(dets, p)
    propose_states(cols)
    return cols, assemble(cols, dets, L1_BASE, p)


def test_a_long_row_split_at_its_widest_gap_is_a_claimed_row_doubt_until_a_group_is_flipped() -> None:
    dets = _scene([FACE_UP_ROW, HAND_ROW], side_by_side=True)
    cols, asm = _claimed(dets)
    assert asm.complete and [d.kind for d in asm.doubts] == ["claimed_row"]
    doubt = asm.doubts[0]
    assert "one long row" in doubt.message and "15 points" in doubt.message and "16 points" in doubt.message
    assert sorted(doubt.detections) == list(range(len(dets)))  # every face-up column of three
    cols[0].state = "concealed"  # the user flipped a group: the states are theirs now
    assert assemble(cols, dets, L1_BASE).doubts == []
    assert _claimed(dets, Params(row_doubts=frozenset()))[1].doubts == []


def test_two_rows_that_look_alike_are_a_doubt_when_the_other_way_round_scores_otherwise() -> None:
    """Nothing in the photo tells which row was claimed, and the two readings score 15 and 16
    points: the first row is taken as claimed, and the player is asked."""
    dets = _scene([FACE_UP_ROW, HAND_ROW])
    asm = _claimed(dets)[1]
    assert [d.kind for d in asm.doubts] == ["claimed_row"] and "neither row" in asm.doubts[0].message
    assert _claimed(dets, Params(row_doubts=frozenset({"split"})))[1].doubts == []  # only when asked
    # a row with a back is taken as claimed, but a hand's 坎 shows backs too: a guess of its own
    told = columns(_scene([TABLE_ROW, HAND_ROW]))
    assert [c.row for c in told] == ["table"] * 3 + ["hand"] * 4 and {c.row_guess for c in told} == {"backs"}
    # a row with a pair or a lone card is the hand: no guess
    paired = _scene([FACE_UP_ROW, [*HAND_ROW[:3], ["d8", "d8"], ["x8"]]])
    assert all(c.row_guess == "" for c in columns(paired))


@pytest.mark.parametrize(("rows", "told"), [
    # a pair or a lone card only in one row: that row is the hand, shown
    ([[["x1", "x2", "x3"]], [["d8", "d8"], ["x4", "x5", "x6"]]], (0, "")),
    ([[["d8", "d8"], ["back", "back", "x9"]], [["x1", "x2", "x3"], ["back", "back", "d5"]]], (1, "")),
    # only a back tells them apart: the row showing it is proposed as claimed, as a guess
    ([[["x1", "x2", "x3"]], [["back", "back", "x9"], ["x4", "x5", "x6"]]], (1, "backs")),
    ([[["back", "back", "x9"], ["x10"]], [["x1", "x2", "x3"]]], (0, "backs")),
    # a face over one back is a concealed group a card short, no pair: backs still tell them
    ([[["x10", "back"], ["d5", "d5", "d5"]], [["x1", "x2", "x3"]]], (0, "backs")),
    # the pair lies beside a column of four that is no quad: maybe a group broken over two
    ([[["x1", "x2", "x3"]], [["x8", "x8"], ["d8", "d8", "d8", "x10"]]], (0, "broken")),
    ([[["x1", "x2", "x3"]], [["x8", "x8"], ["d8", "d8", "d8", "d8"]]], (0, "")),
    # nothing tells them apart: the first row
    ([[["x1", "x2", "x3"]], [["d5", "d5", "d5"]]], (0, "alike")),
    ([[["x1"], ["back", "back", "d5"]], [["x2", "x2"], ["back", "back", "x9"]]], (0, "alike")),
    # two different cards are no pair but a group a card short: they show neither row
    ([[["x1", "x2", "x3"]], [["x8", "x9"], ["d8", "d8", "d8"]]], (0, "alike")),
    # unless a column of four that is no quad may hold their missing card: weighed, a guess
    ([[["x1", "x2", "x3"]], [["x8", "x9"], ["d8", "d8", "d8", "x10"]]], (0, "broken")),
    ([[["x1"], ["back", "back", "d5"]], [["x2", "x7"], ["back", "back", "x9"]]], (1, "")),
])
def test_only_a_pair_or_a_lone_card_tells_the_rows_apart_for_sure(rows: list, told: tuple[int, str]) -> None:
    """The table holds only whole triples and quads; a 偎 on the table and a 坎 the hand shows
    face over backs look alike, so a back proposes the claimed row but proves nothing."""
    assert tell_rows(rows) == told


# players who lay a set held in the hand face over backs: the top row is the hand, 坎 of 拾 in it
BACKS_HAND = [["x10", "back", "back"], ["x1", "x2", "x3"], ["d8", "d9", "d10"]]
FACE_UP_TABLE = [["d5", "d5", "d5"], ["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"]]


def test_rows_told_apart_only_by_a_back_are_a_guess_the_player_can_answer() -> None:
    """The row showing a back is proposed as claimed (its 坎 read as a 偎, the table's 碰 read as
    the hand's): 21 points, where the layout as laid scores 16. Only a back told the rows apart,
    so the rows are a guess: the table's convention answers it, and ``claimed_row`` asks where
    ``Params.row_doubts`` says so."""
    dets = _scene([BACKS_HAND, FACE_UP_TABLE])
    cols, asm = _claimed(dets)
    assert [c.row for c in cols] == ["table"] * 3 + ["hand"] * 4 and {c.row_guess for c in cols} == {"backs"}
    assert "claimed_row" not in [d.kind for d in _claimed(dets, Params(row_doubts=frozenset()))[1].doubts]
    doubt = next(d for d in asm.doubts if d.kind == "claimed_row")  # asked by default (validation)
    assert "only a back" in doubt.message and "21 points" in doubt.message and "16 points" in doubt.message
    answered = take_claimed(cols, dets, "bottom")
    assert answered is not None and [c.row_guess for c in answered] == [""] * 7
    assert [c.state for c in answered] == ["concealed"] + ["hand"] * 2 + ["open"] * 4
    assert score(assemble(answered, dets, L1_BASE).layout)["points"] == 16
    # the rules keep rows a back told apart as proposed: they swap only rows nothing told apart
    assert settle_rows(Draft.propose(_scene([BACKS_HAND, FACE_UP_TABLE[:3]]), L1_BASE)) is None


def test_rows_are_told_again_once_the_lone_card_that_told_them_is_left_out() -> None:
    """A discard at the end of the claimed row looks like the hand's lone card, so that row was
    taken as the hand; once the rules leave it out (the layout makes seven groups without it)
    nothing tells the rows apart, and the first row is taken as claimed, asked as a guess."""
    claimed = [["d6", "d6", "d6"], ["d2", "d7", "d10"], ["x4", "x4", "d4"], ["d1", "d2", "d3"], ["x2"]]
    hand = [["d4", "d5", "d6"], ["d2", "d3", "d4"], ["x5", "x6", "x7"]]
    dets = _scene([claimed, hand])
    assert [c.row for c in columns(dets)] == ["hand"] * 5 + ["table"] * 3  # the lone 二 tells them
    sc = scan_detections(1600, 1200, dets, L1_BASE)
    assert [(c.row, c.row_guess) for c in sc.columns if c.row != "loose"] == \
        [("table", "alike")] * 4 + [("hand", "alike")] * 3
    assert [d.kind for d in sc.assembled.doubts] == ["stray_cards", "claimed_row"]
    assert sc.result is not None and sc.result.points == 15


def test_a_pair_beside_a_column_of_four_that_is_no_quad_is_asked() -> None:
    """八 slid into the column of 捌 above it: 八八 looks like the hand's lone pair and takes
    the bottom row for the hand, but the column of four that is no quad says a group may be
    broken over two columns. The rows the other way round score otherwise: the player is asked."""
    top = [["d3", "d4", "d5"], ["d2", "d7", "d10"], ["d10", "d9", "d8"]]
    bottom = [["x1", "x1", "x1"], ["x8", "x8"], ["d8", "d8", "d8", "x8"], ["x2", "x3", "x4"]]
    cols, asm = _claimed(_scene([top, bottom]))
    assert [c.row for c in cols] == ["table"] * 3 + ["hand"] * 4 and {c.row_guess for c in cols} == {"broken"}
    doubt = next(d for d in asm.doubts if d.kind == "claimed_row")
    assert "column of four that is no quad" in doubt.message and "not a win" in doubt.message


def test_rows_guessed_the_wrong_way_round_are_swapped_when_only_the_other_way_splits() -> None:
    """Nothing tells these rows apart, so the first is taken as claimed; its hand would then hold
    four 一 and four 八 and split into no groups, while the other way round it does: the rules
    take the other way, and say so."""
    six = [["x1", "x1", "x1"], ["x1", "x2", "x3"], ["x2", "x2", "d2"], ["x8", "x7", "x6"],
           ["x10", "d10", "d10"], ["x8", "x8", "x8"]]
    dets = _scene([[["d2", "d7", "d10"]], six], side_by_side=True)
    cols, asm = _claimed(dets)
    assert {c.row_guess for c in cols} == {"split"} and cols[0].row == "table"
    assert not score(asm.layout).get("groups")  # as guessed: no seven groups
    other = settle_rows(Draft.propose(dets, L1_BASE))
    assert other is not None and [c.row for c in other.columns] == ["hand"] + ["table"] * 6
    assert [c.state for c in other.columns] == ["hand"] + ["open"] * 6
    sc = scan_detections(1600, 1200, dets, L1_BASE)
    assert sc.result is not None and sc.result.groups
    # seven groups, short of the minimum: a photographed win read as none is worth a look too
    assert not sc.result.winning and [d.kind for d in sc.assembled.doubts] == ["claimed_row", "no_win"]
    assert "split into no groups" in sc.assembled.doubts[0].message
    # rows the geometry told apart (a back on the table) are never swapped, split or not
    told = Draft.propose(_scene([TABLE_ROW, HAND_ROW[:3]]), L1_BASE)
    assert not told.splits and settle_rows(told) is None


def test_a_claimed_row_that_scores_the_same_either_way_is_no_doubt() -> None:
    # runs, 一二三 and 二七十 score alike claimed or revealed (RULINGS section 3): no triple here
    claimed = [["d2", "d7", "d10"], ["x1", "x2", "x3"]]
    hand = [["d1", "d2", "d3"], ["x2", "x7", "x10"], ["x4", "x5", "x6"], ["d4", "d5", "d6"],
            ["x7", "x8", "x9"]]
    cols, asm = _claimed(_scene([claimed, hand], side_by_side=True))
    assert {c.row_guess for c in cols} == {"split"} and asm.complete
    assert score(asm.layout)["winning"]
    assert "claimed_row" not in [d.kind for d in asm.doubts]


def test_a_find_the_selector_kept_without_conviction_is_a_doubt() -> None:
    dets = _scene([TABLE_ROW, HAND_ROW])
    for i, q in ((0, 0.42), (1, 0.93), (4, 0.3)):  # d5, d5, and a back
        dets[i] = dataclasses.replace(dets[i], selected=q)
    assert dets[4].card == "back"
    cols = columns(dets)
    propose_states(cols)
    # one doubt per reason (the rule before the chance): the selector's bar names them
    asm = assemble(cols, dets, L1_BASE, Params(doubt_rule="reasons"))
    unsure = [d for d in asm.doubts if d.kind == "low_confidence"]
    assert [d.detections for d in unsure] == [[0], [4]]
    assert "a card with probability 0.42" in unsure[0].message
    unasked = assemble(cols, dets, L1_BASE, Params(low_select=0.0, doubt_rule="reasons")).doubts
    assert [d.kind for d in unasked] == ["claimed_row"]  # the rows, which only a back told apart
    # by chance: the selector's doubt is weighed with the rest
    by_chance = [d.detections for d in assemble(cols, dets, L1_BASE).doubts if d.chance is not None]
    assert by_chance == [[0], [4]]


def test_a_whole_face_ends_its_column_though_backs_lie_in_line_below_it() -> None:
    """The hand's pair on top, a concealed quad of backs in line below it, the rows a short gap
    apart: the step from the pair's last face to the first back is five usual steps, so the
    column ends at the face (a face shows whole where a gap follows), as it would before a face."""
    dets = []
    for x, y0, col in ((0.0, 0.0, ["x1", "x2", "x3"]), (100.0, 0.0, ["d8", "d8"]),
                       (0.0, 240.0, ["d5", "d5", "d5"]), (100.0, 240.0, ["back"] * 4)):
        dets += [_det(card, 800 + x, 300 + y0 + 40.0 * j) for j, card in enumerate(col)]
    assert _groups(dets) == [("hand", "hand", ["x1", "x2", "x3"]), ("hand", "hand", ["d8", "d8"]),
                             ("table", "open", ["d5", "d5", "d5"]), ("table", "concealed", ["back"] * 4)]


@pytest.mark.parametrize(("concealed", "beyond"), [
    (["back", "back", "x2"], ["d5", "d5", "d5"]),  # a face over two backs keeps its face
    (["back"] * 4, ["d6", "d6"]),  # four backs are a whole quad: the pair beyond is the hand's
    (["x1", "back", "back"], ["x1", "x2", "x3"]),  # a face at each end: the one ending its side
])
def test_a_concealed_column_is_one_face_over_backs_or_backs_alone(concealed: list[str],
                                                                  beyond: list[str]) -> None:
    """A concealed group, and a column of the next row in line with it at the usual step (the
    rows a tight gap apart): a column with backs holds one face at most, so it ends there."""
    col = concealed + beyond
    dets = [_det(card, 800, 300 + 45.0 * j) for j, card in enumerate(col)]
    dets += [_det(card, 900, 300 + 45.0 * j) for j, card in enumerate(["x7", "x8", "x9"])]
    got = [c.cards for c in columns(dets)]
    assert concealed in got and beyond in got


def test_concealed_cuts_keep_the_nearer_of_two_lone_faces_and_leave_a_group_alone() -> None:
    back = [False, True, True, False, False]
    # face, back, back, face: the face nearer its backs stays
    assert concealed_cuts([[0, 1, 2, 3]], back, {0: 1.0, 1: 0.5, 2: 0.8}) == [(0, 1)]
    assert concealed_cuts([[0, 1, 2, 3]], back, {0: 0.7, 1: 0.5, 2: 0.8}) == [(2, 3)]
    assert concealed_cuts([[1, 2, 3]], back, {1: 0.5, 2: 0.8}) == []  # one face over backs
    assert concealed_cuts([[3, 4]], back, {3: 0.5}) == []  # no backs


def test_a_glyph_turned_round_a_cards_length_on_is_the_far_end_of_the_columns_last_card() -> None:
    """The column's last card shows whole, and the box read is its far end, turned round: a
    card's length less a glyph past the usual step (here 3 card widths on), further than the
    photo-wide step limit, yet the same column."""
    w = 1.2 * G  # a card's width
    col = [_det("x4", 100, 100 + 0.8 * w * k) for k in range(3)]
    far = _det("x4", 100, 100 + 0.8 * w * 2 + 0.8 * w + 2.6 * w, down=(0.0, -1.0))
    others = [_det(card, 100 + 1.2 * w * c, 100 + 0.8 * w * k) for c, col_ in enumerate(HAND_ROW, 1)
              for k, card in enumerate(col_)]
    got = [c.cards for c in columns([*col, far, *others])]
    assert ["x4"] * 4 in got
    assert ["x4"] * 4 not in [c.cards for c in columns([*col, far, *others], Params(far_end=0.0))]


@pytest.mark.parametrize(("gap", "want"), [
    (2.0, (["x1", "x2", "x3"], ["d4", "d4", "d4"])),  # a gap after 三: its card's far end, shown whole
    (0.8, (["x1", "x2"], ["x3", "d4", "d4", "d4"])),  # a usual step after 三: it heads the next column
])
def test_a_column_ends_where_a_card_shows_whole_and_a_gap_follows(gap: float,
                                                                  want: tuple[list[str], ...]) -> None:
    """三 reads the same turned round, so only the steps tell whether it is the far end of the
    column's last card (a card's length on, then the gap to the next row's column in line with
    it) or the top of the next column (the usual step after it)."""
    w = 1.2 * G
    ys = [0.0, 0.8 * w, 0.8 * w + 3.4 * w]
    ys += [ys[-1] + gap * w + 0.8 * w * k for k in range(3)]
    cards = ["x1", "x2", "x3", "d4", "d4", "d4"]
    dets = [_det(card, 100, 100 + y) for card, y in zip(cards, ys, strict=True)]
    dets += [_det(card, 100 + 1.2 * w * c, 100 + 0.8 * w * k) for c, col_ in enumerate(HAND_ROW, 1)
             for k, card in enumerate(col_)]
    got = [c.cards for c in columns(dets)]
    assert all(col in got for col in want)


def test_the_usual_step_is_a_columns_own_though_every_column_ends_in_a_far_end() -> None:
    """Short columns, each last card read at its far end a card's length on, the next row's
    columns in line below: half of the cards' nearest steps ahead are far ends or gaps, so the
    photo's usual step is taken low among them, and 三's column still ends at its far end."""
    w = 1.2 * G
    upper = [["x1", "x2", "x3"], ["d5", "d6", "d7"], ["x8", "x9", "x7"], ["d1", "d2", "d3"]]
    lower = [["d4", "d4", "d4"], ["x5", "x5", "x5"], ["d9", "d9", "d9"], ["x6", "x6", "x6"]]
    dets = []
    for c, (top, bottom) in enumerate(zip(upper, lower, strict=True)):
        x = 100 + 1.2 * w * c
        ys = [0.0, 0.8 * w, 0.8 * w + 3.4 * w]
        for k, card in enumerate(top):
            turned = k == 2 and card not in ("x1", "x2", "x3", "x10")
            dets.append(_det(card, x, 100 + ys[k], down=(0.0, -1.0) if turned else (0.0, 1.0)))
        for k, card in enumerate(bottom):
            turned = k == 2
            y = 100 + ys[-1] + 2.0 * w + ys[k]
            dets.append(_det(card, x, y, down=(0.0, -1.0) if turned else (0.0, 1.0)))
    got = [c.cards for c in columns(dets)]
    assert ["x1", "x2", "x3"] in got and ["d4", "d4", "d4"] in got


def test_a_card_under_others_showing_part_of_its_glyph_lies_in_its_column() -> None:
    """The middle card of a column shows only a sliver of its glyph beside the card on it: a
    small box off the column's line, whose own steps reach no card, yet it lies between two
    cards of the column and is the column's. A face beyond the column's last card is not."""
    w = 1.2 * G
    col = [_det("x4", 100, 100), _det("x6", 100, 100 + 1.6 * w)]
    sliver = Detection("x5", (100 + 0.4 * w - 5, 100 + 0.5 * w - 6, 100 + 0.4 * w + 5, 100 + 0.5 * w + 6),
                       0.9, "black", 0.9, 0.99)
    others = [_det(card, 100 + 1.2 * w * c, 100 + 0.8 * w * k) for c, col_ in enumerate(HAND_ROW[1:], 1)
              for k, card in enumerate(col_)]
    got = [c.cards for c in columns([*col, sliver, *others])]
    assert ["x4", "x5", "x6"] in got
    beyond = Detection("x5", (100 + 0.4 * w - 5, 100 + 2.3 * w - 6, 100 + 0.4 * w + 5, 100 + 2.3 * w + 6),
                       0.9, "black", 0.9, 0.99)
    got = [c.cards for c in columns([*col, beyond, *others])]
    assert ["x5"] in got and ["x4", "x6"] in got


def test_backs_near_the_camera_link_in_their_own_width() -> None:
    """A concealed column of three backs near the camera, three glyphs wide: the first two show
    a strip each, the last shows whole, its box centre far down the card. Measured in the
    typical glyph's card width the step to the last back is past the longest step; in the backs'
    own width it is a step down the column."""
    w = 1.2 * G
    backs = [Detection("back", (400, y0, 400 + 3 * G, y1), 0.9, None, 0.9, 1.0)
             for y0, y1 in ((600, 750), (750, 900), (900, 1500))]
    others = [_det(card, 100 + 1.2 * w * c, 100 + 0.8 * w * k) for c, col_ in enumerate(HAND_ROW)
              for k, card in enumerate(col_)]
    got = [c.cards for c in columns([*others, *backs])]
    assert ["back"] * 3 in got


def test_a_face_level_with_a_columns_head_lies_beside_it_not_above_it() -> None:
    """A discard lying beside a column's head, its glyph level with the head's and a little
    across: the nearest card ahead of it is the head, but a glyph shows above the card on it,
    so two glyphs of one column never lie level; the discard stays apart."""
    w = 1.2 * G
    col = [_det(card, 100, 100 + 0.8 * w * k) for k, card in enumerate(["x1", "x2", "x3"])]
    beside = _det("d5", 100 + 0.3 * w, 100 - 0.16 * w)
    others = [_det(card, 100 + 1.2 * w * c, 100 + 0.8 * w * k) for c, col_ in enumerate(HAND_ROW, 1)
              for k, card in enumerate(col_)]
    got = [c.cards for c in columns([*col, beside, *others])]
    assert ["x1", "x2", "x3"] in got and ["d5"] in got
    assert ["d5", "x1", "x2", "x3"] in [c.cards for c in columns([*col, beside, *others],
                                                                Params(glyph_overlap=1.0))]


def test_a_far_end_a_long_card_on_still_ends_its_column() -> None:
    """Long cards in a photo from low down: the column's last card read at its far end, turned
    round, 5.2 card widths past the card before it (the usual step one card width). It is the
    column's last card all the same, not a card of its own."""
    w = 1.2 * G
    col = [_det("x4", 100, 100 + w * k) for k in range(3)]
    far = _det("x4", 100, 100 + 2 * w + 5.2 * w, down=(0.0, -1.0))
    others = [_det(card, 100 + 1.2 * w * c, 100 + w * k) for c, col_ in enumerate(HAND_ROW, 1)
              for k, card in enumerate(col_)]
    assert ["x4"] * 4 in [c.cards for c in columns([*col, far, *others])]
    assert ["x4"] * 4 not in [c.cards for c in columns([*col, far, *others], Params(max_step=5.0))]


def test_backs_lie_along_the_face_of_their_leaning_group() -> None:
    """A concealed group leaning 28 degrees in an upright photo, its face first, then its two
    backs a step apart down its own direction: measured along the photo's axis the backs lie
    too far across each other to link; along the face beside them they are one column."""
    w = 1.2 * G
    a = math.radians(28)
    down = (-math.sin(a), math.cos(a))
    group = [_det(card, 600 + down[0] * 1.3 * w * k, 100 + down[1] * 1.3 * w * k, down=down)
             for k, card in enumerate(["x10", "back", "back"])]
    others = [_det(card, 100 + 1.2 * w * c, 100 + 0.8 * w * k) for c, col_ in enumerate(HAND_ROW)
              for k, card in enumerate(col_)]
    assert ["x10", "back", "back"] in [c.cards for c in columns([*others, *group])]
    apart = columns([*others, *group], Params(back_reach=0.0))
    assert ["x10", "back", "back"] not in [c.cards for c in apart]


def test_a_long_row_splits_at_the_gap_between_its_columns_heads() -> None:
    """Claimed and revealed groups side by side in one row, a gap of two columns' pitch between
    them, some columns leaning 25 degrees (a fanned hand): a player lays each column from its
    head, so the heads keep the gap, while the cards' mean drifts across with the lean and
    leaves a wider gap inside the hand, between a column leaning left and one leaning right."""
    lean = {200.0: -25.0, 400.0: 25.0, 500.0: 25.0, 600.0: -25.0}  # + leans left, - right
    table = [TABLE_ROW[1], TABLE_ROW[0], TABLE_ROW[2]]
    dets = []
    for x, col in zip([0.0, 100.0, 200.0, 400.0, 500.0, 600.0, 700.0], [*table, *HAND_ROW], strict=True):
        a = math.radians(lean.get(x, 0.0))
        down = (-math.sin(a), math.cos(a))
        dets += [_det(card, 300 + x + down[0] * 80 * j, 300 + down[1] * 80 * j, down)
                 for j, card in enumerate(col)]
    got = _groups(dets)
    assert [cards for _, _, cards in got] == [*table, *HAND_ROW]
    assert [r for r, _, _ in got] == ["table"] * 3 + ["hand"] * 4


@pytest.mark.parametrize("apart", [250.0, 100.0])
def test_a_card_past_a_wide_gap_at_a_rows_end_lies_apart(apart: float) -> None:
    """A discard in line with the claimed row, two and a half columns' pitch past its last
    column, is no lone card of that row: it lies apart, and the row (all triples) is still the
    claimed one. A card one pitch on is the row's own lone card, which makes that row the hand."""
    claimed = [["d5", "d5", "d5"], ["x1", "x2", "x3"], ["x10", "x10", "x10"]]
    dets = [*_scene([claimed, HAND_ROW]), _det("x7", 1000 + apart, 600)]
    cols = columns(dets)
    lone = next(c for c in cols if c.cards == ["x7"])
    row = "table" if apart > 150 else "hand"
    assert lone.row == ("loose" if apart > 150 else "hand")
    assert [c.row for c in cols if c.cards in claimed] == [row] * 3


def test_a_long_row_seen_at_a_slant_splits_at_the_widest_gap_in_glyph_widths() -> None:
    """Claimed and revealed groups side by side in one row photographed from low down at one
    end: the far columns (the claimed ones) show small, the near ones large, and the gaps grow
    with them. In pixels the widest gap then lies inside the near hand; in the columns' own
    glyph widths it is the gap between the parts, one and a half pitches against one."""
    sizes = [0.7, 0.8, 0.9, 1.3, 1.6, 1.9, 2.2]
    table = [TABLE_ROW[1], TABLE_ROW[0], TABLE_ROW[2]]
    dets, x = [], 300.0
    for k, (size, col) in enumerate(zip(sizes, [*table, *HAND_ROW], strict=True)):
        if k:
            x += 100.0 * (sizes[k - 1] + size) / 2 * (1.6 if k == 3 else 1.0)
        for j, card in enumerate(col):
            d = _det(card, x, 300 + 80 * size * j)
            cx, cy = (d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2
            w, h = (d.box[2] - d.box[0]) * size / 2, (d.box[3] - d.box[1]) * size / 2
            dets.append(dataclasses.replace(d, box=(cx - w, cy - h, cx + w, cy + h)))
    got = _groups(dets)
    assert [cards for _, _, cards in got] == [*table, *HAND_ROW]
    assert [r for r, _, _ in got] == ["table"] * 3 + ["hand"] * 4
