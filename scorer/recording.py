"""Writing a session's events: hands, draws, double instant wins, adjustments, penalties,
undo, redo and edits, each one appended event checked against the derived state first."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from copy import copy
from typing import Any

from . import db
from .checks import (
    check_adjustment,
    check_depth,
    check_hand_options,
    check_photo,
    check_text,
    preset_name,
    replay_checked,
)
from .errors import LedgerError, LockedSession
from .events import LEDGER_FIELDS, Event, SessionInfo
from .hands import double_result, hand_result, stored_double, stored_output
from .penalty import penalty_data
from .state import Entry, Replayer, SessionState, redoable
from .store import SessionRef, Store, dumps


class Recorder(Store):
    """The ledger's writes of play: each appends one event in one transaction, or nothing."""

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
                (s.id, kind, target, dumps(data), dumps(options) if options else None, photo, created))
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


def _copy_state(st: SessionState) -> SessionState:
    """A copy that the next event can change without touching the cached original."""
    nxt = copy(st)
    nxt.history = list(st.history)
    nxt.net = list(st.net)
    nxt.round_totals = list(st.round_totals)
    nxt.rounds = list(st.rounds)
    nxt.flows = defaultdict(int, st.flows)
    return nxt

