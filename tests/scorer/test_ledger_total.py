"""Hands entered by total in the ledger: stored as ordinary hand events, replayed the same way,
marked in the history, and accepted by ``zipai hand add``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from test_ledger_hands import l1

from zipai.scorer import Ledger, LedgerError
from zipai.scorer.cli import hand_main, session_main


def total(winner: int, won_by: str, points: int, frm: int | None = None) -> dict:
    obj = {"winner": winner, "won_by": won_by, "total": points}
    if frm is not None:
        obj["from"] = frm
    return obj


def test_a_total_is_an_ordinary_hand_event_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path) as led:
        s = led.new_session("周五", "hunan", ["甲", "乙", "丙"])
        e = led.record_hand(s, total(1, "discard", 18, frm=2))
        assert (e.kind, e.entered_by, e.score, e.payouts) == ("hand", "total", 28, [0, 28, -18])
        assert e.input == {"winner": 1, "won_by": "discard", "total": 18, "from": 2}
        assert e.groups == [] and e.output["entered_by"] == "total"
        cards = led.record_hand(s, l1(1, "self_draw"))
        assert cards.entered_by == "cards"
    con = sqlite3.connect(path)
    kinds = [r[0] for r in con.execute("SELECT kind FROM events ORDER BY id")]
    con.close()
    assert kinds == ["hand", "hand"]
    with Ledger(path) as led:  # a fresh process replays the events
        st = led.state(None)
        assert [h.entered_by for h in st.history] == ["total", "cards"]
        assert st.round_totals == [0, 28 + 36, -18]


def test_editing_an_earlier_hand_rescores_a_later_total(tmp_path: Path) -> None:
    """The dealer follows the winner; changing hand 1's winner moves the dealer of hand 2, whose
    stored result is then scored again from its total (tianfu depends on the dealer)."""
    with Ledger(tmp_path / "l.db") as led:
        # rules version 2: a non-dealer's dealt total is a plain hand (version 3 refuses it)
        s = led.new_session("x", "hunan", ["甲", "乙", "丙"], options={"rules_version": 2})
        led.record_hand(s, total(1, "stock", 20))
        e2 = led.record_hand(s, total(1, "dealt", 18))  # seat 1 deals now: 天福
        assert e2.score == 110 and e2.specials[0]["id"] == "tianfu"
        led.edit_hand(s, 1, total(2, "stock", 20))  # seat 2 deals hand 2: no 天福, a plain 18
        h2 = led.state(s).history[1]
        assert h2.entered_by == "total" and h2.score == 18 and h2.specials == []


def test_a_total_below_the_minimum_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.db") as led:
        s = led.new_session("x", "guangxi", ["甲", "乙", "丙"])
        with pytest.raises(LedgerError, match="below the minimum of 15"):
            led.record_hand(s, total(1, "self_draw", 14))
        with pytest.raises(LedgerError, match="takes no cards"):
            led.record_hand(s, {**l1(1, "self_draw"), "total": 18})
        assert led.state(s).history == []


def test_zipai_hand_add_takes_a_total(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ZIPAI_DB", str(tmp_path / "cli.db"))
    assert session_main(["new", "周五", "--players", "甲,乙,丙", "--rules", "guilin"]) == 0
    f = tmp_path / "t.json"
    f.write_text(json.dumps({"winner": 1, "won_by": "self_draw", "total": 18, "xing": 1}), encoding="utf-8")
    capsys.readouterr()
    assert hand_main(["add", str(f), "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)["entry"]
    assert entry["entered_by"] == "total" and entry["payouts"] == [-8, 16, -8]
    assert hand_main(["list"]) == 0
    assert "[按总数]" in capsys.readouterr().out
    f.write_text(json.dumps({"winner": 1, "won_by": "self_draw", "total": 200}), encoding="utf-8")
    assert hand_main(["add", str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "at most 72 胡 (six 扫穿" in err[0]
