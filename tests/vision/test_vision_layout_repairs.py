"""Each repair step on a small hand-built draft: what it mends, and that it leaves its input alone.

A draft is built here as the geometry would hand it over: the claimed row above the revealed
hand, columns 100 px apart, cards 80 px apart down a column, every column in its proposed state.
The layout is RULINGS section 8's L1 unless a test changes it.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from zipai.engine import ZipaiError, score
from zipai.vision.detector import Detection
from zipai.vision.layout import (
    HAND,
    LOOSE,
    REPAIRS,
    TABLE,
    Column,
    Draft,
    Params,
    Repair,
    assemble,
    complete_group,
    fill_concealed,
    fill_fourth,
    join_fourth_back,
    join_lone_backs,
    join_split_groups,
    leave_twin,
    proposed_state,
    read_backs,
    read_hidden,
    repair,
    reread,
    rescue,
    set_apart_discards,
    set_apart_ends,
    settle_backs,
    settle_rows,
    settle_strays,
    take_in,
    win_without_discards,
)
from zipai.vision.layout.readings import NO_BOX

# the layout's logic is tested with a chance model set by hand (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("fixed_chance")

G = 50.0  # glyph size in pixels
BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}
TABLE_ROW = [["d5", "d5", "d5"], ["x10", "back", "back"], ["x1", "x2", "x3"]]
HAND_ROW = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8", "x8"]]
RED = {"x2", "x7", "x10", "d2", "d7", "d10"}
Cards = Sequence[str | None]  # a column's cards top to bottom; None is a card the finder missed


def _det(card: str, x: float, y: float, prob: float = 0.99, finder: float = 0.9,
         alternatives: Sequence[tuple[str, float]] = ()) -> Detection:
    if card == "back":
        return Detection("back", (x - 0.7 * G, y - 0.5 * G, x + 0.7 * G, y + 0.5 * G), finder, None, finder)
    return Detection(card, (x - G / 2, y - G / 2, x + G / 2, y + G / 2), finder * prob,
                     "red" if card in RED else "black", finder, prob, alternatives=tuple(alternatives))


def _draft(table: Sequence[Cards] = TABLE_ROW, hand: Sequence[Cards] = HAND_ROW,
           loose: Sequence[tuple[float, float, str]] = (), guess: str = "",
           spare: Sequence[Detection] = (), base: dict[str, Any] | None = None) -> Draft:
    """The claimed row at y = 0, the hand at y = 600, each ``loose`` card at its (x, y); every
    row's columns guessed by ``guess`` (``Column.row_guess``)."""
    dets: list[Detection] = []
    cols: list[Column] = []
    for row, y0, columns in ((TABLE, 0.0, table), (HAND, 600.0, hand)):
        for k, cards in enumerate(columns):
            at = []
            for j, card in enumerate(cards):
                if card is not None:
                    at.append(len(dets))
                    dets.append(_det(card, 100.0 * k, y0 + 80.0 * j))
            cols.append(Column(at, [c for c in cards if c is not None], row, row_guess=guess))
    for x, y, card in loose:
        cols.append(Column([len(dets)], [card], LOOSE))
        dets.append(_det(card, x, y))
    cols = [c.copy(state=proposed_state(c)) for c in cols]
    return Draft(tuple(cols), tuple(dets), base or BASE, spare=tuple(spare))


def _reading(draft: Draft, i: int, **changes: Any) -> Draft:
    """The draft with detection ``i`` read otherwise (its column's card too, when ``card`` changes)."""
    d = dataclasses.replace(draft.detections[i], **changes)
    cols = [c.copy(cards=[d.card if k == i else x for k, x in zip(c.detections, c.cards, strict=True)])
            for c in draft.columns]
    return dataclasses.replace(draft, columns=tuple(cols),
                               detections=(*draft.detections[:i], d, *draft.detections[i + 1:]))


def _look(draft: Draft) -> list[tuple[str, str, list[str]]]:
    return [(c.row, c.state, c.cards) for c in draft.columns]


def test_the_rulings_layout_splits_and_needs_no_repair() -> None:
    draft = _draft()
    assert draft.splits and all(step(draft) is None for step in REPAIRS)
    assert repair(draft) is draft


def test_join_lone_backs_puts_the_back_beside_a_short_concealed_group_into_it() -> None:
    """拾 and one back is no group (a concealed group shows three or four cards); the back
    lying askew just below it is its third card."""
    draft = _draft(table=[TABLE_ROW[0], ["x10", "back"], TABLE_ROW[2]], loose=[(130.0, 170.0, "back")])
    joined = join_lone_backs(draft)
    assert joined is not None and joined.splits
    host = joined.columns[1]
    assert (host.state, host.cards) == ("concealed", ["x10", "back", "back"])
    assert host.settled == "a back lying apart taken in: a concealed group shows three or four cards"
    assert not any(c.row == LOOSE for c in joined.columns)
    far = _draft(table=[TABLE_ROW[0], ["x10", "back"], TABLE_ROW[2]], loose=[(400.0, 170.0, "back")])
    assert join_lone_backs(far) is None  # 6 glyph sizes away: the stock pile


def test_join_fourth_back_makes_a_concealed_column_of_three_the_quad_its_last_back_ends() -> None:
    """拾 over three backs, a 提: its last back shows whole, its centre far down the card, and
    the column ended before it. The lone back 1.9 glyph sizes past the column's end, in its
    line, is its fourth card: with it the hand's pair 捌捌 is its 将 and the layout splits."""
    hand = [*HAND_ROW[:3], ["d8", "d8"]]
    draft = _draft(hand=hand, loose=[(100.0, 255.0, "back")])
    assert not draft.splits
    joined = join_fourth_back(draft)
    assert joined is not None and joined.splits
    host = joined.columns[1]
    assert (host.state, host.cards) == ("concealed", ["x10", "back", "back", "back"])
    assert host.settled == "a back lying apart taken in: a concealed group of four shows its last card whole"
    assert not any(c.row == LOOSE for c in joined.columns)
    assert repair(draft).columns == joined.columns


def test_join_fourth_back_takes_a_lone_face_in_line_past_three_backs() -> None:
    """Three backs in the claimed row and 拾 lying in line past them: a 提 laid with its face last
    (as seen from the other side of the table), not an all-back 偎 and a stray 拾."""
    table = [TABLE_ROW[0], ["back", "back", "back"], TABLE_ROW[2]]
    draft = _draft(table=table, hand=[*HAND_ROW[:3], ["d8", "d8"]], loose=[(100.0, 255.0, "x10")])
    joined = join_fourth_back(draft)
    assert joined is not None and joined.splits
    host = joined.columns[1]
    assert (host.state, host.cards) == ("concealed", ["back", "back", "back", "x10"])
    assert host.settled == "a card lying apart taken in: a concealed group of four shows its last card whole"
    # a face beside a face over two backs is no fourth card: a concealed group shows one face
    two = _draft(hand=[*HAND_ROW[:3], ["d8", "d8"]], loose=[(100.0, 255.0, "x10")])
    assert join_fourth_back(two) is None


@pytest.mark.parametrize(("loose", "table"), [
    ([(160.0, 255.0, "back")], TABLE_ROW),  # 1.2 glyph sizes off the column's line: beside it
    ([(100.0, 340.0, "back")], TABLE_ROW),  # 3.6 glyph sizes past its last card: the stock
    # the deck holds no fourth 拾
    ([(100.0, 255.0, "back")], [TABLE_ROW[0], ["x10", "back", "back"], ["x10", "x10", "x10"]]),
    ([(100.0, 255.0, "back"), (100.0, 290.0, "back")], TABLE_ROW),  # two backs: a stock pile
])
def test_join_fourth_back_leaves_a_back_beside_far_off_or_one_the_deck_or_a_rival_rules_out(
        loose: list[tuple[float, float, str]], table: list[list[str]]) -> None:
    assert join_fourth_back(_draft(table=table, hand=[*HAND_ROW[:3], ["d8", "d8"]], loose=loose)) is None


def test_join_split_groups_joins_a_lone_card_and_the_pair_beside_it_that_make_one_group() -> None:
    """伍伍伍 claimed, its first card lying level beside the other two: a lone 伍 and a pair in
    the claimed row are no groups, together they are its 碰 (and 拾 beside two backs its 偎)."""
    draft = _draft(table=[["d5"], ["d5", "d5"], ["x10"], ["back", "back"], TABLE_ROW[2]])
    joined = join_split_groups(draft)
    assert joined is not None and joined.splits
    assert _look(joined)[:3] == [("table", "open", ["d5", "d5", "d5"]),
                                 ("table", "concealed", ["x10", "back", "back"]),
                                 ("table", "open", ["x1", "x2", "x3"])]
    assert joined.columns[0].settled.startswith("a card lying apart taken in")
    assert join_split_groups(joined) is None


@pytest.mark.parametrize("table", [
    [["d5"], TABLE_ROW[1], TABLE_ROW[2], ["d5", "d5"]],  # 6 glyph sizes apart
    [["d5"], ["x1", "x2"], TABLE_ROW[1]],  # together no group
    [["d5"], ["d5", "d5"], ["d5"], TABLE_ROW[1]],  # the pair could take either lone card
])
def test_join_split_groups_leaves_columns_far_apart_no_group_or_two_ways(table: list[list[str]]) -> None:
    assert join_split_groups(_draft(table=table)) is None


def test_set_apart_ends_sets_apart_a_discard_linked_on_at_a_columns_end() -> None:
    """A discard 柒 lying in line with the head of 肆伍陆, or past the last card of the claimed
    伍伍伍, was linked on as its column's next card: a column of four that is no group. Without
    it the other three make one and the layout splits; the card lies apart, and says so."""
    for table, hand, at in ((TABLE_ROW, [["x7", "x4", "x5", "x6"], *HAND_ROW[1:]], 3),
                            ([["d5", "d5", "d5", "x7"], *TABLE_ROW[1:]], HAND_ROW, 0)):
        draft = _draft(table=table, hand=hand)
        assert not draft.splits
        mended = set_apart_ends(draft)
        assert mended is not None and mended.splits
        assert len(mended.columns[at].cards) == 3 and "x7" not in mended.columns[at].cards
        lone = mended.columns[-1]
        assert (lone.row, lone.state, lone.cards) == (LOOSE, LOOSE, ["x7"])
        assert lone.settled.startswith("set apart from the end of its column")
        kinds = {d.kind for d in assemble(mended.columns, mended.detections, BASE).doubts}
        assert {"stray_cards", "taken_in"} <= kinds  # the column's doubt: the rules chose the card
        assert mended.columns[at].settled.startswith("without the x7 linked on at its")


def test_set_apart_ends_sets_apart_the_fewest_ends_that_make_the_layout_split() -> None:
    """Two discards, one at the head of 肆伍陆 and one past 玖玖玖: neither alone lets the hand
    split, both together do."""
    draft = _draft(hand=[["x7", "x4", "x5", "x6"], HAND_ROW[1], ["x9", "x9", "x9", "d3"], HAND_ROW[3]])
    mended = set_apart_ends(draft)
    assert mended is not None and mended.splits
    assert [c.cards for c in mended.columns if c.state == LOOSE] == [["x7"], ["d3"]]
    assert ["x4", "x5", "x6"] in [c.cards for c in mended.columns]
    assert ["x9", "x9", "x9"] in [c.cards for c in mended.columns]


@pytest.mark.parametrize("hand", [
    [["x4", "x5", "x6", "x7"], *HAND_ROW[1:]],  # either end: two ways
    [["x7", "x4", "x5", "d6"], *HAND_ROW[1:]],  # the other three make no group either
    [["d7", "d8", "d9", "d10"], ["d2", "x7"], *HAND_ROW[2:]],  # no way that splits
])
def test_set_apart_ends_leaves_two_ways_no_group_or_no_split(hand: list[list[str]]) -> None:
    assert set_apart_ends(_draft(hand=hand)) is None
    assert set_apart_ends(_draft()) is None  # a draft that splits needs no repair


def test_read_backs_reads_an_all_back_group_as_the_pay_most_readings_give() -> None:
    """L1 with its 十十十 laid as three backs: any card with at most one other in view could be
    it, and all 17 win, a big card's group paying 21 and a small one's 18. The seven cards none
    of which is in view weigh four times those with one in view (any three of four copies), and
    five of the seven are big: 21 is the likelier pay, scored with a doubt that names the others
    (only the player can name the card)."""
    draft = _draft(table=[TABLE_ROW[0], ["back"] * 3, TABLE_ROW[2]])
    assert not draft.splits
    read = read_backs(draft)
    assert read is not None and read.splits
    col = read.columns[1]
    assert (col.reading, col.name, col.cards) == ("d1", None, ["back"] * 3)
    built = assemble(read.columns, read.detections, BASE)
    assert built.complete and {"cards": ["d1"] * 3, "state": "concealed"} in built.layout["groups"]
    assert score(built.layout)["score"] == 21
    assert [d.message for d in built.doubts if d.kind == "unnamed_concealed"] == [
        "column 2: 3 card backs, read as d1, the likeliest of 17 readings the deck leaves that make a "
        "winning hand (8 pay 21 points, score 21); others pay otherwise (x1 x2 x3 x4 ...: 18 points, score "
        "18); name the card of this concealed group"]
    named = draft.with_columns([c.copy(name="d9") if n == 1 else c for n, c in enumerate(draft.columns)])
    assert read_backs(named) is None  # the player's name stands
    one_left = draft.with_columns([*draft.columns, Column([], ["x7", "x7"], LOOSE, LOOSE),
                                   Column([], ["x10", "x10"], LOOSE, LOOSE)])
    assert read_backs(one_left).columns[1].reading == "d1"  # two 七 and two 十 in view: neither fits


def test_read_backs_says_so_when_every_reading_pays_the_same() -> None:
    """With two or more of every big card but 伍 and 捌 in view (and those two already three and
    two), only small cards can be the three backs: each of them wins and pays 18 as the true 十
    does, so the score stands whatever the player names; the doubt stays (RULINGS section 7) and
    says so."""
    draft = _draft(table=[TABLE_ROW[0], ["back"] * 3, TABLE_ROW[2]])
    big = draft.with_columns([*draft.columns, Column([], [f"d{i}" for i in (1, 2, 3, 4, 6, 7, 9, 10)
                                                         for _ in range(2)], LOOSE, LOOSE)])
    read = read_backs(big)
    assert read is not None and read.columns[1].reading == "x7"
    assert read.columns[1].reading_why == ("one of 9 readings the deck leaves that make a winning hand, and "
                                          "all of them pay the same")
    truth = assemble(_draft().columns, _draft().detections, BASE).layout
    built = assemble(read.columns, read.detections, BASE)
    assert score(built.layout)["score"] == score(truth)["score"] == 18


def test_read_backs_tries_the_rows_the_other_way_round_when_they_were_a_guess() -> None:
    """The hand (a 提 of 壹 as one face over backs, and a pair) laid above the claimed groups
    (four backs among them), both rows showing backs and a short column: the rows are a guess.
    As guessed, no reading of the four backs splits into seven groups; the other way round,
    every reading the deck leaves does, and the rows say they were swapped (a ``claimed_row``
    doubt). Rows the geometry told apart stay as they are."""
    base = {**BASE, "winner": 2, "won_by": "self_draw"}
    hand = [["back", "back", "back", "d1"], ["d4", "d4"]]
    claimed = [["back"] * 4, ["x9"] * 3, ["back", "back", "d3"], ["d4", "d5", "d6"], ["d3", "d4", "d5"]]
    assert read_backs(_draft(table=hand, hand=claimed, base=base)) is None
    read = read_backs(_draft(table=hand, hand=claimed, guess="alike", base=base))
    assert read is not None and read.splits
    assert [(c.row, c.state) for c in read.columns] == [("hand", "concealed"), ("hand", "hand")] + [
        ("table", s) for s in ("concealed", "open", "concealed", "open", "open")]
    assert {c.row_guess for c in read.columns} == {"swapped"} and read.columns[2].reading == "x1"
    built = assemble(read.columns, read.detections, base)
    assert built.complete and [d.kind for d in built.doubts] == ["unnamed_concealed", "claimed_row"]


def test_read_backs_settles_a_discard_that_keeps_the_layout_from_splitting() -> None:
    """The all-back group leaves the layout unscorable, so ``settle_strays`` cannot leave out the
    discard lying in line with the hand; ``read_backs`` settles it with each reading."""
    draft = _draft(table=[TABLE_ROW[0], ["back"] * 3, TABLE_ROW[2]], hand=[*HAND_ROW, ["x7"]])
    assert settle_strays(draft) is None
    read = read_backs(draft)
    assert read is not None and read.splits and read.columns[1].reading is not None
    assert _look(read)[-1] == ("loose", "loose", ["x7"])
    assert read.columns[-1].settled == "left out: the layout makes seven groups without it"


def test_read_hidden_reads_the_card_no_find_shows_when_the_hand_is_a_card_short() -> None:
    """The hand's 伍 lay under its neighbours and no find shows it: x4 x6 is no group, and of the
    cards the deck leaves only 伍 makes seven groups. It joins the hand with no detection, and
    the doubt says so."""
    draft = _draft(hand=[["x4", None, "x6"], *HAND_ROW[1:]])
    assert not draft.splits and settle_strays(draft) is None and take_in(draft) is None
    read = read_hidden(draft)
    assert read is not None and read.splits
    col = read.columns[-1]
    assert (col.row, col.state, col.cards, col.detections) == ("hand", "hand", ["x5"], [-1])
    built = assemble(read.columns, read.detections, BASE)
    assert built.complete and sorted(built.layout["hand"]) == sorted(c for g in HAND_ROW for c in g)
    taken = [d for d in built.doubts if d.kind == "taken_in"]
    assert len(taken) == 1 and taken[0].detections == [] and "no find shows" in taken[0].message
    assert read_hidden(_draft()) is None  # nothing missing
    two_short = _draft(hand=[["x4", None, None], *HAND_ROW[1:]])
    assert read_hidden(two_short) is None  # one card is a guess; two are the player's


def test_fill_concealed_reads_a_face_over_one_back_as_the_concealed_triple_when_only_so_it_wins() -> None:
    """拾 over one back, and no back lies apart: the finder missed the back under the face. A
    concealed group shows three or four cards, and only as 拾拾拾 does the hand make seven groups
    and win; the back no find shows joins the column with no detection, and the doubt says so."""
    draft = _draft(table=[TABLE_ROW[0], ["x10", "back"], TABLE_ROW[2]])
    assert not assemble(repair(draft, [s for s in REPAIRS if s is not fill_concealed]).columns,
                        draft.detections, BASE).complete  # before: no result at all
    filled = fill_concealed(draft)
    assert filled is not None and filled.splits
    col = filled.columns[1]
    assert (col.state, col.cards, col.detections[-1]) == ("concealed", ["x10", "back", "back"], -1)
    built = assemble(filled.columns, filled.detections, BASE)
    assert built.complete and {"state": "concealed", "cards": ["x10"] * 3} in built.layout["groups"]
    assert score(built.layout)["winning"]
    taken = [d for d in built.doubts if d.kind == "taken_in"]
    assert len(taken) == 1 and "a back assumed missing" in taken[0].message
    assert -1 not in taken[0].detections and taken[0].detections == draft.columns[1].detections
    assert repair(draft).columns[1].cards == ["x10", "back", "back"]
    assert fill_concealed(dataclasses.replace(draft, params=Params(fill_concealed=False))) is None
    assert fill_concealed(_draft()) is None  # a layout that splits is left alone


def test_fill_concealed_reads_two_backs_alone_as_a_concealed_group_with_a_back_missed() -> None:
    """Two backs alone in the claimed row: a concealed group shows three or four cards, and no
    card of its face shows, so one back was missed too. Filled to three backs, ``read_backs``
    reads the group's card as it reads any all-back group, and the hand wins; both are doubts."""
    draft = _draft(table=[TABLE_ROW[0], ["back", "back"], TABLE_ROW[2]])
    assert not draft.splits and read_backs(draft) is None
    filled = fill_concealed(draft)
    assert filled is not None and filled.splits
    group = filled.columns[1]
    assert group.cards == ["back"] * 3 and group.detections[-1] == NO_BOX and group.reading is not None
    built = assemble(filled.columns, filled.detections, BASE)
    assert built.complete and {d.kind.value for d in built.doubts} >= {"unnamed_concealed", "taken_in"}
    assert fill_concealed(dataclasses.replace(draft, params=Params(fill_concealed=False))) is None


# a 提 of 拾 with one of its three backs missed, shown as a 偎: the hand's pair of 捌 has no place
FOURTH_TABLE = [["d5", "d5", "d5"], ["x10", "back", "back"], ["x1", "x2", "x3"]]
FOURTH_HAND = [["x4", "x5", "x6"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["d8", "d8"]]


def test_fill_fourth_reads_a_concealed_column_of_three_as_a_ti_with_a_back_missed() -> None:
    """Twenty cards, a pair and no group of four: the code before read a hidden 捌 into the hand
    (a 绞 of 捌捌捌 small, 18 points). A back is the card the finder misses most, and only a 提
    allows the pair: 拾 over three backs, 24 points, the back no find shows named in a doubt."""
    draft = _draft(table=FOURTH_TABLE, hand=FOURTH_HAND)
    before = repair(draft, [s for s in REPAIRS if s is not fill_fourth])
    assert ["x8"] in [c.cards for c in before.columns]  # read_hidden's card
    filled = fill_fourth(draft)
    assert filled is not None and filled.splits
    col = filled.columns[1]
    assert (col.state, col.cards, col.detections[-1]) == ("concealed", ["x10"] + ["back"] * 3, NO_BOX)
    built = assemble(filled.columns, filled.detections, BASE)
    assert {"state": "concealed", "cards": ["x10"] * 4} in built.layout["groups"]
    got = score(built.layout)
    assert got["winning"] and got["points"] == 24
    taken = [d for d in built.doubts if d.kind == "taken_in"]
    assert len(taken) == 1 and "a concealed group of four" in taken[0].message
    assert repair(draft).columns[1].cards == ["x10"] + ["back"] * 3
    assert fill_fourth(dataclasses.replace(draft, params=Params(fill_fourth=False))) is None
    assert fill_fourth(_draft()) is None  # a layout that splits is left alone


@pytest.mark.parametrize(("run", "filled"), [(["x7", "x8", "x9"], True), (["x8", "x9", "x10"], False)])
def test_fill_fourth_leaves_a_column_whose_fourth_card_the_deck_shows(run: list[str], filled: bool) -> None:
    """With 七八九 in the hand the 提 is read; with 八九十 a fourth 拾 shows: no 提 of 拾 is left."""
    hand = [["x4", "x5", "x6"], ["d2", "d7", "d10"], run, ["d8", "d8"]]
    assert (fill_fourth(_draft(table=FOURTH_TABLE, hand=hand)) is not None) is filled


def test_fill_concealed_leaves_a_short_group_when_the_triple_makes_no_winning_hand() -> None:
    """The hand is a card short besides (伍 lies hidden): the triple alone makes no seven groups."""
    draft = _draft(table=[TABLE_ROW[0], ["x10", "back"], TABLE_ROW[2]],
                   hand=[["x4", None, "x6"], *HAND_ROW[1:]])
    assert fill_concealed(draft) is None


def test_fill_concealed_reads_a_lone_face_of_the_claimed_row_as_a_triple_with_both_backs_missed() -> None:
    """拾 alone in the claimed row, no back found near it: as a free card the hand makes no seven
    groups; only as 拾 over two backs no find shows does it win. Two lone faces that each would
    are the player's to choose."""
    draft = _draft(table=[TABLE_ROW[0], ["x10"], TABLE_ROW[2]])
    assert settle_backs(draft) is None and join_lone_backs(draft) is None
    filled = fill_concealed(draft)
    assert filled is not None and filled.splits
    col = filled.columns[1]
    assert (col.state, col.cards, col.detections[1:]) == ("concealed", ["x10", "back", "back"], [-1, -1])
    assert "both backs assumed missing" in col.settled
    assert fill_concealed(dataclasses.replace(draft, params=Params(fill_lone_face=False))) is None
    runs = ["d1", "d2", "d3"]
    for lone, run in (("x6", ["x3", "x4", "x5"]), ("x3", ["x4", "x5", "x6"])):  # either alone wins
        one = fill_concealed(_draft(table=[TABLE_ROW[0], [lone], runs], hand=[run, *HAND_ROW[1:]]))
        assert one is not None and one.columns[1].cards == [lone, "back", "back"]
    two = _draft(table=[TABLE_ROW[0], ["x6"], ["x3"], runs], hand=[["x4", "x5"], *HAND_ROW[1:]])
    assert not two.splits and fill_concealed(two) is None


def test_settle_strays_leaves_out_a_discard_in_line_with_the_hand() -> None:
    draft = _draft(hand=[*HAND_ROW, ["x7"]])  # a one-card column of the hand: one card over
    assert not draft.splits
    settled = settle_strays(draft)
    assert settled is not None and settled.splits
    assert _look(settled)[-1] == ("loose", "loose", ["x7"])
    assert settled.columns[-1].settled == "left out: the layout makes seven groups without it"


def test_settle_strays_takes_in_a_hand_card_lying_apart() -> None:
    draft = _draft(hand=[*HAND_ROW[:2], ["x9", "x9"], HAND_ROW[3]], loose=[(200.0, 900.0, "x9")])
    settled = settle_strays(draft)
    assert settled is not None and _look(settled)[-1] == ("hand", "hand", ["x9"])
    assert settled.columns[-1].settled == "taken in: the layout makes seven groups with it"


def test_settle_strays_leaves_two_answers_to_the_user() -> None:
    """x3 or x6 each make a run with x4 x5: the rules cannot choose."""
    draft = _draft(hand=[["x4", "x5"], *HAND_ROW[1:]], loose=[(200.0, 900.0, "x3"), (300.0, 1000.0, "x6")])
    assert settle_strays(draft) is None


def test_settle_backs_puts_backs_under_their_face_card() -> None:
    """拾 lying on top of its two backs: the backs lie apart and 拾 alone looks like a free card;
    only with both backs does the layout split."""
    draft = _draft(table=[["d5", "back", "back"], ["x10"], TABLE_ROW[2]],
                   loose=[(130.0, 80.0, "back"), (70.0, 160.0, "back")])
    assert _look(draft)[1] == ("table", "hand", ["x10"]) and join_lone_backs(draft) is None
    settled = settle_backs(draft)
    assert settled is not None and settled.splits
    host = settled.columns[1]
    assert (host.state, host.cards) == ("concealed", ["x10", "back", "back"])
    assert host.settled == "a back lying apart taken in: the layout makes seven groups with it"
    assert len(settled.columns) == len(draft.columns) - 2


def test_settle_rows_swaps_rows_guessed_the_wrong_way_round() -> None:
    """Nothing told these rows apart and the first was taken as claimed: its hand would hold
    four 一 and four 八, which split no way; with the rows the other way round it splits."""
    six = [["x1", "x1", "x1"], ["x1", "x2", "x3"], ["x2", "x2", "d2"], ["x8", "x7", "x6"],
           ["x10", "d10", "d10"], ["x8", "x8", "x8"]]
    draft = _draft(table=[["d2", "d7", "d10"]], hand=six, guess="split")
    assert not draft.splits
    swapped = settle_rows(draft)
    assert swapped is not None and swapped.splits
    assert _look(swapped) == [("hand", "hand", ["d2", "d7", "d10"])] + [("table", "open", c) for c in six]
    assert {c.row_guess for c in swapped.columns} == {"swapped"}
    told = _draft(table=[["d2", "d7", "d10"]], hand=six)  # the rows were not a guess
    assert settle_rows(told) is None


def test_settle_rows_leaves_rows_that_split_as_guessed() -> None:
    """Three small triples and L1's hand, the rows alike: claimed, the triples make 12 points and
    no win; revealed, 16 and a win. Both ways split, so the guess stands (a spoiled layout wins
    no way round), and the claimed-row doubt says what the other way scores."""
    draft = _draft(table=[["x5"] * 3, ["x6"] * 3, ["x7"] * 3], guess="alike")
    assert draft.splits and settle_rows(draft) is None
    doubts = assemble(draft.columns, draft.detections, BASE).doubts
    assert [d.kind for d in doubts] == ["claimed_row"] and "not a win" in doubts[0].message


def test_reread_takes_the_readers_second_choice_when_only_it_makes_seven_groups() -> None:
    """伍 read as 陆 leaves x4 x6 x6, which splits no way; the reader's third choice, 伍, does."""
    draft = _draft()
    i = draft.columns[3].detections[1]  # the hand's x5
    draft = _reading(draft, i, card="x6", class_prob=0.55, alternatives=(("d6", 0.25), ("x5", 0.15)))
    assert draft.columns[3].cards == ["x4", "x6", "x6"]
    read = reread(draft)
    assert read is not None and read.splits and read.columns[3].cards == ["x4", "x5", "x6"]
    d = read.detections[i]
    assert (d.card, d.read_as, d.class_prob, d.alternatives[0]) == ("x5", "x6", 0.15, ("x6", 0.55))
    assert "reread" in [x.kind for x in assemble(read.columns, read.detections, BASE).doubts]
    assert reread(_reading(draft, i, class_prob=0.95)) is None  # read surely: the user is asked instead


LOW = [["x5"] * 3, TABLE_ROW[1], ["x4", "x2", "x3"]]  # L1 with 五五五 claimed: 16 points, but 四二三 is 13
X4, X8 = 6, 20  # the claimed row's 四 and the hand's last 八 (of 捌捌八)


def _low(x4: float = 0.99, x8: float = 0.99) -> Draft:
    """L1 with 五五五 claimed and its 一二三 read 四二三 (the reader's 四 with probability ``x4``,
    一 its runner-up): seven groups, 13 points, no win; the 八 read with probability ``x8``,
    捌 its runner-up."""
    draft = _reading(_draft(table=LOW), X4, class_prob=x4, alternatives=(("x1", 0.3), ("x7", 0.05)))
    return _reading(draft, X8, class_prob=x8, alternatives=(("d8", 0.2), ("d3", 0.05)))


def _extra(selected: float = 0.6) -> Draft:
    """L1 with a second 六 found at the end of the hand's 四五六 (a card's far end), which the
    selector doubted (``selected``)."""
    draft = _draft(hand=[["x4", "x5", "x6", "x6"], *HAND_ROW[1:]])
    return _reading(draft, 12, selected=selected)


def test_rescue_reads_a_doubted_card_as_the_readers_next_choice_when_only_so_the_hand_wins() -> None:
    """四二三 claimed makes seven groups of 13 points, no win, so no repair before acts; the
    四, read with probability 0.6 (a chance of 18% it is wrong), read as its runner-up 一 makes
    16 points and wins. It is scored so, and the doubt says what was read and that no other
    reading of the doubted cards wins."""
    draft = _low(x4=0.6)
    assert draft.splits and not score(assemble(draft.columns, draft.detections, BASE).layout)["winning"]
    assert all(step(draft) is None for step in REPAIRS if step is not rescue)
    read = rescue(draft)
    assert read is not None and read.columns[2].cards == ["x1", "x2", "x3"]
    d = read.detections[X4]
    assert (d.card, d.read_as, d.class_prob, d.alternatives[0]) == ("x1", "x4", 0.3, ("x4", 0.6))
    built = assemble(read.columns, read.detections, BASE)
    assert score(built.layout)["winning"]
    assert [(x.message, x.detections) for x in built.doubts if x.kind == "rescued"] == [
        ("x4 at (200, 0): as read, seven groups, 13 points, not a win; read as x1, 16 points, score 16: the "
         "hand wins (chance 18.0% the card is wrong); the only reading of the doubted cards that wins", [X4])]
    assert rescue(read) is None  # it wins now


def test_rescue_leaves_out_a_doubted_find_when_only_without_it_the_hand_wins() -> None:
    """A 六 found twice makes 22 cards that split no way; no card is unsure enough to reread,
    none lies apart. Without the doubted find (the selector's 0.6) the hand is L1 again: it is
    laid apart, and the doubt names it. (A find at a column's end that leaves a group when set
    apart is also what ``set_apart_ends`` mends, before the rescue, with the same columns; and a
    card found twice next to itself, what ``leave_twin`` mends first.)"""
    draft = _extra()
    assert not draft.splits and all(step(draft) is None for step in REPAIRS
                                     if step not in (rescue, set_apart_ends, leave_twin))
    twin = leave_twin(draft)
    assert twin is not None and _look(twin)[-1] == ("loose", "loose", ["x6"])
    apart = set_apart_ends(draft)
    assert apart is not None and _look(apart)[-1] == ("loose", "loose", ["x6"])
    assert apart.columns[-1].detections == [12]
    out = rescue(draft)
    assert out is not None and out.splits and _look(out)[-1] == ("loose", "loose", ["x6"])
    assert out.columns[-1].detections == [12] and ["x4", "x5", "x6"] in [c.cards for c in out.columns]
    built = assemble(out.columns, out.detections, BASE)
    assert score(built.layout)["score"] == 18
    assert [x.message for x in built.doubts if x.kind == "rescued"] == [
        "x6 at (0, 840): as read, no seven groups; left out, 18 points, score 18: the hand wins (chance "
        "32.7% the card is wrong); the only reading of the doubted cards that wins"]


def test_rescue_takes_the_likeliest_winning_reading_and_names_those_that_pay_otherwise() -> None:
    """Both the 四 (18% wrong) read as 一 and the 八 (6% wrong) read as 捌 win, for 16 and 19
    points: the 四's is the likelier and is taken, and the doubt says the other pays otherwise."""
    out = rescue(_low(x4=0.6, x8=0.7))
    assert out is not None and out.columns[2].cards == ["x1", "x2", "x3"] and out.detections[X8].card == "x8"
    assert out.detections[X4].rescued.endswith(
        "the likeliest of 2 readings that win, others pay otherwise: x8 at (300, 760) as d8, 19 points, "
        "score 19")
    out = rescue(_low(x4=0.8, x8=0.6))  # the 八 now the likelier wrong
    assert out is not None and out.detections[X8].card == "d8" and out.detections[X4].card == "x4"


def test_rescue_changes_no_card_read_surely_nor_a_winning_hand_nor_when_turned_off() -> None:
    """A 四 read with probability 0.99 (a chance of 0.5% it is wrong) stays, and the scan says
    "no win"; L1 as read wins and is left alone; ``Params.rescue`` off leaves the 四 too."""
    assert rescue(_low()) is None
    assert rescue(_draft()) is None
    off = dataclasses.replace(_low(x4=0.6), params=Params(rescue=False))
    assert rescue(off) is None
    assert rescue(dataclasses.replace(_low(x4=0.6), params=Params(rescue_chance=0.5))) is None


def test_a_rescued_scan_wins_with_a_doubt_until_the_player_sets_the_card() -> None:
    """The whole scan: scored as the winning hand, never "clean" (the doubt is asked), and the
    rescue's doubt goes once the player corrects the card in the app."""
    from zipai.mobile.draft import Draft as AppDraft
    from zipai.vision.scan import scan_detections

    draft = _low(x4=0.6)
    sc = scan_detections(1000, 1000, list(draft.detections), BASE)
    assert sc.result is not None and sc.result.winning and sc.result.points == 16
    kinds = [d.kind for d in sc.assembled.doubts]
    assert "rescued" in kinds and "no_win" not in kinds
    assert sc.to_json()["detections"][X4]["rescued"].startswith("x4 at (200, 0)")
    app = AppDraft.from_scan(sc.columns, sc.detections, "p.jpg", (1000, 1000))
    ci = next(n for n, c in enumerate(app.columns) if X4 in c.detections)
    app.set_card(ci, app.columns[ci].detections.index(X4), "x1")
    assert "rescued" not in {d.kind for d in app.check(BASE).doubts}


def test_take_in_adds_the_one_weak_find_that_completes_the_hand() -> None:
    """The finder missed the hand's 伍; of its weak finds only the 伍 where the card lies makes
    seven groups, and the columns are drawn again with it."""
    weak = _det("x5", 0.0, 680.0, finder=0.2)
    cloth = _det("d3", 2400.0, 200.0, finder=0.2)
    draft = _draft(hand=[["x4", None, "x6"], *HAND_ROW[1:]], spare=[cloth, weak])
    taken = take_in(draft)
    assert taken is not None and taken.splits
    assert taken.detections == (*draft.detections, dataclasses.replace(weak, taken_in=True))
    assert ["x4", "x5", "x6"] in [c.cards for c in taken.columns]
    assert taken.spare == (cloth,)
    both = _draft(hand=[["x4", None, "x6"], *HAND_ROW[1:]], spare=[weak, _det("x5", 0.0, 680.0, finder=0.3)])
    assert take_in(both) is None  # two finds that each work: the user looks


def test_take_in_adds_the_one_pair_of_weak_finds_that_completes_a_hand_two_cards_short() -> None:
    """The finder missed the hand's 伍 and the 柒 of 贰柒拾: neither weak find alone makes seven
    groups, together they do, and no other pair does; both are taken in, each a doubt."""
    five, seven = _det("x5", 0.0, 680.0, finder=0.2), _det("d7", 100.0, 680.0, finder=0.2)
    cloth = _det("d3", 2400.0, 200.0, finder=0.2)
    hand = [["x4", None, "x6"], ["d2", None, "d10"], *HAND_ROW[2:]]
    draft = _draft(hand=hand, spare=[five, cloth, seven])
    assert not draft.splits and all(_alone(draft, d) is None for d in draft.spare)
    taken = take_in(draft)
    assert taken is not None and taken.splits
    marked = tuple(dataclasses.replace(d, taken_in=True) for d in (five, seven))
    assert taken.detections == (*draft.detections, *marked)
    assert taken.spare == (cloth,)
    assert {"x4 x5 x6", "d2 d7 d10"} <= {" ".join(c.cards) for c in taken.columns}
    # two pairs that each work (a second 柒 where the first lies): the player's to choose
    twice = _draft(hand=hand, spare=[five, seven, _det("d7", 100.0, 680.0, finder=0.3)])
    assert take_in(twice) is None
    # three cards short: no pair makes it split, and three the rules do not guess
    three = _draft(hand=[["x4", None, "x6"], ["d2", None, "d10"], ["x9", None, "x9"], *HAND_ROW[3:]],
                   spare=[five, seven, _det("x9", 200.0, 680.0, finder=0.2)])
    assert take_in(three) is None


def _alone(draft: Draft, d: Detection) -> Draft | None:
    """``take_in`` offered the one weak find ``d``."""
    return take_in(dataclasses.replace(draft, spare=(d,)))


def _cases() -> list[tuple[Repair, Draft]]:
    """Each step with a draft it repairs."""
    six = [["x1", "x1", "x1"], ["x1", "x2", "x3"], ["x2", "x2", "d2"], ["x8", "x7", "x6"],
           ["x10", "d10", "d10"], ["x8", "x8", "x8"]]
    misread = _draft(hand=[["x4", "x6", "x6"], *HAND_ROW[1:]])
    misread = _reading(misread, misread.columns[3].detections[1], class_prob=0.55,
                       alternatives=(("x5", 0.3),))
    return [
        (join_lone_backs, _draft(table=[TABLE_ROW[0], ["x10", "back"], TABLE_ROW[2]],
                                 loose=[(130.0, 170.0, "back")])),
        (join_split_groups, _draft(table=[["d5"], ["d5", "d5"], *TABLE_ROW[1:]])),
        (settle_strays, _draft(hand=[*HAND_ROW, ["x7"]])),
        (set_apart_ends, _draft(hand=[["x7", "x4", "x5", "x6"], *HAND_ROW[1:]])),
        (read_backs, _draft(table=[TABLE_ROW[0], ["back"] * 3, TABLE_ROW[2]])),
        (set_apart_discards, _draft(table=[*TABLE_ROW, ["d1", "x7"]])),
        (settle_backs, _draft(table=[["d5", "back", "back"], ["x10"], TABLE_ROW[2]],
                              loose=[(130.0, 80.0, "back"), (70.0, 160.0, "back")])),
        (settle_rows, _draft(table=[["d2", "d7", "d10"]], hand=six, guess="split")),
        (reread, misread),
        (take_in, _draft(hand=[["x4", None, "x6"], *HAND_ROW[1:]],
                         spare=[_det("x5", 0.0, 680.0, finder=0.2)])),
        (fill_concealed, _draft(table=[TABLE_ROW[0], ["x10", "back"], TABLE_ROW[2]])),
        (complete_group, _draft(table=[*TABLE_ROW[:2], ["x1", "x3"]])),
        (win_without_discards, _draft(table=[*TABLE_ROW, ["d1", "x7"]])),
        (rescue, _low(x4=0.6)),
        (rescue, _extra()),
    ]


@pytest.mark.parametrize(("step", "draft"), _cases(), ids=[s.__name__ for s, _ in _cases()])
def test_a_step_returns_a_new_draft_and_never_changes_its_input(step: Repair, draft: Draft) -> None:
    before = copy.deepcopy((draft.columns, draft.detections, dict(draft.base), draft.spare))
    after = step(draft)
    assert after is not None and after is not draft and after.splits
    assert (draft.columns, draft.detections, dict(draft.base), draft.spare) == before
    # a new column has lists of its own: the app's later edits of the result reach no other draft
    assert not any(a is not b and (a.cards is b.cards or a.detections is b.detections)
                   for a in after.columns for b in draft.columns)
    with pytest.raises(dataclasses.FrozenInstanceError):
        draft.columns = ()  # type: ignore[misc]


def test_the_repairs_run_in_their_order_each_on_the_draft_the_last_one_left() -> None:
    assert [s.__name__ for s in REPAIRS] == [
        "leave_twin", "join_lone_backs", "join_fourth_back", "join_split_groups", "join_in_line",
        "gather_loose", "read_backs", "settle_strays", "set_apart_discards", "set_apart_ends", "trade_ends",
        "move_far_ends", "settle_backs", "settle_rows", "reread", "take_in", "fill_concealed", "fill_fourth",
        "set_apart_pairs", "complete_group", "read_hidden", "win_without_discards", "rescue"]
    seen: list[Draft] = []

    def first(d: Draft) -> Draft:
        return d.with_columns(d.columns[:-1])

    def second(d: Draft) -> None:
        seen.append(d)

    draft = _draft(hand=[*HAND_ROW, ["x7"]])
    out = repair(draft, [first, second])
    assert seen == [out] and len(out.columns) == len(draft.columns) - 1 and out.splits


def test_once_the_layout_splits_the_later_steps_pass() -> None:
    """The hand's x6 lies apart and a weak x3 was found above its x4 x5: taking in either makes
    seven groups. ``settle_strays`` comes first and takes in the x6, so ``take_in`` passes."""
    draft = _draft(hand=[["x4", "x5"], *HAND_ROW[1:]], loose=[(500.0, 900.0, "x6")],
                   spare=[_det("x3", 0.0, 520.0, finder=0.2)])
    assert take_in(draft) is not None  # alone, it would have taken the x3
    out = repair(draft)
    assert out.detections == draft.detections and _look(out)[-1] == ("hand", "hand", ["x6"])


@pytest.mark.parametrize("won_by", ["stock", "self_draw", "dealt"])
def test_splits_is_the_engines_answer(won_by: str) -> None:
    """Seven groups or not, as the full score sees it; after the deal, an instant win counts too
    (三笼五坎 in Guilin: five concealed triples)."""
    base = {**BASE, "won_by": won_by}
    instant = [["x1"] * 3, ["x2"] * 3, ["x3"] * 3, ["d4"] * 3, ["d6"] * 3, ["x7", "x9"]]
    cases = [("hunan", TABLE_ROW, HAND_ROW), ("hunan", TABLE_ROW, HAND_ROW[:3]), ("guilin", [], instant),
             ("hunan", [], instant)]
    for rules, table, hand in cases:
        draft = _draft(table, hand, base={**base, "rules": rules})
        layout = assemble(draft.columns, draft.detections, draft.base).layout
        try:  # a dealt hand with open groups, or a non-dealer's, is refused: no split
            engine_splits = bool(score(layout)["groups"])
        except ZipaiError:
            engine_splits = False
        assert draft.splits == engine_splits, (rules, hand)
    assert _draft([], instant, base={**base, "rules": "guilin"}).splits == (won_by == "dealt")


def test_rescore_gives_a_new_scan_and_leaves_the_one_it_was_given() -> None:
    """A detection is a value and rescoring builds a new scan: the one given keeps its layout,
    score and detections, so a tuner may replay the same finds at many settings uncopied."""
    from zipai.vision.layout import Assembled
    from zipai.vision.scan import Scan, rescore

    draft = repair(_draft())
    sc = Scan(1000, 1000, list(draft.detections), list(draft.columns), Assembled({}, False, []))
    given = list(sc.detections)
    new = rescore(sc, BASE)
    assert sc.assembled == Assembled({}, False, []) and sc.result is None and sc.detections == given
    assert new.result is not None and new.result.winning and new.assembled.complete
    assert [dataclasses.replace(d, chance=0.0) for d in new.detections] == given
    assert rescore(sc, BASE).to_json() == new.to_json()
    with pytest.raises(dataclasses.FrozenInstanceError):
        new.detections[0].card = "x1"  # type: ignore[misc]


def test_a_full_layout_scored_as_no_win_is_a_doubt() -> None:
    """L1 with the hand's 九九九 read as 九九壹 holds a winning hand's 21 cards but splits into
    no seven groups, and no repair mends it: the scan scores it "not a win" and says to look. L1
    itself, and a layout a group short (already a doubt of its own), raise no such doubt."""
    from zipai.vision.layout import Assembled
    from zipai.vision.scan import Scan, rescore

    def scanned(draft: Draft) -> Scan:
        draft = repair(draft)
        sc = Scan(1000, 1000, list(draft.detections), list(draft.columns), Assembled({}, False, []))
        return rescore(sc, BASE)

    wrong = scanned(_draft(hand=[*HAND_ROW[:2], ["x9", "x9", "d1"], HAND_ROW[3]]))
    assert wrong.result is not None and not wrong.result.winning
    assert [d.message for d in wrong.assembled.doubts if d.kind == "no_win"] == [
        "the layout holds a winning hand's cards but scores as no win (the 21 cards do not form seven "
        "groups (one pair exactly when there is a quad)): a card misread or missed, or a group split or in "
        "the wrong row, does that; check the groups"]
    right = scanned(_draft())
    assert right.result is not None and right.result.winning
    assert "no_win" not in {d.kind for d in right.assembled.doubts}
    short = scanned(_draft(hand=[*HAND_ROW[:2], HAND_ROW[3]]))
    assert short.result is not None and {d.kind for d in short.assembled.doubts} == {"missing_cards"}

