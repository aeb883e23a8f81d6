"""The screens, each a small view class over ``AppState`` (layouts in ``kv/*.kv``).

A screen's ``refresh`` redraws it from the state; its buttons call ``AppState`` methods through
``app.guard`` so a refusal shows as one line in the status bar. No screen computes a score,
a payout or a layout rule: those come from the engine, the ledger and vision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from kivy.app import App
from kivy.clock import Clock
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.screenmanager import Screen
from kivy.uix.textinput import TextInput
from kivy.uix.widget import Widget

from zipai.engine.variants import get_variant

from .draft import BOTTOM, TOP
from .explain import explain, round_working, why_not
from .i18n import LANG_NAMES, LANGS
from .penalty import offer as offer_penalty
from .state import CAMERA_RESOLUTIONS, PRESETS, WON_BY, AppState
from .widgets import ACCENT, GREEN, CardFace, Cell, Choice, Txt, face_text, tr


def _app() -> Any:
    return App.get_running_app()


def _btn(text: str, cb: Any, bg: tuple[float, ...] = GREEN, **kw: Any) -> Button:
    kw.setdefault("size_hint_y", None)
    kw.setdefault("height", dp(52))
    b = Button(text=text, background_normal="", background_down="", background_color=bg,
               font_size=sp(17), **kw)
    b.bind(on_release=lambda _b: cb())
    return b


def _cards_text(cards: list[str]) -> str:
    return "".join(face_text(c) for c in cards)


def doubt_text(d: Any, state: AppState, cards: int) -> str:
    """A doubt in the user's language, naming its cards by glyph (never vision's English)."""
    return state.doubt_words(d, cards)


def resume_screen(state: AppState) -> str:
    """Where the hand being entered is edited: the review while its photo is there."""
    d = state.draft
    return "review" if d.is_photo and d.photo and Path(d.photo).is_file() else "manual"


class Base(Screen):
    """Every screen: a title, where Back goes, and a refresh from the state."""

    back_to = StringProperty("")

    @property
    def state(self) -> AppState:
        return _app().state

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        pass


# ---------------------------------------------------------------- start
def is_placeholder(name: str) -> bool:
    """A seat left unnamed at 开局 is stored as 玩家N (or Player N): a hint, not a name."""
    return any(name in (f"玩家{i}", f"Player {i}") for i in range(1, 9))


class StartScreen(Base):
    """Continue the current session or start one: rule set, house options, players, dealer, stake."""

    OPTION_VALUES: ClassVar[dict[str, list[Any]]] = {
        "self_draw": ["double", "plus_ten"], "piao": [30, 100], "tianhu_multiplier": [2, 3, 4],
        "fan_as_zi": [False, True], "dealer_rotation": ["winner", "next_seat"],
        "xing": [("up", "down"), ("up", "same", "down"), ("same",), ("up",), ("down",)],
    }

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.preset = "hunan"
        self.nplayers = 3
        self.dealer = 0
        self.options: dict[str, Any] = {}

    def refresh(self) -> None:
        st = self.state
        self.preset = st.settings.preset
        ids = self.ids
        ids.offer.shown = st.wants_teach_offer()
        ids.cont.clear_widgets()
        s = st.session
        if s is not None:
            ids.cont.add_widget(_btn(f"{tr('continue')}: {s.name}", lambda: _app().go("ledger")))
            typed = st.typed_cards()
            if typed and not st.sstate.locked:
                ids.cont.add_widget(_btn(tr("continue_hand", n=typed), lambda: _app().go(resume_screen(st)),
                                         (0.55, 0.35, 0.1, 1)))
        ids.recent.clear_widgets()
        for row in st.sessions()[:5]:
            if s is not None and row["id"] == s.id:
                continue
            label = f"{row['name']} · {tr(row['rules'])} · {'/'.join(row['players'])}"
            ids.recent.add_widget(_btn(label, lambda sid=row["id"]: self.pick_session(sid),
                                       (0.4, 0.4, 0.38, 1)))
        sessions = st.sessions()
        if not ids.name.text:
            ids.name.text = f"{len(sessions) + 1}"
        ids.preset.set_options([(p, tr(p)) for p in PRESETS], self.preset)
        if sessions and not any(w.text for w in getattr(self, "name_inputs", [])):
            # a new evening usually seats the same people: start from the last session's table,
            # its real names only (a seat left as 玩家3 stays a hint, never typed-in text)
            last = sessions[0]["players"]
            self.nplayers = len(last)
            self.name_inputs = [TextInput(text="" if is_placeholder(n) else n) for n in last]
        self.build_players()

    def clean(self) -> None:
        """After 开局 the next session's form starts from the defaults: stake 1, the rule set's
        house options, the first seat dealing; only the table (its real names) is offered again."""
        self.ids.name.text = ""
        self.ids.stake.text = "1"
        self.options = {}
        self.dealer = 0
        self.name_inputs = []

    def later(self) -> None:
        """The first start's offer to teach a deck, declined: it is not made again."""
        self.state.answer_teach_offer()
        self.ids.offer.shown = False

    def pick_session(self, sid: int) -> None:
        if _app().guard(self.state.continue_session, sid):
            _app().go("ledger")

    def on_preset(self, preset: str) -> None:
        self.preset = preset
        self.options = {}
        self.build_players()

    def build_players(self) -> None:
        ids = self.ids
        lo, hi = get_variant(self.preset).seats
        self.nplayers = min(max(self.nplayers, lo), hi)
        ids.count.set_options([(n, str(n)) for n in range(lo, hi + 1)], self.nplayers)
        old = [w.text for w in getattr(self, "name_inputs", [])]
        ids.players.clear_widgets()
        self.name_inputs: list[TextInput] = []
        for i in range(self.nplayers):
            ti = TextInput(text=old[i] if i < len(old) else "", hint_text=tr("player_n", n=i + 1),
                           multiline=False, size_hint_y=None, height=dp(46), font_size=sp(18))
            ti.bind(text=lambda *_: self.build_dealer())
            self.name_inputs.append(ti)
            ids.players.add_widget(ti)
        ids.roster.clear_widgets()
        for name in self.state.roster()[:8]:
            ids.roster.add_widget(_btn(name, lambda n=name: self.fill(n), (0.45, 0.5, 0.55, 1),
                                       size_hint_x=None, width=dp(88)))
        self.build_dealer()
        self.build_options()

    def fill(self, name: str) -> None:
        for ti in self.name_inputs:
            if not ti.text.strip():
                ti.text = name
                return

    def names(self) -> list[str]:
        return [ti.text.strip() or tr("player_n", n=i + 1) for i, ti in enumerate(self.name_inputs)]

    def build_dealer(self) -> None:
        self.dealer = min(self.dealer, self.nplayers - 1)
        self.ids.dealer.set_options(list(enumerate(self.names())), self.dealer)

    def on_count(self, n: int) -> None:
        self.nplayers = n
        self.build_players()

    def build_options(self) -> None:
        box = self.ids.options
        box.clear_widgets()
        variant = get_variant(self.preset)
        keys = [k for k in ("minimum", "self_draw", "piao", "tianhu_multiplier", "xing", "fan_as_zi",
                            "dealer_rotation") if k in variant.option_keys]
        for key in keys:
            values = variant.minimum_choices() if key == "minimum" else self.OPTION_VALUES[key]
            label = {"minimum": "minimum", "self_draw": "opt_self_draw", "piao": "opt_piao",
                     "tianhu_multiplier": "opt_tianhu", "xing": "opt_xing", "fan_as_zi": "opt_fan_as_zi",
                     "dealer_rotation": "opt_rotation"}[key]
            box.add_widget(Txt(text=tr(label)))
            ch = Choice()
            ch.set_options([(v, self._option_text(key, v)) for v in values],
                           self.options.get(key, values[0]))
            ch.bind(on_choice=lambda _w, v, key=key: self.options.__setitem__(key, v))
            box.add_widget(ch)

    def _option_text(self, key: str, v: Any) -> str:
        if v is None:  # the minimum that follows the seat count: each the seats give
            variant = get_variant(self.preset)
            lo, hi = variant.seats
            return "/".join(str(m) for m in sorted({variant.default_minimum(n) for n in range(lo, hi + 1)}))
        if key == "xing":
            return "+".join(tr(x) for x in v)
        if key == "dealer_rotation":
            return tr(f"rot_{v}")
        if isinstance(v, bool):
            return tr("yes" if v else "no")
        return tr(v) if isinstance(v, str) else str(v)

    def create(self) -> None:
        opts = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.options.items() if v is not None}
        st = self.state
        old, typed = st.session, st.typed_cards()
        s = _app().guard(st.new_session, self.ids.name.text.strip() or "1", self.preset,
                         self.names(), self.ids.stake.text.strip() or "1", self.dealer, opts)
        if s is not None:
            self.clean()
            _app().go("ledger")
            if old is not None and typed:  # the hand being entered stays with its own session
                _app().notify(tr("draft_kept", name=old.name, n=typed))


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
            for place in (TOP, BOTTOM):
                now = scores[place]
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
        matters = st.winning_card_matters()
        if matters is not None:  # the engine says which cards change the score: ask only for those
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
        if r.get("winning_card_matters") and self.state.win.winning_card is None and self.asked != key:
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
        if r.get("double"):
            self.show_double(r)
            return
        if r["winning"]:  # the outcome first, above the fold on a phone and a tablet alike
            pays = "  ".join(f"{s.players[i]} {v:+d}" for i, v in enumerate(r["payouts"]))
            box.add_widget(Txt(text=f"{t('score', n=r['score'])} · {pays}", font_size=sp(19), bold=True))
        self.add_groups(r["groups"], st.win.winning_card)
        if not r["winning"]:  # with its numbers: 12 against 15
            box.add_widget(Txt(text=why_not(r, t.script(s.variant.unit), t), color=(0.75, 0.1, 0.1, 1)))
        self.explanation = explain(r, s.preset, s.players, t) if r["winning"] else []
        for line in self.explanation:
            box.add_widget(Txt(text=line, font_size=sp(18)))
        if r["winning"] and r.get("winning_card_matters") and not st.win.winning_card:
            box.add_widget(Txt(text=t("no_winning_card_note"), color=(0.6, 0.25, 0.0, 1)))
        if r["winning"] and st.sstate.plays_rounds:  # +0 for the others: said why, here too
            box.add_widget(Txt(text=t("round_note"), color=(0.35, 0.35, 0.35, 1)))
        box.add_widget(Txt(text=t("score", n=r["score"]), font_size=sp(26), bold=True))
        if r["winning"] and not r.get("steps") and "zi" in r:  # a result stored without its working
            box.add_widget(Txt(text=t("zi_xing_fan", zi=r["zi"], xing=r["xing"], fan=r["fan"])))
        alts = [a for a in r.get("alternatives") or [] if a.get("text") != r.get("text")]
        if alts:
            key = "hide_alternatives" if self.show_alts else "show_alternatives"
            box.add_widget(_btn(t(key, n=len(alts)), self.toggle_alternatives, (0.4, 0.4, 0.38, 1)))
            if self.show_alts:
                for i, a in enumerate(alts, 1):
                    box.add_widget(Txt(text=t("alternative_n", n=i, points=a["points"],
                                              unit=s.variant.unit, score=a["score"]), bold=True))
                    self.add_groups(a["groups"], None)
        box.add_widget(Txt(text=t("payouts"), font_size=sp(19)))
        for seat, amount in enumerate(r["payouts"]):
            box.add_widget(Txt(text=f"{s.players[seat]}: {amount:+d}", font_size=sp(20),
                               color=(0.1, 0.45, 0.2, 1) if amount > 0 else (0.1, 0.1, 0.1, 1)))
        self.ids.confirm.disabled = not r["winning"] or st.sstate.locked
        offer_penalty(self)  # Hunan 胡多少处罚多少: record the hand as its winner's penalty

    def add_groups(self, groups: list[dict[str, Any]], winning: str | None) -> None:
        """One row a group: its name, its cards (the one winning card marked) and its points."""
        t, box = self.state.t, self.ids.body
        marked = False
        for g in groups:
            name = t.script(g["name"])
            row = BoxLayout(size_hint_y=None, height=dp(50), spacing=dp(4))
            row.add_widget(Cell(text=name, size_hint_x=None, width=dp(86), font_size=sp(19)))
            for c in g["cards"]:
                mark = bool(g.get("winning_card")) and c == winning and not marked
                marked = marked or mark
                row.add_widget(CardFace(face=c, size_hint_x=None, width=dp(40), selected=mark))
            row.add_widget(Widget())
            row.add_widget(Cell(text=t("points", n=g["points"]), size_hint_x=None, width=dp(56),
                                halign="right"))
            box.add_widget(row)

    def toggle_alternatives(self) -> None:
        self.show_alts = not self.show_alts
        self.refresh()

    def show_double(self, r: dict[str, Any]) -> None:
        """Two instant wins after one deal: each layout's groups and score, then the payouts."""
        st = self.state
        s, t, box = st.session, st.t, self.ids.body
        box.add_widget(Txt(text=t("double_winners", names="、".join(s.players[w] for w in r["winners"])),
                           font_size=sp(20), bold=True))
        for res, first in zip(r["results"], (st.pending.first, None), strict=True):
            seat = (first or {}).get("winner", st.win.winner)
            box.add_widget(Txt(text=f"{s.players[seat]} · {t('score', n=res['score'])} · "
                                    + " ".join(t.special(x["id"], x["name"]) for x in res["specials"]),
                               font_size=sp(18)))
            for g in res["groups"]:
                name = t.script(g["name"])
                box.add_widget(Txt(text=f"  {name}  {_cards_text(g['cards'])}  {t('points', n=g['points'])}"))
        box.add_widget(Txt(text=t("payouts"), font_size=sp(19)))
        for seat, amount in enumerate(r["payouts"]):
            box.add_widget(Txt(text=f"{s.players[seat]}: {amount:+d}", font_size=sp(20)))
        self.ids.confirm.disabled = False

    def confirm(self) -> None:
        e = _app().guard(self.state.confirm)
        if e is not None:
            self.show_alts = False
            _app().go("ledger")
            taught = self.state.deck_taught
            _app().notify(tr("recorded", n=e.no) + (" · " + tr("deck_learned", n=taught) if taught else ""))


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
        hand = _app().sm.get_screen("hand")
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
        what = _entry_line(hist[-1], st.session.players, st.t)
        _app().ask(tr("ask_undo", what=what), tr("undo"), self._undo)

    def _undo(self) -> None:
        e = _app().guard(self.state.undo)
        if e is not None:
            self.refresh()
            _app().notify(tr("undone", what=_entry_line(e, self.state.session.players, self.state.t)))

    def redo(self) -> None:
        e = _app().guard(self.state.redo)
        if e is not None:
            self.refresh()
            _app().notify(tr("redone", what=_entry_line(e, self.state.session.players, self.state.t)))

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
        s = self.state.session
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


# ---------------------------------------------------------------- settings
class SettingsScreen(Base):
    """Language and script, the default rule set, the deck in use and 认牌, camera resolution,
    backup and restore."""

    def refresh(self) -> None:
        st = self.state
        self.ids.lang.set_options([(k, LANG_NAMES[k]) for k in LANGS], st.settings.lang)
        self.ids.preset.set_options([(p, tr(p)) for p in PRESETS], st.settings.preset)
        self.ids.camera.set_options([(r, r) for r in CAMERA_RESOLUTIONS], st.settings.camera)
        self.ids.claimed.disabled = st.session is None
        self.ids.claimed.set_options([(TOP, tr("claimed_top")), (BOTTOM, tr("claimed_bottom")),
                                      ("", tr("claimed_ask_again"))], st.claimed_rule or "")
        self.list_decks()

    def list_decks(self) -> None:
        """One button per taught deck and one for none; the deck in use is lit."""
        st = self.state
        box = self.ids.decks
        box.clear_widgets()
        self.deck_buttons: dict[str, Button] = {}
        names = _app().guard(st.deck_names) or []
        for name in ["", *names]:
            lit = name == st.settings.deck
            b = _btn(name or tr("deck_none"), lambda n=name: self.use_deck(n),
                     ACCENT if lit else (0.82, 0.82, 0.79, 1), height=dp(48), color=(0.05, 0.05, 0.05, 1))
            self.deck_buttons[name] = b
            box.add_widget(b)
        self.ids.deck_line.text = st.deck_line(load=False)

    def use_deck(self, name: str) -> None:
        chosen = _app().guard(self.state.use_deck, name)
        status = _app().status
        self.list_decks()
        _app().notify(status if chosen is None else tr("deck_chosen", name=name or tr("deck_none")))

    def set_lang(self, lang: str) -> None:
        _app().set_lang(lang)
        Clock.schedule_once(lambda _dt: self.refresh(), 0)

    def set_preset(self, preset: str) -> None:
        self.state.settings.preset = preset
        self.state.save_settings()

    def set_claimed(self, place: str) -> None:
        """The evening's claimed row changed by hand ("": ask again at the next photo)."""
        _app().guard(self.state.set_claimed_rule, place or None)

    def set_camera(self, res: str) -> None:
        self.state.settings.camera = res
        self.state.save_settings()

    def backup(self) -> None:
        p = _app().guard(self.state.backup)
        if p is not None:
            _app().notify(tr("backed_up", p=p.name))

    def restore(self) -> None:
        latest = self.state.latest_backup()
        if latest is None:
            _app().notify(tr("error", msg=tr("no_backup")))
            return
        _app().ask(tr("ask_restore", p=latest.name), tr("restore"), self._restore)

    def _restore(self) -> None:
        p = _app().guard(self.state.restore_latest)
        if p is not None and self.state.replaced is not None:
            _app().notify(tr("restored_kept", p=p.name, q=self.state.replaced))


__all__ = ["HandScreen", "LedgerScreen", "ManualScreen", "ResultScreen",
           "ReviewScreen", "SettingsScreen", "SettleScreen", "StartScreen", "WinScreen"]
