"""The layout's figures once the player has answered: the answers come from a scene's labels and
are applied with the app's own functions, only where the photo asked them.

The scene, built by hand: three face-up triples lie above four runs, and neither row shows a
back, a pair or a lone card, so the layout step can only guess which row was claimed; it guesses
the top one, but the labels put the claimed runs below.
"""

from __future__ import annotations

from zipai.engine import Card
from zipai.models.eval_layout import (
    Answered,
    Shown,
    answer_scan,
    claimed_from_labels,
    labelled_labels,
    labelled_scan,
    shown_scan,
)
from zipai.models.evaluate import SceneMatch, same_score
from zipai.vision import Assembled, Detection, Scan, columns, propose_states, rescore
from zipai.vision.constants import CATEGORY_NAMES

TRIPLES = [["d1"] * 3, ["d2"] * 3, ["d3"] * 3]
RUNS = [["x1", "x2", "x3"], ["x4", "x5", "x6"], ["x7", "x8", "x9"], ["d4", "d5", "d6"]]
BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 0, "won_by": "self_draw"}
TRUTH = {**BASE, "groups": [{"cards": r, "state": "open"} for r in RUNS],
         "hand": [c for t in TRIPLES for c in t]}


Rows = list[tuple[str, list[list[str]]]]  # (the label's row, its columns' cards), top to bottom


def _scene(rows: Rows, side: bool = False) -> tuple[Scan, list[dict], list[dict]]:
    """A scan of the rows as perfect detections, with the labels a rendered scene carries:
    each card's glyph box, row and group, and the scene's groups."""
    dets, anns, groups = [], [], []
    for r, (row, cols) in enumerate(rows):
        for c, cards in enumerate(cols):
            groups.append({"cards": cards, "row": row})
            for k, card in enumerate(cards):
                x, y = 40 + c * 70 + (r * 400 if side else 0), 60 + k * 40 + (0 if side else r * 260)
                ink = None if card == "back" else "red" if Card.parse(card).is_red else "black"
                dets.append(Detection(card, (x, y, x + 56, y + 36), 0.99, ink, 0.99, 0.99))
                anns.append({"bbox": [x, y, 56, 36], "row": row, "group": len(groups) - 1})
    cols = columns(dets)
    propose_states(cols)
    return rescore(Scan(800, 600, dets, cols, Assembled({}, False, [])), BASE), anns, groups


def test_the_claimed_row_is_read_from_where_the_labelled_claimed_cards_lie() -> None:
    _, anns, _ = _scene([("hand", TRIPLES), ("table", RUNS)])
    assert claimed_from_labels(anns) == "bottom"
    _, anns, _ = _scene([("table", RUNS), ("hand", TRIPLES)])
    assert claimed_from_labels(anns) == "top"
    _, anns, _ = _scene([("table", RUNS), ("hand", TRIPLES)], side=True)
    assert claimed_from_labels(anns) == "left"  # side by side
    _, anns, _ = _scene([("hand", TRIPLES), ("hand", RUNS)])
    assert claimed_from_labels(anns) is None  # nothing claimed


def test_the_answered_scene_is_scored_as_the_scene() -> None:
    sc, anns, groups = _scene([("hand", TRIPLES), ("table", RUNS)])
    assert not same_score(sc.assembled.layout, sc.assembled.complete, TRUTH)  # as guessed
    got, need = answer_scan(sc, claimed_from_labels(anns), labelled_labels(anns), groups, BASE)
    assert need.claimed == "bottom" and not need.unknown and need.named == 0
    assert same_score(got.assembled.layout, got.assembled.complete, TRUTH)
    assert "claimed_row" not in {d.kind.value for d in got.assembled.doubts}
    assert sc.columns[0].row == "table"  # the scan as read is left alone
    # the same, counted as the evaluation counts it
    m = SceneMatch(cards=21, read=21, rows={"hand": [9, 9], "table": [12, 12]})
    answered = Answered()
    answered.add(sc, m, {"layout": TRUTH, "groups": groups}, anns, sc)
    assert answered.split.scored == answered.split.scored_true == 1
    assert answered.figures()["scored_answered_rate"] == 1.0
    assert "the claimed row in 1 of 1 scenes" in answered.summary()


def test_rows_side_by_side_are_answered_left_or_right() -> None:
    sc, anns, groups = _scene([("hand", TRIPLES), ("table", RUNS)], side=True)
    assert {c.row_guess for c in sc.columns if c.cards} == {"split"}  # one long row, split at its widest gap
    assert not same_score(sc.assembled.layout, sc.assembled.complete, TRUTH)
    got, need = answer_scan(sc, "bottom", labelled_labels(anns), groups, BASE)
    assert need.unknown and not need.claimed and got is sc  # above or below says nothing here
    got, need = answer_scan(sc, claimed_from_labels(anns), labelled_labels(anns), groups, BASE)
    assert need.claimed == "right" and same_score(got.assembled.layout, got.assembled.complete, TRUTH)


def test_an_all_back_group_is_named_the_card_of_its_labelled_group() -> None:
    table: list[list[str]] = [["back"] * 3, *RUNS[:3]]
    hand_groups: list[list[str]] = [["d1"] * 3, ["d2"] * 3, ["d3"] * 3, ["d4", "d5", "d6"]]
    sc, anns, groups = _scene([("table", table), ("hand", hand_groups)])
    groups[0]["cards"] = ["x10"] * 3  # the labels know the card the backs hide
    backs = [c for c in sc.columns if c.cards == ["back"] * 3]
    assert backs and backs[0].name is None
    got, need = answer_scan(sc, claimed_from_labels(anns), labelled_labels(anns), groups, BASE)
    assert need.named == 1
    assert [c.name for c in got.columns if c.cards == ["back"] * 3] == ["x10"]
    assert "unnamed_concealed" not in {d.kind.value for d in got.assembled.doubts}


def _labels(rows: Rows, hidden: set[tuple[int, int, int]]) -> list[dict]:
    """A rendered scene's annotations of the rows (top to bottom): each card's class, glyph box,
    row and group; the cards at ``hidden`` (row, column, card) labelled ``ignore``, as a card
    lying wholly under another or under something on the table is."""
    anns, group = [], 0
    for r, (row, cols) in enumerate(rows):
        for c, cards in enumerate(cols):
            for k, card in enumerate(cards):
                x, y = 40 + c * 70, 60 + k * 40 + r * 260
                ink = None if card == "back" else "red" if Card.parse(card).is_red else "black"
                anns.append({"bbox": [x, y, 56, 36], "category_id": CATEGORY_NAMES.index(card) + 1,
                             "row": row, "group": group, "ignore": (r, c, k) in hidden, "color": ink})
            group += 1
    return anns


def test_the_cards_that_show_leave_a_hidden_layout_card_out() -> None:
    rows: Rows = [("table", RUNS), ("hand", TRIPLES)]
    im = {"width": 800, "height": 600, "layout": TRUTH,
          "groups": [{"cards": cards, "row": row} for row, cols in rows for cards in cols]}
    shown = Shown()
    # then the hand's first triple lies hidden (under a phone on the table, say)
    for hidden in (set(), {(1, 0, 0), (1, 0, 1), (1, 0, 2)}):
        anns = _labels(rows, hidden)
        sc = shown_scan(im, anns)
        assert len(sc.detections) == 21 - len(hidden)
        shown.add(sc, im, anns)
        true = labelled_scan(im, anns).assembled  # the labelled cards hold the hidden card
        assert same_score(true.layout, true.complete, TRUTH)
    assert (shown.scenes, shown.hiding) == (2, 1)
    assert (shown.answered, shown.hiding_answered) == (1, 0)  # three short, the hand makes no seven groups
    assert shown.figures()["scored_answered_shown_cards_rate"] == 0.5
    assert "of the 1 scenes that hide a layout card, 0/1 (0.00%) once answered" in shown.summary()
