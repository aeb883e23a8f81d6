"""The evening's screens: the ledger's list of hands with undo and redo, one hand's record, and
the settlement.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.textinput import TextInput

from .explain import explain, round_working
from .screen_base import Base, _app, _btn, _cards_text, resume_screen
from .widgets import Cell, Txt, tr


# ---------------------------------------------------------------- ledger / one hand
def entry_line(e: Any, names: tuple[str, ...]) -> str:
    t = _app().state.t
    line = _entry_line(e, names, t)
    if e.round_closed is not None:
        line += " · " + t("round_closed", n=e.round_closed.number)
    return line


def _entry_line(e: Any, names: tuple[str, ...], t: Any) -> str:
    if e.kind == "hand":
        who = names[e.winners[0]] if e.winners else "?"
        how = t(e.won_by) if e.won_by else ""
        by_total = f" · {t('by_total')}" if getattr(e, "entered_by", "") == "total" else ""
        return f"{t('hand_no', n=e.no)} · {who} {how} · {e.score}{by_total}"
    if e.kind == "draw":
        return f"{t('hand_no', n=e.no)} · {t('draw_entry')}"
    if e.kind == "double":
        return f"{t('hand_no', n=e.no)} · {t('double_entry')}"
    return f"{t('hand_no', n=e.no)} · {t('adjust_entry', r=e.reason)}"


class LedgerScreen(Base):
    """Running totals (Hunan round totals toward 100) and how each net is worked out, the history,
    undo and redo, adjustments; a locked session says so and offers to reopen."""

    show_working = BooleanProperty(False)

    def refresh(self) -> None:
        st = self.state
        s = st.session
        ids = self.ids
        sid = None if s is None else s.id
        if sid != getattr(self, "_session_id", None):  # an adjustment's reason stays with its session
            self._session_id = sid
            ids.reason.text = ""
        ids.totals.clear_widgets()
        ids.history.clear_widgets()
        if s is None:
            ids.head.text = tr("no_session")
            return
        sst = st.sstate
        t = st.t
        ids.head.text = (f"{s.name} · {t(s.preset)} · {t('dealer')}: {s.players[sst.dealer]}"
                         + (f" · {t('locked')}" if sst.locked else ""))
        projected = sst.projected()[0]
        head = BoxLayout(size_hint_y=None, height=dp(32))
        head.add_widget(Cell(text=t("players"), font_size=sp(15), color=(0.35, 0.35, 0.35, 1)))
        if sst.plays_rounds:
            head.add_widget(Cell(text=t("round_totals", n=sst.round_number), font_size=sp(15),
                                 halign="right", color=(0.35, 0.35, 0.35, 1)))
        head.add_widget(Cell(text=t("net"), font_size=sp(15), halign="right", color=(0.35, 0.35, 0.35, 1)))
        ids.totals.add_widget(head)
        for i, name in enumerate(s.players):
            row = BoxLayout(size_hint_y=None, height=dp(44))
            tag = f" ({t('dealer')})" if i == sst.dealer else (f" ({t('idle')})" if i == sst.idle else "")
            row.add_widget(Cell(text=name + tag, font_size=sp(19)))
            if sst.plays_rounds:
                row.add_widget(Cell(text=f"{sst.round_totals[i]:+d}", font_size=sp(19), halign="right"))
            row.add_widget(Cell(text=f"{projected[i]:+d}", font_size=sp(21), halign="right", bold=True))
            ids.totals.add_widget(row)
        ids.totals_head.text = t("totals")
        locked = sst.locked
        for w in (ids.capture_btn, ids.manual_btn, ids.quick_btn, ids.draw_btn, ids.undo_btn):
            w.disabled = locked  # a locked session shows it: no entry until it is reopened
        ids.locked_box.shown = locked
        ids.redo_box.shown = not locked and st.can_redo()
        typed = st.typed_cards()
        ids.manual_btn.text = t("continue_short", n=typed) if typed else t("manual")
        ids.working_box.shown = sst.plays_rounds and bool(sst.rounds or any(sst.round_totals))
        ids.working.text = "\n".join(round_working(sst.rounds, s.players, t, sst.projected()[1])) \
            if self.show_working else ""
        for e in reversed(sst.history):
            ids.history.add_widget(_btn(entry_line(e, s.players), lambda no=e.no: self.open(no),
                                        (0.38, 0.38, 0.36, 1), height=dp(48)))
        ids.adjust.clear_widgets()
        self.adjust_inputs: list[TextInput] = []
        for name in s.players:
            ti = TextInput(hint_text=name, multiline=False, input_filter="int", font_size=sp(17),
                           size_hint_y=None, height=dp(44))
            self.adjust_inputs.append(ti)
            ids.adjust.add_widget(ti)

    def open(self, no: int) -> None:
        sm = _app().sm
        assert sm is not None  # a screen is open: the app built them
        hand = sm.get_screen("hand")
        hand.no = no
        _app().go("hand")

    def undo(self) -> None:
        """Asked first (a stray tap costs nothing); the ledger then offers 重做 until something
        new is recorded."""
        st = self.state
        hist = st.sstate.history if st.session is not None else []
        if not hist:
            _app().guard(st.undo)  # nothing to undo: the ledger's refusal, in words
            return
        what = _entry_line(hist[-1], st.need_session().players, st.t)
        _app().ask(tr("ask_undo", what=what), tr("undo"), self._undo)

    def _undo(self) -> None:
        e = _app().guard(self.state.undo)
        if e is not None:
            self.refresh()
            _app().notify(tr("undone", what=_entry_line(e, self.state.need_session().players, self.state.t)))

    def redo(self) -> None:
        e = _app().guard(self.state.redo)
        if e is not None:
            self.refresh()
            _app().notify(tr("redone", what=_entry_line(e, self.state.need_session().players, self.state.t)))

    def draw(self) -> None:
        n = self.state.draft.count()
        _app().ask(tr("ask_draw_typed", n=n) if n else tr("ask_draw"), tr("draw"), self._draw)

    def _draw(self) -> None:
        e = _app().guard(self.state.record_draw)
        if e is not None:
            self.refresh()
            _app().notify(tr("draw_recorded", n=e.no))

    def manual(self) -> None:
        """Back to the hand being entered if there is one (a trip to the ledger keeps it)."""
        if not self.state.typed_cards():
            self.state.start_manual()
        _app().go(resume_screen(self.state))

    def reopen(self) -> None:
        _app().ask(tr("ask_reopen"), tr("reopen"), self._reopen)

    def _reopen(self) -> None:
        if _app().guard(self.state.reopen) is not None or not self.state.sstate.locked:
            self.refresh()
            _app().notify(tr("reopened"))

    def toggle_working(self) -> None:
        self.show_working = not self.show_working
        self.refresh()

    def apply_adjust(self) -> None:
        deltas = [int(ti.text or 0) for ti in self.adjust_inputs]
        e = _app().guard(self.state.adjust, deltas, self.ids.reason.text.strip() or tr("adjust"))
        if e is not None:
            self.ids.reason.text = ""
            self.refresh()
            _app().notify(tr("adjusted", n=e.no))


class HandScreen(Base):
    """One recorded hand: its photo, groups, points and payouts; edit it or delete its photo."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.no = 1

    def entry(self) -> Any:
        hist = self.state.sstate.history
        return hist[self.no - 1] if 1 <= self.no <= len(hist) else None

    def refresh(self) -> None:
        e = self.entry()
        box = self.ids.body
        box.clear_widgets()
        if e is None:
            return
        s = self.state.need_session()
        t = self.state.t
        self.ids.head.text = entry_line(e, s.players)
        photo = self.state.photo_of(e)
        self.ids.photo.source = photo or ""
        self.ids.photo.height = dp(220) if photo else 0
        self.ids.photo.opacity = 1 if photo else 0
        if e.photo and not photo:
            box.add_widget(Txt(text=t("photo_deleted")))
        if e.entered_by == "total":
            box.add_widget(Txt(text=f"{t('by_total')}: {e.points} {s.variant.unit}"))
        for g in e.groups:
            name = t.script(g["name"])
            box.add_widget(Txt(text=f"{name}  {_cards_text(g['cards'])}  {t('points', n=g['points'])}"))
        if e.specials:
            box.add_widget(Txt(text=" · ".join(t.special(x["id"], x["name"]) for x in e.specials)))
        if e.kind == "hand" and isinstance(e.output, dict) and e.output.get("winning"):
            # the working as it was scored, to settle an argument afterwards
            for line in explain(e.output, s.preset, s.players, t):
                box.add_widget(Txt(text=line, font_size=sp(16), color=(0.2, 0.2, 0.2, 1)))
        if e.kind == "hand":
            box.add_widget(Txt(text=t("score", n=e.score), font_size=sp(22)))
        for seat, amount in enumerate(e.payouts):
            box.add_widget(Txt(text=f"{s.players[seat]}: {amount:+d}"))
        self.ids.edit.disabled = e.kind != "hand" or self.state.sstate.locked
        self.ids.delphoto.disabled = photo is None

    def edit(self) -> None:
        e = self.entry()
        if e is not None and e.entered_by == "total":  # typed as a total: edit it where it was typed
            from .quick import open_quick

            open_quick(_app(), e)
            return
        m = self.state.typed_cards()
        if m:  # the hand being entered would be replaced: ask first
            _app().ask(tr("ask_edit", n=self.no, m=m), tr("edit"), self._edit)
        else:
            self._edit()

    def _edit(self) -> None:
        if _app().guard(self.state.edit, self.no) is not None:
            _app().go("manual")

    def delete_photo(self) -> None:
        _app().ask(tr("ask_delete_photo"), tr("delete_photo"), self._delete_photo)

    def _delete_photo(self) -> None:
        e = self.entry()
        if e is not None and self.state.delete_photo(e):
            self.refresh()
            _app().notify(tr("photo_deleted"))


# ---------------------------------------------------------------- settle
class SettleScreen(Base):
    """Net per player and the transfers (fewest or pairwise); share as text or image; lock."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.mode = "minimal"

    def refresh(self) -> None:
        st = self.state
        s = st.session
        box = self.ids.body
        box.clear_widgets()
        if s is None:
            return
        t = st.t
        self.ids.mode.set_options([("minimal", t("minimal")), ("pairwise", t("pairwise"))], self.mode)
        res = st.settlement(self.mode).to_dict()
        locked = st.sstate.locked
        box.add_widget(Txt(text=f"{s.name} · {t(s.preset)}" + (f" · {t('locked')}" if locked else ""),
                           font_size=sp(19)))
        box.add_widget(Txt(text=t("net"), font_size=sp(19)))
        for p in res["players"]:
            box.add_widget(Txt(text=f"{p['name']}: {p['points']:+d}  ({p['money']})", font_size=sp(21)))
        box.add_widget(Txt(text=t("transfers"), font_size=sp(19)))
        for tr_ in res["transfers"]:
            box.add_widget(Txt(text=f"{t('pays', a=tr_['from_name'], b=tr_['to_name'])}: "
                                    f"{tr_['points']}  ({tr_['money']})", font_size=sp(20)))
        self.ids.lock.text = t("reopen") if locked else t("lock")

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.refresh()

    def lock(self) -> None:
        if self.state.sstate.locked:
            _app().ask(tr("ask_reopen"), tr("reopen"), lambda: self._lock(self.state.reopen))
        else:
            _app().ask(tr("ask_lock"), tr("lock"), lambda: self._lock(self.state.settle, self.mode))

    def _lock(self, fn: Any, *args: Any) -> None:
        _app().guard(fn, *args)
        self.refresh()
        _app().notify(tr("locked") if self.state.sstate.locked else tr("reopened"))

    def share_text(self) -> None:
        """Text: copied to the clipboard and shared (Android) or saved as a text file; the line
        says which, never 图片."""
        p = _app().guard(self.state.share_text, self.mode)
        if p is None:
            return
        text = self.state.settlement_text(self.mode)
        copied = False
        try:
            from kivy.core.clipboard import Clipboard

            Clipboard.copy(text)
            copied = Clipboard.paste() == text
        except Exception:
            copied = False
        out = self._share([p], notify=False)
        if out is None:
            return
        st = self.state
        if not out:
            _app().notify(st.t("text_shared"))
        else:
            where = ", ".join(str(q) for q in out)
            _app().notify(st.t("text_copied" if copied else "text_saved", p=where))

    def share_image(self) -> Path:
        s = self.state.need_session()
        p = self.state.data_dir / "shared" / f"settlement-{s.id}.png"
        p.parent.mkdir(exist_ok=True)
        self.ids.body.export_to_png(str(p))
        self._share([p])
        return p

    def _share(self, files: list[Path], notify: bool = True) -> list[Path] | None:
        """Android: the share sheet (WeChat…); desktop: copies in the pictures folder (returned;
        None when refused, said)."""
        from .android_ort import on_android
        from .media import MediaError, share

        st = self.state
        try:
            out = share(st.settlement_text(self.mode), files, st.need_session().name, st.t("share"),
                        on_android())
        except MediaError as exc:
            _app().notify(st.t("error", msg=str(exc)))
            return None
        if notify:
            _app().notify(st.t("shared_to", p=", ".join(str(p) for p in out)) if out else st.t("share"))
        return out
