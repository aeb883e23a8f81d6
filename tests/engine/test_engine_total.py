"""A hand entered by its total (engine/total.py): the rule set turns 福/油/胡 into score and payouts."""

from __future__ import annotations

import pytest
from conftest import layout

from zipai.engine import InputError, ZipaiError, score, score_total

L1 = "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8"  # 18 points, 7 red cards


def by_total(rules: str, total: int, won_by: str = "stock", **fields: object) -> dict:
    obj = {"rules": rules, "players": 3, "dealer": 0, "winner": 1, "won_by": won_by, "total": total}
    if "from_" in fields:
        fields["from"] = fields.pop("from_")
    obj.update(fields)
    return score(obj)


def codes(r: dict) -> list[str]:
    return [s["code"] for s in r["steps"]]


@pytest.mark.parametrize(("won_by", "fields", "expect", "payouts"), [
    ("stock", {}, 18, [0, 18, 0]),
    ("self_draw", {}, 36, [0, 36, 0]),
    ("discard", {"from_": 2}, 28, [0, 28, -18]),  # the discarder loses the score less the +10
])
def test_hunan_section_8_by_total(won_by, fields, expect, payouts):
    r = by_total("hunan", 18, won_by, **fields)
    assert (r["winning"], r["score"], r["payouts"]) == (True, expect, payouts)
    assert r["entered_by"] == "total" and r["total"] == r["points"] == 18
    assert r["groups"] == [] and r["specials"] == [] and r["transfers"] == []


@pytest.mark.parametrize("rules", ["guangxi", "guilin"])
@pytest.mark.parametrize("won_by", ["stock", "self_draw", "discard"])
def test_total_matches_the_cards_outside_hunan(rules, won_by):
    """The same 18 typed as a total scores as the laid-out cards do."""
    fields = {"from_": 2} if won_by == "discard" else {}
    cards = score(layout(L1, rules, won_by=won_by, **fields))
    total = by_total(rules, 18, won_by, **fields)
    for key in ("winning", "points", "score", "payouts", "transfers", "specials"):
        assert total[key] == cards[key], key
    if rules == "guilin":
        assert (total["zi"], total["xing"], total["fan"]) == (cards["zi"], cards["xing"], cards["fan"])


@pytest.mark.parametrize(("won_by", "total", "expect", "source", "how"), [
    ("stock", 30, 60, "thirty", "held"),
    ("self_draw", 30, 70, "thirty", "double_capped"),  # normal 60, special 60 + 10
    ("self_draw", 60, 110, "thirty", "double_capped"),  # capped doubling: 100 + 10, not 120
    ("discard", 45, 100, "thirty", "discard"),  # 90 + 10 beats 55
    ("self_draw", 29, 58, "normal", "double"),
    ("stock", 15, 15, "normal", "held"),
])
def test_hunan_thirty_rule_and_capped_doubling(won_by, total, expect, source, how):
    fields = {"from_": 2} if won_by == "discard" else {}
    r = by_total("hunan", total, won_by, **fields)
    assert r["score"] == expect
    steps = {s["code"]: s for s in r["steps"]}
    assert steps["score"] == {"code": "score", "value": expect, "from": source}
    assert steps["normal"]["how"] == how
    if source == "thirty":
        assert [s["id"] for s in r["specials"]] == ["thirty"]


def test_hunan_piaofu_wins_below_the_minimum():
    assert by_total("hunan", 0)["score"] == 30
    r = by_total("hunan", 0, "self_draw")
    assert r["score"] == 40 and [s["id"] for s in r["specials"]] == ["piaofu"]
    assert {"code": "bonus", "value": 10, "on": "piaofu"} in r["steps"]
    assert by_total("hunan", 0, options={"piao": 100})["score"] == 100


def test_hunan_below_the_minimum_is_not_a_win():
    r = by_total("hunan", 14)
    assert r["winning"] is False and r["reason"]["code"] == "below_minimum"
    assert r["payouts"] == [0, 0, 0] and r["score"] == 0
    assert by_total("hunan", 19, players=2, winner=1)["winning"] is False  # 20 with two players


def test_hunan_plus_ten_option():
    r = by_total("hunan", 18, "self_draw", options={"self_draw": "plus_ten"})
    assert r["score"] == 28
    assert {"code": "normal", "value": 28, "how": "plus_ten"} in r["steps"]


def test_hunan_four_players_idle_and_discarder():
    # dealer 0, so seat 2 sits out as 数审
    r = by_total("hunan", 16, "discard", players=4, winner=1, from_=3)
    assert r["score"] == 26 and r["payouts"] == [0, 26, 10, -16]
    assert {"code": "idle", "seat": 2, "value": 10, "of": 26} in r["steps"]
    assert {"code": "discarder", "seat": 3, "value": -16} in r["steps"]


def test_hunan_difu_and_tianfu_are_told_by_how_won():
    r = by_total("hunan", 18, "discard", players=4, winner=1, from_=0, first_discard=True)
    assert r["score"] == 110 and r["payouts"] == [-100, 110, 60, 0]
    assert r["specials"][0]["id"] == "difu"
    r = by_total("hunan", 18, "dealt", winner=0)
    assert r["score"] == 110 and r["payouts"] == [110, 0, 0]
    assert [s["id"] for s in r["specials"]] == ["tianfu"]


def test_hunan_every_total_keeps_the_payout_rule():
    for total in range(0, 73):
        for won_by in ("stock", "self_draw", "discard"):
            fields = {"from_": 2} if won_by == "discard" else {}
            r = by_total("hunan", total, won_by, **fields)
            if not r["winning"]:
                assert total < 15 and total != 0
                continue
            assert r["payouts"][1] == r["score"]
            assert r["payouts"][2] == (-(r["score"] - 10) if won_by == "discard" else 0)
            assert r["score"] <= 110


def test_guangxi_steps_say_who_pays():
    r = by_total("guangxi", 20, "discard", from_=2)
    assert r["payouts"] == [0, 40, -40]
    assert r["steps"][-1] == {"code": "pay", "value": 40, "seats": [2], "times": 2}
    r = by_total("guangxi", 20, "dealt", winner=0)
    assert r["score"] == 40 and [s["id"] for s in r["specials"]] == ["tianhu"]
    assert by_total("guangxi", 14)["winning"] is False


def test_guilin_typed_xing_and_fan():
    r = by_total("guilin", 18, "self_draw", xing=2)
    assert (r["zi"], r["xing"], r["fan"], r["score"]) == (3, 2, 2, 10)
    assert r["payouts"] == [-10, 20, -10]
    r = by_total("guilin", 18, "discard", from_=2)
    assert r["payouts"] == [0, 6, -6] and r["steps"][-1]["times"] == 2
    r = by_total("guilin", 18, "self_draw", options={"fan_as_zi": True})
    assert r["score"] == 4 and {"code": "fan", "value": 1, "items": ["zimo"], "as_zi": True} in r["steps"]
    assert by_total("guilin", 19, options={"minimum": 15})["zi"] == 2


def test_steps_in_order_for_a_hunan_discard():
    r = by_total("hunan", 18, "discard", from_=2)
    assert codes(r) == ["points", "minimum", "normal", "score", "discarder"]


@pytest.mark.parametrize(("extra", "code", "words"), [
    ({"total": "18"}, "bad_input", "whole number"),
    ({"total": True}, "bad_input", "whole number"),
    ({"total": -1}, "bad_total", "0 or more"),
    ({"total": 73}, "bad_total", "at most 72 福 (six 提 of big cards (12 each) and a pair)"),
    ({"total": 80, "rules": "guangxi"}, "bad_total", "at most 72 油 (six 龙"),
    ({"total": 10**40, "rules": "guilin"}, "bad_total", "at most 72 胡 (six 扫穿"),
    ({"won_by": "dealt", "winner": 1}, "dealt_not_dealer", "a total cannot express an instant win"),
    ({"hand": ["x1"]}, "total_with_cards", "'hand'"),
    ({"groups": [{"cards": ["x1", "x2", "x3"]}]}, "total_with_cards", "'groups'"),
    ({"xing": 2}, "bad_total", "Guilin"),
    ({"winner": 7}, "bad_seat", "out of range"),
    ({"surprise": 1}, "unknown_field", "surprise"),
])
def test_bad_total_inputs_name_the_problem(extra, code, words):
    obj = {"rules": "hunan", "players": 3, "winner": 1, "won_by": "stock", "total": 18, **extra}
    with pytest.raises(ZipaiError) as exc:
        score(obj)
    assert exc.value.code == code and words in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_score_total_refuses_a_non_object():
    with pytest.raises(InputError, match="JSON object"):
        score_total([18])


def test_zipai_score_prints_a_total(tmp_path, capsys):
    from zipai.engine.cli import main

    f = tmp_path / "hand.json"
    f.write_text('{"rules": "hunan", "players": 4, "winner": 1, "won_by": "discard", "from": 3, '
                 '"total": 16}', encoding="utf-8")
    assert main([str(f)]) == 0
    out = capsys.readouterr().out
    assert "entered by total: 16 福" in out and "seat 3: -16" in out and "seat 2: +10" in out
    f.write_text('{"rules": "hunan", "winner": 1, "won_by": "stock", "total": 99}', encoding="utf-8")
    assert main([str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["zipai score: total 99 is more than seven groups make in hunan: at most 72 福 "
                   "(six 提 of big cards (12 each) and a pair)"]
