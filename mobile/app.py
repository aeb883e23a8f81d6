"""The Kivy application: one ScreenManager, the CJK font, the kv files, and the app state.

Import this module only after the Kivy environment is set (``main.py`` does it): Kivy reads
its configuration on first import.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import NoTransition, ScreenManager

from . import screens, table_page
from .camera import CaptureScreen
from .quick import QuickScreen
from .state import AppError, AppState
from .teach import TeachScreen
from .widgets import register_cjk_font

KV_DIR = Path(__file__).resolve().parent / "kv"
KV_FILES = ("theme.kv", "start.kv", "capture.kv", "edit.kv", "win.kv", "result.kv", "ledger.kv",
            "settle.kv", "settings.kv", "quick.kv", "teach.kv")
SCREENS: tuple[tuple[str, type], ...] = (
    ("start", screens.StartScreen), ("capture", CaptureScreen), ("quick", QuickScreen),
    ("review", screens.ReviewScreen), ("manual", screens.ManualScreen), ("win", screens.WinScreen),
    ("result", screens.ResultScreen), ("ledger", screens.LedgerScreen), ("hand", screens.HandScreen),
    ("settle", screens.SettleScreen), ("settings", screens.SettingsScreen), ("teach", TeachScreen),
)
# screens that a restart may come back to directly; the others need a draft in memory first
RESUMABLE = frozenset({"start", "manual", "win", "ledger", "settle", "settings", "capture", "quick",
                       "teach"})

_kv_loaded = False


def load_kv() -> None:
    global _kv_loaded
    if not _kv_loaded:
        for name in KV_FILES:
            Builder.load_file(str(KV_DIR / name))
        _kv_loaded = True


class Root(BoxLayout):
    """The screen manager above a one-line status bar."""


class ZipaiApp(App):
    """The table app. ``state`` holds everything; screens draw it."""

    lang = StringProperty("zh_Hans")
    status = StringProperty("")

    def __init__(self, data_dir: str | Path, scanner: Any = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.state = AppState(data_dir, scanner=scanner)
        self.lang = self.state.settings.lang
        self.font = register_cjk_font()
        self.title = self.state.t("app_title")
        self.sm: ScreenManager | None = None

    def tr(self, key: str, _lang: str = "", **kw: Any) -> str:
        """A UI string; kv passes ``app.lang`` so the text follows a language change."""
        return self.state.t(key, **kw)

    def build(self) -> Root:
        load_kv()
        Window.clearcolor = (0.93, 0.92, 0.87, 1)
        root = Root()
        sm = ScreenManager(transition=NoTransition())
        for name, cls in SCREENS:
            sm.add_widget(cls(name=name))
        root.ids.holder.add_widget(sm)
        self.sm = sm
        table_page.hook(sm.get_screen("ledger"), self)
        self.state.listeners.append(self._redraw)
        sm.current = self.first_screen()
        Window.bind(on_keyboard=self._on_key)
        return root

    def first_screen(self) -> str:
        """Where a (re)start lands: where the user was, in the current session (the draft and
        the win form come back from disk); the ledger when that screen needs what is gone."""
        s = self.state.session
        if s is None:
            return "start"
        last = self.state.settings.screen
        draft = self.state.draft
        if last == "review":
            return "review" if draft.photo and Path(draft.photo).is_file() else "manual"
        if last == "result":
            return "win"
        if last in RESUMABLE and last != "start":
            return last
        return "ledger"

    def go(self, name: str) -> None:
        assert self.sm is not None
        self.status = ""
        self.sm.current = name
        self.state.set_screen(name)

    def _redraw(self) -> None:
        if self.sm is not None:
            scr = self.sm.current_screen
            if hasattr(scr, "refresh"):
                scr.refresh()

    def notify(self, msg: str) -> None:
        self.status = msg

    def guard(self, fn: Any, *args: Any) -> Any:
        """Run an action; a refusal becomes the one-line status instead of a crash. The status
        is cleared first, so it never tells of an earlier action (issue 47)."""
        self.status = ""
        try:
            return fn(*args)
        except AppError as exc:
            self.notify(self.state.t("error", msg=str(exc)))
        except ValueError as exc:  # an edit the draft refuses: worded by its code
            self.notify(self.state.t("error", msg=self.state.t.error(getattr(exc, "code", "ledger"))))
        return None

    def ask(self, question: str, yes: str, on_yes: Any) -> Any:
        """Ask before a destructive action; ``on_yes`` runs only on the action's own button."""
        from .widgets import Ask

        view = Ask(question, yes, on_yes, self.state.t("cancel"))
        view.open(animation=False)
        return view

    def set_lang(self, lang: str) -> None:
        self.state.set_lang(lang)
        self.lang = lang
        self.title = self.state.t("app_title")
        self._redraw()

    def _on_key(self, _win: Any, key: int, *_: Any) -> bool:
        """Android's back key (and Escape on desktop) never closes the app at once: it closes an
        open question (or cancels a photo being read), else goes back a screen (the ledger back
        to the start screen); on the start screen it asks before leaving."""
        if key != 27 or self.sm is None:
            return False
        from kivy.uix.modalview import ModalView

        views = [w for w in Window.children if isinstance(w, ModalView)]
        if views:
            top = views[0]
            cancel = getattr(top, "cancel_button", None) or getattr(top, "no_button", None)
            if cancel is not None:
                cancel.dispatch("on_release")
            else:
                top.dismiss()
            return True
        scr = self.sm.current_screen
        back = getattr(scr, "back_to", "") or {"ledger": "start"}.get(scr.name, "")
        if back:
            self.go(back)
        else:
            self.ask(self.state.t("ask_leave"), self.state.t("leave"), self.stop)
        return True

    @property
    def busy(self) -> bool:
        """A photo is being read on a worker thread."""
        return self.sm is not None and any(getattr(s, "busy", False) for s in self.sm.screens)

    def on_pause(self) -> bool:
        self.state.save_pending()
        return True

    def on_stop(self) -> None:
        self.state.save_pending()
        self.state.close()

    def open_ledger(self) -> None:
        """The top bar's 账本; with no session yet it says where to start one."""
        if self.state.session is None:
            self.go("start")
            self.notify(self.state.t("no_session_hint"))
            return
        self.go("ledger")

    def open_teach(self, back_to: str) -> None:
        """认牌, from the settings or the first start's offer (which it answers)."""
        from .teach import open_teach

        self.state.answer_teach_offer()
        open_teach(self, back_to)

    def open_quick(self) -> None:
        from .quick import open_quick

        open_quick(self)

    def set_camera_source(self, text: str) -> None:
        """The desktop camera: a device number or a video file, checked before it is kept."""
        from .capture import CaptureError, Source

        try:
            src = Source.parse(text)
        except CaptureError as exc:
            self.notify(self.state.t("error", msg=exc.words(self.state.t)))
            return
        self.state.settings.camera_source = str(src)
        self.state.save_settings()
        self.notify(self.state.t("camera_set", s=str(src)))

    def after_frames(self, n: int, fn: Any) -> None:
        """Call ``fn`` once ``n`` frames have been drawn from now."""
        left = [n]

        def tick(_dt: float) -> bool:
            left[0] -= 1
            if left[0] <= 0:
                fn()
                return False
            return True
        Clock.schedule_interval(tick, 0)
