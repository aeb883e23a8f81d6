"""The ledger commands: readable tables, --json everywhere, bad input = one line, exit 2, no change."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_ledger_hands import l1

from zipai.scorer.cli import hand_main, players_main, session_main, table, width


def run(capsys: pytest.CaptureFixture[str], main: Any, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def write(tmp_path: Path, name: str, obj: Any) -> str:
    p = tmp_path / name
    p.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return str(p)


def events(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        con.close()


def test_a_hunan_evening_from_the_command_line(db: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rc, out, _ = run(capsys, session_main, "new", "周五", "--players", "甲,乙,丙", "--stake", "0.5")
    assert rc == 0 and "甲" in out
    win = write(tmp_path, "h.json", {**l1(1, "self_draw"), "rules": "hunan", "players": 3, "dealer": 0})
    for _ in range(2):
        rc, out, _ = run(capsys, hand_main, "add", win, "--photo", "/p/1.jpg")
        assert rc == 0 and "自摸" in out
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(l1(1, "self_draw"))))
    rc, out, _ = run(capsys, hand_main, "add", "-", "--json")
    data = json.loads(out)
    assert data["entry"]["round_closed"]["payments"] == [-110, 220, -110]
    rc, out, _ = run(capsys, session_main, "show", "--json")
    st = json.loads(out)
    assert st["net"] == [-110, 220, -110] and len(st["history"]) == 3
    rc, out, _ = run(capsys, session_main, "show")
    assert "第1轮结算" in out and "乙" in out
    rc, out, _ = run(capsys, session_main, "settle", "--json")
    res = json.loads(out)
    assert {(t["from_name"], t["to_name"], t["points"], t["money"]) for t in res["transfers"]} == {
        ("甲", "乙", 110, "55.00"), ("丙", "乙", 110, "55.00")}
    rc, out, err = run(capsys, hand_main, "add", win)
    assert rc == 2 and out == "" and err.count("\n") == 1 and "reopen" in err
    assert events(db) == 4
    assert run(capsys, session_main, "reopen")[0] == 0
    assert run(capsys, session_main, "undo")[0] == 0
    rc, out, _ = run(capsys, session_main, "list", "--json")
    assert json.loads(out)[0]["hands"] == 2
    exp = tmp_path / "s.json"
    assert run(capsys, session_main, "export", "-o", str(exp))[0] == 0
    rc, out, _ = run(capsys, session_main, "import", str(exp), "--name", "副本", "--json")
    # the undone hand had closed round 1; now the settlement (still in the log) closes it at 72
    assert rc == 0 and json.loads(out)["projected"] == [-70, 140, -70]
    rc, out, _ = run(capsys, session_main, "export", "--csv", "--session", "副本")
    assert out.splitlines()[0].startswith("no,event,kind")
    rc, out, _ = run(capsys, players_main, "--json")
    assert sorted(p["name"] for p in json.loads(out)) == ["丙", "乙", "甲"]


def test_guangxi_extras_from_the_command_line(db: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, session_main, "new", "广西", "--rules", "guangxi", "--players", "甲,乙,丙",
               "--dealer", "乙")[0] == 0
    rc, out, _ = run(capsys, hand_main, "adjust", "--xiahuo", "丙", "--json")
    assert json.loads(out)["entry"]["payouts"] == [15, 15, -30]
    rc, out, _ = run(capsys, hand_main, "adjust", "--transfer", "甲:乙:4", "--reason", "更正", "--json")
    assert json.loads(out)["state"]["net"] == [11, 19, -30]
    assert run(capsys, hand_main, "draw")[0] == 0
    rc, out, _ = run(capsys, hand_main, "list", "--json")
    assert [e["kind"] for e in json.loads(out)] == ["adjust", "adjust", "draw"]
    rc, out, err = run(capsys, hand_main, "add", write(tmp_path, "m.json", l1(1, "self_draw")),
                       "--option", "minimum=20")
    assert rc == 2 and "below the minimum of 20" in err
    rc, out, _ = run(capsys, session_main, "settle", "--preview", "--pairwise")
    assert rc == 0 and "pairwise" in out


@pytest.mark.parametrize(("main", "argv", "needle"), [
    (session_main, ["show", "--session", "nope"], "no session with id or name 'nope'"),
    (session_main, ["new", "x", "--players", "甲,乙,丙", "--dealer", "5"], "seat 5 does not exist"),
    (session_main, ["new", "x", "--players", "甲,乙,丙,丁", "--rules", "guilin"], "2 to 3 players"),
    (session_main, ["new", "x", "--players", "甲,乙", "--option", "xing=up"], "does not apply to hunan"),
    (session_main, ["new", "s", "--players", "甲,乙"], "already exists"),
    (hand_main, ["add", "{bad}"], "no such file"),
    (hand_main, ["add", "BAD_JSON"], "not valid JSON"),
    (hand_main, ["add", "SEAT7"], "winner seat 7 is out of range"),
    (hand_main, ["add", "GUILIN_OPTIONS"], "does not apply to hunan"),
    (hand_main, ["add", "GUANGXI"], "for 'guangxi' rules but session 's' plays hunan"),
    (hand_main, ["add", "NOT_WIN"], "not a winning hand"),
    (hand_main, ["edit", "9", "SEAT7"], "has no hand 9"),
    (hand_main, ["adjust", "--deltas", "1,2"], "3 whole numbers"),
    (hand_main, ["adjust", "--xiahuo", "0"], "Guangxi rule"),
    (session_main, ["frobnicate"], "invalid choice"),
    (session_main, ["import", "BAD_JSON"], "not valid JSON"),
    (session_main, ["restore", "FOREIGN"], "another program"),
    (players_main, ["rm", "甲"], "has played sessions"),
])
def test_bad_input_is_one_line_exit_2_and_changes_nothing(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], main: Any, argv: list[str],
        needle: str) -> None:
    assert run(capsys, session_main, "new", "s", "--players", "甲,乙,丙")[0] == 0
    assert run(capsys, hand_main, "add", write(tmp_path, "ok.json", l1(1, "stock")))[0] == 0
    files = {
        "BAD_JSON": str(tmp_path / "bad.json"), "SEAT7": write(tmp_path, "s7.json", l1(7, "stock")),
        "GUILIN_OPTIONS": write(tmp_path, "go.json", {**l1(1, "stock"), "options": {"xing": ["up"]}}),
        "GUANGXI": write(tmp_path, "gx.json", {**l1(1, "stock"), "rules": "guangxi"}),
        "NOT_WIN": write(tmp_path, "nw.json", {**l1(1, "stock"), "hand": ["x1", "x2"]}),
        "FOREIGN": str(tmp_path / "foreign.db"),
    }
    (tmp_path / "bad.json").write_text("{nope", encoding="utf-8")
    sqlite3.connect(files["FOREIGN"]).execute("CREATE TABLE t (x)").connection.commit()
    before = events(db)
    rc, _, err = run(capsys, main, *[files.get(a, a) for a in argv])
    assert rc == 2
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert needle in err
    assert events(db) == before


def test_corrupt_database_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is a grocery list, not a ledger\n" * 50)
    before = bad.read_bytes()
    rc, _, err = run(capsys, session_main, "list", "--db", str(bad))
    assert rc == 2 and err.count("\n") == 1 and "not a zipai ledger" in err
    assert bad.read_bytes() == before
    # a real ledger whose pages were overwritten
    good = tmp_path / "good.db"
    assert run(capsys, session_main, "new", "s", "--players", "甲,乙", "--db", str(good))[0] == 0
    raw = bytearray(good.read_bytes())
    for i in range(100, len(raw)):
        raw[i] = 0xA5
    good.write_bytes(bytes(raw))
    rc, _, err = run(capsys, session_main, "show", "--db", str(good))
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_table_lines_up_chinese_names() -> None:
    text = table(["player", "net"], [["甲乙", 5], ["abcd", -5]])
    lines = text.splitlines()
    assert width(lines[2].split("5")[0]) == width(lines[3].split("-5")[0]) == 8
