"""Reusable widgets: the CJK font, card chips, the 20-key pad, the group editor, the photo with boxes.

Widgets draw the app state and turn taps into calls on it (``Editor``, ``AppState``); they keep
no game data of their own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.core.text import DEFAULT_FONT, LabelBase
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, InstructionGroup, Line, Rectangle
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.stacklayout import StackLayout
from kivy.uix.stencilview import StencilView
from kivy.uix.togglebutton import ToggleButton

from zipai.engine import Card

from .draft import CONCEALED, FREE, KEYS, OPEN, Editor

# Fonts with the big numerals (贰 貳 叁 參 陆 陸) and the UI text, desktop first, then Android.
FONT_CANDIDATES: tuple[str, ...] = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/system/fonts/NotoSansCJK-Regular.ttc",
    "/system/fonts/NotoSansSC-Regular.otf",
    "/system/fonts/DroidSansFallback.ttf",
)

INK_RED = (0.80, 0.08, 0.08, 1)
INK_BLACK = (0.08, 0.08, 0.08, 1)
PAPER = (0.98, 0.96, 0.90, 1)
BACK_BLUE = (0.20, 0.35, 0.62, 1)
ACCENT = (0.95, 0.68, 0.12, 1)
GREEN = (0.16, 0.42, 0.31, 1)


def register_cjk_font(extra: Sequence[str] = ()) -> str | None:
    """Make the first CJK font found the default for every label; returns its path."""
    env = os.environ.get("ZIPAI_FONT")
    for path in [*([env] if env else []), *extra, *FONT_CANDIDATES]:
        if path and Path(path).is_file():
            LabelBase.register(DEFAULT_FONT, path, path, path, path)
            LabelBase.register("CJK", path)
            return path
    return None


def tr(key: str, **kw: Any) -> str:
    app = App.get_running_app()
    return app.state.t(key, **kw) if app is not None else key


def face_text(face: str) -> str:
    """The glyph of a card in the chosen script; ``back`` as the word for a card back."""
    if face == "back":
        return tr("back_card")
    app = App.get_running_app()
    trad = bool(app and app.state.t.traditional)
    return Card.parse(face).chinese(traditional=trad)


def face_color(face: str) -> tuple[float, float, float, float]:
    if face == "back":
        return (1, 1, 1, 1)
    return INK_RED if Card.parse(face).is_red else INK_BLACK


class CardChip(Button):
    """One card as a large tappable tile: glyph in its ink colour, small/big shown by the glyph."""

    face = StringProperty("x1")
    selected = BooleanProperty(False)
    doubt = BooleanProperty(False)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.background_normal = ""
        self.background_down = ""
        self.font_size = sp(24)
        self.bind(face=self._paint, selected=self._paint, doubt=self._paint)
        self._paint()

    def _paint(self, *_: Any) -> None:
        self.text = face_text(self.face)
        self.color = face_color(self.face)
        if self.selected:
            self.background_color = ACCENT
        elif self.face == "back":
            self.background_color = BACK_BLUE
        elif self.doubt:
            self.background_color = (1.0, 0.85, 0.55, 1)
        else:
            self.background_color = PAPER


class CardFace(Label):
    """One card shown, not pressed (the result's groups): a paper tile with the glyph in its ink,
    the winning card on amber, and no button look or press feedback (a press there does nothing)."""

    face = StringProperty("x1")
    selected = BooleanProperty(False)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.font_size = sp(24)
        with self.canvas.before:
            self._bg = Color(*PAPER)
            self._rect = Rectangle(pos=self.pos, size=self.size)
        self.bind(pos=self._place, size=self._place, face=self._paint, selected=self._paint)
        self._paint()

    def _place(self, *_: Any) -> None:
        self._rect.pos, self._rect.size = self.pos, self.size

    def _paint(self, *_: Any) -> None:
        self.text = face_text(self.face)
        self.color = face_color(self.face)
        self._bg.rgba = ACCENT if self.selected else BACK_BLUE if self.face == "back" else PAPER


class CardPad(GridLayout):
    """The 20 faces and ``back`` as keys; ``on_key`` gets the face."""

    __events__ = ("on_key",)
    portrait_cols = NumericProperty(7)
    landscape_cols = NumericProperty(10)  # a row of small cards, a row of big ones, then 背

    def __init__(self, faces: Sequence[str] = KEYS, **kw: Any) -> None:
        super().__init__(**kw)
        self.spacing = dp(3)
        self.size_hint_y = None
        self.faces = tuple(faces)
        self.keys: dict[str, CardChip] = {}
        for face in self.faces:
            b = CardChip(face=face, size_hint_y=None, height=dp(50))
            b.bind(on_release=lambda b: self.dispatch("on_key", b.face))
            self.keys[face] = b
            self.add_widget(b)
        self.bind(width=self._reflow)
        self._reflow()

    def _reflow(self, *_: Any) -> None:
        self.cols = self.landscape_cols if self.width > dp(640) else self.portrait_cols
        rows = -(-len(self.faces) // self.cols)
        self.height = rows * (dp(50) + self.spacing[1])

    def repaint(self) -> None:
        for b in self.keys.values():
            b._paint()

    def on_key(self, face: str) -> None:
        pass


def _on_row(act: Callable[[int], None], ci: int) -> Callable[[Any], None]:
    """A row button's tap: ``act`` on the row it was made for, whatever Kivy passes."""
    return lambda _b: act(ci)


def _row_button(text: str, cb: Callable[[Any], None], width: float, bg: tuple[float, ...] = GREEN,
                **kw: Any) -> Button:
    b = Button(text=text, size_hint_x=None, width=width, background_normal="", background_down="",
               background_color=bg, font_size=sp(14), halign="center", valign="middle", **kw)
    b.bind(size=lambda w, s: setattr(w, "text_size", (s[0] - dp(4), None)))
    b.bind(on_release=cb)
    return b


class EditorView(BoxLayout):
    """The groups being edited, one row each: a label that flips open/concealed, then the cards.

    Taps go to ``AppState.editor``; after each one the state is saved and every view redrawn.
    """

    doubt_dets = ListProperty([])
    on_head_tap = ObjectProperty(None, allownone=True)  # the review zooms its photo to the group

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.orientation = "vertical"
        self.size_hint_y = None
        self.spacing = dp(4)
        self.bind(minimum_height=self.setter("height"))
        self.rows: list[BoxLayout] = []
        # the live buttons, for tests and the screenshot walk: heads[ci], chips[(ci, pos)], flips[ci]
        self.heads: dict[int, Button] = {}
        self.chips: dict[tuple[int, int], CardChip] = {}
        self.flips: dict[int, Button] = {}
        self.namers: dict[int, Button] = {}

    @property
    def editor(self) -> Editor:
        editor: Editor = App.get_running_app().state.editor  # Kivy is untyped; the app is ours
        return editor

    def _changed(self) -> None:
        App.get_running_app().state.changed()

    def refresh(self) -> None:
        self.clear_widgets()
        self.rows = []
        self.heads, self.chips, self.flips, self.namers = {}, {}, {}, {}
        ed = self.editor
        doubts = set(self.doubt_dets)
        for ci, col in enumerate(ed.draft.columns):
            row = BoxLayout(size_hint_y=None, height=dp(56), spacing=dp(3))
            is_target = ci == ed.target and ed.card is None
            if col.state == FREE:
                label = tr("hand_row")
            else:
                label = f"{ci + 1}\n{tr(col.state if col.state in (OPEN, CONCEALED) else 'loose')}"
            bg = ACCENT if is_target else (GREEN if col.state == OPEN else
                                           BACK_BLUE if col.state == CONCEALED else (0.45, 0.45, 0.45, 1))
            head = _row_button(label, _on_row(self.on_head, ci), dp(70), bg)
            self.heads[ci] = head
            row.add_widget(head)
            # the cards wrap onto more lines when a row is long (a 12-card hand on a phone)
            stack = StackLayout(orientation="lr-tb", spacing=dp(3), size_hint_y=None)
            stack.bind(minimum_height=stack.setter("height"))
            stack.bind(height=lambda st, h, row=row: setattr(row, "height", max(dp(56), h)))
            for pos, face in enumerate(col.cards):
                det = col.detections[pos]
                chip = CardChip(face=face, size_hint=(None, None), width=dp(44), height=dp(52),
                                selected=ed.card == (ci, pos), doubt=det >= 0 and det in doubts)
                chip.col_index, chip.card_pos = ci, pos
                chip.bind(on_release=lambda c: self.on_chip(c.col_index, c.card_pos))
                self.chips[(ci, pos)] = chip
                stack.add_widget(chip)
            if col.cards and all(c == "back" for c in col.cards) and col.state != FREE:
                named = face_text(col.name) if col.name else "?"
                self.namers[ci] = _row_button(f"{tr('name_group')} {named}",
                                              _on_row(self.on_name, ci), dp(96), (0.55, 0.3, 0.6, 1),
                                              size_hint_y=None, height=dp(52))
                stack.add_widget(self.namers[ci])
            row.add_widget(stack)
            if col.state != FREE or col.cards:
                self.flips[ci] = _row_button(tr("flip"), _on_row(self.on_flip, ci), dp(64),
                                             (0.35, 0.35, 0.35, 1))
                row.add_widget(self.flips[ci])
            self.rows.append(row)
            self.add_widget(row)

    # taps
    def on_head(self, ci: int) -> None:
        self.editor.tap_column(ci)
        self._changed()
        if self.on_head_tap is not None:
            self.on_head_tap(ci)

    def on_chip(self, ci: int, pos: int) -> None:
        self.editor.tap_card(ci, pos)
        self._changed()

    def on_flip(self, ci: int) -> None:
        self.editor.flip(ci)
        self._changed()

    def on_name(self, ci: int) -> None:
        self.editor.start_name(ci)
        self._changed()


MAX_ZOOM = 12.0


class PhotoBoxes(StencilView):
    """The photo, fitted to the widget, with every detection boxed and labelled.

    Doubts are drawn thick and orange, the selected card in the accent colour; a tap on a box
    selects that card in the editor. ``zoom_by`` magnifies (a phone's photo is small) and a
    drag pans the magnified photo; a tap is a touch that did not move.
    """

    zoom = NumericProperty(1.0)
    pan = ListProperty([0.5, 0.5])  # the photo point at the widget's centre, as fractions
    source = StringProperty("")
    detections = ListProperty([])
    doubt_dets = ListProperty([])
    selected = NumericProperty(-1)
    image_size = ListProperty([1, 1])
    on_tap = ObjectProperty(None, allownone=True)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._texture: Any = None
        self._labels: dict[tuple[str, bool], Any] = {}
        self._g = InstructionGroup()  # the photo and boxes, under the zoom buttons
        self.canvas.insert(0, self._g)
        self.bind(pos=self.redraw, size=self.redraw, center=self.redraw, detections=self.redraw,
                  doubt_dets=self.redraw,
                  selected=self.redraw, source=self._load, zoom=self.redraw, pan=self.redraw)

    def _load(self, *_: Any) -> None:
        self._texture = None
        if self.source and Path(self.source).is_file():
            from kivy.core.image import Image as CoreImage

            self._texture = CoreImage(self.source).texture
            self.image_size = list(self._texture.size)
        self.redraw()

    def fit(self) -> tuple[float, float, float]:
        """Scale and offset that put the photo (zoomed, panned) inside the widget."""
        iw, ih = self.image_size
        k = min(self.width / max(iw, 1), self.height / max(ih, 1)) * self.zoom
        px, py = self.pan
        return k, self.center_x - px * iw * k, self.center_y - (1 - py) * ih * k

    def zoom_by(self, factor: float) -> None:
        self.zoom = min(MAX_ZOOM, max(1.0, self.zoom * factor))
        if self.zoom == 1.0:
            self.pan = [0.5, 0.5]

    def zoom_to(self, boxes: Sequence[Sequence[float]], min_card: float) -> None:
        """Centre the photo on these boxes, magnified so that the narrowest is ``min_card`` wide
        (a fingertip covers one card, not three) or the group fills the view, whichever is more."""
        iw, ih = self.image_size
        k0 = min(self.width / max(iw, 1), self.height / max(ih, 1))
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        narrow = max(1.0, min(b[2] - b[0] for b in boxes))
        fill = 0.9 * min(self.width / max(x1 - x0, 1), self.height / max(y1 - y0, 1)) / max(k0, 1e-9)
        self.zoom = min(MAX_ZOOM, max(1.0, min_card / max(narrow * k0, 1e-9), min(fill, MAX_ZOOM)))
        self.pan = [(x0 + x1) / 2 / max(iw, 1), (y0 + y1) / 2 / max(ih, 1)]

    def to_widget_box(self, box: Sequence[float]) -> tuple[float, float, float, float]:
        k, ox, oy = self.fit()
        ih = self.image_size[1]
        x0, y0, x1, y1 = box
        return ox + x0 * k, oy + (ih - y1) * k, (x1 - x0) * k, (y1 - y0) * k

    def _label(self, text: str, red: bool) -> Any:
        key = (text, red)
        if key not in self._labels:
            lab = CoreLabel(text=text, font_size=sp(13), color=(1, 1, 1, 1))
            lab.refresh()
            self._labels[key] = lab.texture
        return self._labels[key]

    def redraw(self, *_: Any) -> None:
        g = self._g
        g.clear()
        g.add(Color(0.15, 0.15, 0.15, 1))
        g.add(Rectangle(pos=self.pos, size=self.size))
        if self._texture is not None:
            k, ox, oy = self.fit()
            g.add(Color(1, 1, 1, 1))
            g.add(Rectangle(texture=self._texture, pos=(ox, oy),
                            size=(self.image_size[0] * k, self.image_size[1] * k)))
        doubts = set(self.doubt_dets)
        for i, (face, box) in enumerate(self.detections):
            x, y, w, h = self.to_widget_box(box)
            red = face != "back" and Card.parse(face).is_red
            if i == self.selected:
                color, width = ACCENT, dp(2.5)
            elif i in doubts:
                color, width = (1.0, 0.45, 0.0, 1), dp(2.5)
            elif face == "back":
                color, width = (0.3, 0.55, 1.0, 1), dp(1.2)
            else:
                color, width = (0.1, 0.8, 0.3, 1), dp(1.2)
            g.add(Color(*color))
            g.add(Line(rectangle=(x, y, w, h), width=width))
            tex = self._label(face_text(face), red)
            g.add(Color(*(INK_RED if red else (0.1, 0.1, 0.1, 1))))
            g.add(Rectangle(pos=(x, y + h), size=tex.size))
            g.add(Color(1, 1, 1, 1))
            g.add(Rectangle(texture=tex, pos=(x, y + h), size=tex.size))

    def hit(self, wx: float, wy: float) -> int:
        """The detection under a point (the smallest box wins), or -1."""
        best, area = -1, float("inf")
        for i, (_face, box) in enumerate(self.detections):
            x, y, w, h = self.to_widget_box(box)
            pad = dp(6)
            if x - pad <= wx <= x + w + pad and y - pad <= wy <= y + h + pad and w * h < area:
                best, area = i, w * h
        return best

    def on_touch_down(self, touch: Any) -> bool:
        if not self.collide_point(*touch.pos):
            return False
        if super().on_touch_down(touch):  # the zoom buttons
            return True
        touch.grab(self)
        touch.ud["photo_start"] = touch.pos
        return True

    def on_touch_move(self, touch: Any) -> bool:
        if touch.grab_current is not self:
            return bool(super().on_touch_move(touch))
        if self.zoom > 1.0:
            k = self.fit()[0]
            iw, ih = self.image_size
            px = min(1.0, max(0.0, self.pan[0] - touch.dx / max(iw * k, 1)))
            py = min(1.0, max(0.0, self.pan[1] + touch.dy / max(ih * k, 1)))
            self.pan = [px, py]
        return True

    def on_touch_up(self, touch: Any) -> bool:
        if touch.grab_current is not self:
            return bool(super().on_touch_up(touch))
        touch.ungrab(self)
        sx, sy = touch.ud.get("photo_start", touch.pos)
        if abs(touch.x - sx) < dp(10) and abs(touch.y - sy) < dp(10):
            i = self.hit(*touch.pos)
            if i >= 0 and self.on_tap is not None:
                self.on_tap(i)
        return True


class Choice(BoxLayout):
    """A row of toggle buttons, one value chosen; ``on_choice`` gets the value."""

    __events__ = ("on_choice",)
    value = ObjectProperty(None, allownone=True)

    def set_options(self, options: Sequence[tuple[Any, str]], value: Any = None,
                    disabled: Sequence[Any] = ()) -> None:
        self.clear_widgets()
        self.value = value
        self.spacing = dp(3)
        self.size_hint_y = None
        self.height = dp(50)
        self.buttons: dict[Any, ToggleButton] = {}
        for v, label in options:
            b = ToggleButton(text=label, state="down" if v == value else "normal", allow_no_selection=False,
                             background_normal="", background_down="", font_size=sp(16),
                             disabled=v in disabled)
            b.choice_value = v
            b.choice_label = label
            b.halign = "center"
            b.valign = "middle"
            b.bind(size=self._fit)  # a long option (广西大字牌（油）, 上醒+本醒+下醒) wraps inside its button
            b.bind(state=self._paint)
            b.bind(on_release=self._pick)
            self.buttons[v] = b
            self.add_widget(b)
            self._paint(b)

    @staticmethod
    def _fit(b: ToggleButton, *_: Any) -> None:
        """The largest font at which the option fits on one line or on two broken at a sensible
        point (before the unit's （, after a +: 湖南字牌 / （福）), else wrapped."""
        room_w, room_h = b.width - dp(4), b.height - dp(2)
        label = getattr(b, "choice_label", b.text)
        b.text_size = (None, None)
        for size in (16, 14, 12):  # a larger font on two lines reads better than a smaller on one
            b.font_size = sp(size)
            for text in (label, *Choice._two_lines(label)):
                b.text = text
                b.texture_update()
                if b.texture_size[0] <= room_w and b.texture_size[1] <= room_h:
                    return
        b.text = label
        b.text_size = (max(room_w, 1), None)
        for size in (16, 14, 12):  # the largest font whose wrapped lines fit the button
            b.font_size = sp(size)
            b.texture_update()
            if b.texture_size[1] <= room_h:
                break

    @staticmethod
    def _two_lines(label: str) -> list[str]:
        """The label split in two at each sensible point, the most even split first."""
        cuts = {i for i, ch in enumerate(label) if ch in "（(" and i > 0}
        cuts |= {i + 1 for i, ch in enumerate(label) if ch in "+·/ " and 0 < i + 1 < len(label)}
        ranked = sorted(cuts, key=lambda i: abs(len(label) - 2 * i))
        return [label[:i].rstrip() + "\n" + label[i:].lstrip() for i in ranked]

    @staticmethod
    def _paint(b: ToggleButton, *_: Any) -> None:
        b.background_color = ACCENT if b.state == "down" else (0.82, 0.82, 0.79, 1)
        b.color = (0.05, 0.05, 0.05, 1)

    def _pick(self, b: ToggleButton) -> None:
        for other in self.buttons.values():
            other.state = "down" if other is b else "normal"
        self.value = b.choice_value
        self.dispatch("on_choice", b.choice_value)

    def pick(self, value: Any) -> None:
        """Choose a value as a tap would (tests and the screenshot walk use it)."""
        self._pick(self.buttons[value])

    def on_choice(self, value: Any) -> None:
        pass


class Cell(Label):
    """Text in a table row: vertically centred, wrapping to its cell."""

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("color", (0.1, 0.1, 0.1, 1))
        kw.setdefault("font_size", sp(18))
        kw.setdefault("halign", "left")
        kw.setdefault("valign", "middle")
        super().__init__(**kw)
        self.bind(size=lambda *_: setattr(self, "text_size", self.size))


class Txt(Label):
    """Body text that wraps to its width and takes the height it needs."""

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("color", (0.1, 0.1, 0.1, 1))
        kw.setdefault("font_size", sp(17))
        kw.setdefault("halign", "left")
        kw.setdefault("valign", "middle")
        kw.setdefault("size_hint_y", None)
        super().__init__(**kw)
        self.bind(width=lambda *_: setattr(self, "text_size", (self.width, None)),
                  texture_size=lambda *_: setattr(self, "height", max(dp(30), self.texture_size[1] + dp(6))))


class Slot(BoxLayout):
    """A place for a panel that is sometimes hidden.

    Hidden, the panel leaves the widget tree: a panel kept at height 0, transparent and
    disabled still lies over the rows below it, and Kivy's disabled widgets swallow every
    touch that lands on them (issue 47: 谁放的 and 庄家首张 were dead under the 醒 panel).
    """

    shown = BooleanProperty(True)

    def __init__(self, **kw: Any) -> None:
        self._kept: list[Any] = []
        kw.setdefault("orientation", "vertical")
        kw.setdefault("size_hint_y", None)
        super().__init__(**kw)
        self.bind(minimum_height=self._fit, shown=self._apply)

    def on_kv_post(self, _base: Any) -> None:
        self._apply()

    def _fit(self, *_: Any) -> None:
        self.height = self.minimum_height if self.shown else 0

    def _apply(self, *_: Any) -> None:
        if self.shown and self._kept:
            for w in self._kept:
                self.add_widget(w)
            self._kept = []
        elif not self.shown and self.children:
            self._kept = list(reversed(self.children))
            for w in self._kept:
                self.remove_widget(w)
        self._fit()


class Ask(ModalView):
    """Asks before a destructive action: the question, 取消 and the action's own word."""

    def __init__(self, question: str, yes: str, on_yes: Callable[[], None], no: str, **kw: Any) -> None:
        kw.setdefault("size_hint", (0.9, None))
        kw.setdefault("auto_dismiss", True)
        super().__init__(**kw)
        box = BoxLayout(orientation="vertical", padding=dp(12), spacing=dp(10), size_hint_y=None)
        box.bind(minimum_height=box.setter("height"))
        box.bind(height=lambda _b, h: setattr(self, "height", h))
        self.question = Txt(text=question, font_size=sp(18), color=(1, 1, 1, 1))
        box.add_widget(self.question)
        row = BoxLayout(size_hint_y=None, height=dp(54), spacing=dp(8))
        self.no_button = Button(text=no, background_normal="", background_down="",
                                background_color=(0.4, 0.4, 0.38, 1), font_size=sp(17))
        self.yes_button = Button(text=yes, background_normal="", background_down="",
                                 background_color=(0.70, 0.18, 0.14, 1), font_size=sp(17))
        self.no_button.bind(on_release=lambda _b: self.dismiss())

        def confirm(_b: Any) -> bool:
            self.dismiss()
            on_yes()
            return True  # the tap is spent: no later handler of the button sees it

        self.yes_button.bind(on_release=confirm)
        row.add_widget(self.no_button)
        row.add_widget(self.yes_button)
        box.add_widget(row)
        self.add_widget(box)

    def dismiss(self, *args: Any, **kw: Any) -> None:
        """At once: a view fading out still takes every touch on the screen below it."""
        kw["animation"] = False
        super().dismiss(*args, **kw)
