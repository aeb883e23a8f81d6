"""The ``Ledger``: the one object the app and the CLI talk to (see the package docstring)."""

from __future__ import annotations

import shutil
import sqlite3
import time
import uuid
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from zipai.engine import Rules, ZipaiError, get_rules

from . import db, files
from .checks import check_depth, check_name, check_option_values, check_seat, check_stake, parse_json
from .errors import DamagedData, LedgerError, NotALedger
from .events import SessionInfo
from .exchange import EXPORT_BYTES, check_results, check_signature, csv_text, export_dict, read_export, sign
from .recording import Recorder
from .settle import Settlement, settlement
from .state import SessionState
from .store import EVENT_COLS, SessionRef, dumps

__all__ = ["EVENT_COLS", "Ledger", "SessionRef", "Settlement"]


class Ledger(Recorder):
    """A session ledger in one SQLite file; safe to share between processes.

    Every write is one ``BEGIN IMMEDIATE`` transaction (``Store``); the hands, draws,
    adjustments, undo, redo and edits are ``Recorder``'s; here are the roster, the sessions,
    settling, export and import, backup and restore.
    """

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
                "VALUES (?, ?, ?, ?, ?, ?)", (name, r.name, dumps(frozen), str(st), dealer, db.now()))
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
                (info.name, info.preset, dumps(frozen), str(info.stake), info.first_dealer,
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
                    (sid, e.kind, ids[e.target] if e.target is not None else None, dumps(e.data),
                     dumps(e.options) if e.options else None, e.photo, e.created_at))
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
