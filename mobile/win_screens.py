"""The screens of a won hand: how it was won (winner, 自摸 / stock / discard, winning card) and the
score with its working and the other ways the hand could be read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, ListProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.widget import Widget

from zipai.engine import ScoredGroup, Simultaneous

from .explain import explain, why_not
from .penalty import offer as offer_penalty
from .screen_base import Base, _app, _btn, _cards_text
from .state import WON_BY
from .widgets import CardFace, Cell, Txt, face_text, tr


# ---------------------------------------------------------------- how it was won
class WinScreen(Base):
    """Winner, how (自摸 / stock / discard from whom / dealt), the winning card, minimum, 醒."""

    asked = ""  # the layout the winning card was last asked for

    def refresh(self) -> None:
        st = self.state
        s = st.session
        if s is None:
            return
        sst = st.sstate
        w = st.win
        self.back_to = "review" if st.draft.is_photo else "manual"
        names = list(s.players)
        idle = sst.idle
        ids = self.ids
        ids.dealer.text = f"{tr('dealer')}: {names[sst.dealer]}" + (
            f" · {tr('idle')}: {names[idle]}" if idle is not None else "")
        ids.winner.set_options(list(enumerate(names)), w.winner, disabled=[idle] if idle is not None else [])
        ids.won_by.set_options([(k, tr(k)) for k in WON_BY], w.won_by)
        ids.from_box.shown = w.won_by == "discard"
        ids.first_box.shown = w.won_by == "discard" and s.variant.first_discard  # 广西: it changes nothing
        others = [(i, n) for i, n in enumerate(names) if i != w.winner and i != idle]
        ids.from_seat.set_options(others, w.discarder)
        ids.first.set_options([(False, tr("no")), (True, tr("yes"))], w.first_discard)
        choices = st.winning_choices()
        matters = st.winning_card_matters()  # the engine names the cards that change the score: only those
        choices = [c for c in choices if c in matters or c == w.winning_card]
        ids.winning_box.shown = w.won_by in ("stock", "discard") and bool(choices)
        ids.winning.set_options([(None, tr("none"))] + [(c, face_text(c)) for c in choices],
                                w.winning_card if w.winning_card in choices else None)
        variant = s.variant
        ids.min_box.shown = variant.hand_minimum
        if variant.hand_minimum:
            default = s.rules.minimum(s.n)
            ids.minimum.set_options([(m, str(m)) for m in variant.minimums], w.minimum or default)
        ids.xing_box.shown = variant.turned_cards
        ids.xing_now.text = f"{tr('xing_card')}: {face_text(w.xing) if w.xing else tr('none')}"
        first = st.pending.first
        ids.held.text = tr("double_held", name=names[first["winner"]]) if first else ""
        ids.double_box.shown = st.can_double()

    def set(self, field: str, value: Any) -> None:
        setattr(self.state.win, field, value)
        if field == "winner" and self.state.win.discarder == value:
            self.state.win.discarder = None
        self.state.changed()

    def xing(self, face: str | None) -> None:
        self.set("xing", None if face in (None, "back") else face)

    def draw(self) -> None:
        n = self.state.draft.count()
        ask = tr("ask_draw_typed", n=n) if n else tr("ask_draw")
        _app().ask(ask, tr("draw"), self._draw)

    def _draw(self) -> None:
        e = _app().guard(self.state.record_draw)
        if e is not None:
            _app().go("ledger")
            _app().notify(tr("draw_recorded", n=e.no))

    def double(self) -> None:
        """Guangxi: keep this instant win and enter the other player's layout."""
        if _app().guard(self.state.hold_instant) is not None or self.state.pending.first is not None:
            _app().go("manual")

    def score(self) -> None:
        r = _app().guard(self.state.score)
        if r is None:
            return
        key = self.state.layout_key()
        if (not isinstance(r, Simultaneous) and r.winning_card_matters and self.state.win.winning_card is None
                and self.asked != key):
            # asked once: the choices narrow to the cards that matter; 算分 again with 不指定
            # scores it as the engine does when none of them won it
            self.asked = key
            self.refresh()
            _app().notify(tr("which_card"))
            return
        _app().go("result")


# ---------------------------------------------------------------- result
class ResultScreen(Base):
    """Each group with its name and points, the score explained step by step, and every seat's
    payout; the other ways to split the hand one tap away."""

    show_alts = BooleanProperty(False)
    explanation = ListProperty([])

    def refresh(self) -> None:
        st = self.state
        r = st.result
        box = self.ids.body
        box.clear_widgets()
        if r is None or st.session is None:
            return
        s = st.session
        t = st.t
        if isinstance(r, Simultaneous):
            self.show_double(r)
            return
        if r.winning:  # the outcome first, above the fold on a phone and a tablet alike
            pays = "  ".join(f"{s.players[i]} {v:+d}" for i, v in enumerate(r.payouts))
            box.add_widget(Txt(text=f"{t('score', n=r.score)} · {pays}", font_size=sp(19), bold=True))
        self.add_groups(r.groups, st.win.winning_card)
        if not r.winning:  # with its numbers: 12 against 15
            box.add_widget(Txt(text=why_not(r, t.script(s.variant.unit), t), color=(0.75, 0.1, 0.1, 1)))
        self.explanation = explain(r, s.preset, s.players, t) if r.winning else []
        for line in self.explanation:
            box.add_widget(Txt(text=line, font_size=sp(18)))
        if r.winning and r.winning_card_matters and not st.win.winning_card:
            box.add_widget(Txt(text=t("no_winning_card_note"), color=(0.6, 0.25, 0.0, 1)))
        if r.winning and st.sstate.plays_rounds:  # +0 for the others: said why, here too
            box.add_widget(Txt(text=t("round_note"), color=(0.35, 0.35, 0.35, 1)))
        box.add_widget(Txt(text=t("score", n=r.score), font_size=sp(26), bold=True))
        extra = dict(r.extra)
        if r.winning and not r.steps and "zi" in extra:  # a result without its working
            box.add_widget(Txt(text=t("zi_xing_fan", zi=extra["zi"], xing=extra["xing"], fan=extra["fan"])))
        alts = [a for a in r.alternatives if a.text != r.text]
        if alts:
            key = "hide_alternatives" if self.show_alts else "show_alternatives"
            box.add_widget(_btn(t(key, n=len(alts)), self.toggle_alternatives, (0.4, 0.4, 0.38, 1)))
            if self.show_alts:
                for i, a in enumerate(alts, 1):
                    box.add_widget(Txt(text=t("alternative_n", n=i, points=a.points,
                                              unit=s.variant.unit, score=a.score), bold=True))
                    self.add_groups(a.groups, None)
        box.add_widget(Txt(text=t("payouts"), font_size=sp(19)))
        for seat, amount in enumerate(r.payouts):
            box.add_widget(Txt(text=f"{s.players[seat]}: {amount:+d}", font_size=sp(20),
                               color=(0.1, 0.45, 0.2, 1) if amount > 0 else (0.1, 0.1, 0.1, 1)))
        self.ids.confirm.disabled = not r.winning or st.sstate.locked
        offer_penalty(self)  # Hunan 胡多少处罚多少: record the hand as its winner's penalty

    def add_groups(self, groups: Sequence[ScoredGroup], winning: str | None) -> None:
        """One row a group: its name, its cards (the one winning card marked) and its points."""
        t, box = self.state.t, self.ids.body
        marked = False
        for g in groups:
            name = t.script(g.name)
            row = BoxLayout(size_hint_y=None, height=dp(50), spacing=dp(4))
            row.add_widget(Cell(text=name, size_hint_x=None, width=dp(86), font_size=sp(19)))
            for c in g.cards:
                mark = g.winning_card and c == winning and not marked
                marked = marked or mark
                row.add_widget(CardFace(face=c, size_hint_x=None, width=dp(40), selected=mark))
            row.add_widget(Widget())
            row.add_widget(Cell(text=t("points", n=g.points), size_hint_x=None, width=dp(56),
                                halign="right"))
            box.add_widget(row)

    def toggle_alternatives(self) -> None:
        self.show_alts = not self.show_alts
        self.refresh()

    def show_double(self, r: Simultaneous) -> None:
        """Two instant wins after one deal: each layout's groups and score, then the payouts."""
        st = self.state
        s, t, box = st.need_session(), st.t, self.ids.body
        box.add_widget(Txt(text=t("double_winners", names="、".join(s.players[w] for w in r.winners)),
                           font_size=sp(20), bold=True))
        for res, first in zip(r.results, (st.pending.first, None), strict=True):
            seat = (first or {}).get("winner", st.win.winner)
            assert seat is not None  # a hand is scored only with its winner (engine_input refuses)
            box.add_widget(Txt(text=f"{s.players[seat]} · {t('score', n=res.score)} · "
                                    + " ".join(t.special(x.id, x.name) for x in res.specials),
                               font_size=sp(18)))
            for g in res.groups:
                name = t.script(g.name)
                box.add_widget(Txt(text=f"  {name}  {_cards_text(list(g.cards))}  {t('points', n=g.points)}"))
        box.add_widget(Txt(text=t("payouts"), font_size=sp(19)))
        for seat, amount in enumerate(r.payouts):
            box.add_widget(Txt(text=f"{s.players[seat]}: {amount:+d}", font_size=sp(20)))
        self.ids.confirm.disabled = False

    def confirm(self) -> None:
        e = _app().guard(self.state.confirm)
        if e is not None:
            self.show_alts = False
            _app().go("ledger")
            taught = self.state.deck_taught
            _app().notify(tr("recorded", n=e.no) + (" · " + tr("deck_learned", n=taught) if taught else ""))
