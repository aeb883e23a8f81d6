"""Rules version 3 (RULINGS section 5, the reread of 2026-12-07) as golden hands read from data,
each quoting its seed line; the same hands under ``rules_version = 2`` still give what they
gave, so a ledger session recorded under version 2 replays unchanged. Also the Hunan house
options that make the project's readings a table's choice."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import layout

from zipai.engine import ZipaiError, get_rules, score

HANDS: list[dict[str, Any]] = tomllib.loads(
    (Path(__file__).parent / "golden" / "rules_v3.toml").read_text(encoding="utf-8"))["hand"]
ENGINE = [h for h in HANDS if h["expect"] != "penalty"]


def _input(h: dict[str, Any], version: int | None = None) -> dict[str, Any]:
    fields = {k: h[k] for k in ("winner", "from") if k in h}
    if version is not None:
        fields["options"] = {"rules_version": version}
    if "total" in h:
        return {"rules": h["rules"], "players": 3, "dealer": 0, "winner": 1, "won_by": h["won_by"],
                "total": h["total"], **fields}
    return layout(h["text"], h["rules"], won_by=h["won_by"], **fields)


@pytest.mark.parametrize("h", ENGINE, ids=[h["id"] for h in ENGINE])
def test_golden_hand(h: dict[str, Any]) -> None:
    if "code" in h:
        with pytest.raises(ZipaiError) as exc:
            score(_input(h))
        assert exc.value.code == h["code"] and h["words"] in str(exc.value), h["seed"]
        assert len(str(exc.value).splitlines()) == 1
        return
    r = score(_input(h))
    assert r["winning"] is True, h["seed"]
    assert (r["points"], r["score"], r["payouts"]) == (h["points"], h["score"], h["payouts"]), h["seed"]
    for key in ("zi", "fan"):
        if key in h:
            assert r[key] == h[key]
    if "quad" in h:
        quad = next(g for g in r["groups"] if g.get("winning_card"))
        assert quad["kind"] == "quad" and quad["state"] == h["quad"]
        assert "winning_card_matters" not in r  # the seed places it: nothing to ask


@pytest.mark.parametrize("h", [h for h in HANDS if "v2" in h], ids=[h["id"] for h in HANDS if "v2" in h])
def test_rules_version_2_gives_what_it_gave(h: dict[str, Any]) -> None:
    r = score(_input(h, version=2))
    if isinstance(h["v2"], str):
        assert r["winning"] is False and r["reason"]["code"] == h["v2"]
    else:
        assert r["winning"] is True and r["payouts"] == h["v2"]


def test_the_marked_card_scores_as_the_unmarked_one() -> None:
    text = "~x5x5x5 d1d2d3 | x5 d5 d5 x2x7x10 x9x9x9 d8d8x8 x6x7x8"
    plain = score(layout(text, won_by="self_draw"))
    marked = score(layout(text.replace("| x5 ", "| x5! "), won_by="self_draw"))
    assert plain["payouts"] == marked["payouts"] == [0, 42, 0]
    assert plain["text"] == marked["text"]


def test_a_stock_win_still_asks_for_the_fourth() -> None:
    # another player's card may join the 碰 or not: only the player can say (RULINGS section 5)
    r = score(layout("x5x5x5 d1d2d3 | x5 x2x7x10 x9x9x9 d8d8x8 d4d5d6 x1x1", won_by="stock"))
    assert r["winning"] is False and r["winning_card_matters"] == ["x5"]


TWO_FOURTHS = "x5x5x5 d9d9d9 | x5 d9 x9x9 d5d5 x1x2x3 d2d7d10 x6x7x8"


def test_two_held_fourths_self_drawn_name_the_one_whose_place_pays_otherwise() -> None:
    """Only one of two held fourths can be the card just drawn: the claim takes the better
    (d9 onto its 碰: 19 福) and names x5, whose place would pay 18."""
    r = score(layout(TWO_FOURTHS, won_by="self_draw"))
    assert (r["points"], r["score"]) == (19, 38)
    assert r["winning_card_matters"] == ["x5"]
    other = score(layout(TWO_FOURTHS.replace("| x5 ", "| x5! "), won_by="self_draw"))
    assert (other["points"], other["score"]) == (18, 36)
    assert "winning_card_matters" not in score(layout(TWO_FOURTHS, won_by="self_draw",
                                                      options={"rules_version": 2}))


def test_zipai_score_refuses_a_dealt_hand_with_open_groups_in_one_line(capsys: Any) -> None:
    from zipai.engine.cli import main

    rc = main(["--text", "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8",
               "--rules", "guangxi", "--won-by", "dealt", "--winner", "0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "groups[0] 碰 d5d5d5 lies open" in err[0]


def test_zipai_score_help_tells_the_total_path() -> None:
    from zipai.engine.cli import build_parser

    out = " ".join(build_parser().format_help().split())
    assert '"total"' in out and "entered_by" in out and "乌福" in out and "instant" in out


# ---------------------------------------------------------------- the house options of the readings

L1 = "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8"
WUFU_LOW = "d5d5d5 ~x9x9x9 x1x1d1 | x4x5x6 d3d4d5 x8x8d8 d6d6x6"  # 6 福, no red card


def test_specials_below_minimum_is_a_house_option() -> None:
    assert score(layout(WUFU_LOW, won_by="stock"))["score"] == 100  # 乌福 below the minimum
    r = score(layout(WUFU_LOW, won_by="stock", options={"specials_below_minimum": False}))
    assert r["winning"] is False and r["reason"]["code"] == "below_minimum"


def test_thirty_plus_ten_on_self_draw_is_a_house_option() -> None:
    text = "~d5d5d5d5 ~d9d9d9d9 | d8d8d8d8 d4d4d4d4 d1d2d3 d2d7d10 x1x1"  # 60 福
    assert score(layout(text, won_by="self_draw"))["score"] == 110
    assert score(layout(text, won_by="self_draw", options={"thirty_plus_ten": False}))["score"] == 100
    # the discard's +10 is not this option's
    assert score(layout(text, won_by="discard", from_=2, options={"thirty_plus_ten": False}))["score"] == 110


def test_idle_rounding_is_a_house_option() -> None:
    text = L1.replace("x9x9x9", "x9!x9x9")  # 26 福 by discard, four players: 数审 is seat 2
    r = score(layout(text, won_by="discard", from_=3, players=4))
    assert r["payouts"] == [0, 26, 10, -16]
    r = score(layout(text, won_by="discard", from_=3, players=4, options={"idle_rounding": "units"}))
    assert r["payouts"] == [0, 26, 13, -16]


@pytest.mark.parametrize(("key", "value"), [("specials_below_minimum", 1), ("thirty_plus_ten", "yes"),
                                            ("idle_rounding", "tenths")])
def test_the_new_options_check_their_values(key: str, value: Any) -> None:
    with pytest.raises(ValueError, match=key):
        get_rules("hunan", {key: value})


def test_the_new_options_are_hunan_only() -> None:
    with pytest.raises(ValueError, match="does not apply to guangxi"):
        get_rules("guangxi", {"idle_rounding": "units"})


def test_an_old_version_keeps_the_old_total_bound() -> None:
    obj = {"rules": "hunan", "players": 3, "winner": 1, "won_by": "stock", "total": 80}
    with pytest.raises(ZipaiError, match="at most 72"):
        score(obj)
    assert score({**obj, "options": {"rules_version": 2}})["score"] == 100
    with pytest.raises(ZipaiError, match="at most 84"):
        score({**obj, "total": 85, "options": {"rules_version": 2}})


def test_a_mark_elsewhere_contradicts_the_drawn_fourth() -> None:
    text = "x5x5x5 d1d2d3 | x5 x2x7x10 x9!x9x9 d8d8x8 d4d5d6 x1x1"
    with pytest.raises(ZipaiError, match="the hand holds x5, the fourth of the table's 碰 x5x5x5") as exc:
        score(layout(text, won_by="self_draw"))
    assert exc.value.code == "drawn_fourth"
    assert score(layout(text, won_by="self_draw", options={"rules_version": 2}))["winning"] is False
    assert score(layout(text, won_by="stock"))["winning"] is False  # another player's: it may lie free


def test_every_rule_set_bounds_a_total_at_six_concealed_big_quads() -> None:
    from zipai.engine.total import MAX_TOTAL, most_points
    from zipai.engine.variants import variants

    assert {most_points(v)[0] for v in variants()} == {MAX_TOTAL} == {6 * 12}
