"""The ledger's store: one SQLite connection, its lock, every read and write transaction, the
errors they raise, and the derived state of a session kept fresh (``Ledger`` builds on it)."""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self, TypeVar

from . import db
from .checks import SALVAGE_HINT, replay_checked, session_from_row, session_id, short, why
from .errors import DamagedData, LedgerError, NotALedger, UnknownSession
from .events import Event, SessionInfo
from .exchange import stored_event
from .state import Entry, SessionState

T = TypeVar("T")
SessionRef = int | str | SessionInfo | None
EVENT_COLS = "id, kind, target, data, options, photo, created_at"


def dumps(obj: Any) -> str:
    """JSON as every row stores it: compact, keys sorted, text as written."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class Store:
    """One ledger file open: reads, one-transaction writes, and each session's state from its events.

    The derived state is kept in memory per session and rebuilt from the events whenever
    another writer (or an undo, an edit, an import) has changed the log."""

    def __init__(self, path: str | Path | None = None, *, readonly: bool = False) -> None:
        """``readonly`` writes nothing and takes no lock: for showing and exporting."""
        self.path = Path(path) if path is not None else db.default_path()
        self.readonly = readonly
        self._conn = db.connect(self.path, readonly=readonly)
        self._cache: dict[int, SessionState] = {}
        self._gen: str | None = None  # changes when a backup is restored: every cache is stale then
        self._lock = threading.RLock()
        self._closed = False

    def close(self) -> None:
        """Waits for a read or write under way in another thread: SQLite closed under a running
        statement crashes the process (the table page closes its ledger as it stops)."""
        with self._lock:
            self._conn.close()
            self._closed = True

    def __enter__(self) -> Self:
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
        if self._closed:
            return LedgerError(f"{self.path}: the ledger is closed; nothing was recorded", code="closed")
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
        if self._closed:  # a thread still asking after the owner closed it: nothing is damaged
            return LedgerError(f"{self.path}: the ledger is closed", code="closed")
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

    # ------------------------------------------------------------ meta and sessions
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

    def integrity(self) -> str:
        """SQLite's own check of the file: ``ok`` when sound."""
        return str(self._q("PRAGMA integrity_check")[0][0])
