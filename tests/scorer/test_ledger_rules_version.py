"""A session keeps the rules version it was recorded under: replays, edits and imports of an
evening recorded before the corrections of 2026-12 pay what they paid then."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from test_ledger_hands import l1, new_ledger

from zipai.scorer import Ledger


def _as_recorded_before_versions(db: Path, session_id: int) -> None:
    """Rewrite a session's stored rules as a ledger from before versions were recorded has them."""
    con = sqlite3.connect(db)
    (rules_json,) = con.execute("SELECT rules_json FROM sessions WHERE id = ?", (session_id,)).fetchone()
    rules = json.loads(rules_json)
    del rules["options"]["rules_version"]
    con.execute("UPDATE sessions SET rules_json = ? WHERE id = ?", (json.dumps(rules), session_id))
    con.commit()
    con.close()


def test_a_new_session_records_the_current_rules_version(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("新", "hunan", ["甲", "乙", "丙"])
    assert s.options["rules_version"] == 3 and s.rules_version == 3
    assert led.record_hand(s, l1(2, "discard", 0)).payouts == [-18, 0, 28]


def test_an_old_session_replays_its_edits_under_the_old_rules(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("旧", "hunan", ["甲", "乙", "丙"])
    led.close()
    _as_recorded_before_versions(tmp_path / "ledger.db", s.id)
    led = Ledger(tmp_path / "ledger.db")
    assert led.session(s.id).rules_version == 1
    led.record_hand(s.id, l1(1, "stock"))
    led.record_hand(s.id, l1(2, "discard", 0))        # dealer 1; version 1: seat 0 loses all 28
    led.record_hand(s.id, l1(0, "discard", 2))
    assert led.state(s.id).round_totals == [0, 18, 28 - 28]
    before = [e.payouts for e in led.state(s.id).history]
    assert before == [[0, 18, 0], [-28, 0, 28], [28, 0, -28]]
    # an edit of the first hand moves every later dealer, so the later hands are scored again
    led.edit_hand(s.id, 1, l1(2, "stock"))
    st = led.state(s.id)
    assert [e.dealer for e in st.history] == [0, 2, 2]
    assert [e.payouts for e in st.history][1:] == before[1:]   # still the whole 28 from the discarder


def test_an_old_export_imports_under_the_old_rules(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("旧", "hunan", ["甲", "乙", "丙"], options={"rules_version": 1})
    led.record_hand(s, l1(2, "discard", 0))
    data = led.export_json(s)
    assert data["session"]["rules"]["options"]["rules_version"] == 1
    del data["session"]["rules"]["options"]["rules_version"]    # as an export made before versions
    other = Ledger(tmp_path / "other.db")
    t = other.import_json(data)
    assert t.rules_version == 1
    assert other.state(t).history[0].payouts == [-28, 0, 28]
    assert other.state(t).round_totals == led.state(s).round_totals


def test_session_show_names_the_rules_version(tmp_path: Path) -> None:
    from zipai.scorer.cli import state_text

    led = new_ledger(tmp_path)
    new = led.new_session("新", "hunan", ["甲", "乙", "丙"])
    old = led.new_session("旧", "hunan", ["甲", "乙", "丙"], options={"rules_version": 1})
    assert "rules_version=3" in state_text(led.state(new)).splitlines()[0]
    assert "rules_version=1" in state_text(led.state(old)).splitlines()[0]


def test_a_hand_cannot_change_the_sessions_rules_version(tmp_path: Path) -> None:
    import pytest

    from zipai.scorer import LedgerError

    led = new_ledger(tmp_path)
    s = led.new_session("新", "hunan", ["甲", "乙", "丙"])
    with pytest.raises(LedgerError, match="'rules_version' is fixed for the session"):
        led.record_hand(s, l1(2, "discard", 0), options={"rules_version": 1})
    data = led.export_json(led.new_session("旧", "hunan", ["甲", "乙", "丙"]))
    other = Ledger(tmp_path / "other.db")
    data["events"] = [{"id": 1, "kind": "hand", "target": None, "options": {"rules_version": 1},
                       "photo": None, "created_at": "2026-12-05T00:00:00",
                       "data": {"input": l1(2, "discard", 0), "dealer": 0}}]
    with pytest.raises(LedgerError, match="'rules_version' is fixed for the session"):
        other.import_json(data)
