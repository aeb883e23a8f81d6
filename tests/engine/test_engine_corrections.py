"""The rules corrections of 2026-12 (rules version 2) as golden hands read from data.

Each hand in ``golden/rules_2026_12.toml`` quotes the seed line it follows; where version 1
paid otherwise, the same hand under ``rules_version = 1`` must still pay what it paid, so a
ledger replays an old evening unchanged.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import layout

from zipai.engine import RulesError, get_rules, score
from zipai.engine.variants.hunan import idle_share

HANDS: list[dict[str, Any]] = tomllib.loads(
    (Path(__file__).parent / "golden" / "rules_2026_12.toml").read_text(encoding="utf-8"))["hand"]


def _input(h: dict[str, Any], version: int | None = None) -> dict[str, Any]:
    fields = {k: h[k] for k in ("players", "winner", "from") if k in h}
    options = dict(h.get("options", {}))
    if version is not None:
        options["rules_version"] = version
    if options:
        fields["options"] = options
    return layout(h["text"], h["rules"], won_by=h["won_by"], **fields)


@pytest.mark.parametrize("h", HANDS, ids=[h["id"] for h in HANDS])
def test_golden_hand(h: dict[str, Any]) -> None:
    r = score(_input(h))
    assert r["winning"] is h["winning"], h["seed"]
    if not h["winning"]:
        assert r["reason"]["code"] == h["code"]
        assert r["payouts"] == [0] * len(r["payouts"])
        return
    assert (r["points"], r["score"], r["payouts"]) == (h["points"], h["score"], h["payouts"]), h["seed"]
    if "quad" in h:
        quad = next(g for g in r["groups"] if g.get("winning_card"))
        assert quad["kind"] == "quad" and quad["state"] == h["quad"]


@pytest.mark.parametrize("h", [h for h in HANDS if "v1" in h], ids=[h["id"] for h in HANDS if "v1" in h])
def test_rules_version_1_pays_as_before(h: dict[str, Any]) -> None:
    r = score(_input(h, version=1))
    old = h["v1"]
    if old == "not_seven_groups":
        assert r["winning"] is False and r["reason"]["code"] == old
    elif isinstance(old, int):
        assert r["winning"] is True and r["points"] == old
    else:
        assert r["payouts"] == old


def test_the_discarded_card_goes_into_the_run_beside_the_peng() -> None:
    h = next(h for h in HANDS if h["id"].startswith("a discard that cannot join"))
    r = score(_input(h))
    marked = [g for g in r["groups"] if g.get("winning_card")]
    assert [g["cards"] for g in marked] == [["d4", "d5", "d6"]]
    peng = next(g for g in r["groups"] if g["cards"] == ["d5", "d5", "d5"])
    assert peng["state"] == "open" and peng["kind"] == "triple"


@pytest.mark.parametrize(("score_", "half"), [(0, 0), (10, 10), (15, 10), (18, 10), (26, 10), (29, 10),
                                             (30, 20), (36, 20), (110, 60), (100, 50), (70, 40)])
def test_idle_share_is_half_rounded_to_tens_halves_up(score_: int, half: int) -> None:
    assert idle_share(score_) == half


def test_rules_version_is_an_option_of_every_rule_set() -> None:
    for preset in ("hunan", "guangxi", "guilin"):
        assert get_rules(preset).options.rules_version == 3
        assert get_rules(preset, {"rules_version": 1}).options.rules_version == 1
        assert get_rules(preset, {"rules_version": 2}).options.rules_version == 2
    with pytest.raises(RulesError, match="rules_version"):
        get_rules("hunan", {"rules_version": 4})
    with pytest.raises(RulesError, match="rules_version"):
        get_rules("hunan", {"rules_version": [2]})
    r = score(layout("d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8"))
    assert r["rules"]["options"]["rules_version"] == 3


# ---------------------------------------------------------------- the winning card's place

L1 = "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8"


def test_a_discard_win_without_the_winning_card_says_where_it_matters() -> None:
    r = score(layout(L1, won_by="discard", from_=2))
    assert r["score"] == 28  # scored as if every card were held: x9x9x9 a 坎
    assert r["winning_card_matters"] == ["x9"]
    placed = score(layout(L1.replace("x9x9x9", "x9!x9x9"), won_by="discard", from_=2))
    assert placed["score"] == 26 and "winning_card_matters" not in placed


@pytest.mark.parametrize(("won_by", "text"), [
    ("self_draw", L1), ("dealt", "| d5d5d5 x10x10x10 x1x2x3 x4x5x6 d2d7d10 x9x9x9 d8d8x8")])
def test_the_winning_card_matters_only_when_it_came_from_another_player(won_by: str, text: str) -> None:
    assert "winning_card_matters" not in score(layout(text, won_by=won_by, winner=0))


def test_a_winning_card_that_changes_nothing_is_not_asked_for() -> None:
    # no card held three times and none the fourth of a table triple: no placement matters
    text = "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x7x8x9 d8d8x8"
    r = score(layout(text, won_by="stock", options={"minimum": 10}))
    assert r["winning"] and "winning_card_matters" not in r


def test_the_fourth_of_a_table_triple_matters_when_it_alone_makes_the_win() -> None:
    text = "x5x5x5 d1d2d3 | x5 x2x7x10 x9x9x9 d8d8x8 d4d5d6 x1x1"
    r = score(layout(text, won_by="stock"))
    assert r["winning"] is False and r["winning_card_matters"] == ["x5"]


# ---------------------------------------------------------------- the working

def _codes(r: dict[str, Any]) -> list[tuple[str, int]]:
    return [(s["code"], s["value"]) for s in r["steps"]]


def test_hunan_discard_working() -> None:
    r = score(layout(L1, won_by="discard", from_=3, players=4, dealer=0, winner=1))
    assert _codes(r) == [("points", 18), ("minimum", 15), ("normal", 28), ("score", 28),
                         ("discarder", -18), ("idle", 10)]
    assert r["steps"][2]["how"] == "discard" and r["steps"][4]["seat"] == 3
    assert r["steps"][5] == {"code": "idle", "value": 10, "seat": 2, "of": 28}


def test_hunan_special_working_names_the_special_and_its_bonus() -> None:
    text = "x4x5x6 x6x7x8 d2d3d4 | d5d6d7 x8x9x10 d8d9d10 x3x3d3"
    r = score(layout(text, won_by="self_draw"))
    assert _codes(r) == [("points", 0), ("minimum", 15), ("special", 30), ("normal", 0),
                         ("bonus", 10), ("score", 40)]
    assert r["steps"][2]["id"] == "piaofu" and r["steps"][5]["from"] == "piaofu"


def test_hunan_capped_self_draw_working() -> None:
    r = score(layout("~d5d5d5d5 ~d9d9d9d9 | d8d8d8d8 d4d4d4d4 d1d2d3 d2d7d10 x1x1", won_by="self_draw"))
    normal = next(s for s in r["steps"] if s["code"] == "normal")
    assert normal == {"code": "normal", "value": 100, "how": "double_capped"}
    assert r["steps"][-1] == {"code": "score", "value": 110, "from": "thirty"}


def test_guangxi_discard_working() -> None:
    r = score(layout(L1, "guangxi", won_by="discard", from_=2))
    assert r["steps"][-1] == {"code": "pay", "value": 36, "seats": [2], "times": 2}


def test_guilin_working() -> None:
    r = score(layout(L1, "guilin", won_by="self_draw", xing=["x9"]))
    assert _codes(r) == [("points", 18), ("minimum", 10), ("zi", 3), ("xing", 4), ("fan", 2),
                         ("score", 14), ("pay", 14)]
    assert r["steps"][4]["items"] == ["zimo"] and r["steps"][-1]["seats"] == [0, 2]


def test_a_hand_below_the_minimum_shows_the_minimum_it_missed() -> None:
    r = score(layout(L1, "guangxi", options={"minimum": 20}))
    assert r["winning"] is False
    assert r["steps"][1] == {"code": "minimum", "value": 20, "reached": False}
