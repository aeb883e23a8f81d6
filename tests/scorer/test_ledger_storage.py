"""Storage guarantees: kill -9 mid-write, two writers at once, schema versions, foreign or
damaged files, backup/restore, export/import round trips, frozen rules."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_ledger_hands import l1, new_ledger

from zipai.engine import load_rules_file
from zipai.scorer import Ledger, LedgerError, NotALedger
from zipai.scorer import db as dbmod

WRITER = r"""
import hashlib, json, sys, time
from pathlib import Path
from zipai.scorer import Ledger
import zipai.scorer.state as state_mod

path, session, obj, mode = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
led = Ledger(path)
if mode == "stall":  # stop inside the transaction, after the INSERT, before COMMIT
    real = state_mod.Replayer.resume
    def stalled(state):
        print("inside", flush=True)
        time.sleep(60)
        return real(state)
    state_mod.Replayer.resume = staticmethod(stalled)
if mode.startswith("go:"):
    while not Path(mode[3:]).exists():
        time.sleep(0.005)
count = int(sys.argv[5]) if len(sys.argv) > 5 else 10**9
for _ in range(count):
    e = led.record_hand(session, obj)
    data = led._conn.execute("SELECT data FROM events WHERE id = ?", (e.event,)).fetchone()[0]
    print(e.event, hashlib.sha256(data.encode()).hexdigest(), flush=True)
"""


def writer(path: Path, session: str, mode: str, count: int | None = None) -> subprocess.Popen[str]:
    args = [sys.executable, "-c", WRITER, str(path), session, json.dumps(l1(1, "stock")), mode]
    if count is not None:
        args.append(str(count))
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def event_hashes(path: Path) -> dict[int, str]:
    con = sqlite3.connect(path)
    try:
        rows = con.execute("SELECT id, data FROM events")
        return {i: hashlib.sha256(d.encode()).hexdigest() for i, d in rows}
    finally:
        con.close()


def test_kill_9_during_writes_loses_no_committed_hand(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path) as led:
        led.new_session("kill", "hunan", ["甲", "乙", "丙"])
    committed: dict[int, str] = {}
    for stop_after in (3, 11, 1, 7):
        p = writer(path, "kill", "loop")
        assert p.stdout is not None
        for _ in range(stop_after):
            line = p.stdout.readline()
            assert line, p.stderr.read() if p.stderr else ""
            eid, digest = line.split()
            committed[int(eid)] = digest
        os.kill(p.pid, signal.SIGKILL)  # most likely in the middle of the next write
        p.wait()
        for line in p.stdout.read().splitlines():  # printed after a commit, before the kill
            eid, digest = line.split()
            committed[int(eid)] = digest
        with Ledger(path) as led:
            assert led.integrity() == "ok"
            stored = event_hashes(path)
            for eid, digest in committed.items():
                assert stored[eid] == digest
            st = led.state("kill")  # every stored event replays
            assert st.events == len(stored) >= len(committed)


def test_kill_9_inside_a_transaction_leaves_the_ledger_as_before(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path) as led:
        led.new_session("stall", "hunan", ["甲", "乙", "丙"])
        led.record_hand("stall", l1(1, "stock"))
    before = event_hashes(path)
    p = writer(path, "stall", "stall")
    assert p.stdout is not None
    assert p.stdout.readline().strip() == "inside"  # the INSERT ran; COMMIT has not
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert event_hashes(path) == before
    with Ledger(path) as led:
        assert led.integrity() == "ok"
        assert led.state("stall").hands == 1
        led.record_hand("stall", l1(2, "stock"))  # the write lock was released by the kill
        assert led.state("stall").hands == 2


def test_two_processes_writing_at_once(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path) as led:
        led.new_session("two", "hunan", ["甲", "乙", "丙"])
    go = tmp_path / "go"
    procs = [writer(path, "two", f"go:{go}", 25) for _ in range(2)]
    time.sleep(0.3)
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert len(out.splitlines()) == 25
    ids = [int(line.split()[0]) for out, _ in outs for line in out.splitlines()]
    assert len(set(ids)) == 50
    with Ledger(path) as led:
        assert led.integrity() == "ok"
        st = led.state("two")
        assert st.hands == 50
        # each writer scored its hand with the dealer the log had when it wrote: no stale reads
        rows = dict(led._conn.execute("SELECT id, json_extract(data, '$.dealer') FROM events"))
        assert all(rows[e.event] == e.dealer for e in st.history)


def test_two_ledger_objects_see_each_others_writes(tmp_path: Path) -> None:
    a, b = new_ledger(tmp_path), new_ledger(tmp_path)
    s = a.new_session("共", "hunan", ["甲", "乙", "丙"])
    a.record_hand(s.id, l1(1, "stock"))
    assert b.state(s.id).dealer == 1
    b.record_hand(s.id, l1(2, "stock"))
    e = a.record_hand(s.id, l1(0, "stock"))
    assert e.dealer == 2 and a.state(s.id).round_totals == [18, 18, 18]


def test_a_second_ledger_in_one_process_leaves_the_first_ones_locks(tmp_path: Path) -> None:
    """Opening and closing another Ledger on the file while one is open (the app serving its
    table page) must not drop the first one's locks: after another process writes, both this
    process's writes and a fresh reader still see every page."""
    held = new_ledger(tmp_path)
    s = held.new_session("共", "hunan", ["甲", "乙", "丙"])
    new_ledger(tmp_path).close()
    subprocess.run([sys.executable, "-m", "zipai", "hand", "add", "-", "--db", str(tmp_path / "ledger.db"),
                    "--session", "共"], input=json.dumps(l1(1, "stock")), text=True, check=True,
                   capture_output=True, timeout=60)
    held.record_hand(s.id, l1(2, "stock"))
    fresh = new_ledger(tmp_path)
    assert fresh.state(s.id).hands == 2 and fresh.integrity() == "ok"


def test_schema_version_1_and_migrations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ledger.db"
    led = Ledger(path)
    s = led.new_session("m", "guangxi", ["甲", "乙", "丙"])
    led.record_hand(s, l1(1, "self_draw"), photo="/photos/h1.jpg", options={"minimum": 15})
    cols = {r[1] for r in led._conn.execute("PRAGMA table_info(events)")}
    assert {"photo", "options"} <= cols
    assert led._conn.execute("SELECT version FROM schema_migrations").fetchall() == [(1,)]
    assert led._conn.execute("SELECT photo, options FROM events").fetchone() == (
        "/photos/h1.jpg", '{"minimum":15}')
    assert led.history(s)[0].photo == "/photos/h1.jpg"
    led.close()
    Ledger(path).close()  # reopening applies nothing twice
    v2 = {**dbmod.MIGRATIONS, 2: ["ALTER TABLE events ADD COLUMN device TEXT"]}
    monkeypatch.setattr(dbmod, "MIGRATIONS", v2)
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", 2)
    with Ledger(path) as led:
        assert [r[0] for r in led._conn.execute("SELECT version FROM schema_migrations")] == [1, 2]
        assert "device" in {r[1] for r in led._conn.execute("PRAGMA table_info(events)")}
        assert led.state("m").net == [-18, 36, -18]
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", 1)
    monkeypatch.setattr(dbmod, "MIGRATIONS", {1: dbmod.MIGRATIONS[1]})
    with pytest.raises(NotALedger, match="newer than this program"):
        Ledger(path)


def test_foreign_and_damaged_files_are_refused_untouched(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(os.urandom(4096))
    foreign = tmp_path / "foreign.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE songs (title TEXT)")
    con.commit()
    con.close()
    for path, why in ((junk, "not an SQLite database"), (foreign, "another program"),
                      (tmp_path, "folder")):
        before = path.read_bytes() if path.is_file() else None
        with pytest.raises(NotALedger, match=why):
            Ledger(path)
        if before is not None:
            assert path.read_bytes() == before
            assert not Path(str(path) + "-wal").exists()


def test_backup_and_restore(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("备份", "hunan", ["甲", "乙", "丙"])
    led.record_hand(s, l1(1, "self_draw"))
    bak = led.backup(tmp_path / "copies" / "b1.db")
    with pytest.raises(LedgerError, match="never overwrites"):
        led.backup(bak)
    led.record_hand(s, l1(2, "self_draw"))
    led.new_session("later", "guilin", ["甲", "乙"])
    other = new_ledger(tmp_path)
    assert other.state("备份").round_totals == [0, 36, 36]  # cached in another object
    led.restore(bak)
    assert led.state("备份").round_totals == [0, 36, 0]
    assert other.state("备份").round_totals == [0, 36, 0]  # a restore makes every cache stale
    with pytest.raises(LedgerError):
        led.session("later")
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(NotALedger):
        led.restore(foreign)
    assert led.state("备份").round_totals == [0, 36, 0]


def test_export_import_round_trip(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = led.new_session("往返", "hunan", ["甲", "乙", "丙"], stake="0.2",
                        options={"self_draw": "plus_ten"})
    for obj in (l1(1, "self_draw"), l1(2, "discard", 1), l1(2, "self_draw"), l1(0, "stock")):
        led.record_hand(s, obj, photo=f"/p/{obj['winner']}.jpg")
    led.record_draw(s)
    led.adjust(s, reason="错记", transfers=[[0, 1, 5]])
    led.edit_hand(s, 2, l1(1, "discard", 2))
    led.undo_last(s)
    led.settle(s)
    led.reopen(s)
    led.record_hand(s, l1(1, "stock"))
    data = json.loads(json.dumps(led.export_json(s), ensure_ascii=False))
    with pytest.raises(LedgerError, match="already exists"):
        led.import_json(data)
    t = led.import_json(data, name="往返 copy")
    a, b = led.state(s), led.state(t)
    assert b.projected()[0] == a.projected()[0] and b.net == a.net and b.round_totals == a.round_totals
    assert [(e.kind, e.dealer, e.score, e.photo) for e in b.history] == [
        (e.kind, e.dealer, e.score, e.photo) for e in a.history]
    assert t.options == s.options and t.stake == s.stake
    # a tampered export is refused and creates nothing
    bad = json.loads(json.dumps(data))
    bad["events"][0]["data"]["input"]["winner"] = 2
    bad["events"][0]["data"].pop("output")
    count = len(led.sessions())
    with pytest.raises(LedgerError, match=r"export says|settlement|output"):
        led.import_json(bad, name="tampered")
    assert len(led.sessions()) == count
    with pytest.raises(LedgerError, match="not a zipai session export"):
        led.import_json({"hello": 1})
    rows = list(csv.reader(io.StringIO(led.export_csv(s))))
    assert len(rows) == 1 + len(a.history)
    assert "甲 change" in rows[0] and "乙 round total" in rows[0]


def test_rules_are_frozen_into_the_session(tmp_path: Path) -> None:
    toml = tmp_path / "house.toml"
    toml.write_text('preset = "hunan"\n[options]\nself_draw = "plus_ten"\n', encoding="utf-8")
    led = new_ledger(tmp_path)
    s = led.new_session("家规", load_rules_file(toml), ["甲", "乙", "丙"])
    toml.write_text('preset = "hunan"\n[options]\nself_draw = "double"\n', encoding="utf-8")
    assert led.record_hand(s, l1(1, "self_draw")).score == 28  # 18 + 10, not 36
    info = led.session(s.id)
    assert info.source == str(toml) and info.options["self_draw"] == "plus_ten"
    toml.unlink()
    assert led.record_hand(s, l1(1, "self_draw")).score == 28


def test_default_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ZIPAI_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert dbmod.default_path() == tmp_path / "xdg" / "zipai" / "ledger.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert dbmod.default_path() == tmp_path / "home" / ".local" / "share" / "zipai" / "ledger.db"
    monkeypatch.setenv("ZIPAI_DB", str(tmp_path / "env.db"))
    with Ledger() as led:
        assert led.path == tmp_path / "env.db"
    assert (tmp_path / "env.db").exists()
