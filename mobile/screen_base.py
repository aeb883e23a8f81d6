"""What every screen shares: the ``Base`` screen over ``AppState``, the app it runs in, and the
small helpers the screens draw with (a button, a doubt in the user's words, where a hand resumes).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.metrics import dp, sp
from kivy.properties import StringProperty
from kivy.uix.button import Button
from kivy.uix.screenmanager import Screen

from .state import AppState
from .widgets import GREEN, face_text

if TYPE_CHECKING:
    from .app import ZipaiApp


def _app() -> ZipaiApp:
    app: ZipaiApp = App.get_running_app()  # Kivy is untyped; the app running is ours
    return app


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
