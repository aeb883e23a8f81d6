"""The ledger's edges (issue 48): data never names a file, imports are scored again, bounded
stakes and adjustments, damaged files salvaged, reads that take no lock, safe CSV cells.

Every failure is one line on stderr and exit 2 (exit 1: a salvage that left rows out), with
the ledger unchanged."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_ledger_cli import events, run, write
from test_ledger_hands import l1, new_ledger

from zipai.scorer import Ledger, LedgerError, NotALedger
from zipai.scorer import db as dbmod
from zipai.scorer.cli import hand_main, players_main, session_main


def one_line(rc: int, err: str, needle: str) -> None:
    assert rc == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert needle in err, err


def evening(led: Ledger, name: str = "s", hands: int = 4) -> int:
    s = led.new_session(name, "hunan", ["甲", "乙", "丙"])
    for i in range(hands):
        led.record_hand(s, l1((i % 2) + 1, "stock"))
    return s.id


# ------------------------------------------------------------------ data never names a file

def test_a_hands_rules_field_is_a_preset_never_a_file(db: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    house = tmp_path / "house.toml"  # a valid hunan rules file: opening it would be accepted
    house.write_text('preset = "hunan"\n', encoding="utf-8")
    assert run(capsys, session_main, "new", "s", "--players", "甲,乙,丙")[0] == 0
    for rules in (str(house), "house.toml", "../house.toml", ["hunan"]):
        f = write(tmp_path, "h.json", {**l1(1, "stock"), "rules": rules})
        rc, _, err = run(capsys, hand_main, "add", f)
        one_line(rc, err, "is not one of the presets")
    assert events(db) == 0
    f = write(tmp_path, "ok.json", {**l1(1, "stock"), "rules": "湖南"})  # a preset's alias is fine
    assert run(capsys, hand_main, "add", f)[0] == 0


def test_an_export_naming_a_rules_file_is_refused(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('preset = "hunan"\n', encoding="utf-8")
    led = new_ledger(tmp_path)
    data = led.export_json(evening(led))
    for preset in (str(house), "house.toml"):
        bad = json.loads(json.dumps(data))
        bad["session"]["rules"]["preset"] = preset
        with pytest.raises(LedgerError, match="is not one of the presets"):
            led.import_json(bad, name="from a file")
    bad = json.loads(json.dumps(data))
    bad["events"][0]["data"]["input"]["rules"] = str(house)
    with pytest.raises(LedgerError, match="is not one of the presets"):
        led.import_json(bad, name="from a file")
    assert len(led.sessions()) == 1


# ------------------------------------------------------------------ imports are scored again

def test_an_import_with_edited_payouts_and_no_summary_is_refused(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    data = led.export_json(evening(led))
    bad = json.loads(json.dumps(data))
    out = bad["events"][2]["data"]["output"]
    out["payouts"] = [-1000, 3010, -2010]
    out["points"] = out["score"] = 3010
    with pytest.raises(LedgerError, match=r"hand 3 \(event 3\) stores 3010 points") as exc:
        led.import_json(bad, name="tampered")
    assert exc.value.code == "bad_import"
    del bad["summary"]  # without the totals it states, an export is refused outright
    with pytest.raises(LedgerError, match="summary"):
        led.import_json(bad, name="tampered")
    assert len(led.sessions()) == 1
    ok = json.loads(json.dumps(data))
    assert led.state(led.import_json(ok, name="fine")).projected()[0] == led.state("s").projected()[0]


def test_an_import_stores_the_results_it_scored(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = evening(led, hands=2)
    data = json.loads(json.dumps(led.export_json(s)))
    out = data["events"][0]["data"]["output"]
    out["text"], out["specials"] = "=HYPERLINK(\"evil\")", "not a list"  # shown, not counted
    del data["signature"]  # unsigned, as from another program: checked by replay alone
    t = led.import_json(data, name="copy")
    assert [e.output for e in led.history(t)] == [e.output for e in led.history(s)]


@pytest.mark.parametrize(("change", "needle"), [
    (lambda d: d["session"].update(players=["甲", "甲", "丙"]), "seats '甲' twice"),
    (lambda d: d["session"].update(players=["甲", "乙", "丙", "丁", "戊"]), "2 to 4 players, not 5"),
    (lambda d: d["events"][1]["data"].update(deltas=[10**30, -(10**30), 0]), "at most 1000000"),
    (lambda d: d["events"][1]["data"].update(transfers=[[0, 1, 7]]), "do not match its transfers"),
    (lambda d: d["events"][0]["data"]["output"].update(transfers=[[0, 1, 5]]), "scored again"),
    (lambda d: d["events"].append({**d["events"][0], "id": 99, "kind": "void", "target": 98}),
     "refers to event 98"),
    (lambda d: d["events"].insert(0, {**d["events"][0], "id": 0}), "increasing order"),
    (lambda d: d["events"][0].update(photo="a\nb"), "one line"),
    (lambda d: d["session"].update(stake="1e999999"), "stake must be from 0 to"),
    (lambda d: d.update(version=True), "unsupported export version"),
])
def test_an_import_is_checked_field_by_field(tmp_path: Path, change: Callable[[dict[str, Any]], None],
                                             needle: str) -> None:
    led = new_ledger(tmp_path)
    s = evening(led, hands=1)
    led.adjust(s, reason="更正", deltas=[5, -5, 0])
    data = json.loads(json.dumps(led.export_json(s)))
    change(data)
    with pytest.raises(LedgerError, match=needle):
        led.import_json(data, name="copy")
    assert len(led.sessions()) == 1


# ------------------------------------------------------------------ tracebacks become one line

@pytest.mark.parametrize(("field", "value", "needle"), [
    ("first_dealer", [1], "first dealer must be a seat number"),
    ("options", [1], "options must be an object"),
    ("summary", "x", "summary must be an object"),
    ("events", {"1": 2}, "'events' must be a list"),
    ("players", "甲乙丙", "'players' must be a list"),
])
def test_malformed_imports_are_one_line(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        field: str, value: Any, needle: str) -> None:
    with Ledger(db) as led:
        data = led.export_json(evening(led))
    if field == "options":
        data["session"]["rules"]["options"] = value
    elif field in ("summary", "events"):
        data[field] = value
    else:
        data["session"][field] = value
    before = events(db)
    rc, _, err = run(capsys, session_main, "import", write(tmp_path, "x.json", data), "--name", "x")
    one_line(rc, err, needle)
    assert events(db) == before


def test_deep_and_huge_json_is_one_line(db: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, session_main, "new", "s", "--players", "甲,乙,丙")[0] == 0
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for main, argv in ((hand_main, ["add", str(deep)]), (session_main, ["import", str(deep)])):
        rc, _, err = run(capsys, main, *argv)
        one_line(rc, err, "nested too deeply")
    nested: Any = l1(1, "stock")
    for _ in range(200):
        nested = {"x": nested}
    rc, _, err = run(capsys, hand_main, "add", write(tmp_path, "n.json", {**l1(1, "stock"), "extra": nested}))
    one_line(rc, err, "nested more than 64 levels deep")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (2 << 20))
    one_line(*run(capsys, hand_main, "add", str(big))[::2], "too large for a JSON file")
    for text in ("NaN", '{"winner": 1e999999}', "1" * 5000, b"\xff\xfe{}"):
        f = tmp_path / "odd.json"
        f.write_bytes(text if isinstance(text, bytes) else text.encode())
        rc, _, err = run(capsys, hand_main, "add", str(f))
        assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert events(db) == 0


def test_stakes_and_adjustments_are_bounded_so_every_session_settles(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for stake in ("1e999999", "-1", "NaN", "Infinity", "0.00001", "1000001"):
        rc, _, err = run(capsys, session_main, "new", f"s{stake}", "--players", "甲,乙,丙", "--stake", stake)
        one_line(rc, err, "stake")
    assert run(capsys, session_main, "new", "s", "--players", "甲,乙,丙", "--stake", "1000000")[0] == 0
    huge = "31 digits; at most 18"  # refused by its digits before its size
    for deltas, needle in ((f"{10**30},-{10**30},0", huge), ("1000001,0,0", "at most 1000000")):
        one_line(*run(capsys, hand_main, "adjust", "--deltas", deltas)[::2], needle)
    one_line(*run(capsys, hand_main, "adjust", "--transfer", f"0:1:{10**30}")[::2], huge)
    one_line(*run(capsys, hand_main, "adjust", "--transfer", "0:1:1000001")[::2], "at most 1000000")
    assert run(capsys, hand_main, "adjust", "--deltas", "1000000,-1000000,0")[0] == 0
    assert run(capsys, session_main, "show")[0] == 0
    rc, out, err = run(capsys, session_main, "settle", "--json")
    assert rc == 0, err
    res = json.loads(out)
    # the Hunan round pays seat 0 R·N − ΣR = 3e6 points; × 1e6 per point, exact to the cent
    assert res["players"][0]["money"] == "3000000000000.00"


# ------------------------------------------------------------------ damaged ledgers

def _scribble(path: Path, at: float, size: int, seed: int = 7) -> None:
    """Random bytes over a stretch in the middle of a (checkpointed) ledger file."""
    raw = bytearray(path.read_bytes())
    start = int(len(raw) * at)
    raw[start:start + size] = bytes((seed * 131 + i * 7919) % 251 for i in range(size))
    path.write_bytes(bytes(raw))


def _checkpointed(path: Path, hands: int) -> None:
    with Ledger(path) as led:
        s = led.new_session("s", "hunan", ["甲", "乙", "丙"])
        for i in range(hands):
            led.record_hand(s, l1((i % 2) + 1, "stock"), photo="/photos/" + "p" * 300 + f"{i}.jpg")
        led._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def test_export_salvages_a_file_with_random_bytes_in_its_middle(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _checkpointed(db, 120)
    _scribble(db, 0.5, 3000)
    rc, _, err = run(capsys, session_main, "show")
    one_line(rc, err, "'zipai session export' salvages")
    out_file = tmp_path / "salvaged.json"
    rc, _, err = run(capsys, session_main, "export", "-o", str(out_file))
    assert rc == 1, err
    assert "salvaged" in err and "skipped" in err and "unreadable" in err and "Traceback" not in err
    got = json.loads(out_file.read_text(encoding="utf-8"))
    ids = [e["id"] for e in got["events"]]
    assert 60 < len(ids) < 120 and got["salvaged"]["skipped"]
    # what was salvaged imports into a fresh ledger and derives to the summary it carries
    with Ledger(tmp_path / "fresh.db") as fresh:
        st = fresh.state(fresh.import_json(got))
        assert st.hands == len(ids) and st.projected()[0] == got["summary"]["projected"]
    rc, out, err = run(capsys, session_main, "export", "--csv")
    assert rc == 1 and out.startswith("no,event") and len(out.splitlines()) == len(ids) + 1


def _bad_row(path: Path, event: int, data: str) -> None:
    """A row the ledger cannot use; valid JSON of the wrong shape passes SQLite's integrity check."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA ignore_check_constraints = ON")  # to write JSON that does not parse
    con.execute("UPDATE events SET data = ? WHERE id = ?", (data, event))
    con.commit()
    con.close()
    con = sqlite3.connect(path)
    sound = con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    assert sound == data.startswith(("[", '{"input": 5', '{"input": {'))


@pytest.mark.parametrize("data", ['{"input": ', '{"input": 5, "dealer": 0}', "[]",
                                  '{"input": {"winner": 1}, "dealer": 0, "output": {"points": 1}}'])
def test_a_row_with_bad_json_is_named_and_salvaged(db: Path, tmp_path: Path, data: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(db) as led:
        evening(led, "s", 4)
        evening(led, "other", 2)
    _bad_row(db, 2, data)
    for main, argv in ((session_main, ["show", "--session", "s"]), (hand_main, ["list", "--session", "s"]),
                       (hand_main, ["add", write(tmp_path, "h.json", l1(1, "stock")), "--session", "s"]),
                       (session_main, ["settle", "--session", "s"])):
        rc, _, err = run(capsys, main, *argv)
        one_line(rc, err, "event 2 of session")
        assert "salvages" in err
    rc, out, err = run(capsys, session_main, "list")
    assert rc == 0 and "damaged" in out and "other" in out and "event 2" in err
    assert run(capsys, session_main, "show", "--session", "other")[0] == 0
    out_file = tmp_path / "s.json"
    rc, _, err = run(capsys, session_main, "export", "--session", "s", "-o", str(out_file))
    assert rc == 1 and "skipped 1: event 2" in err, err
    got = json.loads(out_file.read_text(encoding="utf-8"))
    assert [e["id"] for e in got["events"]] == [1, 3, 4]


def test_restore_refuses_a_damaged_backup_and_keeps_the_replaced_file(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(db) as led:
        evening(led, "s", 3)
        bak = led.backup(tmp_path / "b.db")
        led.record_hand("s", l1(1, "stock"))
    _bad_row(bak, 2, '{"input": 5, "dealer": 0}')  # passes the integrity check
    before = db.read_bytes()
    rc, _, err = run(capsys, session_main, "restore", str(bak))
    one_line(rc, err, "cannot be restored, nothing was replaced")
    assert "event 2" in err and db.read_bytes() == before
    with Ledger(db) as led:
        good = led.backup(tmp_path / "good.db")
        led.record_hand("s", l1(2, "stock"))
        assert led.state("s").hands == 5
    rc, out, _ = run(capsys, session_main, "restore", str(good), "--json")
    assert rc == 0
    kept = Path(json.loads(out)["replaced_kept_as"])
    assert kept.parent == db.parent and kept.name.startswith("cli.db.replaced-")
    with Ledger(kept, readonly=True) as old, Ledger(db) as now:
        assert old.state("s").hands == 5 and now.state("s").hands == 4
    with Ledger(db) as led:
        assert led.restore(good) != kept  # a second restore keeps its own copy
        with pytest.raises(NotALedger, match="does not exist"):
            led.restore(tmp_path / "nope.db")


# ------------------------------------------------------------------ reads take no lock

@contextlib.contextmanager
def write_lock(path: Path) -> Iterator[None]:
    """Another program in the middle of a write transaction."""
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        con.execute("ROLLBACK")
        con.close()


def test_a_busy_lock_is_busy_not_damage_and_reads_go_on(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", 50)
    assert run(capsys, session_main, "new", "s", "--players", "甲,乙,丙")[0] == 0
    hand = write(tmp_path, "h.json", l1(1, "stock"))
    assert run(capsys, hand_main, "add", hand)[0] == 0
    with write_lock(db):
        for main, argv in ((session_main, ["show"]), (session_main, ["list"]),
                           (session_main, ["export"]), (hand_main, ["list"]), (players_main, []),
                           (session_main, ["settle", "--preview"])):
            rc, out, err = run(capsys, main, *argv)
            assert rc == 0 and err == "" and out, (argv, err)
        for main, argv in ((hand_main, ["add", hand]), (session_main, ["undo"]),
                           (session_main, ["new", "t", "--players", "甲,乙"])):
            rc, _, err = run(capsys, main, *argv)
            one_line(rc, err, "is busy: another program holds its write lock")
            assert "damaged" not in err
    assert events(db) == 1


def as_nobody(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` as a user who may not write the ledger (root writes any file: fork and drop)."""
    if os.geteuid() != 0:
        return fn()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        try:
            os.setgid(65534)
            os.setuid(65534)
            os.write(w, json.dumps(fn()).encode())
        finally:
            os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    with os.fdopen(r, "rb") as fh:
        return json.loads(fh.read() or b"null")


@pytest.mark.parametrize("folder_writable", [True, False])
def test_a_read_only_ledger_can_be_shown_and_exported(folder_writable: bool) -> None:
    folder = Path(tempfile.mkdtemp(prefix="zipai-ro-"))
    path = folder / "ledger.db"
    with Ledger(path) as led:
        evening(led, "s", 2)
    path.chmod(0o444)
    folder.chmod(0o777 if folder_writable else 0o555)

    def calls() -> list[tuple[int, str, str]]:
        out = []
        for main, argv in ((session_main, ["show"]), (session_main, ["list"]), (session_main, ["export"]),
                           (hand_main, ["list"]), (hand_main, ["draw"])):
            o, e = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
                rc = main([*argv, "--db", str(path)])
            out.append((rc, o.getvalue(), e.getvalue()))
        return out
    try:
        got = as_nobody(calls)
    finally:
        folder.chmod(0o755)
        path.chmod(0o644)
    with Ledger(path) as led:
        assert led.state("s").hands == 2
    shutil.rmtree(folder)
    for rc, out, err in got[:4]:
        assert rc == 0 and err == "" and "甲" in out, err
    rc, _, err = got[4]
    one_line(rc, err, "is read-only here")


# ------------------------------------------------------------------ CSV cells and names

def test_csv_cells_cannot_start_a_formula(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("csv", "guangxi", ["=HYPERLINK(\"x\")", "+1", "@SUM(A1)"])
    led.adjust(s, reason="-2+3", deltas=[5, -5, 0])
    led.record_draw(s, note="=cmd|' /C calc'!A0")
    rows = list(csv.reader(io.StringIO(led.export_csv(s))))
    cells = [c for r in rows for c in r]
    assert "'=HYPERLINK(\"x\") change" in rows[0] and "'+1 total" in rows[0]
    assert "'-2+3" in cells and "'=cmd|' /C calc'!A0" in cells and "'@SUM(A1) total" in cells
    assert "'=HYPERLINK(\"x\")" in cells  # seat 0 deals: the dealer column holds the name
    assert not any(c.startswith(("=", "+", "@")) for c in cells)
    assert "-5" in cells  # numbers stay numbers


@pytest.mark.parametrize(("name", "needle"), [
    ("甲\n乙", "line break"), ("甲\u2028乙", "line break"), ("a\x85b", "line break"),
    ("\u202egnp.exe", "line break or control"), ("名" * 61, "61 characters long"),
])
def test_names_are_one_sane_line(tmp_path: Path, name: str, needle: str) -> None:
    led = new_ledger(tmp_path)
    with pytest.raises(LedgerError, match=needle):
        led.new_session("s", "hunan", [name, "乙"])
    with pytest.raises(LedgerError, match=needle):
        led.add_player(name)
    s = led.new_session("ok", "hunan", ["甲", "乙"])
    with pytest.raises(LedgerError, match=r"at most 200|line break"):
        led.record_draw(s, note=name * 4 if len(name) > 60 else name)
    assert sorted(p["name"] for p in led.players()) == ["乙", "甲"]


def test_salvage_needs_the_session_row(tmp_path: Path) -> None:
    from zipai.scorer.salvage import salvage

    path = tmp_path / "l.db"
    with Ledger(path) as led:
        evening(led, "s", 1)
    with pytest.raises(NotALedger, match="cannot be read"):
        salvage(path, "nope")
    assert salvage(path, "s").skipped == []


def test_a_damaged_session_row_is_named_and_the_others_still_work(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(db) as led:
        evening(led, "s", 2)
        evening(led, "other", 1)
    con = sqlite3.connect(db)
    con.execute("UPDATE sessions SET rules_json = '{\"preset\": \"../house.toml\"}' WHERE name = 's'")
    con.commit()
    con.close()
    rc, _, err = run(capsys, session_main, "show", "--session", "s")
    one_line(rc, err, "session 1 is damaged")
    rc, out, err = run(capsys, session_main, "list", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert rc == 0 and rows["s"]["damaged"] and rows["s"]["players"] == ["甲", "乙", "丙"]
    assert rows["other"]["hands"] == 1 and "damaged" not in rows["other"]
    rc, _, err = run(capsys, session_main, "export", "--session", "s")
    one_line(rc, err, "session 1 is damaged")  # nothing to salvage without the session's rules
    assert run(capsys, session_main, "export", "--session", "other")[0] == 0


def test_salvage_finds_the_events_when_their_index_is_damaged(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _checkpointed(db, 60)
    con = sqlite3.connect(db)
    size = con.execute("PRAGMA page_size").fetchone()[0]
    pages = [r[0] for r in con.execute("SELECT pageno FROM dbstat WHERE name = 'events_by_session'")]
    con.close()
    raw = bytearray(db.read_bytes())
    for page in pages:  # every page of the index, none of the table
        raw[(page - 1) * size:page * size] = b"\xa5" * size
    db.write_bytes(bytes(raw))
    out_file = tmp_path / "s.json"
    rc, _, err = run(capsys, session_main, "export", "-o", str(out_file))
    assert rc == 0 and "salvaged 60 events" in err and "skipped none" in err, err
    assert [e["id"] for e in json.loads(out_file.read_text(encoding="utf-8"))["events"]] == list(range(1, 61))


def test_a_fifo_or_a_device_given_as_a_json_file_is_refused_not_waited_on(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, session_main, "new", "s", "--players", "甲,乙,丙")[0] == 0
    fifo = tmp_path / "hand.fifo"
    os.mkfifo(fifo)
    for main, argv in ((hand_main, ["add", str(fifo)]), (session_main, ["import", str(fifo)]),
                       (hand_main, ["add", "/dev/zero"])):
        rc, _, err = run(capsys, main, *argv)
        one_line(rc, err, "not a regular file")
    assert events(db) == 0
