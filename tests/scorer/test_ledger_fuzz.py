"""Fuzzing the ledger's entry points in process: random and mutated hand inputs (``hand add``),
export files (``session import``) and damaged ledger files (``show``, ``list``, ``export``).

Any exception that is not the project's own error type (``LedgerError``, ``ZipaiError``) fails,
and so does a refused write that changed the ledger. CI runs a fixed seed and a bounded count;
``ZIPAI_FUZZ=N`` runs N cases per target (``ZIPAI_FUZZ_SEED`` picks another seed)::

    ZIPAI_FUZZ=5000 python -m pytest -q tests/scorer/test_ledger_fuzz.py
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_ledger_hands import INSTANT_A, INSTANT_B, L1_GROUPS, L1_HAND, instant, l1

from zipai.engine import ZipaiError
from zipai.scorer import Ledger, LedgerError
from zipai.scorer.cli import hand_main, session_main

CASES = int(os.environ.get("ZIPAI_FUZZ") or 0)
SEED = int(os.environ.get("ZIPAI_FUZZ_SEED") or 48)
OURS = (LedgerError, ZipaiError)  # every refusal of the project subclasses one of these

KEYS = ["winner", "won_by", "from", "groups", "hand", "cards", "state", "winning_card", "options",
        "rules", "players", "dealer", "minimum", "self_draw", "piao", "xing", "fan_as_zi",
        "tianhu_multiplier", "dealer_rotation", "input", "inputs", "output", "payouts", "transfers",
        "points", "score", "deltas", "reason", "note", "id", "kind", "target", "data", "photo",
        "session", "events", "summary", "format", "version", "stake", "first_dealer", "preset",
        "projected", "net", "specials", "name", "created_at", "rules_version"]
WORDS = ["hunan", "guangxi", "guilin", "湖南", "stock", "self_draw", "discard", "dealt", "open",
         "concealed", "x1", "d10", "x10", "d5", "=SUM(A1)", "-1", "@x", "/etc/passwd", "../h.toml",
         "house.toml", "~/.zipai", "", " ", "\n", "\u2028", "\x00", "\u202e", "名" * 70, "NaN", "1e999999",
         "zipai-ledger-session", "hand", "void", "edit", "adjust", "settle", "reopen", "draw", "double"]


def cases(ci: int) -> int:
    return CASES or ci


def rand_scalar(rng: random.Random) -> Any:
    pick = rng.randrange(9)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return rng.choice([0, 1, 2, 3, -1, 4, 7, 15, 100, 2**31, -(2**63), 10**30, 10**400])
    if pick == 3:
        return rng.choice([0.5, -0.0, 1e308, 3.0, 2.5e-8])
    if pick == 4:
        return rng.choice(WORDS)
    if pick == 5:
        return "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 0x3000)]))
                       for _ in range(rng.randrange(12)))
    if pick == 6:
        return rng.choice([*L1_HAND, "x11", "d0", "X1", "x1 x2"])
    if pick == 7:
        return rng.choice(KEYS)
    return rng.randrange(-5, 30)


def rand_json(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, shaped like the project's data often enough to get past the first check."""
    if depth > 5 or rng.random() < 0.35:
        return rand_scalar(rng)
    if rng.random() < 0.45:
        return [rand_json(rng, depth + 1) for _ in range(rng.randrange(5))]
    return {rng.choice(KEYS) if rng.random() < 0.8 else str(rand_scalar(rng)): rand_json(rng, depth + 1)
            for _ in range(rng.randrange(6))}


def paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value: dict keys and list indexes, from the root."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, (*prefix, i))
    return out


def mutate(rng: random.Random, obj: Any) -> Any:
    """A copy of ``obj`` with one to four random edits: replace, delete, duplicate, wrap, retype."""
    obj = json.loads(json.dumps(obj))
    for _ in range(rng.randrange(1, 5)):
        places = paths(obj)
        where = rng.choice(places)
        if not where:
            obj = rand_json(rng) if rng.random() < 0.1 else obj
            continue
        parent = obj
        for k in where[:-1]:
            parent = parent[k]
        key = where[-1]
        op = rng.randrange(7)
        if op == 0 and isinstance(parent, dict):
            del parent[key]
        elif op == 0 and isinstance(parent, list):
            parent.pop(key)
        elif op == 1 and isinstance(parent, list):
            parent.insert(key, json.loads(json.dumps(parent[key])))
        elif op == 2:
            parent[key] = [parent[key]] if rng.random() < 0.5 else {"x": parent[key]}
        elif op == 3 and isinstance(parent[key], int) and not isinstance(parent[key], bool):
            parent[key] = parent[key] + rng.choice([-1, 1, 7, -100, 10**6, 10**30])
        elif op == 4 and isinstance(parent, dict):
            parent[rng.choice(KEYS)] = rand_json(rng)
        else:
            parent[key] = rand_json(rng)
    return obj


def mutate_text(rng: random.Random, text: str) -> str:
    """Byte-level damage to a JSON text: flips, cuts, repeats."""
    b = bytearray(text.encode("utf-8"))
    for _ in range(rng.randrange(1, 4)):
        if not b:
            break
        i = rng.randrange(len(b))
        op = rng.randrange(4)
        if op == 0:
            b[i] = rng.randrange(256)
        elif op == 1:
            del b[i:i + rng.randrange(1, 50)]
        elif op == 2:
            b[i:i] = b[max(0, i - 30):i]
        else:
            b[i:i] = rng.choice([b"[", b"{", b'"', b"\\", b"\x00", b"\xff", "名".encode()])
    return b.decode("utf-8", errors="replace")


def must_be_ours(fn: Callable[[], Any], what: str) -> Any:
    try:
        return fn()
    except OURS:
        return None
    except Exception as exc:  # the point: anything else is a bug
        raise AssertionError(f"{what}: {type(exc).__name__}: {exc}") from exc


def count_events(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        return int(con.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        con.close()


def cli(main: Callable[[list[str]], int], *argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, err.getvalue()


def rich_ledger(path: Path) -> Ledger:
    """Sessions with every kind of event, to take exports from."""
    led = Ledger(path)
    s = led.new_session("湖南", "hunan", ["甲", "乙", "丙"], stake="0.5", options={"self_draw": "plus_ten"})
    for obj in (l1(1, "self_draw"), l1(2, "discard", 1), l1(2, "self_draw"), l1(0, "stock")):
        led.record_hand(s, obj, photo=f"/p/{obj['winner']}.jpg")
    led.record_draw(s, note="晚了")
    led.adjust(s, reason="错记", transfers=[[0, 1, 5]])
    led.edit_hand(s, 2, l1(1, "discard", 2))
    led.undo_last(s)
    led.settle(s)
    led.reopen(s)
    led.record_hand(s, l1(1, "stock"))
    g = led.new_session("广西", "guangxi", ["甲", "乙", "丙"], first_dealer=1)
    led.record_hand(g, l1(1, "self_draw"), options={"minimum": 15})
    led.record_double_instant(g, [instant(0, INSTANT_A), instant(2, INSTANT_B)])
    led.adjust(g, offender=2)
    led.adjust(g, deltas=[3, -3, 0], reason="=1+1")
    k = led.new_session("桂林", "guilin", ["甲", "乙"], options={"xing": ["up", "same"]})
    led.record_hand(k, {**l1(1, "stock"), "players": 2})
    return led


HAND_SEEDS = [
    l1(1, "stock"), l1(1, "self_draw"), l1(2, "discard", 0), {**l1(1, "stock"), "rules": "hunan"},
    {**l1(1, "stock"), "options": {"minimum": 10}}, {"winner": 1, "won_by": "stock",
                                                    "groups": L1_GROUPS, "hand": L1_HAND, "players": 3},
]


PLAUSIBLE: dict[str, list[Any]] = {
    "winner": [0, 1, 2, 3, -1, "1", None], "won_by": ["stock", "self_draw", "discard", "dealt", "x"],
    "from": [0, 1, 2, 5, None], "rules": ["hunan", "guangxi", "guilin", "hunan.toml", None],
    "players": [2, 3, 4, None], "dealer": [0, 1, 2, 9],
    "options": [{"minimum": 20}, {"minimum": 15}, {"piao": 100}, {"self_draw": "plus_ten"},
                {"dealer_rotation": "next_seat"}, {"xing": ["up"]}, {"fan_as_zi": True}, None, {}],
}


def gentle(rng: random.Random, obj: dict[str, Any]) -> dict[str, Any]:
    """A hand with one or two fields set to values a player might type: most still score."""
    out = dict(obj)
    for key in rng.sample(sorted(PLAUSIBLE), rng.randrange(1, 3)):
        out[key] = rng.choice(PLAUSIBLE[key])
    return {k: v for k, v in out.items() if v is not None}


def test_fuzz_hand_add(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    led = Ledger(tmp_path / "hands.db")
    sessions = [led.new_session(n, r, ["甲", "乙", "丙"]) for n, r in
                (("h", "hunan"), ("g", "guangxi"), ("k", "guilin"))]
    n = cases(300)
    accepted = 0
    for i in range(n):
        s = rng.choice(sessions)
        pick = rng.random()
        seed = rng.choice(HAND_SEEDS)
        obj = rand_json(rng) if pick < 0.2 else gentle(rng, seed) if pick < 0.6 else mutate(rng, seed)
        opts = rand_json(rng) if rng.random() < 0.1 else None
        before = count_events(led.path)
        e = must_be_ours(lambda s=s, obj=obj, opts=opts: led.record_hand(s, obj, options=opts),
                         f"case {i}: record_hand({json.dumps(obj, ensure_ascii=False)[:300]})")
        assert count_events(led.path) == before + (e is not None), f"case {i} lost or added a row"
        if e is not None:
            accepted += 1
            assert len(e.payouts) == s.n and e.score > 0, (i, e.payouts)
            must_be_ours(lambda s=s: led.undo_last(s), f"case {i}: undo")
        if rng.random() < 0.15:  # and once in a while through the command line, as a file
            f = tmp_path / "hand.json"
            f.write_text(json.dumps(obj, ensure_ascii=False) if rng.random() < 0.7
                         else mutate_text(rng, json.dumps(obj)), encoding="utf-8")
            rc, err = cli(hand_main, "add", str(f), "--db", str(led.path), "--session", s.name)
            assert rc in (0, 2) and "Traceback" not in err and err.count("\n") <= 1, (i, err)
    assert 0 < accepted < n  # some cases get through to a write, most are refused
    for s in sessions:
        assert must_be_ours(lambda s=s: led.state(s), "state") is not None
    led.close()


def test_fuzz_session_import(tmp_path: Path) -> None:
    rng = random.Random(SEED + 1)
    led = rich_ledger(tmp_path / "import.db")
    exports = [led.export_json(s["id"]) for s in led.sessions()]
    n = cases(300)
    imported = 0
    for i in range(n):
        src = rng.choice(exports)
        data: Any
        if rng.random() < 0.15:
            data = mutate_text(rng, json.dumps(src, ensure_ascii=False))
        elif rng.random() < 0.05:
            data = rand_json(rng)
        else:
            data = mutate(rng, src)
        before = count_events(led.path)
        got = must_be_ours(lambda data=data, i=i: led.import_json(data, name=f"fuzz {i}"),
                           f"case {i}: import_json")
        if got is None:
            assert count_events(led.path) == before, f"case {i}: a refused import wrote rows"
            continue
        imported += 1
        # what was accepted is a sound session: it shows, settles and round-trips
        st = must_be_ours(lambda got=got: led.state(got), f"case {i}: state of the import")
        assert st is not None, f"case {i}: an accepted import does not replay"
        must_be_ours(lambda got=got: (led.settlement(got), led.export_csv(got)), f"case {i}: settle")
        again = led.import_json(led.export_json(got), name=f"fuzz {i} again")
        assert led.state(again).projected()[0] == st.projected()[0]
        if rng.random() < 0.2:
            f = tmp_path / "export.json"
            f.write_text(json.dumps(data, ensure_ascii=False) if not isinstance(data, str) else data,
                         encoding="utf-8")
            rc, err = cli(session_main, "import", str(f), "--name", f"cli {i}", "--db", str(led.path))
            assert rc in (0, 2) and "Traceback" not in err and err.count("\n") <= 1, (i, err)
    assert imported < n  # the mutations do get refused …
    assert must_be_ours(led.sessions, "sessions") is not None
    led.close()


def test_fuzz_damaged_ledger_files(tmp_path: Path) -> None:
    rng = random.Random(SEED + 2)
    good = tmp_path / "good.db"
    led = rich_ledger(good)
    for i in range(40):
        led.record_hand("湖南", l1(1 + i % 2, "stock"), photo=f"/photos/{'p' * 200}{i}.jpg")
    led._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    led.close()
    raw = good.read_bytes()
    n = cases(25)
    for i in range(n):
        b = bytearray(raw)
        for _ in range(rng.randrange(1, 4)):
            at, size = rng.randrange(100, len(b)), rng.choice([1, 16, 512, 4096])
            b[at:at + size] = rng.randbytes(min(size, len(b) - at))
        bad = tmp_path / f"bad{i % 3}.db"
        for extra in (Path(f"{bad}-wal"), Path(f"{bad}-shm")):
            extra.unlink(missing_ok=True)
        bad.write_bytes(bytes(b))
        for argv in (["show", "--session", "湖南"], ["list"], ["export", "--session", "湖南"],
                     ["export", "--csv", "--session", "广西"]):
            rc, err = cli(session_main, *argv, "--db", str(bad))
            assert rc in (0, 1, 2) and "Traceback" not in err, (i, argv, err)
            assert err.count("\n") <= 1 or argv == ["list"], (i, argv, err)


@pytest.mark.parametrize("text", ["", "[]", "null", '{"format": "zipai-ledger-session"}', "[" * 5000])
def test_degenerate_exports(tmp_path: Path, text: str) -> None:
    with Ledger(tmp_path / "l.db") as led:
        with pytest.raises(LedgerError):
            led.import_json(text)
