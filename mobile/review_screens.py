"""The screens that enter a hand: the group editor of manual entry and the review of a photo's
reading, with its walk through what the reader doubted.
"""

from __future__ import annotations

from typing import Any

from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.button import Button

from .screen_base import Base, _app, _btn, doubt_text
from .widgets import GREEN, face_text, tr


# ---------------------------------------------------------------- review / manual
class EditScreen(Base):
    """The group editor with the 20-key pad and the live layout check (manual entry)."""

    check_text = StringProperty("")
    hint_text = StringProperty("")

    def on_pre_enter(self, *_: Any) -> None:
        """A new hand (or photo) starts at its first group, the photo whole."""
        d = self.state.draft
        if d is not getattr(self, "_shown", None):
            self._shown = d
            self.ids.scroll.scroll_y = 1
            if "photo" in self.ids:
                self.ids.photo.zoom = 1.0
                self.ids.photo.pan = [0.5, 0.5]
        super().on_pre_enter()

    def refresh(self) -> None:
        chk = self.state.check()
        dets = sorted({i for d in chk.doubts for i in d.detections})
        ed = self.ids.editor
        ed.doubt_dets = dets
        ed.refresh()
        self.ids.pad.repaint()
        line = tr("check_ok" if chk.ready and not chk.doubts else "check_cards", n=chk.cards)
        seven = self.state.seven_groups(chk)
        if seven is not None:
            line += " · " + tr("seven_yes" if seven else "seven_no")
        if chk.doubts:
            line += " · " + tr("doubts", n=len(chk.doubts))
        left = [c for col in self.state.draft.columns if col.state not in ("open", "concealed", "hand")
                for c in col.cards]
        if left:
            line += " · " + tr("cards_left_out", n=len(left), cards=self.state.glyphs(left[:8]))
        self.check_text = line
        editor = self.state.editor
        self.hint_text = {"move": tr("move_hint"), "name": tr("name_hint")}.get(editor.mode, tr("tap_card"))
        self.ids.doubts.text = "\n".join(f"• {doubt_text(d, self.state, chk.cards)}" for d in chk.doubts)

    def key(self, face: str) -> None:
        _app().guard(self.state.editor.press, face)
        self.state.changed()

    def delete(self) -> None:
        if self.state.editor.card is None:  # nothing chosen: say what 删除 needs
            _app().notify(tr("delete_what"))
            return
        self.state.editor.delete()
        self.state.changed()

    def move(self) -> None:
        self.state.editor.start_move()
        self.state.changed()

    def new_group(self) -> None:
        self.state.editor.new_group()
        self.state.changed()

    def clear(self) -> None:
        n = self.state.draft.count()
        if n:
            _app().ask(tr("ask_clear", n=n), tr("clear"), self.state.start_manual)

    def next(self) -> None:
        chk = self.state.check()
        if not chk.ready:
            what = "; ".join(doubt_text(d, self.state, chk.cards) for d in chk.blocking)
            _app().notify(tr("layout_incomplete", what=what or tr("check_cards", n=chk.cards)))
            return
        _app().go("win")


class ManualScreen(EditScreen):
    pass


class ReviewScreen(EditScreen):
    """The photo with every card boxed; the same editor and pad below it. A photo with doubts
    walks the player through them, one flagged card at a time, most money first: the photo
    zooms to the card and its answers are big buttons, so one tap settles it and moves on."""

    deck_text = StringProperty("")
    walking = BooleanProperty(False)  # a doubt is shown: the walk's panel above the groups
    _zoomed: tuple[int, str] | None  # the draft and the step the photo last zoomed to
    step: Any = None  # the walk's step shown now (None: nothing left to walk)

    def refresh(self) -> None:
        super().refresh()
        st = self.state
        self.deck_text = st.deck_line()
        d = st.draft
        photo = self.ids.photo
        if photo.source != (d.photo or ""):
            photo.source = d.photo or ""
        photo.detections = [(x.card, tuple(x.box)) for x in d.detections]
        photo.doubt_dets = list(self.ids.editor.doubt_dets)
        sel = st.editor.card
        photo.selected = d.columns[sel[0]].detections[sel[1]] if sel else -1
        photo.on_tap = self.tap_box
        self.ids.editor.on_head_tap = self.zoom_to_group
        if st.editor.mode not in ("move", "name"):
            self.hint_text = tr("zoom_hint") + "；" + self.hint_text
        chk = st.check()
        self.ids.ack.disabled = not chk.doubts
        # the tick is this draft's own: a new photo (or scan) starts unticked, whatever came before
        self.ids.ack.state = "down" if chk.doubts and st.pending.ack else "normal"
        now = st.running_score()  # the running total: every fix re-scores the hand at once
        self.check_text += " · " + (tr("walk_now_none") if now is None else
                                    tr("score", n=now[0]) if now[0] else tr("walk_lose"))
        self.show_walk()

    # ------------------------------------------------------------ the walk through the doubts
    def show_walk(self) -> None:
        """The first unsettled step above the editor, the photo zoomed to its card."""
        st = self.state
        every = st.review_steps()
        left = [] if st.pending.ack else [s for s in every if not s.settled]
        walk = self.ids.walk
        self.step = left[0] if left else None
        self.walking = walk.shown = self.step is not None
        if self.step is None:
            return
        step = self.step
        self.hint_text = ""  # the walk says what to tap
        line = tr("walk_step", i=len(every) - len(left) + 1, n=len(every), what=self.step_words(step))
        money = self.money_words(step)
        self.ids.walk_head.text = line + (" · " + money if money else "")
        row = self.ids.walk_options
        row.clear_widgets()
        self.walk_buttons: dict[str, Button] = {}
        if st.asks_claimed(step):  # the table's convention: asked once an evening, then kept
            self.ids.walk_head.text = tr("walk_step", i=len(every) - len(left) + 1, n=len(every),
                                         what=tr("claimed_ask"))
            scores = st.claimed_scores()
            for place, now in scores.items():  # top and bottom, or left and right
                score = "—" if now is None else (tr("score", n=now[0]) if now[0] else tr("walk_lose"))
                self._add_option(row, place, f"{tr('claimed_' + place)}\n[size={int(sp(12))}]{score}[/size]",
                                 lambda p=place: self.claim(p), GREEN, markup=True)
        elif step.det is None:
            self._add_option(row, "seen", tr("walk_seen"), lambda: self.seen(step.key), GREEN)
        else:
            for o in step.options:
                self._add_option(row, o.face, self._option_text(o), lambda f=o.face: self.settle(f),
                                 (0.98, 0.96, 0.90, 1), color=(0.08, 0.08, 0.08, 1), markup=True)
            self._add_option(row, "other", tr("walk_other"), self.pick_other, (0.40, 0.40, 0.38, 1))
            self._add_option(row, "not_card", tr("walk_not_card"), lambda: self.settle(None),
                             (0.70, 0.18, 0.14, 1))
        photo = self.ids.photo
        if step.det is not None and st.editor.card is None:
            photo.selected = step.det
        where = (id(st.draft), step.key)
        if where != getattr(self, "_zoomed", None):  # a new step: its card at fingertip size
            self._zoomed = where
            self.ids.scroll.scroll_y = 1
            boxes = [st.draft.detections[i].box for i in step.boxes if 0 <= i < len(st.draft.detections)]
            if boxes:
                photo.zoom_to([*boxes, *(_padded(b) for b in boxes)], dp(64))
            else:
                photo.zoom, photo.pan = 1.0, [0.5, 0.5]

    def _add_option(self, row: Any, key: str, text: str, cb: Any, bg: tuple[float, ...], **kw: Any) -> None:
        b = _btn(text, cb, bg, height=dp(58), halign="center", **kw)
        b.bind(size=lambda w, *_: setattr(w, "text_size", (w.width, None)))
        self.walk_buttons[key] = b
        row.add_widget(b)

    def _option_text(self, o: Any) -> str:
        """The card big, in its ink, and under it the hand's score were it that card."""
        ink = "c81414" if o.face != "back" and _is_red(o.face) else "141414"
        score = "—" if o.score is None else (tr("score", n=o.score) if o.score else tr("walk_lose"))
        glyph = f"[size={int(sp(26))}][color={ink}]{face_text(o.face)}[/color][/size]"
        return f"{glyph}\n[size={int(sp(12))}]{score}[/size]"

    def step_words(self, step: Any) -> str:
        """What is in doubt, naming only this step's card (a fifth-copy doubt names five)."""
        from zipai.vision import Doubt

        st = self.state
        cards = st.draft.count()
        if step.det is None:
            return st.doubt_words(step.doubt, cards)
        return st.doubt_words(Doubt(step.kind, "", [step.det]), cards)

    def money_words(self, step: Any) -> str:
        """Why this card comes where it does: the money its likeliest alternative moves."""
        if step.det is None:
            return ""
        if step.change is None:
            return tr("walk_unknown")
        if step.change == 0:
            return tr("walk_same")
        alt = step.options[1].face if len(step.options) > 1 else None
        return tr("walk_change", card=face_text(alt) if alt else tr("walk_not_card"), d=step.change)

    def settle(self, face: str | None) -> None:
        """One tap: the card is ``face`` (None: not a card); on to the next doubt, or when none
        is left, on to how the hand was won."""
        step = self.step
        if step is None or step.det is None:
            return
        if _app().guard(self.state.settle_card, step.det, face):
            self.walk_on()

    def claim(self, place: str) -> None:
        """The evening's answer to which row holds the claimed groups: the photo is scored that
        way, and later photos this evening are read so without asking."""
        if _app().guard(self.state.answer_claimed, place):
            self.walk_on()
            _app().notify(tr("claimed_kept", row=tr("claimed_" + place)))  # said where the walk lands

    def seen(self, key: str) -> None:
        if _app().guard(self.state.settle_scene, key):
            self.walk_on()

    def walk_on(self) -> None:
        st = self.state
        if st.open_steps():
            return
        chk = st.check()
        if chk.ready and st.session is not None:
            _app().go("win")
        else:
            self.refresh()

    def pick_other(self) -> None:
        """The full card pad: the card is chosen in the editor and the next key corrects it."""
        step = self.step
        if step is None or step.det is None:
            return
        self.state.editor.card = None
        self.state.editor.tap_detection(step.det)
        self.state.changed()
        _app().notify(tr("walk_pick"))

    def set_ack(self, on: bool) -> None:
        self.state.ack_doubts(on)
        self.refresh()

    def zoom_to_group(self, ci: int) -> None:
        """A tap on a group's label zooms the photo to that group's cards (boxes ≥ 48 dp)."""
        cols = self.state.draft.columns
        dets = self.state.draft.detections
        found = cols[ci].detections if 0 <= ci < len(cols) else []
        boxes = [dets[i].box for i in found if 0 <= i < len(dets)]
        if boxes:
            self.ids.photo.zoom_to(boxes, dp(48))

    def tap_box(self, det: int) -> None:
        self.state.editor.tap_detection(det)
        self.state.changed()

    def next(self) -> None:
        """On to how the hand was won; a doubt not yet checked is shown, never a bare refusal."""
        left = self.state.open_steps()
        if left:
            self._zoomed = None  # back to the first unsettled doubt, zoomed in
            self.refresh()
            _app().notify(tr("doubts_where", n=len(left), what=self.step_words(left[0])))
            return
        super().next()


def _padded(box: Any) -> tuple[float, float, float, float]:
    """A card's box with a margin, so the zoom shows its neighbours too."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    return (x0 - 0.6 * w, y0 - 0.3 * h, x1 + 0.6 * w, y1 + 0.3 * h)


def _is_red(face: str) -> bool:
    from zipai.engine import Card

    return Card.parse(face).is_red
