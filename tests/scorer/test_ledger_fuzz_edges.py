"""Fuzzing the ledger's edges: rows damaged the ways SQLite accepts, output paths that alias
the ledger or an input, and the environment a command runs in (locales, encodings, ``~user``).

A case fails on any exception that is not the project's own error, a traceback or a message
of more than one line from a command, a hang, a changed ledger after a refused or read-only
command, or a salvaged export that does not import. CI runs a fixed seed and a few cases per
target (a few seconds in all); ``ZIPAI_FUZZ=N`` runs N cases per target and
``ZIPAI_FUZZ_SEED`` picks another seed::

    ZIPAI_FUZZ=2000 nice -n 10 python -m pytest -q tests/scorer/test_ledger_fuzz_edges.py
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from test_ledger_fuzz import OURS, cli, must_be_ours, rich_ledger
from test_ledger_hands import l1

from zipai.scorer import Ledger, NotALedger, salvage
from zipai.scorer.cli import hand_main, session_main

CASES = int(os.environ.get("ZIPAI_FUZZ") or 0)
SEED = int(os.environ.get("ZIPAI_FUZZ_SEED") or 57)


def cases(ci: int) -> int:
    return CASES or ci


# ------------------------------------------------------------------ damaged rows SQLite accepts

NUMBERS = ["'1e999999'", "'-5'", "'99999999999999999999999'", "'NaN'", "-1", "0", "2.5", "9e18",
           "'٣'", "x'00ff'", "''", "NULL", "'   '", "'1E+2'", "'0.00001'"]
EVENT_TEXTS = ["'{}'", "'{\"minimum\":20}'", "'{\"reason\":\"undo\"}'", "'{\"reason\":\"redo\"}'"]
JSON_EDITS = [("\"dealer\":", "\"dealer\":NaN,\"x\":"), ("\"points\":", "\"points\":1e999,\"y\":"),
              ("\"winner\":1", "\"winner\":2"), ("\"payouts\":[", "\"payouts\":[7,"),
              ("\"reason\":\"undo\"", "\"reason\":\"redo\""), ("\"mode\":\"minimal\"", "\"mode\":\"x\""),
              ("\"input\":", "\"players\":99,\"input\":"), ("\"minimum\":15", "\"minimum\":-5"),
              ("\"deltas\":[", "\"deltas\":[1000000000,"), ("]", ",1]"), ("\"", "'"),
              ("\"output\":", "\"outpux\":"), ("\"piao\":30", "\"piao\":30.0")]


def damage(rng: random.Random, con: sqlite3.Connection) -> str:
    """One change a program other than ours could make and SQLite would take."""
    pick = rng.randrange(6)
    if pick == 0:
        col = rng.choice(["stake", "first_dealer", "name", "created_at", "rules_json"])
        stmt = f"UPDATE sessions SET {col} = {rng.choice(NUMBERS)} WHERE id = {rng.randrange(1, 4)}"
    elif pick == 1:
        col = rng.choice(["photo", "options", "target", "created_at", "kind", "data"])
        value = rng.choice([*NUMBERS, *EVENT_TEXTS])
        stmt = f"UPDATE events SET {col} = {value} WHERE id = {rng.randrange(1, 16)}"
    elif pick == 2:
        a, b = rng.choice(JSON_EDITS)
        stmt = (f"UPDATE events SET data = replace(data, '{a}', '{b}') WHERE id = {rng.randrange(1, 16)}")
    elif pick == 3:
        a, b = rng.choice(JSON_EDITS)
        stmt = f"UPDATE sessions SET rules_json = replace(rules_json, '{a}', '{b}')"
    elif pick == 4:
        stmt = (f"UPDATE meta SET value = {rng.choice(NUMBERS)} WHERE key = "
                f"'{rng.choice(['current_session', 'export_key', 'generation'])}'")
    else:
        kind = rng.choice(["void", "edit", "settle", "reopen", "hand", "adjust"])
        target = rng.choice(["NULL", str(rng.randrange(1, 20))])
        stmt = (f"INSERT INTO events(session_id, kind, target, data, created_at) VALUES "
                f"({rng.randrange(1, 4)}, '{kind}', {target}, {rng.choice(EVENT_TEXTS)}, 'x')")
    try:
        con.execute(stmt)
    except sqlite3.Error:
        pass  # a change SQLite refuses is no case
    return stmt


def read(led: Ledger, what: str) -> None:
    """Every reading of every session: refused in our words, or sound enough to print and settle."""
    for ref in ("湖南", "广西", "桂林", None):
        st = must_be_ours(lambda ref=ref: led.state(ref), f"{what}: state {ref}")
        if st is None:
            continue
        assert json.dumps(st.to_dict(), ensure_ascii=False), what
        must_be_ours(lambda ref=ref: led.export_csv(ref), f"{what}: csv {ref}")
        assert must_be_ours(lambda ref=ref: led.settlement(ref), f"{what}: settle {ref}") is not None
        assert must_be_ours(lambda ref=ref: json.dumps(led.export_json(ref)), what) is not None
    must_be_ours(led.sessions, f"{what}: sessions")


def test_fuzz_damaged_rows_sqlite_accepts(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    good = tmp_path / "good.db"
    rich_ledger(good).close()
    clean = Ledger(tmp_path / "clean.db")
    n = cases(15)
    for i in range(n):
        bad = tmp_path / "bad.db"
        for f in tmp_path.glob("bad.db*"):
            f.unlink()
        shutil.copy(good, bad)
        con = sqlite3.connect(bad)
        con.execute("PRAGMA ignore_check_constraints = ON")
        did = [damage(rng, con) for _ in range(rng.randrange(1, 4))]
        con.commit()
        con.close()
        what = f"case {i}: {did}"
        led = must_be_ours(lambda bad=bad: Ledger(bad, readonly=True), what)
        if led is not None:
            with led:
                read(led, what)
        for ref in ("湖南", "广西", "桂林"):
            try:
                got = salvage(bad, ref)
            except NotALedger:
                continue
            except OURS as exc:
                raise AssertionError(f"{what}: salvage {ref} raised {exc!r}") from exc
            # what salvage exports, an import takes
            clean.import_json(got.to_json(str(bad)), name=f"salvaged {i} {ref}")
        if rng.random() < 0.25:
            for argv in (["show"], ["export", "--session", "广西"], ["list"]):
                rc, err = cli(session_main, *argv, "--db", str(bad))
                assert rc in (0, 1, 2) and "Traceback" not in err, (what, argv, err)
                assert err.count("\n") <= 1 or argv == ["list"], (what, argv, err)
    clean.close()


# ------------------------------------------------------------------ outputs that alias inputs

def _bounded(fn: Any, seconds: float = 20) -> Any:
    box: list[Any] = []
    t = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "a command waited (on a FIFO?)"
    return box[0]


def test_fuzz_output_paths_that_alias_inputs(tmp_path: Path) -> None:
    rng = random.Random(SEED + 1)
    db = tmp_path / "l.db"
    led = rich_ledger(db)
    led.backup(tmp_path / "b.db")
    led.close()
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "fifo")
    os.symlink(db, tmp_path / "soft.json")
    os.link(db, tmp_path / "hard.json")
    os.symlink(tmp_path / "b.db", tmp_path / "soft-b.json")
    os.symlink(tmp_path / "nowhere" / "x", tmp_path / "dangling.json")
    (tmp_path / "plain.json").write_text("old", encoding="utf-8")
    targets = [str(db), f"{db}-wal", f"{db}-shm", str(tmp_path / "soft.json"), str(tmp_path / "hard.json"),
               str(tmp_path / "sub" / ".." / "l.db"), str(tmp_path / "b.db"), str(tmp_path / "soft-b.json"),
               str(tmp_path / "fifo"), str(tmp_path / "sub"), "/dev/null", str(tmp_path / "dangling.json"),
               str(tmp_path / "plain.json"), str(tmp_path / "new" / "x.json"), "/proc/x.json", "",
               str(tmp_path / ("名" * 200 + ".json"))]

    def sessions() -> list[Any]:
        with Ledger(db, readonly=True) as r:
            return [(s["name"], s["hands"]) for s in r.sessions()]
    before = sessions()
    n = cases(30)
    for i in range(n):
        target = rng.choice(targets)
        argv = rng.choice([["export", "-o", target], ["export", "--csv", "-o", target], ["backup", target],
                           ["restore", target], ["import", target, "--name", f"i{i}"]])
        rc, err = _bounded(lambda argv=argv: cli(session_main, *argv, "--db", str(db)))
        assert rc in (0, 1, 2) and "Traceback" not in err and err.count("\n") <= 1, (i, argv, err)
        assert db.is_file() and db.read_bytes()[:16] == b"SQLite format 3\x00", (i, argv)
        if argv[0] in ("export", "backup", "import") or rc:
            now = sessions()
            assert now[-len(before):] == before if argv[0] != "import" else True, (i, argv)
        if rc == 0 and argv[0] in ("export", "backup") and target:  # -o "": standard output
            out = Path(target)
            assert out.is_file() and not os.path.samefile(out, db), (i, argv)
            if argv[0] == "backup":
                out.unlink()
        for t in ("b.db",):
            assert (tmp_path / t).read_bytes()[:16] == b"SQLite format 3\x00", (i, argv)


# ------------------------------------------------------------------ the environment

LOCALES = [{"LC_ALL": "C", "PYTHONUTF8": "0"}, {"LC_ALL": "POSIX", "PYTHONUTF8": "0"},
           {"LC_ALL": "C.UTF-8"}, {"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "latin-1"},
           {"PYTHONIOENCODING": "utf-8"}, {"LANG": "", "LC_ALL": ""}]


def _zipai(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "zipai", *args], capture_output=True, env=env, cwd=cwd,
                          timeout=60, check=False)


def test_fuzz_ledger_commands_under_any_environment(tmp_path: Path) -> None:
    rng = random.Random(SEED + 2)
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(l1(1, "stock")), encoding="utf-8")
    base = {k: v for k, v in os.environ.items()
            if k not in ("PYTHONIOENCODING", "LC_ALL", "LANG", "LC_CTYPE", "PYTHONUTF8", "ZIPAI_DB",
                         "XDG_DATA_HOME")}
    n = cases(1)
    for i in range(n):
        home = tmp_path / f"home{i}"
        home.mkdir()
        env = {**base, **rng.choice(LOCALES), "HOME": str(home)}
        where = rng.choice(["abs", "tilde", "nouser", "xdg", "xdg-nouser", "relative"])
        db = {"abs": str(home / "l.db"), "tilde": "~/l.db", "nouser": "~nosuchuser4711/l.db",
              "relative": "l.db"}.get(where)
        if db is not None:
            env["ZIPAI_DB"] = db
        else:
            env["XDG_DATA_HOME"] = str(home / "data") if where == "xdg" else "~nosuchuser4711"
        name = rng.choice(["周五", "friday", "Ünïcode", "名" * 10])
        steps = [["session", "new", name, "--players", rng.choice(["甲,乙,丙", "a,b,c", "Ä,Ö,Ü"])],
                 ["hand", "add", str(hand)], ["session", "undo"], ["hand", "add", str(hand)],
                 ["session", "show"], ["players"], ["session", "export"]]
        recorded = 0
        for argv in steps:
            got = _zipai(argv, env, home)
            err = got.stderr.decode("utf-8", "replace")
            assert got.returncode in (0, 2) and "Traceback" not in err and err.count("\n") <= 1, (
                i, env.get("LC_ALL"), env.get("PYTHONIOENCODING"), where, argv, err)
            if "nouser" in where:
                assert got.returncode == 2 and "nosuchuser4711" in err, (i, where, err)
            if got.returncode == 0 and argv[0] == "hand":
                recorded += 1
            if got.returncode == 0 and argv[:2] == ["session", "undo"]:
                recorded -= 1
        assert not (home / "~nosuchuser4711").exists()
        if "nouser" not in where:  # a write that said so was stored exactly once
            path = {"abs": home / "l.db", "tilde": home / "l.db", "relative": home / "l.db",
                    "xdg": home / "data" / "zipai" / "ledger.db"}[where]
            with Ledger(path, readonly=True) as led:
                assert led.state().hands == recorded == 1, (i, where, env.get("LC_ALL"))


@pytest.mark.parametrize("argv", [["session", "show"], ["hand", "list"], ["players"]])
def test_a_ledger_command_with_no_home_and_no_db_is_one_line(tmp_path: Path, argv: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "ZIPAI_DB", "XDG_DATA_HOME")}
    got = _zipai(argv, env, tmp_path)
    err = got.stderr.decode("utf-8", "replace")
    assert got.returncode in (0, 2) and "Traceback" not in err and err.count("\n") <= 1, err


def test_hand_main_is_importable() -> None:  # the module the fuzz drives
    assert callable(hand_main)
