"""``zipai app --screenshots DIR``: walk every screen with the sample photo, one PNG each.

The walk drives the same state methods the buttons call (load the photo, type a layout on the
editor, choose the winner, score, confirm) and saves each screen only after the window has
really drawn it (a flip after the switch, then a few quiet frames): the first frame is black.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.core.window import Window

from zipai.engine import Simultaneous

# Layout L1 of RULINGS section 8, typed on the pad: (state, cards) per group, then the hand.
L1_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("open", ("d5", "d5", "d5")), ("concealed", ("x10", "x10", "x10")), ("open", ("x1", "x2", "x3")))
L1_HAND: tuple[str, ...] = ("x4", "x5", "x6", "d2", "d7", "d10", "x9", "x9", "x9", "d8", "d8", "x8")


def type_layout(state: Any, groups: tuple[tuple[str, tuple[str, ...]], ...] = L1_GROUPS,
                hand: tuple[str, ...] = L1_HAND) -> None:
    """Enter a layout through the editor, as taps on the pad would."""
    state.start_manual()
    state.editor.enter(groups, hand)
    state.changed()


class Walker:
    """Steps through the screens; each step prepares the state, shows a screen and shoots it."""

    def __init__(self, app: Any, out: Path, photo: Path | None, teach_photo: Path | None = None) -> None:
        self.app = app
        self.out = out
        self.photo = photo
        self.teach_photo = teach_photo
        self.saved: list[Path] = []
        self.skipped: list[str] = []
        self.error = ""
        self._flips = 0
        self.steps: list[tuple[str, str, Callable[[], None]]] = [
            ("start", "start", self._start),
            ("settings", "settings", lambda: None),
            ("capture", "capture", self._capture),
            ("review", "review", self._review),
            ("manual", "manual", self._manual),
            ("win", "win", self._win),
            ("result", "result", self._result),
            ("ledger", "ledger", self._ledger),
            ("hand", "hand", self._hand),
            ("settle", "settle", lambda: None),
            ("quick", "quick", self._quick),
            ("teach", "teach", self._teach),
        ]

    def start(self) -> None:
        Window.bind(on_flip=self._on_flip)
        Clock.schedule_once(lambda _dt: self._next(0), 0)

    def _on_flip(self, *_: Any) -> None:
        self._flips += 1

    # ---------------------------------------------------------------- steps
    def _start(self) -> None:
        scr = self.app.sm.get_screen("start")
        scr.refresh()
        for ti, name in zip(scr.name_inputs, ("甲", "乙", "丙"), strict=False):
            ti.text = name
        scr.ids.name.text = "周五晚"

    def _session(self) -> None:
        st = self.app.state
        if st.session is None:
            st.new_session("周五晚", "hunan", ["甲", "乙", "丙"], "0.5", 0)

    def _capture(self) -> None:
        self._session()
        scr = self.app.sm.get_screen("capture")
        if self.photo is not None:
            scr.ids.chooser.path = str(self.photo.parent)
            scr.ids.chooser.selection = [str(self.photo)]

    def _review(self) -> None:
        if self.photo is None:
            raise LookupError("no sample photo (models/sample.jpg); pass --photo FILE")
        self.app.state.load_photo(self.photo)

    def _manual(self) -> None:
        st = self.app.state
        if st.scan is not None and st.check().ready:
            # the photo's hand is recorded first, so the ledger and the hand screen show a photo
            st.win.winner, st.win.won_by = 1, "self_draw"
            try:
                r = st.score()
                if isinstance(r, Simultaneous) or r.winning:
                    st.confirm()
            except ValueError:
                pass
        type_layout(st)

    def _win(self) -> None:
        w = self.app.state.win
        w.winner, w.won_by, w.discarder, w.winning_card = 1, "discard", 2, "x9"
        self.app.state.changed()

    def _result(self) -> None:
        self.app.state.score()

    def _ledger(self) -> None:
        st = self.app.state
        st.confirm()
        st.record_draw()
        type_layout(st)
        st.win.winner, st.win.won_by = 2, "self_draw"
        st.confirm()
        # the 冲百福 working under the totals, as a tap on its button shows it
        self.app.sm.get_screen("ledger").show_working = True

    def _hand(self) -> None:
        self.app.sm.get_screen("hand").no = 1

    def _quick(self) -> None:
        # a hand by its total, as typed: 乙 wins 18 福 on 丙's discard
        from .quick import QuickEntry

        entry = QuickEntry(winner=1, won_by="discard", discarder=2, digits="18")
        self.app.sm.get_screen("quick").start(entry)

    def _teach(self) -> None:
        """认牌 with a teaching photo learned (``--teach-photo``), one face fixed by the player;
        without one, the guide alone."""
        scr = self.app.sm.get_screen("teach")
        scr.back_to = "settings"
        scr.ids.name.text = "周五那副"
        if self.teach_photo is None:
            return
        taught = self.app.state.learn(self.teach_photo, "周五那副")
        scr.taught, scr.photo = taught, str(self.teach_photo)

    # ---------------------------------------------------------------- machinery
    def _next(self, i: int) -> None:
        if i >= len(self.steps):
            self.app.stop()
            return
        label, screen, prepare = self.steps[i]
        try:
            prepare()
        except (LookupError, ValueError) as exc:
            self.skipped.append(f"{label}: {exc}")
            print(f"zipai app: skipped the {label} screen: {exc}", flush=True)
            Clock.schedule_once(lambda _dt: self._next(i + 1), 0)
            return
        self.app.go(screen)
        self.app.sm.current_screen.refresh()
        start = self._flips
        ticks = [0]

        def wait(_dt: float) -> bool:
            ticks[0] += 1
            if self._flips > start and ticks[0] >= 4 and not Window.canvas.needs_redraw:
                self._shoot(i, label)
                Clock.schedule_once(lambda _dt: self._next(i + 1), 0)
                return False
            if ticks[0] > 600:
                self.error = f"the {label} screen was never drawn"
                self.app.stop()
                return False
            return True
        Clock.schedule_interval(wait, 0)

    def _shoot(self, i: int, label: str) -> None:
        dest = self.out / f"{i + 1:02d}-{label}.png"
        got = Window.screenshot(name=str(self.out / f"_{label}.png"))
        if not got:
            self.error = f"no screenshot of {label}"
            return
        os.replace(got, dest)
        self.saved.append(dest)
