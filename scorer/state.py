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

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import LedgerError

# what a session stores (events) and the engine's scoring of a hand (hands), re-exported: the
# app, the table page and the tests import them from here
from .events import EVENT_BYTES as EVENT_BYTES
from .events import LEDGER_FIELDS as LEDGER_FIELDS
from .events import MAX_FIGURE as MAX_FIGURE
from .events import PLAY_KINDS as PLAY_KINDS
from .events import Event as Event
from .events import SessionInfo as SessionInfo
from .events import _loads as _loads
from .events import _no_constant as _no_constant
from .events import figure as figure
from .events import finite as finite
from .hands import double_result as double_result
from .hands import engine_input as engine_input
from .hands import hand_result as hand_result
from .hands import stored_double as stored_double
from .hands import stored_output as stored_output
from .hands import strip_output as strip_output
from .settle import add_flows, balances, round_flows, round_payments


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
    # what the log allowed at this point, to check each undo, redo and edit as the ledger writes them
    live: list[int] = field(default_factory=list)  # play events in force, in order
    redo_ok: list[int] = field(default_factory=list)  # undos a redo may take back, latest last
    undone: dict[int, int] = field(default_factory=dict)  # undo event -> the event it took off
    kinds: dict[int, str] = field(default_factory=dict)  # id -> kind of every event fed

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


class Replayer:
    """Applies events one by one to a ``SessionState`` (``voids`` and ``edits`` known in advance)."""

    def __init__(self, session: SessionInfo, voids: Iterable[int] = (),
                 edits: Mapping[int, Event] | None = None, late: Mapping[int, int] | None = None,
                 verify: bool = False) -> None:
        self.voids = set(voids)
        # score every stored hand again and refuse one whose stored result differs (on reading a file)
        self.verify = verify
        self.edits = dict(edits or {})
        # event -> the latest undo or edit of it: a settlement before that was of other figures
        self.late = dict(late or {})
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
        self._check_order(ev)
        st.last_event = max(st.last_event, ev.id)
        st.events += 1
        st.kinds[ev.id] = ev.kind
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
        st.live.append(ev.id)
        st.redo_ok.clear()
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
        if len(entry.payouts) != n or not all(isinstance(v, int) and not isinstance(v, bool)
                                              and abs(v) <= MAX_FIGURE for v in entry.payouts):
            raise LedgerError(f"{where}: stored payouts {str(entry.payouts)[:60]} do not fit {n} seats",
                              code="bad_event")
        if not st.plays_rounds and entry.kind != "draw" and balances(entry.transfers, n) != entry.payouts:
            raise LedgerError(f"{where}: stored payouts {entry.payouts} are not what its transfers pay",
                              code="bad_event")
        self._apply(entry)
        st.history.append(entry)
        return entry

    def _check_order(self, ev: Event) -> None:
        """Refuse an event the ledger would not have written here: an undo of anything but the
        latest entry, a redo of anything but the latest undo, an edit of no hand in force, a
        change to a settled session, a settlement that is not the one these events give."""
        st = self.state
        where = f"event {ev.id} ({ev.kind})"
        if ev.id <= st.last_event:
            raise LedgerError(f"{where}: event ids must increase", code="bad_event")
        allowed = {"hand": {"input", "dealer", "output"}, "edit": {"input", "dealer", "output"},
                   "double": {"inputs", "dealer", "output"}, "draw": {"note", "dealer"},
                   "adjust": {"reason", "deltas", "transfers", "penalty"}, "void": {"reason"},
                   "settle": {"mode", "settlement"}, "reopen": set()}.get(ev.kind)
        if allowed is None:
            raise LedgerError(f"{where}: unknown kind", code="bad_event")
        extra = sorted(set(ev.data) - allowed)
        if extra:
            raise LedgerError(f"{where}: unknown field {extra[0][:40]!r} in its data", code="bad_event")
        if (ev.target is not None) != (ev.kind in ("void", "edit")):
            raise LedgerError(f"{where}: {'needs' if ev.target is None else 'takes no'} target event",
                              code="bad_event")
        if st.locked and ev.kind != "reopen":
            raise LedgerError(f"{where}: the session is settled at this point; nothing is recorded "
                              "until it is reopened", code="bad_event")
        if ev.kind == "reopen" and not st.locked:
            raise LedgerError(f"{where}: the session is not settled at this point", code="bad_event")
        if ev.kind == "void":
            self._check_void(ev, where)
        elif ev.kind == "edit":
            if ev.target not in st.live or st.kinds.get(int(ev.target)) != "hand":
                raise LedgerError(f"{where}: event {ev.target} is no hand in force at this point",
                                  code="bad_event")
        elif ev.kind == "settle":
            self._check_settle(ev, where)
        elif ev.kind == "adjust" and "penalty" in ev.data:
            self._check_penalty(ev, where)
        elif ev.kind in ("hand", "double") and "output" in ev.data:
            out = ev.data["output"]
            if not isinstance(out, Mapping):
                raise LedgerError(f"{where}: its stored output is not an object", code="bad_event")
            try:
                for key in ("points", "score"):
                    if key in out:
                        figure(out[key], f"its {key}")
                for v in out.get("payouts") or []:
                    figure(v, "a payout")
            except ValueError as exc:
                raise LedgerError(f"{where}: {exc}", code="bad_event") from None

    def _check_penalty(self, ev: Event, where: str) -> None:
        """A 胡多少处罚多少 adjustment replays only as the ledger wrote it: its hand scored again
        under the session's rules gives the stored score, and the offender alone pays it."""
        st = self.state
        pen = ev.data.get("penalty")
        keys = {"offender", "input", "points", "score", "text"}
        if not isinstance(pen, Mapping) or set(pen) != keys or not isinstance(pen.get("input"), Mapping):
            raise LedgerError(f"{where}: its penalty is not the ledger's record of a hand", code="bad_event")
        offender, score = pen["offender"], pen["score"]
        n = st.session.n
        if isinstance(offender, bool) or not isinstance(offender, int) or not 0 <= offender < n:
            raise LedgerError(f"{where}: the penalty's offender is no seat", code="bad_event")
        res = hand_result(st.session, pen["input"], st.dealer, None, f"{where}: its penalty's hand")
        deltas = ev.data.get("deltas")
        want = [0] * n
        want[offender] = -res.score
        if score != res.score or pen["points"] != res.points or deltas != want:
            raise LedgerError(f"{where}: the penalty's figures are not what its hand scores",
                              code="bad_event")

    def _check_void(self, ev: Event, where: str) -> None:
        st = self.state
        reason = ev.data.get("reason")
        target = ev.target
        if reason == "undo":
            if not st.live or target != st.live[-1]:
                raise LedgerError(f"{where}: an undo takes off the latest entry "
                                  f"({st.live[-1] if st.live else 'none'}), not event {target}",
                                  code="bad_event")
            st.live.pop()
            st.undone[ev.id] = int(target)
            st.redo_ok.append(ev.id)
        elif reason == "redo":
            if not st.redo_ok or target != st.redo_ok[-1]:
                raise LedgerError(f"{where}: a redo takes back the latest undo with nothing recorded "
                                  f"after it, not event {target}", code="bad_event")
            st.redo_ok.pop()
            st.live.append(st.undone[int(target)])
        else:
            raise LedgerError(f"{where}: a void is an undo or a redo, not {str(reason)[:40]!r}",
                              code="bad_event")

    def _check_settle(self, ev: Event, where: str) -> None:
        from .settle import settlement  # the payments a settlement at this point gives

        mode = ev.data.get("mode")
        if mode not in ("minimal", "pairwise"):
            raise LedgerError(f"{where}: settlement mode {str(mode)[:20]!r}", code="bad_event")
        want = settlement(self.state, str(mode)).to_dict()
        got = ev.data.get("settlement")
        if not isinstance(got, Mapping) or set(got) != set(want):
            raise LedgerError(f"{where}: the stored settlement is not the ledger's", code="bad_event")
        if any(t < ev.id < by for t, by in self.late.items()):
            return  # an undo or edit after the settlement changed what it settled: not comparable
        for key in want:
            if key in ("session", "name"):  # the session's id and name when it was settled
                continue
            a, b = got[key], want[key]
            if key == "closing_round" and isinstance(a, Mapping) and isinstance(b, Mapping):
                a, b = ({k: v for k, v in r.items() if k != "closed_by"} for r in (a, b))  # ids renumber
            if a != b:
                raise LedgerError(f"{where}: the stored settlement's {key} differs from what the "
                                  "events before it give", code="bad_event")

    # ------------------------------------------------------------ kinds
    def _hand(self, entry: Entry, ev: Event, where: str) -> None:
        """The entry reads the event's row (its stored output), whether the hand was scored just
        now or on the evening it was recorded: a replay gives the entry the recording gave."""
        s = self.state.session
        raw = ev.data["input"]
        out = ev.data.get("output")
        if out is None or ev.data.get("dealer") != entry.dealer:
            out = stored_output(hand_result(s, raw, entry.dealer, ev.options, where))
        elif self.verify:
            _same(out, stored_output(hand_result(s, raw, entry.dealer, ev.options, where)), where)
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
            out = stored_double(double_result(s, raws, entry.dealer, where))
        elif self.verify:
            _same(out, stored_double(double_result(s, raws, entry.dealer, where)), where)
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
        pen = ev.data.get("penalty")  # 胡多少处罚多少 (scorer/penalty.py): shows the forfeited hand
        if isinstance(pen, Mapping):
            entry.points, entry.score = (v if isinstance(v, int) and not isinstance(v, bool) else 0
                                         for v in (pen.get("points"), pen.get("score")))
            text = pen.get("text")
            entry.text = text if isinstance(text, str) else ""

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
        and again after). A session recorded under rules version 2 or earlier keeps the reading it
        was settled under (the round stayed closed), so its ledger replays as it was written."""
        st = self.state
        if st.session.rules_version < 3:
            return
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


def _same(stored: Mapping[str, Any], fresh: Mapping[str, Any], where: str) -> None:
    """A stored result must be what its cards score (a changed payout is damage, not a record)."""
    for key in ("points", "score", "payouts", "transfers", "winners"):
        if key in fresh and stored.get(key) != fresh[key]:
            raise LedgerError(f"{where}: its stored {key} {str(stored.get(key))[:40]} is not what its "
                              f"cards score ({str(fresh[key])[:40]})", code="bad_event")


def replay(session: SessionInfo, events: Sequence[Event]) -> SessionState:
    """The whole derived state of a session from its event log."""
    voids = active_voids(events)
    edits: dict[int, Event] = {}
    for e in events:
        if e.kind == "edit" and e.target is not None:
            edits[int(e.target)] = e  # the latest edit wins
    r = Replayer(session, voids, edits, late_changes(events))
    for e in events:
        r.feed(e)
    return r.state


def late_changes(events: Sequence[Event]) -> dict[int, int]:
    """Each event an undo, redo or edit refers to, and the latest such event's id."""
    late: dict[int, int] = {}
    for e in events:
        if e.kind in ("void", "edit") and isinstance(e.target, int):
            late[e.target] = max(late.get(e.target, 0), e.id)
            if e.kind == "void" and e.data.get("reason") == "redo":
                undo = next((u for u in events if u.id == e.target), None)
                if undo is not None and isinstance(undo.target, int):
                    late[undo.target] = max(late.get(undo.target, 0), e.id)
    return late


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
