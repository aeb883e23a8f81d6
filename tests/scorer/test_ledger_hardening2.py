"""The ledger's second round of edges: no output lands on the ledger or an input, outputs appear
whole, errors name the real cause (a full disk, a read-only file system), every path bounds
an adjustment, tampered exports are refused, and damaged rows read as damaged, not as data.

Each test is named after what it proves; the numbers of the findings are in docs/reliability.md.
Tests that need a full or read-only file system mount a small tmpfs and skip, with the reason,
where the process may not mount (not root, no mount command)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_ledger_cli import events, run, write
from test_ledger_hands import l1, new_ledger

from zipai.scorer import Ledger, LedgerError, salvage
from zipai.scorer.cli import hand_main, players_main, session_main
from zipai.scorer.exchange import csv_text


def one_line(rc: int, err: str, needle: str) -> None:
    assert rc == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert needle in err, err


def evening(led: Ledger, name: str = "s", hands: int = 3, rules: str = "hunan") -> int:
    s = led.new_session(name, rules, ["甲", "乙", "丙"])
    for i in range(hands):
        led.record_hand(s, l1((i % 2) + 1, "stock"))
    return s.id


def hands_in(path: Path) -> int:
    with Ledger(path, readonly=True) as led:
        return led.state("s").hands


def sql(path: Path, statement: str, args: tuple[Any, ...] = ()) -> None:
    """A change SQLite takes (its CHECKs set aside, as another program or a newer SQLite might)."""
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA ignore_check_constraints = ON")
        con.execute(statement, args)
        con.commit()
    finally:
        con.close()


@contextlib.contextmanager
def mounted(tmp_path: Path, name: str, size: str = "8m") -> Iterator[Path]:
    """A small tmpfs: the place to make a disk full or read-only for real."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root and mount(8) to make a small or read-only file system")
    d = tmp_path / name
    d.mkdir()
    got = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(d)],
                         capture_output=True, text=True, check=False)
    if got.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {got.stderr.strip()}")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], capture_output=True, check=False)


def remount(d: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(d)], check=True, capture_output=True)


def fill(d: Path) -> None:
    """Fill the file system at ``d`` to the last block."""
    with open(d / "filler", "wb", buffering=0) as fh, contextlib.suppress(OSError):
        while True:
            fh.write(b"\0" * 4096)


# ------------------------------------------------------------------ 1. no output lands on the ledger

def test_export_onto_the_open_ledger_is_refused(db: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(db) as led:
        evening(led)
        led.backup(tmp_path / "backup.db")
    os.symlink(db, tmp_path / "link.json")
    os.link(db, tmp_path / "hard.json")
    (tmp_path / "sub").mkdir()
    aliases = [str(db), f"{db}-wal", f"{db}-shm", str(tmp_path / "link.json"), str(tmp_path / "hard.json"),
               str(tmp_path / "sub" / ".." / db.name), str(tmp_path / "backup.db")]
    before = db.read_bytes()
    for target in aliases:
        for fmt in ([], ["--csv"]):
            rc, _out, err = run(capsys, session_main, "export", *fmt, "-o", target)
            assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, (target, err)
            assert "replace" in err, err
    assert db.read_bytes() == before and hands_in(db) == 3
    with Ledger(tmp_path / "backup.db", readonly=True) as bak:
        assert bak.state("s").hands == 3


def test_backup_onto_the_ledger_or_restore_from_itself_is_refused(db: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(db) as led:
        evening(led)
    for target in (str(db), f"{db}-wal", f"{db}-shm"):
        rc, _, err = run(capsys, session_main, "backup", target)
        assert rc == 2 and err.count("\n") == 1, err
    os.symlink(db, tmp_path / "same.db")
    one_line(*run(capsys, session_main, "restore", str(tmp_path / "same.db"))[::2], "open ledger itself")
    assert hands_in(db) == 3 and not list(tmp_path.glob("*.replaced-*"))


# ------------------------------------------------------------------ 2. nothing fails after a commit

def _zipai(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "zipai", *args], capture_output=True, text=True,
                          encoding="ascii", errors="replace", env=env, timeout=60, check=False)


def test_writes_commit_once_under_the_c_locale_without_utf8_mode(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LANG", "LC_CTYPE")}
    env.update(LC_ALL="C", PYTHONUTF8="0", ZIPAI_DB=str(tmp_path / "l.db"))
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(l1(1, "stock")), encoding="utf-8")
    for args in (["session", "new", "周五", "--players", "甲,乙,丙"], ["hand", "add", str(hand)],
                 ["session", "undo"], ["hand", "add", str(hand)]):
        got = _zipai(args, env)
        assert got.returncode == 0 and "Traceback" not in got.stderr, (args, got.stderr)
    with Ledger(tmp_path / "l.db", readonly=True) as led:
        assert led.state("周五").hands == 1


def test_a_session_with_an_absurd_option_still_shows_exports_and_settles_or_says_why(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(db) as led:
        evening(led, hands=2)
    # what an older program stored under an option of thousands of nines: a hand whose figures
    # have 4,300 digits (readable; anything added to them is past Python's int-to-text limit)
    huge = "9" * 4300
    con = sqlite3.connect(db)
    data = con.execute("SELECT data FROM events WHERE id = 1").fetchone()[0]
    data = data.replace('"payouts":[0,18,0]', f'"payouts":[0,{huge},0]')
    data = data.replace('"score":18', f'"score":{huge}')
    assert huge in data
    con.execute("INSERT INTO events(session_id, kind, data, created_at) VALUES (1, 'hand', ?, 'x')", (data,))
    con.commit()
    con.close()
    for cmd in (["show"], ["show", "--json"], ["settle", "--preview"]):
        rc, _, err = run(capsys, session_main, *cmd)
        one_line(rc, err, "event 3")
        assert "Exceeds the limit" not in err
    out = tmp_path / "s.json"
    rc, _, err = run(capsys, session_main, "export", "-o", str(out))
    assert rc == 1 and "skipped 1" in err, err  # the readable evening, without the absurd hand
    clean = new_ledger(tmp_path / "clean")
    assert clean.state(clean.import_json(out.read_text(encoding="utf-8"), name="t")).hands == 2


def test_a_float_option_is_refused_by_name_not_stored(db: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, session_main, "new", "s", "--players", "甲,乙,丙")[0] == 0
    f = write(tmp_path, "h.json", {**l1(1, "stock"), "options": {"piao": 30.0}})
    one_line(*run(capsys, hand_main, "add", f)[::2], "takes a whole number, not 30.0")
    led = Ledger(db)
    with pytest.raises(LedgerError, match="whole number"):
        led.new_session("t", "hunan", ["甲", "乙", "丙"], options={"piao": 30.0})
    assert events(db) == 0


# ------------------------------------------------------------------ 3. nothing waits on a FIFO

def _bounded(fn: Callable[[], Any], seconds: float = 10) -> Any:
    box: list[Any] = []
    t = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():  # unblock the reader so the test run ends, then fail
        pytest.fail("the command waited on a FIFO")
    return box[0]


def test_export_to_a_fifo_is_refused_without_hanging(db: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(db) as led:
        evening(led)
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    try:
        rc, _, err = _bounded(lambda: run(capsys, session_main, "export", "-o", str(fifo)))
    finally:
        with contextlib.suppress(OSError):  # release a writer stuck in open()
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    one_line(rc, err, "not a regular file")
    for target in (str(tmp_path), "/dev/null"):
        one_line(*run(capsys, session_main, "export", "-o", target)[::2], "")


def test_import_or_restore_from_a_fifo_is_refused_without_hanging(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(db) as led:
        evening(led)
    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    for cmd in (["import", str(fifo)], ["restore", str(fifo)]):
        rc, _, err = _bounded(lambda cmd=cmd: run(capsys, session_main, *cmd))
        one_line(rc, err, "not a regular file")
    fifo_db = tmp_path / "fifo.db"
    os.mkfifo(fifo_db)
    rc, _, err = _bounded(lambda: run(capsys, session_main, "show", "--db", str(fifo_db)))
    one_line(rc, err, "not a regular file")
    assert hands_in(db) == 3


# ------------------------------------------------------------------ 5. tracebacks become one line

@pytest.mark.parametrize("argv", [
    (session_main, ["show", "--session", "99999999999999999999"]),
    (hand_main, ["draw", "--session", "99999999999999999999"]),
    (session_main, ["use", "99999999999999999999"]),
    (session_main, ["use", "٣"]),  # Arabic-Indic digits are a name, not session 3
])
def test_an_oversize_session_id_is_one_line(db: Path, capsys: pytest.CaptureFixture[str],
                                            argv: tuple[Any, list[str]]) -> None:
    with Ledger(db) as led:
        evening(led)
    main, args = argv
    one_line(*run(capsys, main, *args)[::2], "no session with id or name")


def test_backup_into_proc_is_one_line(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(db) as led:
        evening(led)
    one_line(*run(capsys, session_main, "backup", "/proc/x.db")[::2], "cannot write the backup")


@pytest.mark.parametrize("var", ["ZIPAI_DB", "XDG_DATA_HOME"])
def test_a_tilde_path_of_an_unknown_user_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str], var: str) -> None:
    monkeypatch.delenv("ZIPAI_DB", raising=False)
    monkeypatch.setenv(var, "~nosuchuser4711/l.db")
    monkeypatch.chdir(tmp_path)
    one_line(*run(capsys, session_main, "new", "s", "--players", "甲,乙,丙")[::2],
             "no user 'nosuchuser4711'")
    assert not any(tmp_path.iterdir())  # no folder named '~nosuchuser4711' was made here
    one_line(*run(capsys, session_main, "show", "--db", "~nosuchuser4711/x.db")[::2], "no user")


@pytest.mark.parametrize(("statement", "args", "needle"), [
    ("UPDATE sessions SET stake = '1e999999'", (), "stake"),
    ("UPDATE sessions SET stake = '-5'", (), "stake"),
    ("UPDATE events SET photo = ? WHERE id = 1", (b"\x00\xff\x01",), "photo"),
])
def test_damaged_rows_sqlite_accepts_are_one_line(db: Path, capsys: pytest.CaptureFixture[str],
                                                  statement: str, args: tuple[Any, ...], needle: str) -> None:
    with Ledger(db) as led:
        evening(led)
    sql(db, statement, args)
    for cmd in (["show"], ["show", "--json"], ["settle", "--preview"]):
        rc, _out, err = run(capsys, session_main, *cmd)
        one_line(rc, err, needle)
    rc, _, err = run(capsys, session_main, "list")
    assert rc == 0 and "Traceback" not in err


def test_a_current_session_past_sqlites_integers_reads_as_none(db: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(db) as led:
        evening(led)
    sql(db, "UPDATE meta SET value = '99999999999999999999999' WHERE key = 'current_session'")
    one_line(*run(capsys, session_main, "show")[::2], "no current session")
    assert run(capsys, session_main, "show", "--session", "s")[0] == 0
    rc, _, err = run(capsys, session_main, "export")
    assert rc == 2 and "Traceback" not in err and err.count("\n") == 1


# ------------------------------------------------------------------ 6. the real cause, named

def test_a_full_disk_is_named_not_called_damage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with mounted(tmp_path, "small") as d:
        path = d / "l.db"
        with Ledger(path) as led:
            evening(led)
            export = json.dumps(led.export_json("s"))
        (d / "in.json").write_text(export, encoding="utf-8")
        fill(d)
        hand = write(tmp_path, "h.json", l1(1, "stock"))
        rc, _, err = run(capsys, hand_main, "add", hand, "--db", str(path))
        one_line(rc, err, "disk is full")
        assert "damaged" not in err and "salvage" not in err
        rc, _, err = run(capsys, session_main, "import", str(d / "in.json"), "--name", "t", "--db", str(path))
        one_line(rc, err, "disk is full")
        assert "no transaction is active" not in err
        (d / "filler").unlink()
        assert hands_in(path) == 3


def test_a_clean_ledger_on_a_read_only_file_system_is_named_read_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with mounted(tmp_path, "ro") as d:
        path = d / "l.db"
        with Ledger(path) as led:
            evening(led)
        remount(d, "ro")
        hand = write(tmp_path, "h.json", l1(1, "stock"))
        rc, _, err = run(capsys, hand_main, "add", hand, "--db", str(path))
        one_line(rc, err, "read-only")
        assert "damaged" not in err and "salvage" not in err
        rc, _out, err = run(capsys, session_main, "show", "--db", str(path))
        assert rc == 0, err


def test_backup_and_restore_on_a_read_only_file_system_with_a_wal_left_over(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with mounted(tmp_path, "rowal") as d:
        path = d / "l.db"
        led = Ledger(path)
        evening(led)
        keep = d / "keep"
        keep.mkdir()
        for f in d.glob("l.db*"):  # a copy as a crash leaves it: the -wal not yet merged
            shutil.copy(f, keep / f.name)
        led.close()
        for f in keep.iterdir():
            shutil.copy(f, d / f.name)
        assert Path(f"{path}-wal").stat().st_size > 0
        good = tmp_path / "good.db"
        with Ledger(tmp_path / "other.db") as other:
            evening(other)
            other.backup(good)
        remount(d, "ro")
        for cmd in (["backup", str(tmp_path / "b.db")], ["show"], ["restore", str(good)]):
            rc, _, err = run(capsys, session_main, *cmd, "--db", str(path))
            assert "Traceback" not in err and "damaged" not in err and err.count("\n") <= 1, err
            if cmd[0] == "restore":
                one_line(rc, err, "read-only")
        if (tmp_path / "b.db").exists():  # SQLite could read it: the backup holds every hand
            with Ledger(tmp_path / "b.db", readonly=True) as bak:
                assert bak.state("s").hands == 3


# ------------------------------------------------------------------ 7. outputs appear whole

def test_export_on_a_full_disk_keeps_the_old_export(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    led = new_ledger(tmp_path)
    for i in range(12):
        evening(led, f"s{i}", hands=6)
    with mounted(tmp_path, "exp", "64k") as d:
        out = d / "e.json"
        rc = run(capsys, session_main, "export", "--db", str(led.path), "--session", "s0", "-o", str(out))[0]
        assert rc == 0
        old = out.read_bytes()
        fill(d)
        rc, _, err = run(capsys, session_main, "export", "--db", str(led.path), "--session", "s1",
                         "-o", str(out))
        one_line(rc, err, "disk is full")
        assert out.read_bytes() == old
        assert sorted(p.name for p in d.iterdir()) == ["e.json", "filler"]


def test_a_failed_export_write_leaves_the_old_file_and_no_temporary(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    with Ledger(db) as led:
        evening(led)
    out = tmp_path / "e.json"
    out.write_text("the old export", encoding="utf-8")

    def no_space(fd: int) -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", no_space)
    one_line(*run(capsys, session_main, "export", "-o", str(out))[::2], "disk is full")
    assert out.read_text(encoding="utf-8") == "the old export"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_failed_restore_leaves_no_partial_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    led = new_ledger(tmp_path)
    evening(led)
    good = led.backup(tmp_path / "good.db")
    real = shutil.copyfile

    def broken(src: Any, dst: Any, **kw: Any) -> Any:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(Ledger, "backup", lambda self, dest, keep=(): (_ for _ in ()).throw(
        LedgerError("unreadable", code="damaged")))
    monkeypatch.setattr(shutil, "copyfile", broken)
    with pytest.raises(LedgerError, match="disk is full"):
        led.restore(good)
    monkeypatch.setattr(shutil, "copyfile", real)
    assert not [p for p in tmp_path.iterdir() if "replaced" in p.name or p.name.endswith(".tmp")]
    assert led.state("s").hands == 3


# ------------------------------------------------------------------ 8. the adjustment bound, in all

def test_the_adjustment_total_is_bounded_on_every_path(db: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, session_main, "new", "g", "--rules", "guangxi", "--players", "甲,乙,丙")[0] == 0
    many = [a for _ in range(50) for a in ("--transfer", "0:1:1000000")]
    one_line(*run(capsys, hand_main, "adjust", *many)[::2], "at most 1000000 points in all")
    led = Ledger(db)
    with pytest.raises(LedgerError, match="in all"):
        led.adjust("g", transfers=[[0, 1, 600_000], [2, 1, 600_000]])
    with pytest.raises(LedgerError, match="at most 100 transfers"):
        led.adjust("g", transfers=[[0, 1, 1]] * 3000)
    led.adjust("g", transfers=[[0, 1, 1]])
    data = led.export_json("g")
    data.pop("signature")
    data["events"][0]["data"].update(transfers=[[0, 1, 1_000_000]] * 3000,
                                     deltas=[-3_000_000_000, 3_000_000_000, 0])
    with pytest.raises(LedgerError, match="at most 100 transfers"):
        led.import_json(data, name="big")
    data["events"][0]["data"].update(transfers=[[0, 1, 1_000_000], [2, 1, 1_000_000]],
                                     deltas=[-1_000_000, 2_000_000, -1_000_000])
    with pytest.raises(LedgerError, match="in all"):
        led.import_json(data, name="big")
    assert events(db) == 1


# ------------------------------------------------------------------ 9. tampered exports

def fix_summary(data: dict[str, Any]) -> None:
    """Make the summary agree with the (tampered) events, as a careful forger would, where they
    replay at all: the import must then refuse the events themselves."""
    from zipai.scorer.exchange import read_export
    from zipai.scorer.state import replay
    try:
        info, evs = read_export(data, "probe")
        st = replay(info, evs)
    except (LedgerError, KeyError, TypeError, ValueError):
        return
    data["summary"] = {"net": st.net, "projected": st.projected()[0], "locked": st.locked, "hands": st.hands}


def _tampered(led: Ledger, sid: int) -> dict[str, Callable[[dict[str, Any]], None]]:
    def winner(d: dict[str, Any]) -> None:
        d["events"][0]["data"]["input"]["winner"] = 2
        del d["events"][0]["data"]["output"]
        del d["summary"]

    def duplicate(d: dict[str, Any]) -> None:
        d["events"].append({**json.loads(json.dumps(d["events"][-1])), "id": d["events"][-1]["id"] + 50})
        fresh = led.state(sid)
        d["summary"]["hands"] = fresh.hands + 1

    def redo(d: dict[str, Any]) -> None:
        last = d["events"][-1]["id"]
        d["events"].append({"id": last + 1, "kind": "void", "target": last, "data": {"reason": "redo"},
                            "options": None, "photo": None, "created_at": "x"})

    def settlement(d: dict[str, Any]) -> None:
        last = d["events"][-1]["id"]
        fake = {"mode": "minimal", "settlement": {"players": [], "transfers": [], "junk": "x" * 300_000}}
        d["events"].append({"id": last + 1, "kind": "settle", "target": None, "data": fake,
                            "options": None, "photo": None, "created_at": "x"})
        d["summary"]["locked"] = True

    def fake_settlement(d: dict[str, Any]) -> None:
        last = d["events"][-1]["id"]
        real = led.settlement(sid).to_dict()
        real["players"][0]["points"] += 100
        d["events"].append({"id": last + 1, "kind": "settle", "target": None,
                            "data": {"mode": "minimal", "settlement": real},
                            "options": None, "photo": None, "created_at": "x"})
        d["summary"]["locked"] = True

    def players(d: dict[str, Any]) -> None:
        d["events"][0]["data"]["input"]["players"] = 99

    def unknown(d: dict[str, Any]) -> None:
        d["events"][0]["note"] = "added"

    return {"winner": winner, "duplicate": duplicate, "redo": redo, "settlement": settlement,
            "fake_settlement": fake_settlement, "players": players, "unknown": unknown}


@pytest.mark.parametrize("how", ["winner", "duplicate", "redo", "settlement", "fake_settlement", "players",
                                 "unknown"])
def test_tampered_exports_are_refused(tmp_path: Path, how: str) -> None:
    led = new_ledger(tmp_path)
    sid = evening(led, hands=3)
    led.undo_last(sid)
    led.record_hand(sid, l1(1, "stock"))
    data = json.loads(json.dumps(led.export_json(sid)))
    _tampered(led, sid)[how](data)
    if how != "winner":
        fix_summary(data)
    with pytest.raises(LedgerError):
        led.import_json(data, name="tampered")
    assert len(led.sessions()) == 1


def test_a_self_consistent_edit_of_a_signed_export_is_named_as_an_edit(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    sid = evening(led, hands=3)
    data = json.loads(json.dumps(led.export_json(sid)))
    assert data["signature"]["ledger"]
    dup = json.loads(json.dumps(data["events"][-1]))
    dup["id"] += 50
    data["events"].append(dup)  # a hand played twice: it replays, and the summary is made to agree
    fix_summary(data)
    plain = {k: v for k, v in data.items() if k != "signature"}
    with pytest.raises(LedgerError, match="changed after this ledger wrote it"):
        led.import_json(data, name="edited")
    assert led.state(led.import_json(plain, name="unsigned")).hands == 4  # unsigned: replay alone
    other = new_ledger(tmp_path / "other")
    assert other.state(other.import_json(led.export_json(sid))).hands == 3  # another ledger's export


def test_an_oversize_import_is_refused_before_parsing(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    with pytest.raises(LedgerError, match="at most"):
        led.import_json(" " * (64 << 20) + "{}")


# ------------------------------------------------------------------ 10. damage reads as damage

def _guangxi(tmp_path: Path) -> tuple[Path, Ledger]:
    path = tmp_path / "g.db"
    led = Ledger(path)
    s = led.new_session("s", "guangxi", ["甲", "乙", "丙"])
    for i in range(3):
        led.record_hand(s, l1((i % 2) + 1, "stock"))
    led.close()
    return path, led


@pytest.mark.parametrize(("statement", "needle"), [
    ("UPDATE sessions SET stake = '-5'", "stake"),
    ("UPDATE events SET data = replace(data, '\"dealer\":0', '\"dealer\":NaN') WHERE id = 1", "NaN"),
    ("UPDATE events SET data = replace(data, '\"dealer\":0', '\"dealer\":1e999') WHERE id = 1", "finite"),
    ("UPDATE events SET data = replace(replace(data, '\"payouts\":[-18,36,-18]', "
     "'\"payouts\":[-18,3600,-3582]'), '[0,1,18],[2,1,18]', '[0,1,18],[2,1,3582]') WHERE id = 1", "payouts"),
    ("INSERT INTO events(session_id, kind, target, data, created_at) "
     "VALUES (1, 'void', 4, '{\"reason\":\"undo\"}', 'x')", "damaged"),
    ("UPDATE sessions SET rules_json = replace(rules_json, '\"minimum\":15', '\"minimum\":-5')", "minimum"),
])
def test_damaged_ledgers_do_not_read_as_healthy(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                statement: str, needle: str) -> None:
    path, _ = _guangxi(tmp_path)
    sql(path, statement)
    if "void" in statement:
        sql(path, "UPDATE events SET target = id WHERE kind = 'void'")  # a void that voids itself
    rc, _, err = run(capsys, session_main, "show", "--db", str(path))
    one_line(rc, err, needle)
    rc, _out, err = run(capsys, session_main, "export", "--db", str(path))
    assert rc in (1, 2) and "Traceback" not in err, err


def test_salvaged_exports_of_damaged_ledgers_import(tmp_path: Path) -> None:
    """Every salvage of a ledger with rows damaged the ways SQLite accepts imports into a clean one."""
    damages = [
        "UPDATE events SET data = replace(data, '\"payouts\":[-18,-18,36]', '\"payouts\":[-18,-19,37]') "
        "WHERE id = 2",
        "UPDATE events SET data = replace(replace(data, '\"payouts\":[-18,-18,36]', "
        "'\"payouts\":[-18,-19,37]'), '[1,2,18]', '[1,2,19]') WHERE id = 2",
        "UPDATE events SET data = replace(data, '\"winner\":1', '\"winner\":2') WHERE id = 1",
        "UPDATE events SET data = replace(data, '\"output\"', '\"outpux\"') WHERE id = 3",
        "UPDATE events SET photo = x'00ff' WHERE id = 2",
        "UPDATE events SET data = '{\"reason\":\"redo\"}', kind = 'void', target = 1 WHERE id = 3",
        "UPDATE events SET kind = 'reopen', data = '{}' WHERE id = 2",
        "UPDATE events SET options = '{\"minimum\":-5}' WHERE id = 1",
    ]
    clean = new_ledger(tmp_path / "clean")
    for i, damage in enumerate(damages):
        path, _ = _guangxi(tmp_path / str(i))
        sql(path, damage)
        got = salvage(path, "s")
        assert got.skipped, damage
        t = clean.import_json(got.to_json(str(path)), name=f"salvaged {i}")
        assert clean.state(t).hands == got.state.hands


# ------------------------------------------------------------------ 12. smaller

def test_full_width_formula_signs_are_prefixed_in_the_csv(tmp_path: Path) -> None:
    led = new_ledger(tmp_path)
    s = evening(led, hands=1)
    for note in ("＝1+1", "＋1", "－1", "＠SUM(A1)", "﹦1", "=1"):
        led.record_draw(s, note)
    rows = list(csv.reader(io.StringIO(csv_text(led.state(s)))))
    reasons = [r[rows[0].index("reason")] for r in rows[2:]]
    assert all(r.startswith("'") for r in reasons), reasons


def test_a_bare_group_command_is_one_line(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    for main in (session_main, hand_main):
        rc, out, err = run(capsys, main)
        one_line(rc, err, "a command is missing")
        assert out == "" and "usage" not in err.lower()
    rc, out, _ = run(capsys, session_main, "--help")
    assert rc == 0 and "export" in out
    assert players_main([]) == 0


# ------------------------------------------------------------------ 12. numbers in ASCII, names one rule

@pytest.mark.parametrize("argv", [
    ["new", "s", "--players", "甲,乙,丙", "--option", "piao=٣٠"],
    ["new", "s", "--players", "甲,乙,丙", "--option", "tianhu_multiplier=" + "9" * 4299],
])
def test_arabic_indic_or_endless_digits_in_an_option_are_refused(
        db: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, _, err = run(capsys, session_main, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "digits" in err
    assert not db.exists() or events(db) == 0


@pytest.mark.parametrize("name", ["甲\u200b", "乙\u202e丙"])
def test_a_player_name_with_an_invisible_or_reordering_character_is_refused(
        tmp_path: Path, name: str) -> None:
    with pytest.raises(LedgerError, match="U\\+20"):
        new_ledger(tmp_path).new_session("s", "hunan", [name, "乙", "丙"])


CLOSE_UNDER_A_READ = """
import sys, threading
from zipai.scorer import Ledger, LedgerError
path = sys.argv[1]
with Ledger(path) as led:
    led.new_session("s", "hunan", ["A", "B", "C"])
for _ in range(150):
    reader = Ledger(path, readonly=True)
    started, done = threading.Event(), []
    def poll() -> None:
        started.set()
        while True:
            try:
                reader.state("s")
                reader.integrity()
            except LedgerError as exc:
                done.append(exc.code)
                return
    t = threading.Thread(target=poll)
    t.start()
    started.wait()
    reader.close()
    t.join(10)
    assert done == ["closed"] and not t.is_alive(), done
print("ok")
"""


def test_closing_a_ledger_while_another_thread_reads_it_waits_for_the_read(tmp_path: Path) -> None:
    """The table page closes its ledger as it stops while its poll may be mid-query in a worker
    thread: SQLite closed under a running statement crashed the process (a whole CI run lost);
    the close now waits, and the late reader gets a ledger error, not a crash."""
    proc = subprocess.run([sys.executable, "-X", "faulthandler", "-c", CLOSE_UNDER_A_READ,
                           str(tmp_path / "l.db")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
