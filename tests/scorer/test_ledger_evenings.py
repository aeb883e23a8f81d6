"""Whole evenings, every number worked out by hand from RULINGS sections 6 and 8
(L1: Hunan stock 18, self-draw 36, discard 28; Guangxi 18 油; Guilin 3 子, 醒 x9 = 4)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from test_ledger_hands import INSTANT_A, INSTANT_B, INSTANT_C, instant, l1, new_ledger

from zipai.scorer import Ledger, LedgerError
from zipai.scorer.settle import balances


def dealers(led: Ledger, ref: object) -> list[int]:
    return [e.dealer for e in led.state(ref).history]


def transfers(res: object) -> list[tuple[int, int, int]]:
    return sorted(res.transfers)  # type: ignore[attr-defined]


def test_hunan_evening_crosses_the_100_line_twice(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("周五湖南", "hunan", ["甲", "乙", "丙"], stake="0.5", first_dealer=0)
    steps = [
        (l1(1, "self_draw"), [0, 36, 0]),
        (l1(2, "discard", 0), [-18, 36, 28]),   # the discarder loses 18, not the +10
        (l1(1, "stock"), [-18, 54, 28]),
        (l1(1, "self_draw"), [-18, 90, 28]),
        (l1(2, "discard", 1), [-18, 72, 56]),
        (None, [-18, 72, 56]),  # 流局
        (l1(2, "self_draw"), [-18, 72, 92]),
        (l1(1, "stock"), [-18, 90, 92]),
    ]
    for obj, totals in steps:
        e = led.record_hand(s, obj) if obj else led.record_draw(s, "荒庄")
        assert e.totals_after == totals
        assert e.round == 1 and e.round_closed is None
    # round 1 reaches 110: -18 → -20, 90, 110; paid 3R − ΣR with ΣR = 180
    e = led.record_hand(s, l1(2, "stock"))
    assert e.round_closed is not None
    assert e.round_closed.totals == [-18, 90, 110]
    assert e.round_closed.rounded == [-20, 90, 110]
    assert e.round_closed.payments == [-240, 90, 150]
    st = led.state(s)
    assert st.round_number == 2 and st.round_totals == [0, 0, 0] and st.net == [-240, 90, 150]
    led.record_hand(s, l1(1, "self_draw"))                       # [0, 36, 0]
    led.record_hand(s, l1(0, "discard", 2))                      # [28, 36, -18]
    e = led.adjust(s, reason="更正", deltas=[7, 0, 3])           # Hunan corrections need not sum to 0
    assert e.totals_after == [35, 36, -15]
    led.record_hand(s, l1(0, "self_draw"))                       # [71, 36, -15]
    e = led.record_hand(s, l1(0, "self_draw"))                   # [107, 36, -15]: the second crossing
    assert e.round_closed is not None
    assert e.round_closed.rounded == [110, 40, -20]               # -15 → -20: halves away from zero
    assert e.round_closed.payments == [200, -10, -190]
    led.record_hand(s, l1(2, "stock"))                            # round 3: [0, 0, 18]
    assert dealers(led, s) == [0, 1, 2, 1, 1, 2, 2, 2, 1, 2, 1, 0, 0, 0, 0]
    st = led.state(s)
    assert st.dealer == 2 and st.net == [-40, 80, -40] and st.round_totals == [0, 0, 18]
    # settling closes round 3: [0, 0, 18] → [0, 0, 20] → paid [-20, -20, 40]
    res = led.settle(s)
    assert res.closing_round is not None and res.closing_round.payments == [-20, -20, 40]
    assert res.points == [-60, 60, 0]
    assert transfers(res) == [(0, 1, 60)]
    assert res.to_dict()["transfers"][0]["money"] == "30.00"
    assert res.locked and led.state(s).locked
    assert [r.number for r in led.state(s).rounds] == [1, 2, 3]
    # pairwise from the rounds: R1 [-20,90,110], R2 [110,40,-20], R3 [0,0,20], netted per pair
    pw = led.settlement(s, "pairwise")
    assert transfers(pw) == [(0, 1, 40), (0, 2, 20), (2, 1, 20)]
    assert balances(pw.transfers, 3) == [-60, 60, 0]


def test_guangxi_evening_self_draw_discard_double_instant_and_xiahuo(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("广西", "guangxi", ["甲", "乙", "丙"], stake=2)
    assert led.record_hand(s, l1(1, "self_draw")).payouts == [-18, 36, -18]
    assert led.record_hand(s, l1(2, "discard", 0)).payouts == [-36, 0, 36]
    # seat 1 has 21 油, seat 2 has 27 油: the higher wins alone
    e = led.record_double_instant(s, [instant(1, INSTANT_A), instant(2, INSTANT_B)])
    assert e.winners == [2] and e.payouts == [-27, -27, 54]
    assert (e.points, e.score, [sp["id"] for sp in e.specials]) == (27, 27, ["wukan"])
    # 21 and 21: both win, the third player pays each
    e = led.record_double_instant(s, [instant(1, INSTANT_A), instant(2, INSTANT_C)])
    assert e.winners == [1, 2] and e.payouts == [-42, 21, 21]
    assert e.score == 21 and len(e.specials) == 2 and e.dealer == 2
    e = led.adjust(s, offender=0)                          # 下夥: pays each other player 15
    assert e.payouts == [-30, 15, 15] and e.reason == "下夥"
    assert led.record_hand(s, l1(0, "stock")).payouts == [36, -18, -18]   # stock counts as 自摸
    st = led.state(s)
    assert st.net == [-117, 27, 90]
    assert dealers(led, s) == [0, 1, 2, 2, 2, 2]  # double with the dealer among winners: dealer stays
    assert st.dealer == 0
    res = led.settle(s, "minimal")
    assert transfers(res) == [(0, 1, 27), (0, 2, 90)]
    assert [p["money"] for p in res.to_dict()["players"]] == ["-234.00", "54.00", "180.00"]
    pw = led.settlement(s, "pairwise")
    assert transfers(pw) == [(0, 1, 36), (0, 2, 81), (1, 2, 9)]


def test_guangxi_per_hand_minimum(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("广西", "guangxi", ["甲", "乙", "丙"])
    with pytest.raises(LedgerError, match="below the minimum of 20"):
        led.record_hand(s, l1(1, "self_draw"), options={"minimum": 20})
    with pytest.raises(LedgerError, match="below the minimum of 25"):
        led.record_hand(s, {**l1(1, "self_draw"), "options": {"minimum": 25}})
    e = led.record_hand(s, l1(1, "self_draw"), options={"minimum": 15})
    assert e.options == {"minimum": 15} and led.state(s).hands == 1


def test_guilin_evening_with_xing_and_fan(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("桂林", "guilin", ["甲", "乙", "丙"])
    assert led.record_hand(s, l1(1, "stock")).payouts == [-3, 6, -3]
    e = led.record_hand(s, l1(1, "self_draw", xing=["x9"]))    # (3 子 + 4 醒) × 2 番
    assert e.payouts == [-14, 28, -14] and e.output["xing"] == 4 and e.output["fan"] == 2
    e = led.record_hand(s, l1(2, "discard", 0, xing=["x9"]))   # discarder pays both shares of 7
    assert e.payouts == [-14, 0, 14]
    assert led.state(s).dealer == 2
    e = led.record_hand(s, l1(0, "discard", 2, xing=["x9"], first_discard=True))  # 地胡: × 2
    assert e.payouts == [28, 0, -28] and [sp["id"] for sp in e.specials] == ["dihu"]
    led.record_hand(s, l1(1, "self_draw"))                      # [-6, 12, -6]
    assert led.state(s).net == [-9, 46, -37]
    res = led.settle(s)
    assert transfers(res) == [(0, 1, 9), (2, 1, 37)]
    assert transfers(led.settlement(s, "pairwise")) == [(0, 1, 23), (2, 0, 14), (2, 1, 23)]


def test_four_player_hunan_with_shushen(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("四人", "hunan", ["甲", "乙", "丙", "丁"])
    assert led.state(s).idle == 2
    e = led.record_hand(s, l1(1, "stock"))
    # 数审 gains half of 18, 四舍五入 to tens: 9 → 10
    assert (e.dealer, e.idle, e.totals_after) == (0, 2, [0, 18, 10, 0])
    led.record_hand(s, l1(2, "self_draw"))                   # dealer 1, 数审 3: [0, 18, 46, 20]
    led.record_hand(s, l1(3, "discard", 1))                  # dealer 2, 数审 0: [10, 0, 46, 48]
    led.record_hand(s, l1(3, "self_draw"))                   # dealer 3, 数审 1: [10, 20, 46, 84]
    e = led.record_hand(s, l1(3, "discard", 0))              # [-8, 30, 46, 112]
    assert e.round_closed is not None
    assert e.round_closed.rounded == [-10, 30, 50, 110]       # 46 → 50, 112 → 110
    assert e.round_closed.payments == [-220, -60, 20, 260]    # 4R − 180, N counts the 数审 too
    before = led.export_json(s)
    with pytest.raises(LedgerError, match="数审"):
        led.record_hand(s, l1(1, "stock"))                    # seat 1 sits this hand out
    assert led.export_json(s) == before
    led.record_hand(s, l1(2, "stock"))                        # dealer 3, 数审 1: [0, 10, 18, 0]
    assert [(e.dealer, e.idle) for e in led.state(s).history] == [
        (0, 2), (1, 3), (2, 0), (3, 1), (3, 1), (3, 1)]
    assert led.state(s).idle == 0
    res = led.settle(s)
    assert res.closing_round is not None and res.closing_round.rounded == [0, 10, 20, 0]
    assert res.points == [-250, -50, 70, 230]
    assert transfers(res) == [(0, 2, 20), (0, 3, 230), (1, 2, 50)]   # three payments for four seats
    assert transfers(led.settlement(s, "pairwise")) == [
        (0, 1, 50), (0, 2, 80), (0, 3, 120), (1, 2, 30), (1, 3, 70), (2, 3, 40)]


def test_editing_an_early_hand_changes_later_dealers_and_scores(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    # rules version 2 scored a non-dealer's dealt hand as a plain hand; version 3 refuses it
    s = led.new_session("改", "hunan", ["甲", "乙", "丙"], options={"rules_version": 2})
    led.record_hand(s, l1(1, "stock"))
    e2 = led.record_hand(s, l1(2, "dealt"))       # dealer is 1: a plain 18, no 天福
    assert e2.score == 18
    led.record_hand(s, l1(0, "stock"))
    assert dealers(led, s) == [0, 1, 2]
    assert led.state(s).round_totals == [18, 18, 18]
    led.edit_hand(s, 1, l1(2, "stock"))            # seat 2 now deals hand 2: its dealt hand is 天福
    st = led.state(s)
    assert dealers(led, s) == [0, 2, 2]
    assert st.history[1].score == 110 and [sp["id"] for sp in st.history[1].specials] == ["tianfu"]
    assert st.history[0].edited_by is not None
    assert st.rounds[0].totals == [0, 0, 128] and st.rounds[0].payments == [-130, -130, 260]
    assert st.round_totals == [18, 0, 0] and st.dealer == 0
    # undo takes off the last hand, the edit stays
    led.undo_last(s)
    st = led.state(s)
    assert st.hands == 2 and st.round_totals == [0, 0, 0] and st.net == [-130, -130, 260]


def test_an_edit_that_breaks_a_later_hand_is_refused(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("四人改", "hunan", ["甲", "乙", "丙", "丁"])
    led.record_hand(s, l1(1, "stock"))              # dealer 0 → 1; 数审 of hand 2 is seat 3
    led.record_hand(s, l1(2, "stock"))
    before = led.export_json(s)
    with pytest.raises(LedgerError, match=r"hand 2.*数审"):
        led.edit_hand(s, 1, l1(0, "stock"))        # seat 0 would deal hand 2, making seat 2 数审
    assert led.export_json(s) == before


def test_settled_session_is_locked_until_reopened(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("锁", "guangxi", ["甲", "乙"], stake="1.5")
    led.record_hand(s, l1(1, "self_draw"))
    res = led.settle(s)
    assert res.points == [-18, 18] and transfers(res) == [(0, 1, 18)]
    assert res.money(18) == Decimal("27.0")
    before = led.export_json(s)
    for action in (lambda: led.record_hand(s, l1(1, "stock")), lambda: led.record_draw(s),
                   lambda: led.undo_last(s), lambda: led.settle(s),
                   lambda: led.adjust(s, deltas=[1, -1]), lambda: led.edit_hand(s, 1, l1(0, "stock"))):
        with pytest.raises(LedgerError, match="settled; reopen"):
            action()
    assert led.export_json(s) == before
    led.reopen(s)
    led.record_hand(s, l1(0, "stock"))
    assert led.state(s).net == [0, 0] and not led.state(s).locked
