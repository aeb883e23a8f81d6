"""胡多少处罚多少 (seed 001) as a named ledger adjustment, and sessions that keep rules version 2
while new ones score under version 3."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from test_ledger_hands import l1, new_ledger

from zipai.engine.notation import parse_layout
from zipai.scorer import Ledger, LedgerError
from zipai.scorer.cli import hand_main, session_main

GOLDEN = Path(__file__).parents[1] / "engine" / "golden" / "rules_v3.toml"
HANDS: list[dict[str, Any]] = tomllib.loads(GOLDEN.read_text(encoding="utf-8"))["hand"]


def _input(h: dict[str, Any]) -> dict[str, Any]:
    lay = parse_layout(h["text"])
    return {"winner": h["winner"], "won_by": h["won_by"],
            "groups": [{"cards": [str(c) for c in g.cards], "state": g.state.value} for g in lay.groups],
            "hand": [str(c) for c in lay.hand]}


PENALTY = next(h for h in HANDS if h["expect"] == "penalty")


def test_the_offender_pays_what_the_hand_would_have_scored(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("罚", "hunan", ["甲", "乙", "丙"])
    e = led.penalty(s, _input(PENALTY), reason="吃过张")
    assert e.kind == "adjust" and e.payouts == PENALTY["payouts"], PENALTY["seed"]
    assert (e.points, e.score) == (PENALTY["points"], PENALTY["score"])
    assert e.reason == "胡多少处罚多少: 吃过张" and e.winners == []
    st = led.state(s)
    assert st.round_totals == [0, 0, -36] and st.dealer == 0  # nobody won: the dealer deals again
    stored = led.export_json(s)["events"][0]["data"]
    assert stored["penalty"]["offender"] == 2 and stored["penalty"]["score"] == 36
    # the export carries it and the import replays it from its stored deltas
    other = Ledger(tmp_path / "other.db")
    t = other.import_json(led.export_json(s))
    h = other.state(t).history[0]
    assert (h.payouts, h.points, h.score, h.reason) == ([0, 0, -36], 18, 36, "胡多少处罚多少: 吃过张")
    row = led.export_csv(s).splitlines()[1].split(",")
    assert row[2] == "adjust" and row[7:9] == ["18", "36"] and row[11] == "胡多少处罚多少: 吃过张"


def test_a_penalty_counts_toward_the_100_line_like_a_hand(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("罚", "hunan", ["甲", "乙", "丙"])
    for _ in range(3):
        led.record_hand(s, l1(1, "self_draw"))  # +36 each: the third closes the round at 108
    st = led.state(s)
    assert st.round_number == 2
    led.penalty(s, _input(PENALTY))
    assert led.state(s).round_totals == [0, 0, -36]


def test_a_penalty_is_refused_outside_hunan_and_for_a_hand_that_does_not_win(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    g = led.new_session("广", "guangxi", ["甲", "乙", "丙"])
    with pytest.raises(LedgerError, match="a Hunan rule"):
        led.penalty(g, _input(PENALTY))
    s = led.new_session("罚", "hunan", ["甲", "乙", "丙"])
    short = {**_input(PENALTY), "hand": _input(PENALTY)["hand"][:-1]}
    with pytest.raises(LedgerError, match="not a winning hand"):
        led.penalty(s, short)
    with pytest.raises(LedgerError, match="no per-hand options"):
        led.penalty(s, {**_input(PENALTY), "options": {"minimum": 20}})
    assert led.state(s).history == [] and led.state(g).history == []


def test_zipai_hand_penalty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ZIPAI_DB", str(tmp_path / "cli.db"))
    assert session_main(["new", "周五", "--players", "甲,乙,丙"]) == 0
    f = tmp_path / "p.json"
    f.write_text(json.dumps(_input(PENALTY), ensure_ascii=False), encoding="utf-8")
    capsys.readouterr()
    assert hand_main(["penalty", str(f), "--reason", "没有下地", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["entry"]["payouts"] == [0, 0, -36] and out["state"]["round"]["totals"] == [0, 0, -36]
    assert session_main(["new", "桂", "--players", "甲,乙,丙", "--rules", "guilin"]) == 0
    capsys.readouterr()
    assert hand_main(["penalty", str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "胡多少处罚多少 is a Hunan rule (seed 001)" in err[0]


# ---------------------------------------------------------------- rules version 2 sessions

FOURTH = next(h for h in HANDS if h["id"].startswith("an unmarked self-drawn fourth onto a concealed"))


def test_a_version_2_session_scores_the_unmarked_fourth_as_it_did(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    new = led.new_session("新", "hunan", ["甲", "乙", "丙"])
    old = led.new_session("旧", "hunan", ["甲", "乙", "丙"], options={"rules_version": 2})
    hand = _input({**FOURTH, "winner": 1})
    assert led.record_hand(new, hand).payouts == FOURTH["payouts"]      # 21 福 ×2
    assert led.record_hand(old, hand).payouts == FOURTH["v2"]           # 15 福 ×2, as before
    # a version-2 dealt hand with open groups still scores, and replays, as it did
    assert led.record_hand(old, l1(1, "dealt")).score == 110            # seat 1 deals now: 天福
    with pytest.raises(LedgerError, match="lies open on the table"):
        led.record_hand(new, l1(1, "dealt"))
    led.close()
    again = Ledger(tmp_path / "ledger.db")
    st = again.state(old)
    assert st.session.rules_version == 2
    assert [e.payouts for e in st.history] == [FOURTH["v2"], [0, 110, 0]]
    # an edit scores the hand again, and an import scores every hand again: still version 2
    again.edit_hand(old, 1, hand)
    assert [e.payouts for e in again.state(old).history] == [FOURTH["v2"], [0, 110, 0]]
    other = Ledger(tmp_path / "other.db")
    t = other.import_json(again.export_json(old))
    assert t.rules_version == 2
    assert [e.payouts for e in other.state(t).history] == [FOURTH["v2"], [0, 110, 0]]


@pytest.mark.parametrize(("field", "value"), [("score", 18), ("offender", 1), ("offender", 7)])
def test_an_export_whose_penalty_was_edited_does_not_replay(tmp_path: Path, field: str, value: int) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("罚", "hunan", ["甲", "乙", "丙"])
    led.penalty(s, _input(PENALTY))
    data = led.export_json(s)
    data.pop("signature", None)  # an edit that also drops the signature is left to the replay
    pen = data["events"][0]["data"]["penalty"]
    pen[field] = value
    if field == "score":
        data["events"][0]["data"]["deltas"] = [0, 0, -value]
    with pytest.raises(LedgerError, match="penalty"):
        Ledger(tmp_path / "other.db").import_json(data)
