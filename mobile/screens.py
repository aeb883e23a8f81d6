"""The screens, each a small view class over ``AppState`` (layouts in ``kv/*.kv``).

A screen's ``refresh`` redraws it from the state; its buttons call ``AppState`` methods through
``app.guard`` so a refusal shows as one line in the status bar. No screen computes a score,
a payout or a layout rule: those come from the engine, the ledger and vision.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kivy.clock import Clock
from kivy.metrics import dp, sp
from kivy.uix.button import Button
from kivy.uix.textinput import TextInput

from zipai.engine.variants import get_variant

from .draft import PLACES
from .i18n import LANG_NAMES, LANGS
from .ledger_screens import HandScreen, LedgerScreen, SettleScreen, entry_line
from .review_screens import EditScreen, ManualScreen, ReviewScreen
from .screen_base import Base, _app, _btn, doubt_text, resume_screen
from .state import CAMERA_RESOLUTIONS, PRESETS
from .widgets import ACCENT, Choice, Txt, tr
from .win_screens import ResultScreen, WinScreen


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
    name_inputs: list[TextInput]  # the players' names, made by build_players

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
        self.name_inputs = []
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
        places = [(p, tr("claimed_" + p)) for p in PLACES]
        self.ids.claimed.set_options([*places, ("", tr("claimed_ask_again"))], st.claimed_rule or "")
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


# the screens, and the shared pieces where they were imported from before the split by job
__all__ = ["Base", "EditScreen", "HandScreen", "LedgerScreen", "ManualScreen", "ResultScreen", "ReviewScreen",
           "SettingsScreen", "SettleScreen", "StartScreen", "WinScreen", "doubt_text", "entry_line",
           "is_placeholder", "resume_screen"]
