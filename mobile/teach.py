"""认牌, the teach-the-deck screen: a drawn guide of the layout, the photo taken or picked, the
20 cards as read for one look and a tap to fix, a name, and saving makes it the deck in use.

The layout is the label: the learner (``zipai.vision.deck`` through ``decks.Shelf``) names each
of the 20 places by the order, a face the finder missed read where its place lies, and the
screen shows the places where the untaught reader read something else (a tap on one, on the
photo or among the cards, says which card it is). A refused photo shows the learner's line and
stores nothing. Learning takes seconds on a phone: it runs off the UI thread, its progress drawn.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView
from kivy.uix.widget import Widget

from zipai.engine import CARD_NAMES, Card

from .decks import Taught, confusable_pairs, untaken
from .draft import FACES
from .screens import Base
from .widgets import BACK_BLUE, INK_BLACK, INK_RED, PAPER, CardChip, CardPad, Txt, tr


def _app() -> Any:
    return App.get_running_app()


class LayoutGuide(Widget):
    """The teaching layout drawn as the player lays it: small 一…十 on top, big 壹…拾 below, left
    to right, and one back aside (dashed: it is optional)."""

    traditional = BooleanProperty(False)
    lang = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._tex: dict[tuple[str, float, tuple[float, ...]], Any] = {}
        self.bind(pos=self.redraw, size=self.redraw, traditional=self.redraw, lang=self.redraw)

    def _text(self, text: str, size: float, color: tuple[float, ...]) -> Any:
        key = (text, size, color)
        if key not in self._tex:
            lab = CoreLabel(text=text, font_size=size, color=color)
            lab.refresh()
            self._tex[key] = lab.texture
        return self._tex[key]

    def cells(self) -> list[tuple[str, tuple[float, float, float, float]]]:
        """Each card's place (x, y, w, h) in the widget, layout order, then the back's."""
        side = dp(40)  # the row names' column
        gap = dp(3)
        aside = dp(8)  # the back lies a little apart from the rows
        w = (self.width - side - 10 * gap - aside - dp(2)) / 11
        h = min(w * 1.45, (self.height - dp(24)) / 2 - gap)
        w = min(w, h / 1.45)
        top = self.top - dp(4)
        out = []
        for row, names in enumerate((CARD_NAMES[:10], CARD_NAMES[10:])):
            y = top - (row + 1) * (h + gap)
            for i, card in enumerate(names):
                out.append((card, (self.x + side + i * (w + gap), y, w, h)))
        out.append(("back", (self.x + side + 10 * (w + gap) + aside, top - 2 * (h + gap), w, h)))
        return out

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        if self.width < dp(100) or self.height < dp(40):
            return
        cells = self.cells()
        with self.canvas:
            for card, (x, y, w, h) in cells:
                if card == "back":
                    Color(*BACK_BLUE[:3], 0.35)
                    Rectangle(pos=(x, y), size=(w, h))
                    Color(*BACK_BLUE)
                    Line(rectangle=(x, y, w, h), width=dp(1), dash_length=4, dash_offset=3)
                    continue
                Color(*PAPER)
                Rectangle(pos=(x, y), size=(w, h))
                Color(0.3, 0.3, 0.3, 1)
                Line(rectangle=(x, y, w, h), width=dp(1))
                c = Card.parse(card)
                tex = self._text(c.chinese(traditional=self.traditional), min(w * 0.7, sp(20)),
                                 INK_RED if c.is_red else INK_BLACK)
                Color(1, 1, 1, 1)
                Rectangle(texture=tex, pos=(x + (w - tex.width) / 2, y + (h - tex.height) / 2), size=tex.size)
            grey = (0.25, 0.25, 0.25, 1)
            for row, key in enumerate(("small_row", "big_row")):
                x, y, w, h = cells[row * 10][1]
                tex = self._text(tr(key), sp(13), grey)
                Rectangle(texture=tex, pos=(self.x + dp(2), y + (h - tex.height) / 2), size=tex.size)
            x, y, w, h = cells[-1][1]
            tex = self._text(tr("back_aside"), sp(12), grey)
            left = min(x + w - tex.width, self.right - tex.width)
            Rectangle(texture=tex, pos=(left, y - tex.height - dp(2)), size=tex.size)


class FacePicker(ModalView):
    """The review's card pad (faces only), to say which card one of the 20 really is."""

    def __init__(self, index: int, on_pick: Any, **kw: Any) -> None:
        kw.setdefault("size_hint", (0.96, None))
        super().__init__(**kw)
        box = BoxLayout(orientation="vertical", padding=dp(8), spacing=dp(6), size_hint_y=None)
        box.bind(minimum_height=box.setter("height"))
        box.bind(height=lambda _b, h: setattr(self, "height", h))
        box.add_widget(Txt(text=tr("teach_pick", n=index + 1), font_size=sp(18), color=(1, 1, 1, 1)))
        self.pad = CardPad(faces=FACES)
        self.pad.bind(on_key=lambda _p, face: (self.dismiss(animation=False), on_pick(index, face)))
        box.add_widget(self.pad)
        self.add_widget(box)


class TeachScreen(Base):
    """认牌: guide, photo, the 20 cards as read, a name, save."""

    back_to = StringProperty("settings")
    taught_shown = BooleanProperty(False)
    info_text = StringProperty("")
    cols = NumericProperty(5)
    learning = BooleanProperty(False)  # a photo is being learnt, off the UI thread
    progress = NumericProperty(0.0)  # its share done, 0 to 1, drawn as a bar
    progress_text = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.taught: Taught | None = None
        self.photo: str | None = None
        self.chips: list[CardChip] = []
        self.picker: FacePicker | None = None
        self._job = 0  # the learning whose result is awaited: an older one's is dropped

    # ------------------------------------------------------------ drawing
    def on_pre_enter(self, *_: Any) -> None:
        """Shown from its top: the guide first, then the photo and the 20 cards below it."""
        self.ids.scroll.scroll_y = 1
        super().on_pre_enter()

    def refresh(self) -> None:
        st = self.state
        ids = self.ids
        ids.guide.traditional = st.t.traditional
        ids.guide.lang = st.settings.lang
        if not ids.name.text:
            ids.name.text = st.t("deck_default_name")
        shown = self.taught is not None
        self.taught_shown = shown
        ids.taught_box.shown = shown
        ids.save.disabled = not shown or self.learning
        ids.take.disabled = self.learning
        photo = ids.photo
        photo.source = (self.photo or "") if shown else ""
        grid = ids.cards
        grid.clear_widgets()
        self.chips = []
        if not shown:
            photo.detections = []
            self.info_text = st.t("teach_none")
            return
        taught = self.taught
        assert taught is not None  # shown
        got = taught.faces
        boxes: list[tuple[str, tuple[float, ...]]] = [(f.card, f.box) for f in got]
        if taught.back is not None:
            boxes.append(("back", tuple(taught.back)))
        photo.detections = boxes
        # the untaught reader read another card where the layout says this one: worth a look
        disputed = [f.read_as != f.card for f in got]
        photo.doubt_dets = [i for i, d in enumerate(disputed) if d]
        photo.on_tap = lambda i: self.pick(i) if i < len(got) else None
        for i, f in enumerate(got):
            chip = CardChip(face=f.card, doubt=disputed[i], size_hint_y=None, height=dp(52))
            chip.face_index = i
            chip.bind(on_release=lambda c: self.pick(c.face_index))
            self.chips.append(chip)
            grid.add_widget(chip)
        self.info_text = self.describe(taught)

    def describe(self, taught: Taught) -> str:
        """What was learned, in one look: turned round, how long, the pairs still confusable."""
        t = self.state.t
        parts = []
        if taught.upside_down:
            parts.append(t("teach_upside_down"))
        parts.append(t("teach_time", s=f"{taught.seconds:.1f}"))
        def glyph(c: str) -> str:
            return Card.parse(c).chinese(traditional=t.traditional)
        off = [f for f in taught.faces if f.disagrees]
        if off:
            parts.append(t("teach_disagreed", n=len(off), cards="、".join(glyph(f.card) for f in off)))
        pairs = confusable_pairs(taught)
        if pairs:
            parts.append(t("teach_confusable", pairs="、".join(f"{glyph(a)}/{glyph(b)}" for a, b in pairs)))
        missing = untaken(taught)
        if missing:
            parts.append(t("teach_untaken", cards="".join(glyph(c) for c in missing)))
        return " · ".join(parts)

    # ------------------------------------------------------------ taps
    def take_photo(self) -> None:
        """To the capture screen (camera, or a picked photo), which hands the photo back here."""
        cap = _app().sm.get_screen("capture")
        cap.purpose = "teach"
        cap.back_to = "teach"
        _app().go("capture")

    def learn_from(self, path: str | Path) -> None:
        """Teach from a photo: the learner runs on its own thread while the screen draws its
        progress and stays live; the result is taken on the UI thread."""
        self.taught, self.photo = None, None
        _app().go("teach")
        _app().notify(tr("teaching"))
        self._job += 1
        job, name = self._job, self.ids.name.text.strip() or tr("deck_default_name")
        self.learning, self.progress = True, 0.0
        self.progress_text = tr("teach_progress", pct=0)
        self.refresh()

        def told(share: float) -> None:
            Clock.schedule_once(lambda _dt: self._told(job, share), 0)

        def work() -> None:
            got: Any = None
            err: BaseException | None = None
            try:
                got = self.state.learn(str(path), name, told)
            except BaseException as exc:  # handed to the UI thread, which words or raises it
                err = exc
            Clock.schedule_once(lambda _dt: self._learnt(job, str(path), got, err), 0)

        threading.Thread(target=work, name="zipai-teach", daemon=True).start()

    def _told(self, job: int, share: float) -> None:
        if job == self._job and self.learning:
            self.progress = max(self.progress, min(1.0, share))
            self.progress_text = tr("teach_progress", pct=round(100 * self.progress))

    def _learnt(self, job: int, path: str, got: Any, err: BaseException | None) -> None:
        if job != self._job:
            return  # another photo was taken since: this one's result is not wanted
        self.learning = False
        if err is not None:
            def fail() -> None:
                raise err
            _app().guard(fail)
        else:
            self.taught, self.photo = got, path
            _app().notify("")
        self.refresh()

    def pick(self, index: int) -> None:
        """One of the 20 is a different card: the card pad says which."""
        if self.taught is None or self.learning:
            return
        self.picker = FacePicker(index, self.relabel)
        self.picker.open(animation=False)

    def relabel(self, index: int, card: str) -> None:
        got = _app().guard(self.state.relabel, self.taught, index, card)
        if got is not None:
            self.taught = got
        self.refresh()

    def save(self) -> None:
        if self.taught is None or self.learning:
            _app().notify(tr("teach_none"))
            return
        deck = _app().guard(self.state.save_deck, self.taught, self.ids.name.text)
        if deck is not None:
            self.taught, self.photo = None, None
            self.ids.name.text = ""
            _app().go(self.back_to or "settings")
            _app().notify(tr("deck_saved", name=deck.name))


def open_teach(app: Any, back_to: str) -> None:
    """Show 认牌, coming back to ``back_to`` (the settings, or the first start's offer)."""
    scr = app.sm.get_screen("teach")
    scr.back_to = back_to
    app.go("teach")
