"""Derived state: replay a session's events into dealers, scores, rounds and totals.

Nothing here is stored. ``replay`` walks the events in order: ``void`` (undo) and
``edit`` events are gathered first, so a hand is read as its latest edit or skipped
when undone; then each hand, draw, double instant win and adjustment moves the dealer
and the totals. A hand's stored engine output is reused when the dealer it was scored
with is still the dealer the replay arrives at; otherwise the hand is scored again with
the session's frozen rules, so an edit early in the evening flows through every later
dealer, 数审, score, round and total.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import Any

from zipai import engine
from zipai.engine import Rules, Variant, ZipaiError, get_rules, get_variant, score_simultaneous

from .errors import LedgerError
from .settle import add_flows, round_flows, round_payments

PLAY_KINDS = ("hand", "draw", "double", "adjust")
# input fields the ledger owns: it fills them in from the session and the dealer rotation
LEDGER_FIELDS = ("rules", "players", "dealer")


@dataclass(frozen=True)
class SessionInfo:
    """A session as created: everything frozen at creation, rules included."""

    id: int
    name: str
    preset: str
    options: dict[str, Any]  # the full option dict resolved at creation
    source: str  # preset name or the house-rules file it was read from
    players: tuple[str, ...]
    stake: Decimal
    first_dealer: int
    created_at: str

    @property
    def n(self) -> int:
        return len(self.players)

    @cached_property
    def variant(self) -> Variant:
        """The session's rule set: what it plays to, who sits out, what it allows."""
        return get_variant(self.preset)

    @cached_property
    def rules(self) -> Rules:
        """The frozen rule set, rebuilt from the stored options (never from the TOML file).

        A session keeps the rules version it was created under, so re-scoring one of its hands
        (after an edit moves the dealer, or on import) never changes its evening; a session
        stored before versions were recorded reads as version 1.
        """
        keys = self.variant.option_keys
        opts = {k: v for k, v in self.options.items() if k in keys and v is not None}
        opts.setdefault("rules_version", 1)
        return get_rules(self.preset, opts)

    @property
    def rules_version(self) -> int:
        return self.rules.options.rules_version

    def rules_for(self, per_hand: Mapping[str, Any] | None) -> Rules:
        return self.rules.with_options(per_hand or {}, where="the hand's options")

    @property
    def rotation(self) -> str:
        return str(self.options.get("dealer_rotation", "winner"))

    def idle(self, dealer: int) -> int | None:
        """数审: the seat the rule set sits out under this dealer, if any."""
        return self.variant.idle(self.n, dealer)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name,
                "rules": {"preset": self.preset, "source": self.source, "options": self.options},
                "players": list(self.players), "stake": str(self.stake),
                "first_dealer": self.first_dealer, "created_at": self.created_at}


@dataclass(frozen=True)
class Event:
    """One stored row of the event log."""

    id: int
    kind: str
    data: dict[str, Any]
    target: int | None = None
    options: dict[str, Any] | None = None
    photo: str | None = None
    created_at: str = ""

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Event:
        eid, kind, target, data, options, photo, created = row
        return cls(int(eid), str(kind), json.loads(data), target,
                   json.loads(options) if options else None, photo, str(created))


@dataclass
class Round:
    """A closed Hunan 冲百福 round."""

    number: int
    totals: list[int]
    rounded: list[int]
    payments: list[int]
    closed_by: int  # the event id that closed it (a hand, an adjustment or the settlement)
    at_settle: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "totals": self.totals, "rounded": self.rounded,
                "payments": self.payments, "closed_by": self.closed_by, "at_settle": self.at_settle}


@dataclass
class Entry:
    """One line of the history: a hand, a drawn hand, a double instant win or an adjustment."""

    no: int
    event: int
    kind: str
    dealer: int
    idle: int | None = None
    winners: list[int] = field(default_factory=list)
    won_by: str | None = None
    discarder: int | None = None
    points: int = 0
    score: int = 0
    specials: list[dict[str, str]] = field(default_factory=list)
    text: str = ""
    groups: list[dict[str, Any]] = field(default_factory=list)
    payouts: list[int] = field(default_factory=list)
    transfers: list[list[int]] = field(default_factory=list)
    totals_after: list[int] = field(default_factory=list)  # Hunan: round totals; else net points
    round: int | None = None
    round_closed: Round | None = None
    reason: str = ""
    photo: str | None = None
    options: dict[str, Any] | None = None
    input: Any = None
    output: Any = None
    edited_by: int | None = None
    created_at: str = ""
    entered_by: str = "cards"  # "total": typed as a 福/油/胡 total, no cards (engine/total.py)

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "round_closed"}
        d["round_closed"] = self.round_closed.to_dict() if self.round_closed else None
        return d


@dataclass
class SessionState:
    """Everything the app shows, derived from the events."""

    session: SessionInfo
    dealer: int
    history: list[Entry] = field(default_factory=list)
    net: list[int] = field(default_factory=list)  # points won so far (Hunan: closed rounds only)
    round_number: int = 1  # Hunan: the open round
    round_totals: list[int] = field(default_factory=list)  # Hunan: the open round's totals
    rounds: list[Round] = field(default_factory=list)
    flows: dict[tuple[int, int], int] = field(default_factory=lambda: defaultdict(int))
    locked: bool = False
    last_event: int = 0
    events: int = 0

    @property
    def plays_rounds(self) -> bool:
        """冲百福: totals run in rounds closed at 100 (the rule set says)."""
        return self.session.variant.plays_rounds

    @property
    def idle(self) -> int | None:
        return self.session.idle(self.dealer)

    @property
    def hands(self) -> int:
        return sum(1 for e in self.history if e.kind in ("hand", "double", "draw"))

    def projected(self) -> tuple[list[int], Round | None]:
        """Net points if the session were settled now: Hunan closes the open round."""
        if not self.plays_rounds or not any(self.round_totals):
            return list(self.net), None
        rounded, pay = round_payments(self.round_totals)
        rnd = Round(self.round_number, list(self.round_totals), rounded, pay, self.last_event, True)
        return [a + b for a, b in zip(self.net, pay, strict=True)], rnd

    def pair_flows(self) -> dict[tuple[int, int], int]:
        """Who paid whom over the evening, before netting (Hunan: from each round's payments)."""
        if not self.plays_rounds:
            return dict(self.flows)
        flows: dict[tuple[int, int], int] = defaultdict(int)
        closing = self.projected()[1]
        for r in [*self.rounds, *([closing] if closing else [])]:
            add_flows(flows, round_flows(r.rounded))
        return dict(flows)

    def to_dict(self, history: bool = True) -> dict[str, Any]:
        s = self.session
        projected, closing = self.projected()
        d: dict[str, Any] = {
            "session": s.to_dict(), "locked": self.locked, "hands": self.hands,
            "dealer": self.dealer, "dealer_name": s.players[self.dealer], "idle": self.idle,
            "net": self.net, "projected": projected,
        }
        if self.plays_rounds:
            d.update(round={"number": self.round_number, "totals": self.round_totals},
                     rounds=[r.to_dict() for r in self.rounds],
                     closing_round=closing.to_dict() if closing else None)
        if history:
            d["history"] = [e.to_dict() for e in self.history]
        return d


def strip_output(out: Mapping[str, Any]) -> dict[str, Any]:
    """The engine output as stored: without the list of alternatives (kept as a count)."""
    d = {k: v for k, v in out.items() if k != "alternatives"}
    d["alternatives_count"] = len(out.get("alternatives") or [])
    return d


def engine_input(session: SessionInfo, raw: Mapping[str, Any], dealer: int,
                 per_hand: Mapping[str, Any] | None) -> dict[str, Any]:
    """The input object the engine gets: the ledger's seats, dealer and options filled in."""
    obj = {k: v for k, v in raw.items() if k not in LEDGER_FIELDS and k != "options"}
    obj["players"] = session.n
    obj["dealer"] = dealer
    if per_hand:
        obj["options"] = dict(per_hand)
    return obj


def score_hand(session: SessionInfo, raw: Mapping[str, Any], dealer: int,
               per_hand: Mapping[str, Any] | None, where: str) -> dict[str, Any]:
    """Score one hand under the session's rules; a bad or non-winning hand is a LedgerError."""
    try:
        res = engine.score_hand(engine_input(session, raw, dealer, per_hand), session.rules)
    except ZipaiError as exc:
        raise LedgerError(f"{where}: {exc}", code=getattr(exc, "code", "bad_input")) from None
    if not res.winning:
        msg = res.reason.message if res.reason else "not a winning hand"
        raise LedgerError(f"{where}: not a winning hand ({msg})", code="not_winning")
    return strip_output(res.to_json())


def score_double(session: SessionInfo, raws: Sequence[Mapping[str, Any]], dealer: int,
                 where: str) -> dict[str, Any]:
    """Guangxi simultaneous instant win: two layouts, one event."""
    if not session.variant.simultaneous_instant:
        raise LedgerError(f"{where}: a simultaneous instant win is a Guangxi rule, "
                          f"this session plays {session.preset}", code="bad_rules")
    try:
        res = score_simultaneous([engine_input(session, r, dealer, None) for r in raws], session.rules)
    except ZipaiError as exc:
        raise LedgerError(f"{where}: {exc}", code=getattr(exc, "code", "bad_input")) from None
    res["results"] = [strip_output(r) for r in res["results"]]
    return res


class Replayer:
    """Applies events one by one to a ``SessionState`` (``voids`` and ``edits`` known in advance)."""

    def __init__(self, session: SessionInfo, voids: Iterable[int] = (),
                 edits: Mapping[int, Event] | None = None) -> None:
        self.voids = set(voids)
        self.edits = dict(edits or {})
        n = session.n
        self.state = SessionState(session, session.first_dealer, net=[0] * n, round_totals=[0] * n)

    @classmethod
    def resume(cls, state: SessionState) -> Replayer:
        """Carry on from a state (for a new hand, draw, adjustment, settle or reopen)."""
        r = cls(state.session)
        r.state = state
        return r

    # ------------------------------------------------------------ dispatch
    def feed(self, ev: Event) -> Entry | None:
        st = self.state
        st.last_event = max(st.last_event, ev.id)
        st.events += 1
        if ev.kind in ("void", "edit"):
            return None
        if ev.kind == "settle":
            self._close_round(ev.id, at_settle=True)
            st.locked = True
            return None
        if ev.kind == "reopen":
            st.locked = False
            self._reopen_round()
            return None
        if ev.id in self.voids:
            return None
        eff = self.edits.get(ev.id, ev)
        no = len(st.history) + 1
        where = f"hand {no} (event {ev.id})"
        entry = Entry(no=no, event=ev.id, kind=ev.kind, dealer=st.dealer, idle=st.idle,
                      photo=eff.photo, options=eff.options, created_at=ev.created_at,
                      edited_by=eff.id if eff is not ev else None)
        if ev.kind == "hand":
            self._hand(entry, eff, where)
        elif ev.kind == "double":
            self._double(entry, eff, where)
        elif ev.kind == "draw":
            entry.reason = str(eff.data.get("note", ""))
            entry.payouts = [0] * st.session.n
        elif ev.kind == "adjust":
            self._adjust(entry, eff)
        else:  # pragma: no cover - the schema's CHECK allows no other kind
            raise LedgerError(f"event {ev.id} has unknown kind {ev.kind!r}")
        n = st.session.n
        if len(entry.payouts) != n or not all(isinstance(v, int) for v in entry.payouts):
            raise LedgerError(f"{where}: stored payouts {entry.payouts!r} do not fit {n} seats",
                              code="bad_event")
        self._apply(entry)
        st.history.append(entry)
        return entry

    # ------------------------------------------------------------ kinds
    def _hand(self, entry: Entry, ev: Event, where: str) -> None:
        s = self.state.session
        raw = ev.data["input"]
        out = ev.data.get("output")
        if out is None or ev.data.get("dealer") != entry.dealer:
            out = score_hand(s, raw, entry.dealer, ev.options, where)
        entry.input, entry.output = raw, out
        entry.winners = [int(raw["winner"])]
        entry.won_by = raw.get("won_by")
        entry.discarder = raw.get("from") if entry.won_by == "discard" else None
        entry.points, entry.score = out["points"], out["score"]
        entry.specials, entry.text, entry.groups = out["specials"], out.get("text", ""), out["groups"]
        entry.payouts, entry.transfers = list(out["payouts"]), [list(t) for t in out["transfers"]]
        entry.entered_by = "total" if "total" in raw else "cards"

    def _double(self, entry: Entry, ev: Event, where: str) -> None:
        s = self.state.session
        raws = ev.data["inputs"]
        out = ev.data.get("output")
        if out is None or ev.data.get("dealer") != entry.dealer:
            out = score_double(s, raws, entry.dealer, where)
        entry.input, entry.output = raws, out
        entry.winners = list(out["winners"])
        entry.won_by = "dealt"
        # the winning layouts only (both when the points are equal)
        res = [r for raw, r in zip(raws, out["results"], strict=True) if raw["winner"] in entry.winners]
        entry.points = max(r["points"] for r in res)
        entry.score = max(r["score"] for r in res)
        entry.specials = [sp for r in res for sp in r["specials"]]
        entry.text = " ‖ ".join(r.get("text", "") for r in out["results"])
        entry.groups = [g for r in res for g in r["groups"]]
        entry.payouts, entry.transfers = list(out["payouts"]), [list(t) for t in out["transfers"]]

    def _adjust(self, entry: Entry, ev: Event) -> None:
        entry.reason = str(ev.data.get("reason", ""))
        entry.payouts = list(ev.data["deltas"])
        entry.transfers = [list(t) for t in ev.data.get("transfers") or []]
        entry.input = ev.data

    # ------------------------------------------------------------ effects
    def _apply(self, entry: Entry) -> None:
        st = self.state
        if st.plays_rounds:
            entry.round = st.round_number
            st.round_totals = [a + b for a, b in zip(st.round_totals, entry.payouts, strict=True)]
            entry.totals_after = list(st.round_totals)
            if max(st.round_totals) >= 100:
                entry.round_closed = self._close_round(entry.event)
        else:
            st.net = [a + b for a, b in zip(st.net, entry.payouts, strict=True)]
            add_flows(st.flows, entry.transfers)
            entry.totals_after = list(st.net)
        if entry.kind in ("hand", "double"):
            st.dealer = self._next_dealer(st.dealer, entry.winners)

    def _close_round(self, event_id: int, at_settle: bool = False) -> Round | None:
        st = self.state
        if not any(st.round_totals) or not st.plays_rounds:
            return None
        rounded, pay = round_payments(st.round_totals)
        rnd = Round(st.round_number, list(st.round_totals), rounded, pay, event_id, at_settle)
        st.rounds.append(rnd)
        st.net = [a + b for a, b in zip(st.net, pay, strict=True)]
        st.round_totals = [0] * st.session.n
        st.round_number += 1
        return rnd

    def _reopen_round(self) -> None:
        """Reopening voids the settlement, so the round the settle closed is open again: its totals
        run on toward 100 and are rounded once, when it really closes (not once at the settle
        and again after)."""
        st = self.state
        if not st.rounds or not st.rounds[-1].at_settle or any(st.round_totals):
            return
        rnd = st.rounds.pop()
        st.net = [a - b for a, b in zip(st.net, rnd.payments, strict=True)]
        st.round_totals = list(rnd.totals)
        st.round_number = rnd.number

    def _next_dealer(self, dealer: int, winners: Sequence[int]) -> int:
        """``winner``: the winner deals next (two winners: the dealer stays if one of them, else
        the first winner after the dealer); ``next_seat``: the next seat. A drawn hand keeps the dealer."""
        n = self.state.session.n
        if self.state.session.rotation == "next_seat":
            return (dealer + 1) % n
        if dealer in winners:
            return dealer
        return min(winners, key=lambda w: (w - dealer) % n)


def replay(session: SessionInfo, events: Sequence[Event]) -> SessionState:
    """The whole derived state of a session from its event log."""
    voids = active_voids(events)
    edits: dict[int, Event] = {}
    for e in events:
        if e.kind == "edit" and e.target is not None:
            edits[int(e.target)] = e  # the latest edit wins
    r = Replayer(session, voids, edits)
    for e in events:
        r.feed(e)
    return r.state


def active_voids(events: Sequence[Event]) -> set[int]:
    """The events an undo takes off. A redo is a ``void`` of that undo's ``void``, so the log
    stays append-only; read from the latest back, a void that a later one voids counts no more."""
    voided: set[int] = set()
    for e in sorted((e for e in events if e.kind == "void" and e.target is not None),
                    key=lambda e: e.id, reverse=True):
        if e.id not in voided:
            voided.add(int(e.target))  # type: ignore[arg-type]
    return voided


def redoable(events: Sequence[Event]) -> Event | None:
    """The undo a redo would take back: the latest one still in force, provided nothing was
    recorded or settled after it (a new hand ends the chance to redo, as in any editor)."""
    voided = active_voids(events)
    for e in reversed(events):
        if e.kind in PLAY_KINDS or e.kind == "settle":
            return None
        if e.kind == "void" and e.id not in voided and e.data.get("reason") == "undo":
            return e
    return None
