"""Cards, groups, notation and rule-set options: parsing, printing, errors."""

from __future__ import annotations

import pytest

from zipai.engine import (
    ALL_CARDS,
    Card,
    CardError,
    Group,
    GroupError,
    RulesError,
    get_rules,
    load_rules_file,
    score,
)
from zipai.engine.notation import format_layout, parse_layout


@pytest.mark.parametrize("card", ALL_CARDS, ids=str)
def test_card_round_trips_through_ascii_and_chinese(card):
    assert Card.parse(str(card)) is card
    assert Card.parse(card.chinese()) is card
    assert Card.parse(card.chinese(traditional=True)) is card


@pytest.mark.parametrize(("text", "ascii_"), [
    ("貳", "d2"), ("贰", "d2"), ("叁", "d3"), ("叄", "d3"), ("參", "d3"), ("陸", "d6"), ("陆", "d6"),
    ("小三", "x3"), ("大三", "d3"), ("大叁", "d3"), ("X7", "x7"), (" d10 ", "d10"),
])
def test_card_variant_forms(text, ascii_):
    assert str(Card.parse(text)) == ascii_


@pytest.mark.parametrize("bad", ["x0", "x11", "d", "q5", "", "十一"])
def test_unknown_card_is_a_value_error(bad):
    with pytest.raises(CardError) as e:
        Card.parse(bad)
    assert isinstance(e.value, ValueError)


def test_red_cards_are_2_7_10_in_both_forms():
    assert sorted(str(c) for c in ALL_CARDS if c.is_red) == ["d10", "d2", "d7", "x10", "x2", "x7"]


@pytest.mark.parametrize(("text", "kind"), [
    ("x4x5x6", "run"), ("d8d9d10", "run"), ("x1x2x3", "123"), ("d1d2d3", "123"),
    ("x2x7x10", "2710"), ("贰柒拾", "2710"), ("x8x8d8", "mixed"), ("x8d8d8", "mixed"),
    ("d5d5d5", "triple"), ("x9x9x9x9", "quad"), ("x3x3", "pair"),
])
def test_group_kinds(text, kind):
    assert Group.parse(text).kind.value == kind


@pytest.mark.parametrize("bad", ["x4x5d6", "x9x10x1", "x1x2", "x2x7d10", "x8d8", "x1x1x1x1x1", "x5"])
def test_non_groups_are_errors(bad):
    with pytest.raises(GroupError):
        Group.parse(bad)


def test_group_names_by_region():
    conc = Group.parse("~d5d5d5")
    assert [conc.name(r) for r in ("hunan", "guangxi", "guilin")] == ["坎", "罩", "扫"]
    quad = Group.parse("x5x5x5x5")
    assert [quad.name(r) for r in ("hunan", "guangxi", "guilin")] == ["跑", "开招", "开舵"]
    assert Group.parse("d2d7d10").name(traditional=True) == "貳柒拾"


def test_notation_round_trip():
    text = "d5d5d5 ~x10x10x10 x1x2x3 | x4 x5 x6 x8 x9! x9 x9 d2 d7 d8 d8 d10"
    lay = parse_layout(text)
    assert format_layout(lay.groups, lay.hand, lay.winning_card) == text
    assert parse_layout("伍伍伍 | 四五六").hand == tuple(Card.parse(c) for c in "四五六")


def test_rules_presets_and_overrides():
    assert get_rules("guilin").minimum(3) == 10
    assert get_rules("hunan").minimum(2) == 20
    assert get_rules("hunan", {"minimum": 18}).minimum(2) == 18
    assert get_rules("guilin", {"xing": ["down", "same"]}).options.xing == ("same", "down")


@pytest.mark.parametrize(("rules", "options", "message"), [
    ("hunan", {"minumum": 15}, "unknown option 'minumum'"),
    ("hunan", {"minimum": "15"}, "'minimum' must be a whole number"),
    ("guangxi", {"minimum": 18}, "must be one of"),
    ("guangxi", {"piao": 100}, "does not apply to guangxi"),
    ("hunan", {"self_draw": "triple"}, "'self_draw'"),
    ("guilin", {"xing": "up"}, "'xing' must be a list"),
    ("guilin", {"fan_as_zi": 1}, "'fan_as_zi' must be true or false"),
    ("guangxi", {"tianhu_multiplier": 0}, "'tianhu_multiplier' must be a whole number from 1 to 10"),
    ("hunan", {"dealer_rotation": "random"}, "'dealer_rotation'"),
])
def test_bad_options_name_the_key(rules, options, message):
    with pytest.raises(RulesError, match=message):
        get_rules(rules, options)


def test_house_rules_toml(tmp_path, make_layout):
    f = tmp_path / "house.toml"
    f.write_text('preset = "hunan"\n[options]\nself_draw = "plus_ten"\nminimum = 18\n', encoding="utf-8")
    r = load_rules_file(f)
    assert r.name == "hunan" and r.options.self_draw == "plus_ten" and r.minimum(3) == 18
    L1 = "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8"
    # the CLI-style rules argument wins over the object's
    assert score(make_layout(L1, "guangxi", won_by="self_draw"), rules=r)["score"] == 28


@pytest.mark.parametrize(("content", "message"), [
    ('preset = "mahjong"\n', "'preset'"),
    ('preset = "hunan"\ncolour = 1\n', "unknown key 'colour'"),
    ('preset = "hunan"\n[options]\npiao = 50\n', "'piao' must be 30 or 100"),
    ("preset = \n", "not valid TOML"),
])
def test_bad_house_rules_files(tmp_path, content, message):
    f = tmp_path / "house.toml"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(RulesError, match=message):
        load_rules_file(f)


def test_missing_rules_file():
    with pytest.raises(RulesError, match="no such file"):
        load_rules_file("/nonexistent/house.toml")
