"""Salvage: what a damaged ledger file still holds of one session, as an export.

``zipai session export`` falls back to it when the file, or a row in it, cannot be read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import db
from .checks import replay_checked, session_from_row, session_id, why
from .errors import DamagedData, LedgerError, NotALedger
from .events import Event, SessionInfo
from .exchange import csv_text, export_dict, first_unimportable, stored_event
from .files import check_input
from .state import SessionState
from .store import EVENT_COLS, SessionRef

SALVAGE_PROBE = 1_000_000  # the most row ids probed one by one when the index cannot be read


@dataclass
class Salvage:
    """What could be read of one session from a damaged ledger, and what was left out."""

    session: SessionInfo
    events: list[Event]
    state: SessionState
    skipped: list[str]

    def to_json(self, source: str) -> dict[str, Any]:
        out = export_dict(self.session, self.events, self.state)
        out["salvaged"] = {"from": source, "skipped": self.skipped}
        return out

    def to_csv(self) -> str:
        return csv_text(self.state)


def salvage(path: str | Path, ref: SessionRef = None) -> Salvage:
    """Every event of one session that can still be read and replayed from a damaged ledger.

    Opens the file read-only and reads the events row by row, so a damaged page costs only
    the rows on it; rows that do not parse or replay are left out, with what refers to them,
    and each is named in ``skipped``. Raises ``NotALedger`` only when the session itself
    (its row or its players) cannot be read.
    """
    p = Path(path)
    try:
        check_input(p, "ledger")
    except LedgerError as exc:
        raise NotALedger(str(exc), code=exc.code) from None
    try:
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False,
                               timeout=db.BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise NotALedger(f"{p}: cannot open it to salvage ({exc})") from None
    try:
        return _salvage(conn, str(p), ref)
    finally:
        conn.close()


def _salvage(conn: sqlite3.Connection, shown: str, ref: SessionRef) -> Salvage:
    def rows(sql: str, args: Sequence[Any] = ()) -> list[Any] | None:
        try:
            return conn.execute(sql, args).fetchall()
        except sqlite3.DatabaseError:
            return None

    if isinstance(ref, SessionInfo):
        ref = ref.id
    if ref is None:
        cur = rows("SELECT value FROM meta WHERE key = 'current_session'")
        if not cur:
            raise NotALedger(f"{shown}: the current session cannot be read; name one with --session")
        ref = str(cur[0][0])
    cols = "id, name, rules_json, stake, first_dealer, created_at"
    row = None
    if session_id(ref) is not None:
        row = rows(f"SELECT {cols} FROM sessions WHERE id = ?", (session_id(ref),))
    if not row and isinstance(ref, str):
        row = rows(f"SELECT {cols} FROM sessions WHERE name = ?", (ref,))
    if not row:
        raise NotALedger(f"{shown}: session {str(ref)!r} cannot be read from the damaged file")
    sid = row[0][0]
    seats = rows("SELECT p.name FROM session_players sp JOIN players p ON p.id = sp.player_id "
                 "WHERE sp.session_id = ? ORDER BY sp.seat", (sid,))
    if not seats:
        raise NotALedger(f"{shown}: the players of session {str(ref)!r} cannot be read")
    try:
        sid_, name, rules_json, stake, dealer, created = row[0]
        info = session_from_row(sid_, name, rules_json, stake, dealer, created, [r[0] for r in seats])
    except DamagedData as exc:
        raise NotALedger(f"{shown}: {exc}", code="damaged") from None
    skipped: list[str] = []
    ids = rows("SELECT id FROM events WHERE session_id = ? ORDER BY id", (sid,))
    if ids is not None:
        candidates = [int(r[0]) for r in ids]
    else:  # the index is damaged: probe every row id up to the highest one known
        tops = [r[0][0] for r in (rows("SELECT seq FROM sqlite_sequence WHERE name = 'events'"),
                                  rows("SELECT max(id) FROM events")) if r and isinstance(r[0][0], int)]
        top = min(max(tops, default=0), SALVAGE_PROBE)
        candidates = list(range(1, top + 1))
        if not tops:
            skipped.append("the event ids could not be read: no event was found")
    events: list[Event] = []
    unreadable: list[int] = []
    for eid in candidates:
        got = rows(f"SELECT session_id, {EVENT_COLS} FROM events WHERE id = ?", (eid,))
        if got is None:
            unreadable.append(eid)
            continue
        if not got or got[0][0] != sid:
            if ids is not None:  # the index lists it for this session, the table has lost it
                unreadable.append(eid)
            continue
        try:
            events.append(stored_event(info, got[0][1:]))
        except (ValueError, TypeError, RecursionError) as exc:
            skipped.append(f"event {eid}: {why(exc)}")
    if unreadable:
        skipped.append(f"rows {_ranges(unreadable)}: unreadable" +
                       ("" if ids is not None else " (they may belong to other sessions)"))
    while True:
        present = {e.id for e in events}
        orphans = [e for e in events if e.target is not None and e.target not in present]
        if orphans:
            skipped += [f"event {e.id}: refers to event {e.target}, which was left out" for e in orphans]
            events = [e for e in events if e not in orphans]
            continue
        try:
            st = replay_checked(info, events, stored=True, hint="")
        except DamagedData as exc:
            bad = exc.event if exc.event in present else events[-1].id
            skipped.append(f"event {bad}: {exc.why or exc}")
            events = [e for e in events if e.id != bad]
            continue
        wrong = first_unimportable(info, events, st) if events else None
        if wrong is not None:  # it replays, but an import would refuse it: leave it out too
            bad = wrong[0] if wrong[0] in present else events[-1].id
            skipped.append(f"event {bad}: {wrong[1]}")
            events = [e for e in events if e.id != bad]
            continue
        return Salvage(info, events, st, skipped)


def _ranges(ids: Sequence[int]) -> str:
    """1, 2, 3, 7 → '1–3, 7' (a damaged page holds a run of rows)."""
    out: list[str] = []
    start = prev = ids[0]
    for i in [*ids[1:], None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        out.append(str(start) if start == prev else f"{start}–{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(out)
