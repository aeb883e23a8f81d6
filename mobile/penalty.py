"""胡多少处罚多少 in the app (Hunan, seed 001): the hand on the result screen, entered as if its
winner had won, is recorded as that player's penalty instead of a win.

A player who broke a forced rule (吃过张, 拆坎, 下地, 煨/提/跑) may not win and pays what the
hand would have scored; the ledger keeps it as a named adjustment (``Ledger.penalty``). The
button lies under the result's payouts, only where the rule set has the penalty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.metrics import dp, sp
from kivy.uix.button import Button

from zipai.engine import Result
from zipai.scorer import Entry, LedgerError

if TYPE_CHECKING:
    from .state import AppState

PENALTY_RED = (0.62, 0.16, 0.12, 1)


def record_penalty(state: AppState) -> Entry:
    """Record the pending hand as its winner's penalty; the editor starts afresh, as after a win."""
    obj = state.engine_input()
    try:
        e = state.ledger.penalty(state.need_session(), obj)
    except LedgerError as exc:
        raise state.refusal(exc.code) from None
    state.last_entry = e
    state.start_manual()
    return e


def offer(screen: Any) -> None:
    """Add the penalty button to the result screen's body when it applies: a winning hand (not
    an edit of a recorded one, nor a double instant win) in an open session whose rule set
    has the penalty."""
    st = screen.state
    r, s = st.result, st.session
    if (not isinstance(r, Result) or s is None or not r.winning or not s.variant.forfeit_penalty
            or st.pending.editing is not None or st.sstate.locked):
        return
    b = Button(text=st.t("penalty"), size_hint_y=None, height=dp(52), font_size=sp(17),
               background_normal="", background_down="", background_color=PENALTY_RED)
    b.bind(on_release=lambda _b: _record(screen))
    screen.ids.body.add_widget(b)


def _record(screen: Any) -> None:
    app = App.get_running_app()
    e = app.guard(record_penalty, screen.state)
    if e is not None:
        app.go("ledger")
        app.notify(screen.state.t("penalized", n=e.no))
