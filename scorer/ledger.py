"""The ``Ledger``: the one object the app and the CLI talk to (see the package docstring)."""

from __future__ import annotations

import json
import secrets
import shutil
import sqlite3
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from copy import copy
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

from zipai.engine import Rules, ZipaiError, get_rules

from . import db, files
from .checks import (
    SALVAGE_HINT,
    check_adjustment,
    check_depth,
    check_hand_options,
    check_name,
    check_option_values,
    check_photo,
    check_seat,
    check_stake,
    check_text,
    parse_json,
    preset_name,
    replay_checked,
    session_from_row,
    session_id,
    short,
    why,
)
from .errors import DamagedData, LedgerError, LockedSession, NotALedger, UnknownSession
from .exchange import (
    EXPORT_BYTES,
    check_results,
    check_signature,
    csv_text,
    export_dict,
    read_export,
    sign,
    stored_event,
)
from .penalty import penalty_data
from .settle import Settlement, settlement
from .state import (
    LEDGER_FIELDS,
    Entry,
    Event,
    Replayer,
    SessionInfo,
    SessionState,
    double_result,
    hand_result,
    redoable,
    stored_double,
    stored_output,
)

T = TypeVar("T")
SessionRef = int | str | SessionInfo | None
EVENT_COLS = "id, kind, target, data, options, photo, created_at"


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class Ledger:
    """A session ledger in one SQLite file; safe to share between processes.

    Every write is one ``BEGIN IMMEDIATE`` transaction; the derived state is kept in
    memory per session and rebuilt from the events whenever another writer (or an undo,
    an edit, an import) has changed the log.
    """

    def __init__(self, path: str | Path | None = None, *, readonly: bool = False) -> None:
        """``readonly`` writes nothing and takes no lock: for showing and exporting."""
        self.path = Path(path) if path is not None else db.default_path()
        self.readonly = readonly
        self._conn = db.connect(self.path, readonly=readonly)
        self._cache: dict[int, SessionState] = {}
        self._gen: str | None = None  # changes when a backup is restored: every cache is stale then
        self._lock = threading.RLock()

    # ------------------------------------------------------------ plumbing
    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, body: Callable[[], T]) -> T:
        def keyed() -> T:
            self._ensure_key()
            return body()
        with self._lock:
            try:
                return db.transaction(self._conn, keyed)  # type: ignore[return-value]
            except sqlite3.DatabaseError as exc:
                raise self._write_error(exc) from None

    def _write_error(self, exc: sqlite3.DatabaseError) -> LedgerError:
        """A failed write, named for what it is: busy, a full disk, read-only, no permission."""
        if db.is_busy(exc):
            return db.busy(str(self.path))
        cause = None if db.is_damage(exc) else db.environment_cause(self.path, exc)
        if cause == "the disk is full":
            return LedgerError(f"{self.path}: the disk is full; the write was rolled back and nothing "
                               "was recorded (free some space and try again)", code="disk_full")
        if db.is_read_only(exc) or self.readonly or (cause is not None and "read-only" in cause):
            return db.read_only(str(self.path), cause)
        if cause is not None:
            return LedgerError(f"{self.path}: cannot write the ledger: {cause}; nothing was recorded",
                               code="read_only")
        return LedgerError(f"{self.path}: the write failed and was rolled back ({exc})", code="db_error")

    def _read_error(self, exc: sqlite3.DatabaseError) -> LedgerError:
        if db.is_busy(exc):
            return db.busy(str(self.path))
        cause = None if db.is_damage(exc) else db.environment_cause(self.path, exc)
        if cause is not None:
            return LedgerError(f"{self.path}: cannot read the ledger: {cause} ({exc})", code="io")
        return NotALedger(f"{self.path}: cannot read the ledger ({exc}); {SALVAGE_HINT}",
                          code="damaged")

    def _q(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, args).fetchall()
            except sqlite3.DatabaseError as exc:
                raise self._read_error(exc) from None

    # ------------------------------------------------------------ roster
    def players(self) -> list[dict[str, Any]]:
        """The roster: every player ever seated or added, with how many sessions they played."""
        rows = self._q("""SELECT p.name, p.created_at, count(sp.session_id), max(s.created_at)
                          FROM players p LEFT JOIN session_players sp ON sp.player_id = p.id
                          LEFT JOIN sessions s ON s.id = sp.session_id
                          GROUP BY p.id ORDER BY max(s.created_at) DESC, p.name""")
        return [{"name": r[0], "added": r[1], "sessions": r[2], "last_played": r[3]} for r in rows]

    def add_player(self, name: str) -> str:
        name = check_name(name, "player name")

        def body() -> str:
            self._conn.execute("INSERT OR IGNORE INTO players(name, created_at) VALUES (?, ?)",
                               (name, db.now()))
            return name
        return self._write(body)

    def remove_player(self, name: str) -> None:
        def body() -> None:
            row = self._conn.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise LedgerError(f"no player named {name!r} in the roster", code="unknown_player")
            if self._conn.execute("SELECT 1 FROM session_players WHERE player_id = ?", row).fetchone():
                raise LedgerError(f"player {name!r} has played sessions and stays in the roster",
                                  code="player_in_use")
            self._conn.execute("DELETE FROM players WHERE id = ?", row)
        self._write(body)

    # ------------------------------------------------------------ sessions
    def new_session(self, name: str, rules: str | Rules = "hunan", players: Sequence[str] = (),
                    stake: Decimal | int | str = 1, first_dealer: int | str = 0,
                    options: Mapping[str, Any] | None = None, make_current: bool = True) -> SessionInfo:
        """Start an evening. ``rules`` is a preset or a house-rules file, frozen here with ``options``."""
        name = check_name(name, "session name")
        check_option_values(options or {}, "the session's rules")
        try:
            r = get_rules(rules, options or {})
        except ZipaiError as exc:
            raise LedgerError(str(exc), code="bad_rules") from None
        names = [check_name(p, "player name") for p in players]
        lo, hi = r.variant.seats
        if not lo <= len(names) <= hi:
            raise LedgerError(f"{r.name} is played by {lo} to {hi} players, not {len(names)}",
                              code="bad_seat")
        if len(set(names)) != len(names):
            raise LedgerError("two seats have the same player name", code="bad_seat")
        dealer = check_seat(first_dealer, names, "first dealer")
        st = check_stake(stake)
        frozen = {"preset": r.name, "source": r.source or r.name, "options": r.options.to_dict()}

        def body() -> int:
            if self._conn.execute("SELECT 1 FROM sessions WHERE name = ?", (name,)).fetchone():
                raise LedgerError(f"a session named {name!r} already exists", code="name_taken")
            cur = self._conn.execute(
                "INSERT INTO sessions(name, preset, rules_json, stake, first_dealer, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)", (name, r.name, _dumps(frozen), str(st), dealer, db.now()))
            sid = int(cur.lastrowid or 0)
            for seat, p in enumerate(names):
                self._conn.execute("INSERT OR IGNORE INTO players(name, created_at) VALUES (?, ?)",
                                   (p, db.now()))
                self._conn.execute("INSERT INTO session_players(session_id, seat, player_id) "
                                   "SELECT ?, ?, id FROM players WHERE name = ?", (sid, seat, p))
            if make_current:
                self._set_meta("current_session", str(sid))
            return sid
        return self.session(self._write(body))

    def _ensure_key(self) -> None:
        """The ledger's export key, made on its first write (inside that write's transaction)."""
        self._conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('export_key', ?)",
                           (secrets.token_hex(32),))

    def _export_key(self) -> bytes | None:
        """The key this ledger signs its exports with; ``None`` before its first write."""
        row = self._q("SELECT value FROM meta WHERE key = 'export_key'")
        if not row or not isinstance(row[0][0], str) or len(row[0][0]) != 64:
            return None
        try:
            return bytes.fromhex(row[0][0])
        except ValueError:
            return None

    def _set_meta(self, key: str, value: str) -> None:
        self._conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                           "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def set_current(self, ref: SessionRef) -> SessionInfo:
        s = self.session(ref)
        self._write(lambda: self._set_meta("current_session", str(s.id)))
        return s

    def sessions(self) -> list[dict[str, Any]]:
        """Every session, newest first, with its players and whether it is settled."""
        rows = self._q("SELECT id FROM sessions ORDER BY id DESC")
        cur = self._current_id()
        out = []
        for (sid,) in rows:
            try:
                s = self.session(int(sid))
                st = self.state(s)
            except DamagedData as exc:  # one damaged session does not hide the others
                row = self._q("SELECT name, preset, created_at FROM sessions WHERE id = ?", (sid,))
                seats = self._q("SELECT p.name FROM session_players sp JOIN players p "
                                "ON p.id = sp.player_id WHERE sp.session_id = ? ORDER BY sp.seat", (sid,))
                name, preset, created = (str(v) for v in row[0]) if row else ("", "", "")
                out.append({"id": int(sid), "name": name, "rules": preset,
                            "players": [str(r[0]) for r in seats], "hands": None, "locked": False,
                            "created_at": created, "current": int(sid) == cur, "projected": None,
                            "damaged": str(exc)})
                continue
            out.append({"id": s.id, "name": s.name, "rules": s.preset, "players": list(s.players),
                        "hands": st.hands, "locked": st.locked, "created_at": s.created_at,
                        "current": s.id == cur, "projected": st.projected()[0]})
        return out

    def _current_id(self) -> int | None:
        """The current session's id; a damaged value (not an id) reads as no current session."""
        row = self._q("SELECT value FROM meta WHERE key = 'current_session'")
        return session_id(row[0][0]) if row else None

    def session(self, ref: SessionRef = None) -> SessionInfo:
        """A session by id, by name, or (``None``) the current one."""
        if isinstance(ref, SessionInfo):
            ref = ref.id
        if ref is None:
            cur = self._current_id()
            if cur is None:
                raise UnknownSession("no current session: start one with 'zipai session new' "
                                     "or pick one with --session")
            ref = cur
        row = None
        sid = session_id(ref)
        if sid is not None:
            row = self._q("SELECT id, name, rules_json, stake, first_dealer, created_at FROM sessions "
                          "WHERE id = ?", (sid,))
        if not row and isinstance(ref, str):
            row = self._q("SELECT id, name, rules_json, stake, first_dealer, created_at FROM sessions "
                          "WHERE name = ?", (ref,))
        if not row:
            raise UnknownSession(f"no session with id or name {short(ref)}")
        sid, name, rules_json, stake, dealer, created = row[0]
        seats = self._q("SELECT p.name FROM session_players sp JOIN players p ON p.id = sp.player_id "
                        "WHERE sp.session_id = ? ORDER BY sp.seat", (sid,))
        return session_from_row(sid, name, rules_json, stake, dealer, created, [r[0] for r in seats])

    # ------------------------------------------------------------ derived state
    def _events(self, s: SessionInfo | int) -> list[Event]:
        """The session's rows, each checked as it was when written (a ``DamagedData`` otherwise)."""
        if not isinstance(s, SessionInfo):
            s = self.session(s)
        rows = self._conn.execute(f"SELECT {EVENT_COLS} FROM events WHERE session_id = ? ORDER BY id",
                                  (s.id,)).fetchall()
        out = []
        for r in rows:
            try:
                out.append(stored_event(s, r))
            except (ValueError, TypeError, RecursionError) as exc:
                err = DamagedData(f"{self.path}: event {short(r[0])} of session {s.id} is damaged "
                                  f"({why(exc)}); {SALVAGE_HINT}")
                err.event, err.why = r[0] if isinstance(r[0], int) else None, why(exc)
                raise err from None
        return out

    def _fresh_state(self, s: SessionInfo) -> SessionState:
        """The cached state if no event was added since, else a full replay (inside any transaction)."""
        # ids only grow and events are never deleted: the last id tells whether anything was added
        last, gen = self._conn.execute(
            "SELECT coalesce(max(id), 0), (SELECT value FROM meta WHERE key = 'generation') "
            "FROM events WHERE session_id = ?", (s.id,)).fetchone()
        cached = self._cache.get(s.id)
        if cached is not None and cached.last_event == last and gen == self._gen:
            return cached
        st = replay_checked(s, self._events(s), f"{self.path}: ", stored=True)
        self._cache[s.id] = st
        self._gen = gen
        return st

    def state(self, ref: SessionRef = None) -> SessionState:
        """Dealer, 数审, totals, Hunan rounds and the full history, derived from the events."""
        s = self.session(ref)
        with self._lock:
            try:
                return self._fresh_state(s)
            except sqlite3.DatabaseError as exc:
                raise self._read_error(exc) from None

    def history(self, ref: SessionRef = None) -> list[Entry]:
        return self.state(ref).history

    # ------------------------------------------------------------ writing events
    def _append(self, ref: SessionRef, make: Callable[[SessionState], tuple[str, dict[str, Any],
                dict[str, Any] | None, str | None, int | None]], *, allow_locked: bool = False,
                incremental: bool = True) -> SessionState:
        """Append one event in one transaction, after checking it against the derived state."""
        s = self.session(ref)

        def body() -> SessionState:
            self._ensure_key()
            st = self._fresh_state(s)
            if st.locked and not allow_locked:
                raise LockedSession(f"session {s.name!r} is settled; reopen it first "
                                    "('zipai session reopen')")
            kind, data, options, photo, target = make(st)
            photo = check_photo(photo)
            created = db.now()
            cur = self._conn.execute(
                "INSERT INTO events(session_id, kind, target, data, options, photo, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (s.id, kind, target, _dumps(data), _dumps(options) if options else None, photo, created))
            ev = Event(int(cur.lastrowid or 0), kind, data, target, options, photo, created)
            if incremental:
                nxt = _copy_state(st)
                Replayer.resume(nxt).feed(ev)
                return nxt
            return replay_checked(s, self._events(s), f"{self.path}: ")

        with self._lock:
            try:
                st = db.transaction(self._conn, body)
            except sqlite3.DatabaseError as exc:
                self._cache.pop(s.id, None)
                raise self._write_error(exc) from None
            except BaseException:
                self._cache.pop(s.id, None)
                raise
            self._cache[s.id] = st  # type: ignore[assignment]
            return st  # type: ignore[return-value]

    def _check_input(self, s: SessionInfo, raw: Any, where: str) -> dict[str, Any]:
        if not isinstance(raw, Mapping):
            raise LedgerError(f"{where}: a hand must be a JSON object", code="bad_input")
        check_depth(raw, where)
        rules = raw.get("rules")
        if rules is not None:
            preset = preset_name(rules, where)  # a preset, never a rules file: data names no file
            if preset != s.preset:
                raise LedgerError(f"{where}: the hand is for {preset!r} rules but session "
                                  f"{s.name!r} plays {s.preset}", code="bad_rules")
        players = raw.get("players")
        if players is not None and players != s.n:
            raise LedgerError(f"{where}: the hand says {players} players, session {s.name!r} has {s.n}",
                              code="bad_seat")
        return dict(raw)

    def _per_hand(self, s: SessionInfo, raw: Mapping[str, Any], options: Mapping[str, Any] | None,
                  where: str) -> dict[str, Any] | None:
        for given in (raw.get("options"), options):
            if given is not None and not isinstance(given, Mapping):
                raise LedgerError(f"{where}: the hand's options must be an object of option keys, "
                                  f"not {type(given).__name__}", code="bad_rules")
        merged = {**dict(raw.get("options") or {}), **dict(options or {})}
        if not merged:
            return None
        check_hand_options(s, merged, where)
        return merged

    def record_hand(self, ref: SessionRef, engine_input: Mapping[str, Any], photo: str | None = None,
                    options: Mapping[str, Any] | None = None) -> Entry:
        """Score a won hand with the session's rules and the current dealer, and store it."""
        s = self.session(ref)

        def make(st: SessionState) -> tuple[str, dict[str, Any], dict[str, Any] | None, str | None, None]:
            where = f"hand {len(st.history) + 1}"
            raw = self._check_input(s, engine_input, where)
            per_hand = self._per_hand(s, raw, options, where)
            stored = {k: v for k, v in raw.items() if k not in LEDGER_FIELDS and k != "options"}
            out = stored_output(hand_result(s, stored, st.dealer, per_hand, where))
            return "hand", {"input": stored, "dealer": st.dealer, "output": out}, per_hand, photo, None
        return self._append(s, make).history[-1]

    def record_draw(self, ref: SessionRef = None, note: str = "") -> Entry:
        """流局 / 荒莊: nobody won; nothing is paid and the dealer deals again."""
        note = check_text(note, "note")
        return self._append(ref, lambda st: ("draw", {"note": note, "dealer": st.dealer}, None, None,
                                             None)).history[-1]

    def record_double_instant(self, ref: SessionRef, inputs: Sequence[Mapping[str, Any]],
                              photo: str | None = None) -> Entry:
        """Guangxi: two instant wins after the same deal, one event with both layouts."""
        s = self.session(ref)

        def make(st: SessionState) -> tuple[str, dict[str, Any], None, str | None, None]:
            where = f"hand {len(st.history) + 1}"
            if len(inputs) != 2:
                raise LedgerError(f"{where}: a simultaneous instant win has exactly two layouts",
                                  code="bad_input")
            raws = [self._check_input(s, r, where) for r in inputs]
            for r in raws:
                if r.get("options"):
                    raise LedgerError(f"{where}: instant wins take no per-hand options", code="bad_rules")
            stored = [{k: v for k, v in r.items() if k not in LEDGER_FIELDS and k != "options"}
                      for r in raws]
            out = stored_double(double_result(s, stored, st.dealer, where))
            return "double", {"inputs": stored, "dealer": st.dealer, "output": out}, None, photo, None
        return self._append(s, make).history[-1]

    def adjust(self, ref: SessionRef = None, *, reason: str = "", deltas: Sequence[int] | None = None,
               transfers: Sequence[Sequence[int]] | None = None, offender: int | str | None = None,
               amount: int | None = None) -> Entry:
        """A manual change with a reason: ``deltas`` per seat, ``transfers`` [payer, payee, points],
        or ``offender`` for the Guangxi 下夥 penalty (pays every other player the minimum).

        Guangxi and Guilin adjustments must sum to zero; Hunan ones change the open round's
        totals (a correction) and may cross the 100 line like a hand."""
        s = self.session(ref)

        def make(st: SessionState) -> tuple[str, dict[str, Any], None, None, None]:
            data = check_adjustment(s, reason, deltas, transfers, offender, amount)
            return "adjust", data, None, None, None
        return self._append(s, make).history[-1]

    def penalty(self, ref: SessionRef, engine_input: Mapping[str, Any], reason: str = "") -> Entry:
        """胡多少处罚多少 (Hunan, seed 001): the hand's ``winner`` broke a forced rule, so it
        does not win and pays what the hand would have scored (an adjustment with a name)."""
        s = self.session(ref)

        def make(st: SessionState) -> tuple[str, dict[str, Any], None, None, None]:
            where = f"penalty {len(st.history) + 1}"
            raw = self._check_input(s, engine_input, where)
            return "adjust", penalty_data(s, raw, st.dealer, reason, where), None, None, None
        return self._append(s, make).history[-1]

    def undo_last(self, ref: SessionRef = None) -> Entry:
        """Undo the last hand, draw or adjustment (an appended ``void`` event; nothing is deleted)."""
        s = self.session(ref)
        undone: list[Entry] = []

        def make(st: SessionState) -> tuple[str, dict[str, Any], None, None, int]:
            if not st.history:
                raise LedgerError(f"session {s.name!r} has nothing to undo", code="empty")
            undone.append(st.history[-1])
            return "void", {"reason": "undo"}, None, None, st.history[-1].event
        self._append(s, make, incremental=False)
        return undone[0]

    def redo_last(self, ref: SessionRef = None) -> Entry:
        """Take back the latest undo (an appended ``void`` of its ``void``; nothing is deleted).
        Refused once anything was recorded or settled after the undo."""
        s = self.session(ref)
        target: list[int] = []

        def make(st: SessionState) -> tuple[str, dict[str, Any], None, None, int]:
            undo = redoable(self._events(s))
            if undo is None or undo.target is None:
                raise LedgerError(f"session {s.name!r} has no undo to take back", code="nothing_to_redo")
            target.append(int(undo.target))
            return "void", {"reason": "redo"}, None, None, undo.id
        st = self._append(s, make, incremental=False)
        return next(e for e in st.history if e.event == target[0])

    def can_redo(self, ref: SessionRef = None) -> bool:
        """Whether ``redo_last`` would take back an undo now."""
        s = self.session(ref)
        with self._lock:
            return redoable(self._events(s)) is not None

    def edit_hand(self, ref: SessionRef, no: int, engine_input: Mapping[str, Any],
                  photo: str | None = None, options: Mapping[str, Any] | None = None) -> Entry:
        """Replace hand ``no`` (1-based, as in the history); everything after it is derived again.

        The edit is refused, and nothing written, if any later hand no longer scores (say its
        winner became the 数审 seat under the new dealers)."""
        s = self.session(ref)

        def make(st: SessionState) -> tuple[str, dict[str, Any], dict[str, Any] | None, str | None, int]:
            if not 1 <= no <= len(st.history):
                raise LedgerError(f"session {s.name!r} has no hand {no} (it has {len(st.history)})",
                                  code="bad_hand")
            old = st.history[no - 1]
            if old.kind != "hand":
                raise LedgerError(f"hand {no} is a {old.kind}, only scored hands can be edited",
                                  code="bad_hand")
            where = f"hand {no}"
            raw = self._check_input(s, engine_input, where)
            per_hand = self._per_hand(s, raw, options, where)
            stored = {k: v for k, v in raw.items() if k not in LEDGER_FIELDS and k != "options"}
            out = stored_output(hand_result(s, stored, old.dealer, per_hand, where))
            keep_photo = photo if photo is not None else old.photo
            return ("edit", {"input": stored, "dealer": old.dealer, "output": out}, per_hand, keep_photo,
                    old.event)
        return self._append(s, make, incremental=False).history[no - 1]

    # ------------------------------------------------------------ settling
    def settlement(self, ref: SessionRef = None, mode: str = "minimal") -> Settlement:
        """What settling now would give (changes nothing)."""
        return settlement(self.state(ref), mode)

    def settle(self, ref: SessionRef = None, mode: str = "minimal") -> Settlement:
        """Close the open Hunan round, compute the payments and lock the session."""
        if mode not in ("minimal", "pairwise"):
            raise LedgerError(f"settlement mode must be 'minimal' or 'pairwise', not {mode!r}",
                              code="bad_mode")
        snap: list[Settlement] = []

        def make(st: SessionState) -> tuple[str, dict[str, Any], None, None, None]:
            res = settlement(st, mode)
            snap.append(res)
            return "settle", {"mode": mode, "settlement": res.to_dict()}, None, None, None
        st = self._append(ref, make)
        res = snap[0]
        res.locked = st.locked
        return res

    def reopen(self, ref: SessionRef = None) -> SessionState:
        """Unlock a settled session so hands can be added, undone or edited again."""
        s = self.session(ref)

        def make(st: SessionState) -> tuple[str, dict[str, Any], None, None, None]:
            if not st.locked:
                raise LedgerError(f"session {s.name!r} is not settled", code="not_locked")
            return "reopen", {}, None, None, None
        return self._append(s, make, allow_locked=True)

    # ------------------------------------------------------------ export / import / backup
    def export_json(self, ref: SessionRef = None) -> dict[str, Any]:
        """The session and its whole event log, plus the totals it derives to (for checking)."""
        s = self.session(ref)
        with self._lock:
            try:
                events = self._events(s)
            except sqlite3.DatabaseError as exc:
                raise self._read_error(exc) from None
        out = export_dict(s, events, self.state(s))
        key = self._export_key()
        return sign(out, key) if key is not None else out

    def export_csv(self, ref: SessionRef = None) -> str:
        """One row per history line: who dealt and won, the score, each player's change and total."""
        return csv_text(self.state(ref))

    def import_json(self, data: Mapping[str, Any] | str | bytes, name: str | None = None) -> SessionInfo:
        """A new session from ``export_json`` output, every hand scored again with the session's rules.

        Refused, with nothing written, when a field is malformed, the rules name anything but
        a preset, or a stored result (a hand's points or payouts, an adjustment's transfers,
        the summary) disagrees with what the events score to; the error names the first one.
        """
        if isinstance(data, str | bytes):
            if len(data) > EXPORT_BYTES:
                raise LedgerError(f"the export is {len(data)} bytes long, at most {EXPORT_BYTES}",
                                  code="too_large")
            export: Mapping[str, Any] = parse_json(data, "the export")
        else:
            check_depth(data, "the export")
            export = data
        info, events = read_export(export, name)  # refuses anything but an export's object
        events = check_results(info, events, export.get("summary"))
        check_signature(export, self._export_key())  # after the replay: its refusals say more

        def body() -> int:
            if self._conn.execute("SELECT 1 FROM sessions WHERE name = ?", (info.name,)).fetchone():
                raise LedgerError(f"a session named {info.name!r} already exists; import it under "
                                  "another name (--name)", code="name_taken")
            frozen = {"preset": info.preset, "source": info.source, "options": info.options}
            cur = self._conn.execute(
                "INSERT INTO sessions(name, preset, rules_json, stake, first_dealer, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (info.name, info.preset, _dumps(frozen), str(info.stake), info.first_dealer,
                 info.created_at))
            sid = int(cur.lastrowid or 0)
            for seat, p in enumerate(info.players):
                self._conn.execute("INSERT OR IGNORE INTO players(name, created_at) VALUES (?, ?)",
                                   (p, db.now()))
                self._conn.execute("INSERT INTO session_players(session_id, seat, player_id) "
                                   "SELECT ?, ?, id FROM players WHERE name = ?", (sid, seat, p))
            ids: dict[int, int] = {}
            for e in events:
                cur = self._conn.execute(
                    "INSERT INTO events(session_id, kind, target, data, options, photo, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (sid, e.kind, ids[e.target] if e.target is not None else None, _dumps(e.data),
                     _dumps(e.options) if e.options else None, e.photo, e.created_at))
                ids[e.id] = int(cur.lastrowid or 0)
            return sid
        return self.session(self._write(body))

    def backup(self, dest: str | Path, keep: Sequence[str | Path] = ()) -> Path:
        """A consistent copy of the whole database (SQLite online backup), safe while others write.

        It appears whole or not at all, never over an existing file, the ledger or ``keep``."""
        def fill(tmp: Path) -> None:
            try:
                out = sqlite3.connect(str(tmp), isolation_level=None)
            except sqlite3.Error as exc:
                raise LedgerError(f"{dest}: cannot write the backup ({exc})", code="io") from None
            try:
                with self._lock:
                    self._conn.backup(out)
                out.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            except sqlite3.DatabaseError as exc:
                if db.environment_cause(tmp, exc) is not None or "disk" in str(exc):
                    cause = db.environment_cause(tmp, exc) or str(exc)
                    raise LedgerError(f"{dest}: cannot write the backup ({cause}); nothing was written",
                                      code="io") from None
                raise self._read_error(exc) from None
            finally:
                out.close()
            try:
                files.fsync_file(tmp)
            except OSError as exc:
                raise LedgerError(f"{dest}: cannot write the backup ({files.os_cause(exc)}); nothing "
                                  "was written", code="io") from None
        return files.publish_new(Path(dest), fill, [*files.ledger_files(self.path), *keep], "backup")

    def restore(self, src: str | Path) -> Path:
        """Replace the whole database with a backup, and return where the replaced file is kept.

        The backup is checked first (SQLite's integrity check, then every session replayed),
        so a file that would break the ledger is refused with the ledger untouched.
        """
        p = Path(src)
        try:
            files.check_input(p, "backup")
        except LedgerError as exc:
            raise NotALedger(f"{exc}; nothing was replaced", code=exc.code) from None
        for mine in files.ledger_files(self.path):
            if files.same_file(p, mine):
                raise LedgerError(f"{p} is the open ledger itself ({mine}); restore from a backup",
                                  code="bad_input")
        check = Ledger(p, readonly=True)
        try:
            ok = check.integrity()
            if ok != "ok":
                raise NotALedger(f"{p} is damaged, nothing was replaced: {ok.splitlines()[0]}",
                                 code="damaged")
            for (sid,) in check._q("SELECT id FROM sessions"):
                try:
                    check.state(int(sid))
                except LedgerError as exc:
                    raise NotALedger(f"{p} cannot be restored, nothing was replaced: {exc}",
                                     code="damaged") from None
            with self._lock:
                kept = self._keep_replaced()
                try:
                    check._conn.backup(self._conn)
                except sqlite3.DatabaseError as exc:
                    raise self._write_error(exc) from None
                self._cache.clear()
                self._write(lambda: self._set_meta("generation", uuid.uuid4().hex))
        finally:
            check.close()
        return kept

    def _keep_replaced(self) -> Path:
        """Copy the ledger aside before a restore replaces it (a raw copy if SQLite cannot read it)."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        n = 0
        while True:
            dest = self.path.with_name(f"{self.path.name}.replaced-{stamp}{f'-{n}' if n else ''}.db")
            if not dest.exists():
                break
            n += 1
        try:
            return self.backup(dest)
        except LedgerError as exc:
            if exc.code in ("io", "exists"):  # the disk, not the ledger: a raw copy would fail too
                raise LedgerError(f"the ledger could not be kept aside before the restore ({exc}); "
                                  "nothing was replaced", code=exc.code) from None

        def raw(tmp: Path) -> None:  # SQLite cannot read it: keep its bytes, and its -wal's
            try:
                shutil.copyfile(self.path, tmp)
                files.fsync_file(tmp)
            except OSError as exc:
                raise LedgerError(f"the ledger could not be kept aside before the restore "
                                  f"({files.os_cause(exc)}); nothing was replaced", code="io") from None
        kept = files.publish_new(dest, raw, files.ledger_files(self.path), "copy of the replaced ledger")
        wal = Path(f"{self.path}-wal")
        if wal.is_file():
            def copy_wal(tmp: Path) -> None:
                shutil.copyfile(wal, tmp)
                files.fsync_file(tmp)
            try:
                files.publish_new(Path(f"{kept}-wal"), copy_wal, files.ledger_files(self.path),
                                  "copy of the replaced ledger's -wal")
            except LedgerError:
                kept.unlink(missing_ok=True)
                raise
        return kept

    def integrity(self) -> str:
        """SQLite's own check of the file: ``ok`` when sound."""
        return str(self._q("PRAGMA integrity_check")[0][0])


# ------------------------------------------------------------------ export, import and salvage


# ------------------------------------------------------------------ helpers

def _copy_state(st: SessionState) -> SessionState:
    """A copy that the next event can change without touching the cached original."""
    nxt = copy(st)
    nxt.history = list(st.history)
    nxt.net = list(st.net)
    nxt.round_totals = list(st.round_totals)
    nxt.rounds = list(st.rounds)
    nxt.flows = defaultdict(int, st.flows)
    return nxt
