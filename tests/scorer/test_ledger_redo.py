"""Redo: an undone hand comes back (a ``void`` of the undo's ``void``), the log stays append-only,
and the chance ends once anything new is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_ledger_hands import l1, new_ledger

from zipai.scorer import Ledger, LedgerError


def kinds(led: Ledger) -> list[str]:
    return [e.kind for e in led.state().history]


def test_redo_takes_back_undos_in_reverse_order(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("周五", "hunan", ["甲", "乙", "丙"])
    led.record_hand(s, l1(1, "stock"))
    led.record_draw(s)
    led.record_hand(s, l1(2, "self_draw"))
    before = led.state(s)
    totals, dealer = list(before.round_totals), before.dealer
    assert not led.can_redo(s)
    led.undo_last(s)
    led.undo_last(s)
    assert kinds(led) == ["hand"] and led.can_redo(s)
    back = led.redo_last(s)
    assert back.kind == "draw" and kinds(led) == ["hand", "draw"]
    back = led.redo_last(s)
    assert back.kind == "hand" and back.score == before.history[2].score
    st = led.state(s)
    assert st.round_totals == totals and st.dealer == dealer and kinds(led) == ["hand", "draw", "hand"]
    with pytest.raises(LedgerError) as err:
        led.redo_last(s)
    assert err.value.code == "nothing_to_redo"
    # the events are only ever appended: three plays, two undos, two redos
    events = led._events(s.id)
    assert [e.kind for e in events].count("void") == 4 and len(events) == 7


def test_a_new_hand_ends_the_redo_and_a_reopened_ledger_agrees(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("周六", "guangxi", ["甲", "乙", "丙"])
    led.record_hand(s, l1(1, "stock"))
    led.undo_last(s)
    led.record_draw(s)
    assert not led.can_redo(s)
    with pytest.raises(LedgerError):
        led.redo_last(s)
    led.undo_last(s)
    led.redo_last(s)
    want = led.state(s).to_dict()
    led.close()
    again = Ledger(tmp_path / "ledger.db")
    assert again.state("周六").to_dict() == want and kinds(again) == ["draw"]
    # an export carries the redo: the import derives to the same totals
    copy = again.import_json(again.export_json("周六"), name="copy")
    assert again.state(copy).projected() == again.state("周六").projected()


def test_redo_refused_on_a_settled_session(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("周日", "hunan", ["甲", "乙", "丙"])
    led.record_hand(s, l1(1, "stock"))
    led.undo_last(s)
    led.settle(s)
    with pytest.raises(LedgerError) as err:
        led.redo_last(s)
    assert err.value.code in ("locked", "nothing_to_redo")
