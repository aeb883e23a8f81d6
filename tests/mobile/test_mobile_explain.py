"""The score explained from the engine's ``steps`` and the 冲百福 working, worded by the app
(no Kivy): every step of the contract has words, in both scripts, and none is English."""

from __future__ import annotations

import re

from zipai.engine import score_hand
from zipai.mobile.explain import explain, round_working, why_not
from zipai.mobile.i18n import LANGS, Translator, error_codes
from zipai.scorer import Round, round_payments

PLAYERS = ("甲", "乙", "丙", "丁")
ENGLISH = re.compile(r"[A-Za-z]{2,}")


def test_hunan_self_draw_special_with_bonus_and_idle() -> None:
    r = {"points": 12, "score": 40, "steps": [
        {"code": "points", "value": 12}, {"code": "minimum", "value": 15, "reached": False},
        {"code": "special", "id": "piaofu", "value": 30},
        {"code": "bonus", "value": 10, "on": "piaofu"},
        {"code": "score", "value": 40, "from": "piaofu"},
        {"code": "idle", "seat": 3, "value": 20, "of": 40}]}
    lines = explain(r, "hunan", PLAYERS, Translator())
    assert lines == ["七组合计 12福", "起胡 15：12不够", "飘福：30（不论起胡）", "飘福另加 10",
                     "得分 40（按飘福）", "丁 数审：40的一半 → +20"]


def test_a_result_just_scored_reads_as_its_stored_row() -> None:
    """The app words the engine's ``Result`` by attribute, and a ledger row's stored JSON of the
    same hand, line for line (L1, RULINGS section 8: won on a discard of x9, then short of 15)."""
    hand = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "discard", "from": 2,
            "winning_card": "x9", "groups": [{"cards": ["d5"] * 3, "state": "open"},
                                             {"cards": ["x10"] * 3, "state": "concealed"},
                                             {"cards": ["x1", "x2", "x3"], "state": "open"}],
            "hand": "x4 x5 x6 d2 d7 d10 x9 x9 x9 d8 d8 x8".split()}
    t = Translator()
    won = score_hand(hand)
    lines = ["七组合计 16福", "起胡 15：16够了", "点炮 +10 → 26", "得分 26（按平胡）",
             "丙 放炮：-16（26减去点炮的奖励10）"]
    assert explain(won, "hunan", PLAYERS[:3], t) == explain(won.to_json(), "hunan", PLAYERS[:3], t) == lines
    short = score_hand({**hand, "options": {"minimum": 30}})  # the minimum's step says the numbers
    assert why_not(short, "福", t) == why_not(short.to_json(), "福", t) == "16福不到起胡30福，不能胡"
    unlaid = score_hand({**hand, "hand": "x4 x5 x7 d2 d7 d10 x9 x9 x9 d8 d8 x8".split()})  # the reason's code
    assert why_not(unlaid, "福", t) == why_not(unlaid.to_json(), "福", t) == "不能胡：这些牌不成七组"


def test_self_draw_doubled_and_capped() -> None:
    t = Translator("zh_Hant")
    steps = [{"code": "normal", "value": 100, "how": "double_capped"}, {"code": "score", "value": 100}]
    assert explain({"steps": steps}, "hunan", PLAYERS, t) == ["自摸 ×2，封頂100 → 100", "得分 100"]


def test_guilin_zi_xing_fan_and_the_discarder_pays_for_all() -> None:
    r = {"steps": [{"code": "points", "value": 16}, {"code": "zi", "value": 4, "step": 3},
                   {"code": "xing", "value": 2}, {"code": "fan", "value": 4, "items": ["zimo", "tianhu"]},
                   {"code": "pay", "value": 24, "seats": [0], "times": 2}]}
    assert explain(r, "guilin", PLAYERS[:3], Translator()) == [
        "七组合计 16胡", "每3胡一子：4子", "醒 2", "番 ×4（自摸、天胡）", "甲 付 24×2 = 48"]
    r["steps"][3] = {"code": "fan", "value": 1, "items": ["zimo"], "as_zi": True}
    assert "番改加子：+1子（自摸）" in explain(r, "guilin", PLAYERS[:3], Translator())


def test_guangxi_pay_each_and_no_steps_from_an_older_engine() -> None:
    r = {"steps": [{"code": "pay", "value": 20, "seats": [0, 2], "times": 1}]}
    assert explain(r, "guangxi", PLAYERS[:3], Translator()) == ["甲、丙 各付 20"]
    old = {"points": 18, "score": 28, "specials": [{"id": "hongfu", "name": "红福"}]}
    assert explain(old, "hunan", PLAYERS[:3], Translator()) == ["七组合计 18福", "红福"]


def test_unknown_steps_stay_off_the_screen_and_nothing_is_english() -> None:
    steps = [{"code": c, "value": 10, "how": h, "seat": 1, "seats": [0], "items": ["zimo"], "of": 20,
              "step": 3, "reached": True, "id": "wufu", "on": "wufu", "from": "wufu"}
             for c, h in (("points", ""), ("minimum", ""), ("special", ""), ("normal", "held"),
                          ("normal", "double"), ("normal", "plus_ten"), ("normal", "discard"),
                          ("bonus", ""), ("score", ""), ("discarder", ""), ("idle", ""), ("zi", ""),
                          ("xing", ""), ("fan", ""), ("pay", ""), ("someday", ""))]
    for lang in LANGS[:2]:
        lines = explain({"steps": steps}, "hunan", PLAYERS, Translator(lang))
        # every step but the unknown one, and the score from a special sets the normal one aside
        assert len(lines) == len(steps) - 1 + 1
        assert not [x for x in lines if ENGLISH.search(x)], lines


def test_round_working_shows_each_payment() -> None:
    totals = [-8, 56, 12]
    rounded, pay = round_payments(totals)
    rnd = Round(1, totals, rounded, pay, 5)
    lines = round_working([rnd, rnd], PLAYERS[:3], Translator())
    assert lines[0] == "第1轮：总分 -8 / +56 / +12 → 取整到十 -10 / +60 / +10"
    assert lines[1] == f"甲：(-10)×2−(60+10) = {pay[0]:+d}" and pay[0] == -90
    assert lines[-3] == f"甲 净输赢 (-90)+(-90) = {2 * pay[0]:+d}"


def test_every_error_code_is_worded_in_chinese() -> None:
    for code in error_codes():
        for lang in LANGS[:2]:
            assert not ENGLISH.search(Translator(lang).error(code)), code
    assert Translator().error("no_such_code") == Translator().error("ledger")


def test_every_ledger_and_engine_code_has_words() -> None:
    """A refusal the ledger or the engine can raise reaches the screen in the app's words."""
    from pathlib import Path

    import zipai.engine
    import zipai.scorer

    found: set[str] = set()
    for pkg in (zipai.scorer, zipai.engine):
        for src in Path(pkg.__file__).parent.glob("*.py"):
            text = src.read_text(encoding="utf-8")
            found |= set(re.findall(r'code(?:=| = )"([a-z_]+)"', text))
    found -= {"usage"}  # the command line's own, never raised to the app
    assert found and found <= error_codes(), sorted(found - error_codes())
