"""The figures' matching rule: box centre inside the card's visible polygon, one to one."""

from __future__ import annotations

import doctest

import pytest

import zipai.models.evaluate as evaluate
from zipai.models.evaluate import (
    PairedScenes,
    Totals,
    annotations_by_image,
    card_down,
    inside,
    labelled_detections,
    layout_base,
    match_scene,
    paired_bootstrap,
    same_layout,
    same_score,
    sign_test_p,
)


def _card(cat: int, x: float, y: float, ignore: bool = False) -> dict:
    poly = [[x, y], [x + 40, y], [x + 40, y + 120], [x, y + 120]]
    return {"category_id": cat, "bbox": [x + 5, y + 5, 30, 30], "card_polygon": poly, "ignore": ignore}


def _box(x: float, y: float) -> list[float]:
    return [x - 10, y - 10, x + 10, y + 10]


def test_inside_polygon() -> None:
    poly = [[0, 0], [10, 0], [10, 10], [0, 10]]
    assert inside((5, 5), poly) and not inside((15, 5), poly) and not inside((5, -1), poly)


def test_read_wrong_missed_extra() -> None:
    anns = [_card(1, 0, 0), _card(2, 100, 0), _card(21, 200, 0), _card(5, 300, 0)]
    dets = [("x1", _box(20, 20)), ("x3", _box(120, 20)), ("back", _box(220, 60)), ("x9", _box(600, 600))]
    m = match_scene(dets, anns)
    assert (m.cards, m.read, m.extra, m.extras) == (4, 2, 1, [3])
    assert m.wrong == [("x2", "x3")] and m.missed == ["x5"]
    # where the missed card lies, counted among all the annotations (ignored ones too)
    m = match_scene(dets, [_card(7, 900, 900, ignore=True), *anns])
    assert m.missed == ["x5"] and m.missed_at == [4]
    assert m.misread_at == [2]  # the x2 read as x3, after the ignored card
    assert (m.back_true, m.back_found, m.back_detections, m.back_correct) == (1, 1, 1, 1)
    assert not m.exact


def test_one_to_one_and_best_assignment() -> None:
    # two x1 cards overlapping: both detections lie in the overlap of the first card's polygon
    anns = [_card(1, 0, 0), _card(1, 0, 60)]
    dets = [("x1", _box(20, 70)), ("x1", _box(20, 100))]
    m = match_scene(dets, anns)
    assert m.read == 2 and m.extra == 0 and m.exact
    m = match_scene([("x1", _box(20, 70)), ("x1", _box(20, 71)), ("x1", _box(20, 72))], anns)
    assert m.read == 2 and m.extra == 1


def test_ignored_cards_are_neither_credit_nor_blame() -> None:
    anns = [_card(3, 0, 0), _card(4, 100, 0, ignore=True)]
    assert match_scene([("x3", _box(20, 20)), ("x4", _box(120, 20))], anns).exact
    assert match_scene([("x3", _box(20, 20))], anns).exact
    t = Totals()
    t.add(match_scene([("x3", _box(20, 20))], anns))
    t.add(match_scene([], anns))
    f = t.figures()
    assert f["per_card_accuracy"] == 0.5 and f["scene_exact_rate"] == 0.5 and f["cards"] == 2


def test_labelled_cards_as_detections_and_same_layout() -> None:
    up = {"category_id": 5, "bbox": [10, 10, 20, 20], "color": "black",
          "card_corners": [[0, 0], [40, 0], [40, 120], [0, 120]],
          "glyphs": [{"which": "top", "bbox": [10, 10, 20, 20]}]}
    turned = {"category_id": 17, "bbox": [60, 90, 20, 20], "color": "red",
              "card_corners": [[50, 0], [90, 0], [90, 120], [50, 120]],
              "glyphs": [{"which": "bottom", "bbox": [60, 90, 20, 20]}]}
    hidden = {"category_id": 21, "bbox": [0, 0, 5, 5], "ignore": True}
    dets = labelled_detections([up, turned, hidden])
    assert [(d.card, d.box, d.color, d.down) for d in dets] == [
        ("x5", (10, 10, 30, 30), "black", (0.0, 1.0)), ("d7", (60, 90, 80, 110), "red", (0.0, -1.0))]
    assert card_down(None) == (0.0, 1.0)
    a = {"groups": [{"cards": ["x1", "x2", "x3"], "state": "open"}], "hand": ["d4", "d5"]}
    b = {"groups": [{"cards": ["x3", "x1", "x2"]}], "hand": ["d5", "d4"]}
    assert same_layout(a, b)
    assert not same_layout(a, {**b, "groups": [{"cards": ["x1", "x2", "x3"], "state": "concealed"}]})
    assert not same_layout(a, {**b, "hand": ["d5"]})


def test_annotations_are_grouped_under_their_image() -> None:
    coco = {"annotations": [{"image_id": 2, "id": 1}, {"image_id": "1", "id": 2}, {"image_id": 2, "id": 3}]}
    grouped = annotations_by_image(coco)
    assert {k: [a["id"] for a in v] for k, v in grouped.items()} == {2: [1, 3], 1: [2]}


def test_cards_are_counted_by_row_and_the_layout_can_be_read_while_a_loose_card_is_not() -> None:
    anns = [{**_card(1, 0, 0), "row": "hand"}, {**_card(2, 100, 0), "row": "table"},
            {**_card(5, 300, 0), "row": "loose"}]
    m = match_scene([("x1", _box(20, 20)), ("x2", _box(120, 20))], anns)
    assert m.rows == {"hand": [1, 1], "table": [1, 1], "loose": [1, 0]}
    assert m.layout_read and not m.exact
    t = Totals()
    t.add(m)
    t.add(match_scene([("x1", _box(20, 20)), ("x9", _box(600, 600))], anns))  # an extra: not read
    f = t.figures()
    got = (f["layout_cards_accuracy"], f["loose_cards_accuracy"], f["layout_cards_exact_rate"])
    assert got == (0.75, 0.0, 0.5)


L1 = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock",
      "groups": [{"cards": ["d5", "d5", "d5"], "state": "open"},
                 {"cards": ["x10", "x10", "x10"], "state": "concealed"},
                 {"cards": ["x1", "x2", "x3"], "state": "open"}],
      "hand": ["x4", "x5", "x6", "d2", "d7", "d10", "x9", "x9", "x9", "d8", "d8", "x8"]}


def test_same_score_compares_what_the_engine_makes_of_two_layouts() -> None:
    assert layout_base(L1) == {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}
    shuffled = {**L1, "hand": list(reversed(L1["hand"]))}
    assert same_score(shuffled, True, L1)
    assert not same_score(L1, False, L1)  # a layout not complete enough to score scores nothing
    opened = {**L1, "groups": [*L1["groups"], {"cards": ["x9", "x9", "x9"], "state": "open"}],
              "hand": [c for c in L1["hand"] if c != "x9"]}  # the hand's 坎 laid open scores less
    assert not same_score(opened, True, L1)
    assert not same_score({**L1, "hand": [*L1["hand"], "d1"]}, True, L1)


def test_the_statistics_doctests_pass() -> None:
    assert doctest.testmod(evaluate).failed == 0


def test_mcnemar_counts_only_the_scenes_the_two_models_disagree_on() -> None:
    a = [(True, 20, 20)] * 50 + [(False, 19, 20)] * 10 + [(True, 20, 20)] * 3
    b = [(True, 20, 20)] * 50 + [(False, 18, 20)] * 10 + [(False, 19, 20)] * 3
    pairs = PairedScenes(a, b)
    assert pairs.discordant() == (3, 0)
    assert (pairs.exact("a"), pairs.exact("b")) == (53, 50)
    assert pairs.per_card("a") == pytest.approx(1250 / 1260)
    # the test is symmetric, never above 1, and small only for a lopsided split
    assert sign_test_p(3, 0) == sign_test_p(0, 3) == pytest.approx(0.25)
    assert sign_test_p(5, 5) == 1.0
    assert sign_test_p(1, 20) < 0.001


def test_the_paired_bootstrap_brackets_the_difference_and_is_zero_for_equal_runs() -> None:
    a = [(i % 2 == 0, 19 + (i % 2 == 0), 20) for i in range(400)]
    b = [(i % 2 == 0 or i % 10 == 1, 19 + (i % 2 == 0 or i % 10 == 1), 20) for i in range(400)]
    pairs = PairedScenes(a, b)
    assert pairs.exact("b") - pairs.exact("a") == 40
    lo, hi = paired_bootstrap(pairs, "exact", 2000, seed=1)
    assert 20 < lo < 40 < hi < 60
    lo, hi = paired_bootstrap(pairs, "per_card", 2000, seed=1)
    assert lo < 40 / 8000 < hi and lo > 0
    assert paired_bootstrap(PairedScenes(a, a), "exact", 500) == (0.0, 0.0)
    with pytest.raises(ValueError, match="no figure"):
        paired_bootstrap(pairs, "recall")


def test_paired_runs_must_have_seen_the_same_scenes() -> None:
    with pytest.raises(ValueError, match="1 results against 2"):
        PairedScenes([(True, 1, 1)], [(True, 1, 1), (False, 0, 1)])
    with pytest.raises(ValueError, match="same cards"):
        PairedScenes([(True, 1, 1)], [(True, 2, 2)])


def test_the_yardstick_keeps_hidden_layout_cards_and_leaves_hidden_loose_ones_out() -> None:
    from zipai.models.evaluate import true_cards

    hidden_hand = {"category_id": 5, "bbox": [0, 0, 9, 9], "row": "hand", "ignore": True}
    hidden_pile = {"category_id": 21, "bbox": [50, 0, 9, 2], "row": "loose", "ignore": True}
    shown = {"category_id": 6, "bbox": [90, 0, 9, 9], "row": "table"}
    cards = true_cards([hidden_hand, hidden_pile, shown])
    assert [a.get("ignore", False) for a in cards] == [False, True, False]
    assert [d.card for d in labelled_detections(cards)] == ["x5", "x6"]
