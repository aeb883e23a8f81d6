"""Rule sets as types: the registry, each region's facts, the typed result, and a region
added by one class (here a test-only one) that the engine and the ledger score through."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from zipai.engine import (
    Group,
    Options,
    Result,
    RulesError,
    UnknownVariant,
    Variant,
    get_rules,
    get_variant,
    register,
    score,
    score_hand,
)
from zipai.engine.bench import bench_set
from zipai.engine.groups import Kind, State
from zipai.engine.scoring import SILENT, Context, Outcome, Working, below_minimum, pay_each
from zipai.engine.variants import Names, Special, Win, find_special, region_names, unregister, variant_names
from zipai.scorer import Ledger, LedgerError


def test_the_registry_finds_each_region_by_name_or_alias() -> None:
    assert variant_names()[:3] == ("hunan", "guangxi", "guilin")
    for name, alias in (("hunan", "湖南"), ("guangxi", "廣西"), ("guangxi", "广西"), ("guilin", "桂林"),
                        ("guilin", " Guilin ")):
        assert get_variant(alias) is get_variant(name)
        assert get_variant(alias).name == name


def test_an_unknown_rule_set_is_a_value_error_naming_it_and_the_known_ones() -> None:
    with pytest.raises(UnknownVariant) as info:
        get_variant("yunnan")
    assert isinstance(info.value, ValueError) and isinstance(info.value, RulesError)
    assert "'yunnan'" in str(info.value) and "hunan, guangxi, guilin" in str(info.value)
    with pytest.raises(UnknownVariant):
        get_variant(7)  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "unit", "seats", "minimums", "title"), [
    ("hunan", "福", (2, 4), [None, 15, 20], "湖南字牌"),
    ("guangxi", "油", (2, 3), [15, 20, 25, 30], "广西大字牌"),
    ("guilin", "胡", (2, 3), [10, 15], "桂林字牌"),
])
def test_each_region_states_its_facts(name: str, unit: str, seats: tuple[int, int],
                                      minimums: list[int | None], title: str) -> None:
    v = get_variant(name)
    assert (v.unit, v.seats, v.minimum_choices(), v.title) == (unit, seats, minimums, title)
    assert get_rules(name).options == v.defaults
    assert {"minimum", "dealer_rotation", "rules_version"} <= v.option_keys


def test_the_idle_seat_sits_out_only_four_hunan_players() -> None:
    hunan, guangxi = get_variant("hunan"), get_variant("guangxi")
    assert [hunan.idle(4, d) for d in range(4)] == [2, 3, 0, 1]
    assert hunan.idle(3, 0) is None and guangxi.idle(3, 0) is None


def test_the_minimum_follows_the_seats_in_hunan_and_the_house_elsewhere() -> None:
    hunan = get_variant("hunan")
    assert [hunan.minimum(n, Options()) for n in (2, 3, 4)] == [20, 15, 15]
    assert hunan.minimum(3, Options(minimum=25)) == 25
    assert get_rules("guangxi", {"minimum": 25}).minimum(3) == 25
    with pytest.raises(RulesError, match=r"option 'minimum' for guangxi must be one of \(15, 20, 25, 30\)"):
        get_rules("guangxi", {"minimum": 16})
    with pytest.raises(RulesError, match="option 'piao' does not apply to guilin"):
        get_rules("guilin", {"piao": 100})


def test_group_names_and_points_are_the_regions() -> None:
    red_open = Group.parse("x2x2x2")
    assert [get_variant(r).group_points(red_open) for r in ("hunan", "guangxi", "guilin")] == [1, 3, 1]
    quad = Group.parse("~d3d3d3d3")
    assert [Group.name(quad, r) for r in ("hunan", "guangxi", "guilin")] == ["提", "龙", "扫穿"]
    assert get_variant("guangxi").group_name(quad, traditional=True) == "龍"


# ------------------------------------------------------------------ the typed result

HAND = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock",
        "groups": [{"cards": ["d5", "d5", "d5"], "state": "open"},
                   {"cards": ["x10", "x10", "x10"], "state": "concealed"},
                   {"cards": ["x1", "x2", "x3"], "state": "open"}],
        "hand": "x4 x5 x6 d2 d7 d10 x9 x9 x9 d8 d8 x8".split()}


def test_score_hand_is_typed_and_its_json_is_score() -> None:
    r = score_hand(HAND)
    assert isinstance(r, Result) and r.winning and r.variant is get_variant("hunan")
    assert (r.points, r.score, r.payouts) == (18, 18, (0, 18, 0))
    assert [g.name for g in r.groups] == ["碰", "坎", "一二三", "坎", "顺子", "半边", "贰柒拾"]
    assert sum(g.points for g in r.groups) == r.points
    assert r.to_json() == score(HAND)
    with pytest.raises(AttributeError):
        r.score = 0  # type: ignore[misc]


def test_to_json_keeps_the_contracts_key_order_on_every_path() -> None:
    laid = score(HAND)
    assert list(laid)[:6] == ["rules", "winning", "groups", "points", "text", "specials"]
    assert list(laid)[-3:] == ["steps", "alternatives", "winning_card_matters"]
    none = score({**HAND, "hand": [*HAND["hand"][:-1], "d1"]})
    assert list(none) == ["rules", "winning", "reason", "groups", "points", "specials", "score", "payouts",
                          "transfers", "alternatives", "steps"]
    total = score({"rules": "guilin", "players": 3, "winner": 1, "won_by": "self_draw", "total": 18})
    assert list(total)[-7:] == ["fan", "payouts", "transfers", "alternatives", "steps", "entered_by", "total"]


def test_to_json_gives_fresh_objects_each_call() -> None:
    r = score_hand(HAND)
    a = r.to_json()
    a["groups"][0]["cards"].append("x1")
    a["groups"][0]["name"] = "?"
    a["steps"][0]["value"] = -1
    assert r.to_json() == score(HAND)


@pytest.mark.parametrize("obj", bench_set(60, seed=5))
def test_the_typed_result_agrees_with_its_json(obj: dict[str, Any]) -> None:
    r = score_hand(obj)
    out = json.loads(json.dumps(r.to_json()))
    assert (out["winning"], out["points"], out["score"], out["payouts"]) == (
        r.winning, r.points, r.score, list(r.payouts))
    assert [g["name"] for g in out["groups"]] == [g.name for g in r.groups]
    assert len(out["alternatives"]) == len(r.alternatives)


# ------------------------------------------------------------------ a region added by one class

class Tiny(Variant):
    """A test-only region: any layout of 5 points or more wins; every other seat pays the
    points, doubled on a self-draw (the 'double' special)."""

    name = "tiny"
    aliases = ("小",)
    title = "小字牌"
    unit = "分"
    seats = (2, 3)
    minimums = (5, 8)
    defaults = Options(minimum=5)
    group_names = MappingProxyType({
        (Kind.RUN, None): "串", (Kind.MIXED, None): "混", (Kind.PAIR, None): "双",
        (Kind.TRIPLE, State.OPEN): "明三", (Kind.TRIPLE, State.CONCEALED): "暗三",
        (Kind.QUAD, State.OPEN): "明四", (Kind.QUAD, State.CONCEALED): "暗四",
    })
    names = Names("小字牌（分）", "小字牌（分）", "Tiny (分)")
    specials = (Special("double", Names("翻倍", "翻倍", "Doubled"), 0,
                        lambda w: 2 if w.ctx.won_by == "self_draw" else None),)

    def settle(self, base: int, ctx: Context, options: Options, *, reds: int = 0,
               cards: Sequence[int] = (), xing: int | None = None, working: Working = SILENT) -> Outcome:
        minimum = self.minimum(ctx.players, options)
        working("points", base)
        working("minimum", minimum, reached=base >= minimum)
        if base < minimum:
            return below_minimum(base, minimum, self.unit)
        applied = self.applied(Win(base, minimum, ctx, options))
        share = base
        for special, times in applied:
            share *= times
            working("special", share, id=special.id, times=times)
        payouts, transfers = pay_each(ctx, share)
        working("score", share)
        return Outcome(True, share, [s.id for s, _ in applied], payouts, transfers)


@pytest.fixture
def tiny() -> Iterator[Variant]:
    register(Tiny)
    try:
        yield get_variant("tiny")
    finally:
        unregister("tiny")
    assert "tiny" not in variant_names()


def test_a_new_region_is_one_class_and_scores_through_the_engine(tiny: Variant) -> None:
    assert get_variant("小") is tiny and get_rules("tiny").minimum(3) == 5
    r = score_hand({**HAND, "rules": "tiny", "won_by": "self_draw"})
    assert r.winning and r.points == 18 and r.score == 36
    assert r.payouts == (-36, 72, -36) and r.transfers == ((0, 1, 36), (2, 1, 36))
    assert [s.name for s in r.specials] == ["翻倍"]
    assert [(s["code"], s["value"]) for s in r.steps] == [("points", 18), ("minimum", 5), ("special", 36),
                                                          ("score", 36)]
    assert [g.name for g in r.groups][:2] == ["明三", "暗三"]
    assert r.to_json()["rules"]["preset"] == "tiny"
    short = score_hand({**HAND, "rules": "tiny", "options": {"minimum": 8}, "hand": HAND["hand"]})
    assert short.winning  # 18 >= 8
    with pytest.raises(RulesError, match="option 'minimum' for tiny must be one of"):
        score_hand({**HAND, "rules": "tiny", "options": {"minimum": 6}})
    with pytest.raises(ValueError, match="tiny is played by 2 to 3 players, not 4"):
        score_hand({**HAND, "rules": "tiny", "players": 4})
    total = score_hand({"rules": "tiny", "players": 2, "winner": 0, "won_by": "stock", "total": 7})
    assert (total.score, total.payouts, total.entered_by) == (7, (7, -7), "total")


def test_a_new_region_keeps_a_ledger_without_a_line_of_the_scorer_changed(tiny: Variant,
                                                                           tmp_path: Path) -> None:
    led = Ledger(tmp_path / "l.db")
    s = led.new_session("试", "tiny", ["甲", "乙", "丙"], stake="1", first_dealer=0)
    led.record_hand(s, {k: v for k, v in HAND.items() if k != "rules"} | {"won_by": "self_draw"})
    st = led.state(s)
    assert st.net == [-36, 72, -36] and st.idle is None and not st.plays_rounds
    assert st.dealer == 1  # the winner deals next
    with pytest.raises(LedgerError, match="下夥 penalty is a Guangxi rule"):
        led.adjust(s, offender=0)
    with pytest.raises(LedgerError, match="tiny adjustments must sum to zero"):
        led.adjust(s, reason="x", deltas=[5, 0, 0])
    assert led.settle(s, mode="minimal").points == [-36, 72, -36]


def test_a_new_region_is_named_by_the_app_without_a_line_of_the_app_changed(tiny: Variant) -> None:
    """The app's rule-set labels and special names are the engine's records."""
    from zipai.mobile.i18n import Translator

    assert region_names("tiny") == Names("小字牌（分）", "小字牌（分）", "Tiny (分)")
    assert find_special("double") is tiny.special_by_id["double"]
    assert [Translator(lang)("tiny") for lang in ("zh_Hans", "en")] == ["小字牌（分）", "Tiny (分)"]
    assert Translator("en").special("double") == "Doubled"
    r = score_hand({**HAND, "rules": "tiny", "won_by": "self_draw"}).to_json()
    assert r["specials"] == [{"id": "double", "name": "翻倍"}]


def test_the_built_in_regions_are_named_in_three_scripts_by_their_records() -> None:
    from zipai.mobile.i18n import Translator

    assert [Translator(lang)("guangxi") for lang in ("zh_Hans", "zh_Hant", "en")] == [
        "广西大字牌（油）", "廣西大字牌（油）", "Guangxi (油)"]
    assert [Translator(lang).special("wufu") for lang in ("zh_Hans", "zh_Hant", "en")] == [
        "乌福", "烏福", "乌福 (no red)"]
    assert [s.id for s in get_variant("hunan").specials] == ["difu", "tianfu", "wufu", "hongfu", "piaofu",
                                                             "thirty"]
    assert get_variant("guangxi").instant_specials == ("sanlong", "wukan")
    shared: dict[str, Names] = {}
    for v in (get_variant(n) for n in ("hunan", "guangxi", "guilin")):
        assert [s.order for s in v.specials] == sorted(s.order for s in v.specials)
        for s in v.specials:
            assert shared.setdefault(s.id, s.names) == s.names, s.id  # one id, one name everywhere


def test_a_region_refuses_two_specials_of_one_order() -> None:
    with pytest.raises(RulesError, match="its own id and order"):
        type("Twice", (Tiny,), {"specials": (Special("a", Names("甲", "甲", "a"), 0, lambda w: 1),
                                             Special("b", Names("乙", "乙", "b"), 0, lambda w: 1))})


def test_the_search_keeps_no_working_and_a_recorder_keeps_every_line() -> None:
    ctx = Context(3, 0, 1, "stock")
    hunan = get_variant("hunan")
    working = Working()
    out = hunan.settle(35, ctx, Options(), reds=5, working=working)
    assert out.score == 70 and out.specials == ["thirty"]
    assert [s["code"] for s in working.steps] == ["points", "minimum", "special", "normal", "score"]
    hunan.settle(35, ctx, Options(), reds=5)
    assert SILENT.steps == []
