"""RULINGS section 8, the worked examples, as golden hands in text notation."""

from __future__ import annotations

import pytest
from conftest import layout

from zipai.engine import score

L1 = "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8"


@pytest.mark.parametrize(
    ("rules", "won_by", "fields", "expect_score", "payouts"),
    [
        ("hunan", "stock", {}, 18, [0, 18, 0]),
        ("hunan", "self_draw", {}, 36, [0, 36, 0]),
        ("hunan", "discard", {"from_": 2}, 28, [0, 28, -18]),
        ("guangxi", "self_draw", {"options": {"minimum": 15}}, 18, [-18, 36, -18]),
        ("guangxi", "discard", {"from_": 2, "options": {"minimum": 15}}, 18, [0, 36, -36]),
        ("guilin", "stock", {}, 3, [-3, 6, -3]),
        ("guilin", "self_draw", {}, 6, [-6, 12, -6]),
    ],
)
def test_section_8_table(rules, won_by, fields, expect_score, payouts):
    r = score(layout(L1, rules, won_by=won_by, **fields))
    assert r["winning"] is True
    assert r["points"] == 18
    assert r["score"] == expect_score
    assert r["payouts"] == payouts
    assert sum(1 for g in r["groups"] for c in g["cards"] if c in ("x2", "x7", "x10", "d2", "d7", "d10")) == 7


@pytest.mark.parametrize("won_by", ["self_draw", "stock", "discard"])
def test_guangxi_minimum_20_is_not_a_win(won_by):
    fields = {"from_": 2} if won_by == "discard" else {}
    r = score(layout(L1, "guangxi", won_by=won_by, options={"minimum": 20}, **fields))
    assert r["winning"] is False
    assert r["reason"]["code"] == "below_minimum"
    assert r["payouts"] == [0, 0, 0]
    assert r["transfers"] == []


def test_guilin_zi_and_fan_fields():
    r = score(layout(L1, "guilin", won_by="self_draw"))
    assert (r["zi"], r["xing"], r["fan"]) == (3, 0, 2)


@pytest.mark.parametrize(("rules", "points"), [("guangxi", 21), ("hunan", 18), ("guilin", 18)])
def test_red_big_peng_counts_six_in_guangxi_only(rules, points):
    text = "d7d7d7 ~x10x10x10 x1x2x3 | x4x5x6 d1d2d3 x9x9x9 d8d8x8"
    r = score(layout(text, rules, won_by="self_draw"))
    assert r["points"] == points
    peng = next(g for g in r["groups"] if g["cards"] == ["d7", "d7", "d7"])
    assert peng["points"] == (6 if rules == "guangxi" else 3)


def test_winning_x9_from_discard_makes_an_open_peng():
    r = score(layout(L1.replace("x9x9x9", "x9!x9x9"), "hunan", won_by="discard", from_=2))
    assert r["points"] == 16
    assert r["score"] == 26
    nine = next(g for g in r["groups"] if g["cards"] == ["x9", "x9", "x9"])
    assert nine["state"] == "open" and nine["points"] == 1 and nine["winning_card"] is True


@pytest.mark.parametrize(
    ("text", "winning"),
    [
        # a pair laid on the table counts as the layout's one pair (section 2)
        ("d5d5d5 ~x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8", False),  # a pair, no quad
        ("d5d5d5d5 ~x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8", True),  # a pair and a quad
        ("d5d5d5d5 ~x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8 x3x3", False),  # two pairs
    ],
)
def test_a_table_pair_is_the_one_pair_a_quad_allows(text, winning):
    r = score(layout(text, "hunan", won_by="self_draw"))
    assert r["winning"] is winning
    if not winning:
        assert r["reason"]["code"] == "not_seven_groups"
