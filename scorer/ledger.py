"""The ``Ledger``: the one object the app and the CLI talk to (see the package docstring)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from copy import copy
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, TypeVar

from zipai.engine import Rules, ZipaiError, get_rules

from . import db
from .errors import LedgerError, LockedSession, NotALedger, UnknownSession
from .settle import balances, minimal_transfers, pairwise
from .state import (
    LEDGER_FIELDS,
    Entry,
    Event,
    Replayer,
    Round,
    SessionInfo,
    SessionState,
    replay,
    score_double,
    score_hand,
)

T = TypeVar("T")
SessionRef = int | str | SessionInfo | None
EXPORT_FORMAT = "zipai-ledger-session"
EXPORT_VERSION = 1
_EVENT_COLS = "id, kind, target, data, options, photo, created_at"


@dataclass
class Settlement:
    """The end of an evening: net points and money per player, and the payments that settle it."""

    session: SessionInfo
    mode: str
    points: list[int]
    transfers: list[tuple[int, int, int]]
    closing_round: Round | None
    locked: bool

    def money(self, points: int) -> Decimal:
        return points * self.session.stake

    def to_dict(self) -> dict[str, Any]:
        s = self.session
        return {
            "session": s.id, "name": s.name, "mode": self.mode, "locked": self.locked,
            "stake": str(s.stake),
            "players": [{"seat": i, "name": s.players[i], "points": p, "money": _money(self.money(p))}
                        for i, p in enumerate(self.points)],
            "transfers": [{"from": a, "from_name": s.players[a], "to": b, "to_name": s.players[b],
                           "points": amt, "money": _money(self.money(amt))}
                          for a, b, amt in self.transfers],
            "closing_round": self.closing_round.to_dict() if self.closing_round else None,
        }


def _money(d: Decimal) -> str:
    """Money as text with two decimals (exact, no float rounding)."""
    return str(d.quantize(Decimal("0.01")))


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class Ledger:
    """A session ledger in one SQLite file; safe to share between processes.

    Every write is one ``BEGIN IMMEDIATE`` transaction; the derived state is kept in
    memory per session and rebuilt from the events whenever another writer (or an undo,
    an edit, an import) has changed the log.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else db.default_path()
        self._conn = db.connect(self.path)
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
        with self._lock:
            try:
                return db.transaction(self._conn, body)  # type: ignore[return-value]
            except sqlite3.DatabaseError as exc:
                raise LedgerError(f"{self.path}: the write failed and was rolled back ({exc})",
                                  code="db_error") from None

    def _q(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, args).fetchall()
            except sqlite3.DatabaseError as exc:
                raise NotALedger(f"{self.path}: cannot read the ledger ({exc})") from None

    # ------------------------------------------------------------ roster
    def players(self) -> list[dict[str, Any]]:
        """The roster: every player ever seated or added, with how many sessions they played."""
        rows = self._q("""SELECT p.name, p.created_at, count(sp.session_id), max(s.created_at)
                          FROM players p LEFT JOIN session_players sp ON sp.player_id = p.id
                          LEFT JOIN sessions s ON s.id = sp.session_id
                          GROUP BY p.id ORDER BY max(s.created_at) DESC, p.name""")
        return [{"name": r[0], "added": r[1], "sessions": r[2], "last_played": r[3]} for r in rows]

    def add_player(self, name: str) -> str:
        name = _name(name, "player name")

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
        name = _name(name, "session name")
        try:
            r = get_rules(rules, options or {})
        except ZipaiError as exc:
            raise LedgerError(str(exc), code="bad_rules") from None
        names = [_name(p, "player name") for p in players]
        lo, hi = Rules.PLAYERS[r.name]
        if not lo <= len(names) <= hi:
            raise LedgerError(f"{r.name} is played by {lo} to {hi} players, not {len(names)}",
                              code="bad_seat")
        if len(set(names)) != len(names):
            raise LedgerError("two seats have the same player name", code="bad_seat")
        dealer = _seat(first_dealer, names, "first dealer")
        st = _stake(stake)
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
            s = self.session(int(sid))
            st = self.state(s)
            out.append({"id": s.id, "name": s.name, "rules": s.preset, "players": list(s.players),
                        "hands": st.hands, "locked": st.locked, "created_at": s.created_at,
                        "current": s.id == cur, "projected": st.projected()[0]})
        return out

    def _current_id(self) -> int | None:
        row = self._q("SELECT value FROM meta WHERE key = 'current_session'")
        return int(row[0][0]) if row else None

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
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
            row = self._q("SELECT id, name, rules_json, stake, first_dealer, created_at FROM sessions "
                          "WHERE id = ?", (int(ref),))
        if not row and isinstance(ref, str):
            row = self._q("SELECT id, name, rules_json, stake, first_dealer, created_at FROM sessions "
                          "WHERE name = ?", (ref,))
        if not row:
            raise UnknownSession(f"no session with id or name {str(ref)!r}")
        sid, name, rules_json, stake, dealer, created = row[0]
        rules = json.loads(rules_json)
        seats = self._q("SELECT p.name FROM session_players sp JOIN players p ON p.id = sp.player_id "
                        "WHERE sp.session_id = ? ORDER BY sp.seat", (sid,))
        return SessionInfo(int(sid), name, rules["preset"], rules["options"], rules.get("source", ""),
                           tuple(r[0] for r in seats), Decimal(stake), int(dealer), created)

    # ------------------------------------------------------------ derived state
    def _events(self, sid: int) -> list[Event]:
        return [Event.from_row(r) for r in
                self._conn.execute(f"SELECT {_EVENT_COLS} FROM events WHERE session_id = ? ORDER BY id",
                                   (sid,))]

    def _fresh_state(self, s: SessionInfo) -> SessionState:
        """The cached state if no event was added since, else a full replay (inside any transaction)."""
        # ids only grow and events are never deleted: the last id tells whether anything was added
        last, gen = self._conn.execute(
            "SELECT coalesce(max(id), 0), (SELECT value FROM meta WHERE key = 'generation') "
            "FROM events WHERE session_id = ?", (s.id,)).fetchone()
        cached = self._cache.get(s.id)
        if cached is not None and cached.last_event == last and gen == self._gen:
            return cached
        st = replay(s, self._events(s.id))
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
                raise NotALedger(f"{self.path}: cannot read the ledger ({exc})") from None

    def history(self, ref: SessionRef = None) -> list[Entry]:
        return self.state(ref).history

    # ------------------------------------------------------------ writing events
    def _append(self, ref: SessionRef, make: Callable[[SessionState], tuple[str, dict[str, Any],
                dict[str, Any] | None, str | None, int | None]], *, allow_locked: bool = False,
                incremental: bool = True) -> SessionState:
        """Append one event in one transaction, after checking it against the derived state."""
        s = self.session(ref)

        def body() -> SessionState:
            st = self._fresh_state(s)
            if st.locked and not allow_locked:
                raise LockedSession(f"session {s.name!r} is settled; reopen it first "
                                    "('zipai session reopen')")
            kind, data, options, photo, target = make(st)
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
            return replay(s, [*self._events(s.id)])

        with self._lock:
            try:
                st = db.transaction(self._conn, body)
            except sqlite3.DatabaseError as exc:
                self._cache.pop(s.id, None)
                raise LedgerError(f"{self.path}: the write failed and was rolled back ({exc})",
                                  code="db_error") from None
            except BaseException:
                self._cache.pop(s.id, None)
                raise
            self._cache[s.id] = st  # type: ignore[assignment]
            return st  # type: ignore[return-value]

    def _check_input(self, s: SessionInfo, raw: Any, where: str) -> dict[str, Any]:
        if not isinstance(raw, Mapping):
            raise LedgerError(f"{where}: a hand must be a JSON object", code="bad_input")
        rules = raw.get("rules")
        if rules is not None:
            try:
                preset = get_rules(rules).name if isinstance(rules, str) else None
            except ZipaiError as exc:
                raise LedgerError(f"{where}: {exc}", code="bad_rules") from None
            if preset != s.preset:
                raise LedgerError(f"{where}: the hand is for {preset or rules!r} rules but session "
                                  f"{s.name!r} plays {s.preset}", code="bad_rules")
        players = raw.get("players")
        if players is not None and players != s.n:
            raise LedgerError(f"{where}: the hand says {players} players, session {s.name!r} has {s.n}",
                              code="bad_seat")
        return dict(raw)

    def _per_hand(self, s: SessionInfo, raw: Mapping[str, Any], options: Mapping[str, Any] | None,
                  where: str) -> dict[str, Any] | None:
        merged = {**dict(raw.get("options") or {}), **dict(options or {})}
        if not merged:
            return None
        if "dealer_rotation" in merged:
            raise LedgerError(f"{where}: 'dealer_rotation' is fixed for the session, not per hand",
                              code="bad_rules")
        try:
            s.rules_for(merged)
        except ZipaiError as exc:
            raise LedgerError(f"{where}: {exc} (session {s.name!r} plays {s.preset})",
                              code="bad_rules") from None
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
            out = score_hand(s, stored, st.dealer, per_hand, where)
            return "hand", {"input": stored, "dealer": st.dealer, "output": out}, per_hand, photo, None
        return self._append(s, make).history[-1]

    def record_draw(self, ref: SessionRef = None, note: str = "") -> Entry:
        """流局 / 荒莊: nobody won; nothing is paid and the dealer deals again."""
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
            out = score_double(s, stored, st.dealer, where)
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
            data = _adjustment(s, reason, deltas, transfers, offender, amount)
            return "adjust", data, None, None, None
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
            out = score_hand(s, stored, old.dealer, per_hand, where)
            keep_photo = photo if photo is not None else old.photo
            return ("edit", {"input": stored, "dealer": old.dealer, "output": out}, per_hand, keep_photo,
                    old.event)
        return self._append(s, make, incremental=False).history[no - 1]

    # ------------------------------------------------------------ settling
    def settlement(self, ref: SessionRef = None, mode: str = "minimal") -> Settlement:
        """What settling now would give (changes nothing)."""
        return _settlement(self.state(ref), mode)

    def settle(self, ref: SessionRef = None, mode: str = "minimal") -> Settlement:
        """Close the open Hunan round, compute the payments and lock the session."""
        if mode not in ("minimal", "pairwise"):
            raise LedgerError(f"settlement mode must be 'minimal' or 'pairwise', not {mode!r}",
                              code="bad_mode")
        snap: list[Settlement] = []

        def make(st: SessionState) -> tuple[str, dict[str, Any], None, None, None]:
            res = _settlement(st, mode)
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
            events = self._events(s.id)
        st = self.state(s)
        return {
            "format": EXPORT_FORMAT, "version": EXPORT_VERSION, "session": s.to_dict(),
            "events": [{"id": e.id, "kind": e.kind, "target": e.target, "data": e.data,
                        "options": e.options, "photo": e.photo, "created_at": e.created_at}
                       for e in events],
            "summary": {"net": st.net, "projected": st.projected()[0], "locked": st.locked,
                        "hands": st.hands},
        }

    def export_csv(self, ref: SessionRef = None) -> str:
        """One row per history line: who dealt and won, the score, each player's change and total."""
        st = self.state(ref)
        s = st.session
        buf = io.StringIO()
        w = csv.writer(buf)
        total_label = "round total" if st.hunan else "total"
        w.writerow(["no", "event", "kind", "dealer", "winner", "won_by", "from", "points", "score",
                    "specials", "layout", "reason", "photo", "created_at",
                    *[f"{p} change" for p in s.players], *[f"{p} {total_label}" for p in s.players],
                    *([f"{p} round payment" for p in s.players] if st.hunan else [])])
        for e in st.history:
            w.writerow([e.no, e.event, e.kind, s.players[e.dealer],
                        " ".join(s.players[i] for i in e.winners), e.won_by or "",
                        s.players[e.discarder] if e.discarder is not None else "", e.points, e.score,
                        " ".join(sp["name"] for sp in e.specials), e.text, e.reason, e.photo or "",
                        e.created_at, *e.payouts, *e.totals_after,
                        *((e.round_closed.payments if e.round_closed else [""] * s.n) if st.hunan else [])])
        return buf.getvalue()

    def import_json(self, data: Mapping[str, Any] | str, name: str | None = None) -> SessionInfo:
        """A new session from ``export_json`` output; refused unless it derives to the same totals."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise LedgerError(f"not valid JSON: {exc}", code="bad_json") from None
        if not isinstance(data, Mapping) or data.get("format") != EXPORT_FORMAT:
            raise LedgerError(f"not a zipai session export (expected format {EXPORT_FORMAT!r})",
                              code="bad_import")
        if data.get("version") != EXPORT_VERSION:
            raise LedgerError(f"unsupported export version {data.get('version')!r}", code="bad_import")
        try:
            meta = data["session"]
            rules = meta["rules"]
            events = list(data["events"])
            new_name = _name(name or meta["name"], "session name")
            players = [_name(p, "player name") for p in meta["players"]]
            preset = rules["preset"]
            opts = {k: v for k, v in rules["options"].items()
                    if k in Rules.KEYS.get(preset, ()) and v is not None}
            opts.setdefault("rules_version", 1)  # an export from before versions were recorded
            r = get_rules(preset, opts)
        except (KeyError, TypeError) as exc:
            raise LedgerError(f"the export is missing a field: {exc}", code="bad_import") from None
        except ZipaiError as exc:
            raise LedgerError(f"the export's rules are invalid: {exc}", code="bad_rules") from None
        frozen = {"preset": r.name, "source": rules.get("source", r.name), "options": r.options.to_dict()}
        stake = _stake(meta.get("stake", "1"))
        dealer = _seat(meta.get("first_dealer", 0), players, "first dealer")

        def body() -> int:
            if self._conn.execute("SELECT 1 FROM sessions WHERE name = ?", (new_name,)).fetchone():
                raise LedgerError(f"a session named {new_name!r} already exists; import it under "
                                  "another name (--name)", code="name_taken")
            cur = self._conn.execute(
                "INSERT INTO sessions(name, preset, rules_json, stake, first_dealer, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (new_name, r.name, _dumps(frozen), str(stake), dealer, meta.get("created_at") or db.now()))
            sid = int(cur.lastrowid or 0)
            for seat, p in enumerate(players):
                self._conn.execute("INSERT OR IGNORE INTO players(name, created_at) VALUES (?, ?)",
                                   (p, db.now()))
                self._conn.execute("INSERT INTO session_players(session_id, seat, player_id) "
                                   "SELECT ?, ?, id FROM players WHERE name = ?", (sid, seat, p))
            ids: dict[int, int] = {}
            for e in events:
                try:
                    kind, target = e["kind"], e.get("target")
                    if kind not in db.EVENT_KINDS:
                        raise LedgerError(f"event {e.get('id')} has unknown kind {kind!r}",
                                          code="bad_import")
                    if target is not None and target not in ids:
                        raise LedgerError(f"event {e['id']} refers to event {target}, not before it",
                                          code="bad_import")
                    cur = self._conn.execute(
                        "INSERT INTO events(session_id, kind, target, data, options, photo, created_at) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (sid, kind, ids.get(target) if target is not None else None, _dumps(e["data"]),
                         _dumps(e["options"]) if e.get("options") else None, e.get("photo"),
                         e.get("created_at") or db.now()))
                    ids[int(e["id"])] = int(cur.lastrowid or 0)
                except (KeyError, TypeError, ValueError) as exc:
                    if isinstance(exc, LedgerError):
                        raise
                    raise LedgerError(f"an exported event is malformed: {exc}", code="bad_import") from None
            info = SessionInfo(sid, new_name, r.name, frozen["options"], frozen["source"], tuple(players),
                               stake, dealer, "")
            try:
                st = replay(info, self._events(sid))
            except LedgerError:
                raise
            except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
                raise LedgerError(f"an exported event is malformed: {exc!r}", code="bad_import") from None
            want = (data.get("summary") or {}).get("projected")
            if want is not None and st.projected()[0] != want:
                raise LedgerError(f"the imported events give totals {st.projected()[0]}, "
                                  f"the export says {want}", code="bad_import")
            return sid
        return self.session(self._write(body))

    def backup(self, dest: str | Path) -> Path:
        """A consistent copy of the whole database (SQLite online backup), safe while others write."""
        d = Path(dest)
        if d.exists():
            raise LedgerError(f"{d} exists; a backup never overwrites a file", code="exists")
        d.parent.mkdir(parents=True, exist_ok=True)
        out = sqlite3.connect(str(d))
        try:
            with self._lock:
                self._conn.backup(out)
        finally:
            out.close()
        return d

    def restore(self, src: str | Path) -> None:
        """Replace the whole database with a backup, after checking that it is a sound ledger."""
        p = Path(src)
        if not p.is_file():
            raise NotALedger(f"{p} does not exist")
        other = db.connect(p, create=False)
        try:
            ok = other.execute("PRAGMA integrity_check").fetchone()[0]
            if ok != "ok":
                raise NotALedger(f"{p} is damaged: {ok}")
            with self._lock:
                other.backup(self._conn)
                self._cache.clear()
                self._write(lambda: self._set_meta("generation", uuid.uuid4().hex))
        finally:
            other.close()

    def integrity(self) -> str:
        """SQLite's own check of the file: ``ok`` when sound."""
        return str(self._q("PRAGMA integrity_check")[0][0])


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


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise LedgerError(f"{what} must be a non-empty text, got {value!r}", code="bad_name")
    v = value.strip()
    if len(v) > 60 or any(ord(c) < 32 for c in v):
        raise LedgerError(f"{what} {v[:20]!r}… is too long or has control characters", code="bad_name")
    return v


def _seat(value: int | str, names: Sequence[str], what: str) -> int:
    if isinstance(value, str) and not value.lstrip("-").isdigit():
        if value in names:
            return list(names).index(value)
        raise LedgerError(f"{what} {value!r} is not one of the players ({', '.join(names)})",
                          code="bad_seat")
    seat = int(value)
    if not 0 <= seat < len(names):
        raise LedgerError(f"{what} seat {seat} does not exist (seats 0–{len(names) - 1})", code="bad_seat")
    return seat


def _stake(value: Decimal | int | str) -> Decimal:
    try:
        d = Decimal(str(value))
    except InvalidOperation:
        raise LedgerError(f"stake must be a number of money per point, got {value!r}",
                          code="bad_stake") from None
    if not d.is_finite() or d < 0:
        raise LedgerError(f"stake must be zero or more, got {value!r}", code="bad_stake")
    return d


def _adjustment(s: SessionInfo, reason: str, deltas: Sequence[int] | None,
                transfers: Sequence[Sequence[int]] | None, offender: int | str | None,
                amount: int | None) -> dict[str, Any]:
    n = s.n
    if sum(x is not None for x in (deltas, transfers, offender)) != 1:
        raise LedgerError("an adjustment needs exactly one of deltas, transfers or offender",
                          code="bad_adjustment")
    if offender is not None:
        if s.preset != "guangxi":
            raise LedgerError(f"the 下夥 penalty is a Guangxi rule; session {s.name!r} plays {s.preset}",
                              code="bad_rules")
        seat = _seat(offender, s.players, "offender")
        pay = amount if amount is not None else s.rules.minimum(n)
        transfers = [[seat, j, pay] for j in range(n) if j != seat]
        reason = reason or "下夥"
    if transfers is not None:
        clean = []
        for t in transfers:
            if len(t) != 3 or not all(isinstance(x, int) and not isinstance(x, bool) for x in t):
                raise LedgerError(f"a transfer is [payer seat, payee seat, points], got {list(t)!r}",
                                  code="bad_adjustment")
            a, b, amt = (_seat(t[0], s.players, "payer"), _seat(t[1], s.players, "payee"), t[2])
            if a == b or amt <= 0:
                raise LedgerError(f"a transfer needs two different seats and points > 0, got {list(t)!r}",
                                  code="bad_adjustment")
            clean.append([a, b, amt])
        d = balances(clean, n)
    else:
        assert deltas is not None
        if len(deltas) != n or not all(isinstance(x, int) and not isinstance(x, bool) for x in deltas):
            raise LedgerError(f"deltas must be {n} whole numbers, one per seat, got {list(deltas)!r}",
                              code="bad_adjustment")
        d = list(deltas)
        clean = [list(t) for t in minimal_transfers(d)] if s.preset != "hunan" and sum(d) == 0 else []
        if s.preset != "hunan" and sum(d) != 0:
            raise LedgerError(f"{s.preset} adjustments must sum to zero, these sum to {sum(d)}",
                              code="bad_adjustment")
    if not any(d):
        raise LedgerError("the adjustment changes nothing", code="bad_adjustment")
    return {"reason": reason or "correction", "deltas": d, "transfers": clean}


def _settlement(st: SessionState, mode: str) -> Settlement:
    if mode not in ("minimal", "pairwise"):
        raise LedgerError(f"settlement mode must be 'minimal' or 'pairwise', not {mode!r}", code="bad_mode")
    points, closing = st.projected()
    transfers = minimal_transfers(points) if mode == "minimal" else pairwise(st.pair_flows())
    if balances(transfers, len(points)) != points:  # pragma: no cover - a bug, never a user error
        raise LedgerError(f"internal error: the {mode} transfers do not settle {points}")
    return Settlement(st.session, mode, points, transfers, closing, st.locked)
