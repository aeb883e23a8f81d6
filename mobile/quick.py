"""Quick score entry: winner, how won, from whom and the hand's 福/油/胡 total typed on a digit pad.

For players who keep only the ledger: the engine's rule set turns the total into the score and
the payouts (``zipai.engine.total``), and the ledger records an ordinary hand whose input carries
``total`` (marked in the history as entered by total). ``QuickEntry`` holds the choices with no
Kivy in it; ``QuickScreen`` draws them (kv/quick.kv).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kivy.app import App
from kivy.metrics import sp
from kivy.properties import StringProperty
from kivy.uix.button import Button

from zipai.engine import Result, ZipaiError, score_hand
from zipai.engine.total import MAX_XING
from zipai.engine.variants import get_variant
from zipai.scorer import LedgerError
from zipai.scorer.state import engine_input

from .explain import explain, why_not
from .i18n import Translator
from .screens import Base
from .state import AppError, AppState
from .widgets import GREEN

WON_BY = ("self_draw", "stock", "discard", "dealt")
MAX_DIGITS = 2  # no seven groups score 100 or more (engine.total.MAX_TOTAL)
# 醒 as the table counted it: every turned card's 上/本/下 matches among the winner's cards, up to
# the engine's bound for an entry by total (a winner holds at most 21 cards)
XING_MAX = MAX_XING


@dataclass
class QuickEntry:
    """One hand by total, as the screen's taps set it."""

    winner: int | None = None
    won_by: str = "self_draw"
    discarder: int | None = None
    first_discard: bool = False
    digits: str = ""
    xing: int = 0  # Guilin: the 醒 counted at the table
    minimum: int | None = None  # Guangxi: the dealer's 起胡 for this hand (None: the session's)

    @property
    def total(self) -> int | None:
        return int(self.digits) if self.digits else None

    def key(self, k: str) -> None:
        """A digit, ``del`` (the last digit) or ``clear``."""
        if k == "del":
            self.digits = self.digits[:-1]
        elif k == "clear":
            self.digits = ""
        elif k.isdigit() and len(k) == 1 and len(self.digits.lstrip("0")) < MAX_DIGITS:
            self.digits = (self.digits + k).lstrip("0") or "0"

    def hand_options(self, s: Any) -> dict[str, Any] | None:
        """Per-hand options for the ledger: the Guangxi minimum when the dealer changed it."""
        m = self.minimum
        if m is None or not s.variant.hand_minimum or m == s.rules.minimum(s.n):
            return None
        return {"minimum": m}

    def raw(self, preset: str) -> dict[str, Any]:
        """The ledger's input object (it fills in rules, players and dealer)."""
        obj: dict[str, Any] = {"winner": self.winner, "won_by": self.won_by, "total": self.total}
        if self.won_by == "discard":
            obj["from"] = self.discarder
            if self.first_discard:
                obj["first_discard"] = True
        if get_variant(preset).turned_cards and self.xing:
            obj["xing"] = self.xing
        return obj

    def missing(self, t: Translator) -> str | None:
        """What is still to choose, in words, or None."""
        if self.winner is None:
            return t("winner") + "?"
        if self.won_by == "discard" and self.discarder is None:
            return t("from_whom") + "?"
        if self.total is None:
            return t("total_label") + "?"
        return None


def preview(state: AppState, q: QuickEntry) -> Result:
    """The engine's result for the entry under the session's rules and current dealer."""
    s = state.need_session()
    st = state.ledger.state(s)
    opts = q.hand_options(s)
    try:
        return score_hand(engine_input(s, q.raw(s.preset), st.dealer, None),
                          s.rules.with_options(opts) if opts else s.rules)
    except ZipaiError as exc:  # worded by its code, never the engine's English
        raise state.refusal(getattr(exc, "code", "bad_input")) from None


def record(state: AppState, q: QuickEntry, editing: int | None = None) -> Any:
    """Record the hand (or replace recorded hand ``editing``); on disk when this returns."""
    s = state.need_session()
    if state.ledger.state(s).locked:
        raise AppError(state.t("quick_locked"), "locked")
    gap = q.missing(state.t)
    if gap:
        raise AppError(gap)
    try:
        if editing is not None:
            return state.ledger.edit_hand(s, editing, q.raw(s.preset), options=q.hand_options(s))
        return state.ledger.record_hand(s, q.raw(s.preset), options=q.hand_options(s))
    except LedgerError as exc:  # worded by its code, never the ledger's English
        if exc.code == "not_winning":
            r = preview(state, q)
            raise AppError(why_not(r, t_unit(state), state.t), exc.code) from None
        raise state.refusal(exc.code) from None


def t_unit(state: AppState) -> str:
    return state.t.script(state.need_session().variant.unit)


def from_entry(e: Any) -> QuickEntry:
    """A recorded hand entered by total, back on the quick screen for editing."""
    inp = e.input or {}
    return QuickEntry(inp.get("winner"), inp.get("won_by", "self_draw"), inp.get("from"),
                      bool(inp.get("first_discard", False)), str(inp.get("total", "")),
                      int(inp.get("xing", 0)), (e.options or {}).get("minimum"))


class QuickScreen(Base):
    """The four choices on one screen and a live line with the score and every payout."""

    total_text = StringProperty("")
    preview_text = StringProperty("")
    xing_text = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.entry = QuickEntry()
        self.editing: int | None = None
        self._hidden: dict[int, list[Any]] = {}

    def start(self, entry: QuickEntry | None = None, editing: int | None = None) -> None:
        self.entry = entry or QuickEntry()
        self.editing = editing

    def on_kv_post(self, base_widget: Any) -> None:
        pad = self.ids.digits
        self.keys: dict[str, Button] = {}  # kv is applied inside __init__, before its own lines
        for k in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "clear", "0", "del"):
            label = {"del": "←", "clear": "C"}.get(k, k)  # glyphs the CJK font draws
            b = Button(text=label, background_normal="", background_down="", font_size=sp(24),
                       background_color=GREEN if k.isdigit() else (0.4, 0.4, 0.38, 1))
            b.bind(on_release=lambda _b, k=k: self.key(k))
            self.keys[k] = b
            pad.add_widget(b)

    def refresh(self) -> None:
        st = self.state
        s = st.session
        if s is None:
            return
        t = st.t
        q = self.entry
        sst = st.sstate
        idle = sst.idle
        names = list(s.players)
        ids = self.ids
        ids.winner.set_options(list(enumerate(names)), q.winner, disabled=[idle] if idle is not None else [])
        ids.won_by.set_options([(k, t(k)) for k in WON_BY], q.won_by)
        show_from = q.won_by == "discard"
        others = [(i, n) for i, n in enumerate(names) if i not in (q.winner, idle)]
        ids.from_seat.set_options(others, q.discarder)
        ids.first.set_options([(False, t("no")), (True, t("yes"))], q.first_discard)
        self._show(ids.from_box, show_from)
        self._show(ids.first_box, show_from and s.variant.first_discard)  # 广西: it changes nothing
        gl = s.variant.turned_cards
        self.xing_text = t("xing_n", n=q.xing)
        ids.xing_less.disabled = q.xing <= 0
        ids.xing_more.disabled = q.xing >= XING_MAX
        self._show(ids.xing_box, gl)
        variant = s.variant
        if variant.hand_minimum:  # Guangxi: the dealer may call 20/25/30 for this hand
            default = s.rules.minimum(s.n)
            ids.minimum.set_options([(m, str(m)) for m in variant.minimums], q.minimum or default)
        self._show(ids.min_box, variant.hand_minimum)
        ids.total_head.text = t("total_label") + f" ({s.variant.unit})"
        self.total_text = q.digits or "–"
        ids.record.disabled = sst.locked  # a settled session takes no hand until it is reopened
        self.preview_text = self._preview_line()

    def _show(self, box: Any, on: bool) -> None:
        """A hidden box gives its widgets up: hidden but present, disabled widgets would still
        swallow the touches that land on them (and an empty box's children overflow it)."""
        kept = self._hidden.setdefault(id(box), [])
        if on and kept:
            for w in reversed(kept):
                box.add_widget(w)
            kept.clear()
        elif not on and box.children:
            kept.extend(box.children)
            box.clear_widgets()

    def _preview_line(self) -> str:
        st, q = self.state, self.entry
        t = st.t
        gap = q.missing(t)
        if gap:
            return gap
        if st.sstate.locked:
            return t("quick_locked")
        try:
            r = preview(st, q)
        except AppError as exc:
            return t("error", msg=str(exc))
        s = st.need_session()
        if not r.winning:
            return why_not(r, t_unit(st), t)
        names = s.players
        pays = "  ".join(f"{n} {v:+d}" for n, v in zip(names, r.payouts, strict=True))
        head = " · ".join([t("score", n=r.score), *(t.special(x.id, x.name) for x in r.specials)])
        # the working, as the result screen words it: 2×30+10 is on screen, not only 70
        working = "；".join(explain(r, s.preset, s.players, t)[1:])
        return f"{head}\n{working}\n{pays}" if working else f"{head}\n{pays}"

    def set(self, field: str, value: Any) -> None:
        App.get_running_app().status = ""  # a refusal is about the entry as it was
        setattr(self.entry, field, value)
        if field == "winner" and self.entry.discarder == value:
            self.entry.discarder = None
        self.refresh()

    def step_xing(self, by: int) -> None:
        """醒 one up or down, 0 to the engine's bound."""
        self.set("xing", min(max(self.entry.xing + by, 0), XING_MAX))

    def key(self, k: str) -> None:
        App.get_running_app().status = ""
        self.entry.key(k)
        self.refresh()

    def record(self) -> None:
        app = App.get_running_app()
        e = app.guard(record, self.state, self.entry, self.editing)
        if e is not None:
            self.start()
            self.state.changed()
            app.go("ledger")
            app.notify(self.state.t("recorded", n=e.no))


def open_quick(app: Any, entry: Any = None) -> None:
    """Open the quick screen empty, or on a recorded hand entered by total (to edit it)."""
    scr = app.sm.get_screen("quick")
    if entry is None:
        scr.start()
    else:
        scr.start(from_entry(entry), entry.no)
    app.go("quick")

