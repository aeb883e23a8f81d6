"""One test per rule, special, payout case, winning-card case and house option."""

from __future__ import annotations

import pytest
from conftest import layout

from zipai.engine import InputError, Result, score, score_simultaneous, simultaneous_result

L1 = "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8"
L1_DEALT = "| d5d5d5 x10x10x10 x1x2x3 x4x5x6 d2d7d10 x9x9x9 d8d8x8"  # L1 as dealt: nothing on the table
WUFU = "| x1x1x1 d1d1d1 x3x4x5 d4d5d6 x8x8d8 d9d9x9 x6x6d6"  # no red card, 9 福
HONG15 = "x2x7x10 d2d7d10 x7x7d7 | x2x2d2 d10d10x10 x3x4x5 d4d5d6"  # 15 red, 9 福
HONG12 = "x2x7x10 d2d7d10 d1d1d1 | x7x7d7 x10d10d10 d3d3d3 x4x5x6"  # 12 red, 18 福
PIAO = "x4x5x6 | d4d5d6 x7x8x9 d7d8d9 x3x3d3 d2d3d4 x5x5d5"  # 0 福
THIRTY = "~d5d5d5d5 d1d2d3 d2d7d10 x1x2x3 | x9x9x9 x4x5x6 x8x8"  # 30 福
L1_ODD = "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 x2x7x10 x9x9x9 d8d8x8"  # 15 福
QUADS3 = "| x1x1x1x1 x2x2x2x2 d3d3d3d3 x5 x6 x8 x9 d5 d6 d8 d9"  # 30 points as 起手胡
QUADS3B = "| x3x3x3x3 x4x4x4x4 d1d1d1d1 x5 x6 x8 x9 d5 d6 d8 d9"  # 30 points
QUADS3C = "| x3x3x3x3 d4d4d4d4 d1d1d1d1 x5 x6 x8 x9 d5 d6 d8 d9"  # 33 points
TRIPLES5 = "| x1x1x1 x4x4x4 d5d5d5 d8d8d8 x9x9x9 d1d2d3 x6 x7"  # 27 points


def ids(r):
    return [s["id"] for s in r["specials"]]


# ---------------------------------------------------------------- Hunan

@pytest.mark.parametrize(("won_by", "expect"), [("stock", 100), ("self_draw", 110)])
def test_hunan_wufu_wins_below_minimum(won_by, expect):
    r = score(layout(WUFU, won_by=won_by))
    assert r["points"] == 9 and r["winning"] and "wufu" in ids(r) and r["score"] == expect


def test_hunan_hongfu_13_or_more_red_wins_below_minimum():
    r = score(layout(HONG15))
    assert r["points"] == 9 and r["winning"] and ids(r) == ["hongfu"] and r["score"] == 100


@pytest.mark.parametrize(("won_by", "expect"), [("stock", 36), ("self_draw", 46)])
def test_hunan_hongfu_10_to_12_red_doubles(won_by, expect):
    r = score(layout(HONG12, won_by=won_by))
    assert r["points"] == 18 and "hongfu" in ids(r) and r["score"] == expect


@pytest.mark.parametrize(("options", "won_by", "expect"),
                         [({}, "stock", 30), ({"piao": 100}, "stock", 100), ({}, "self_draw", 40)])
def test_hunan_piaofu(options, won_by, expect):
    r = score(layout(PIAO, options=options, won_by=won_by))
    assert r["points"] == 0 and r["winning"] and ids(r) == ["piaofu"] and r["score"] == expect


@pytest.mark.parametrize(("won_by", "expect"), [("stock", 60), ("self_draw", 70), ("discard", 70)])
def test_hunan_thirty_doubles_and_adds_ten(won_by, expect):
    fields = {"from_": 2} if won_by == "discard" else {}
    r = score(layout(THIRTY, won_by=won_by, **fields))
    assert r["points"] == 30 and "thirty" in ids(r) and r["score"] == expect


def test_hunan_self_draw_plus_ten_option():
    assert score(layout(L1, won_by="self_draw", options={"self_draw": "plus_ten"}))["score"] == 28


def test_hunan_tianfu_is_110():
    r = score(layout(L1_DEALT, winner=0, won_by="dealt"))
    assert ids(r) == ["tianfu"] and r["score"] == 110 and r["payouts"] == [110, 0, 0]


def test_hunan_difu_four_players():
    r = score(layout(L1, players=4, winner=1, won_by="discard", from_=0, first_discard=True))
    assert ids(r)[0] == "difu" and r["payouts"] == [-100, 110, 60, 0]


def test_hunan_four_players_idle_seat_gets_half_rounded_to_tens():
    r = score(layout(L1_ODD, players=4, winner=1, won_by="stock"))
    assert r["score"] == 15 and r["payouts"] == [0, 15, 10, 0]  # 7.5 → 10


def test_hunan_idle_seat_cannot_win():
    with pytest.raises(InputError, match="数审"):
        score(layout(L1, players=4, winner=2))


def test_hunan_two_players_need_20():
    r = score(layout(L1, players=2, winner=1))
    assert not r["winning"] and "minimum of 20" in r["reason"]["message"]


def test_hunan_minimum_option():
    assert score(layout(L1, options={"minimum": 20}))["winning"] is False


def test_hunan_has_no_transfers():
    assert score(layout(L1, won_by="discard", from_=2))["transfers"] == []


# ---------------------------------------------------------------- Guangxi

@pytest.mark.parametrize(("mult", "each"), [(None, 42), (3, 63)])
def test_guangxi_tianhu(mult, each):
    opts = {"tianhu_multiplier": mult} if mult else {}
    r = score(layout(L1_DEALT, "guangxi", winner=0, won_by="dealt", options=opts))
    assert ids(r) == ["tianhu"] and r["score"] == each
    assert r["payouts"] == [2 * each, -each, -each]


def test_guangxi_three_quads_instant_win():
    r = score(layout(QUADS3, "guangxi", won_by="dealt"))
    assert r["winning"] and ids(r) == ["sanlong"] and r["score"] == 30
    assert r["payouts"] == [-30, 60, -30]
    assert sorted(r["transfers"]) == [[0, 1, 30], [2, 1, 30]]
    assert r["leftover"] == ["x5", "x6", "x8", "x9", "d5", "d6", "d8", "d9"]


def test_guangxi_five_triples_instant_win_counts_leftover_123():
    r = score(layout(TRIPLES5, "guangxi", won_by="dealt"))
    assert r["winning"] and ids(r) == ["wukan"] and r["points"] == 27


def test_guangxi_two_players():
    assert score(layout(L1, "guangxi", players=2, won_by="self_draw"))["payouts"] == [-18, 18]


def test_guangxi_four_players_is_an_error():
    with pytest.raises(InputError, match="2 to 3 players"):
        score(layout(L1, "guangxi", players=4))


def test_guangxi_simultaneous_equal_both_win():
    a = layout(QUADS3, "guangxi", winner=0, won_by="dealt")
    b = layout(QUADS3B, "guangxi", winner=1, won_by="dealt")
    r = score_simultaneous([a, b])
    assert r["winners"] == [0, 1] and r["payouts"] == [30, 30, -60]


def test_guangxi_simultaneous_higher_wins_alone():
    a = layout(QUADS3, "guangxi", winner=0, won_by="dealt")
    b = layout(QUADS3C, "guangxi", winner=1, won_by="dealt")
    r = score_simultaneous([a, b])
    assert r["winners"] == [1] and r["payouts"] == [-33, 66, -33]


def test_guangxi_simultaneous_is_typed_and_its_json_is_the_contract():
    a = layout(QUADS3, "guangxi", winner=0, won_by="dealt")
    b = layout(QUADS3C, "guangxi", winner=1, won_by="dealt")
    r = simultaneous_result([a, b])
    assert all(isinstance(x, Result) for x in r.results)
    assert r.winners == (1,) and r.payouts == (-33, 66, -33) and r.results[1].score == 33
    assert r.to_json() == score_simultaneous([a, b])
    tie = simultaneous_result([a, layout(QUADS3B, "guangxi", winner=1, won_by="dealt")])
    assert tie.winners == (0, 1) and tie.transfers == ((2, 0, 30), (2, 1, 30))


# ---------------------------------------------------------------- Guilin

def test_guilin_minimum_15_counts_5_hu_per_zi():
    r = score(layout(L1, "guilin", options={"minimum": 15}))
    assert r["zi"] == 2 and r["payouts"] == [-2, 4, -2]


@pytest.mark.parametrize(("kinds", "xing"), [(None, 4), (["same"], 3), (["up", "same", "down"], 7)])
def test_guilin_xing_counts_neighbours(kinds, xing):
    opts = {"xing": kinds} if kinds else {}
    r = score(layout(L1, "guilin", xing=["x10"], options=opts))  # up x9 ×3, down x1 ×1 (wraps)
    assert r["xing"] == xing and r["score"] == 3 + xing


def test_guilin_xing_wraps_from_one_to_ten():
    r = score(layout(L1, "guilin", xing=["x1"], options={"xing": ["up"]}))  # up of 一 is 十
    assert r["xing"] == 3


def test_guilin_tianhu_doubles():
    r = score(layout(L1_DEALT, "guilin", winner=0, won_by="dealt"))  # 21 胡: 4 子
    assert ids(r) == ["tianhu"] and r["payouts"] == [16, -8, -8]


def test_guilin_dihu_discarder_pays_every_share():
    r = score(layout(L1, "guilin", won_by="discard", from_=0, first_discard=True))
    assert ids(r) == ["dihu"] and r["payouts"] == [-12, 12, 0]
    assert r["transfers"] == [[0, 1, 12]]


def test_guilin_fan_as_zi():
    r = score(layout(L1, "guilin", won_by="self_draw", options={"fan_as_zi": True}))
    assert r["score"] == 4 and r["fan"] == 1 and r["payouts"] == [-4, 8, -4]


def test_guilin_sanlong_wukan():
    r = score(layout(QUADS3, "guilin", won_by="dealt"))
    assert ids(r) == ["sanlong_wukan"] and r["zi"] == 7 and r["score"] == 14


# ---------------------------------------------------------------- the winning card (section 5)

def test_open_quad_from_discard_needs_and_finds_the_pair():
    text = "d5d5d5 ~x10x10x10 x1x2x3 | x9!x9x9x9 x4x5x6 d2d7d10 d8d8"
    r = score(layout(text, won_by="discard", from_=2))
    quad = next(g for g in r["groups"] if g["kind"] == "quad")
    assert quad["state"] == "open" and quad["points"] == 6 and r["score"] == 31


def test_all_held_quad_is_concealed_without_a_winning_card():
    text = "d5d5d5 ~x10x10x10 x1x2x3 | x9x9x9x9 x4x5x6 d2d7d10 d8d8"
    r = score(layout(text, won_by="discard", from_=2))
    assert r["points"] == 24 and r["score"] == 34


def test_winning_card_may_leave_the_held_triple_alone():  # 搶招和 / 破跑胡
    text = "d5d5d5 ~x10x10x10 x1x2x3 | x9!x9x9x9 x7x8 x4x5x6 d2d7d10"
    r = score(layout(text, won_by="discard", from_=2))
    assert r["winning"] and r["score"] == 28
    assert ["x9", "x9", "x9"] in [g["cards"] for g in r["groups"]]
    assert ["x7", "x8", "x9"] in [g["cards"] for g in r["groups"]]
    held = score(layout(text.replace("!", ""), won_by="discard", from_=2))
    assert held["winning"] is False and held["reason"]["code"] == "not_seven_groups"


def test_self_drawn_winning_card_stays_concealed():
    r = score(layout(L1.replace("x9x9x9", "x9!x9x9"), won_by="self_draw"))
    assert r["points"] == 18 and r["score"] == 36


def test_winning_card_turned_from_the_stock_turns_a_table_peng_into_a_quad():
    text = "d5d5d5 ~x10x10x10 x1x2x3 | d5! x4x5x6 d2d7d10 x9x9x9 d8d8"
    r = score(layout(text, won_by="stock"))
    quad = next(g for g in r["groups"] if g["kind"] == "quad")
    assert quad["state"] == "open" and quad["points"] == 9 and r["score"] == 24


def test_winning_card_must_be_in_the_hand():
    with pytest.raises(InputError, match="not among the hand cards"):
        score(layout(L1, winning_card="d1"))


def test_not_seven_groups_is_a_result():
    r = score(layout("| x1 x2 x4 d5 d6 d8"))
    assert r["winning"] is False and r["reason"]["code"] == "not_seven_groups"
    assert r["payouts"] == [0, 0, 0]


def test_claim_takes_the_decomposition_with_most_points():
    r = score(layout("| d1 d2 d3 d8 d9 d10 x5 x5 x5 x1 x2 x3 x2 x3 x4 d7 d7 d7 d1 d2 d3"))
    texts = [a["text"] for a in r["alternatives"]]
    assert len(set(texts)) == len(texts) == 2
    assert texts[0] == r["text"] == "x5x5x5 d7d7d7 x1x2x3 x2x3x4 d1d2d3 d1d2d3 d8d9d10"
    assert [a["points"] for a in r["alternatives"]] == [24, 9]


def test_winning_decomposition_beats_a_higher_scoring_loser():
    # Guangxi minimum 15: the 24-point split wins, the 9-point split does not.
    r = score(layout("| d1 d2 d3 d8 d9 d10 x5 x5 x5 x1 x2 x3 x2 x3 x4 d7 d7 d7 d1 d2 d3",
                     "guangxi", won_by="self_draw"))
    assert r["winning"] and r["points"] == 24
    assert [a["winning"] for a in r["alternatives"]] == [True, False]
