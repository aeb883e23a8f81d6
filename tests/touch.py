"""A finger for the app's tests: touches at real window coordinates, sent through the Window.

A test never calls a button's ``on_release``: it finds the widget a player would see, scrolls
it into view as a thumb would, and lets a touch go down and up at the widget's centre in
window pixels. Kivy routes that touch from the Window through every widget above the target,
so a panel lying over it (a disabled, transparent one) takes the touch and the tap fails with
a message naming what the finger hit instead.

    finger = Finger(app)
    finger.tap(app.sm.current_screen.ids.confirm)       # fails unless the touch reached it
    finger.tap_text("score_it")                         # the visible button with that UI word
    finger.taps                                         # every tap so far, to count per hand
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

# a tap inside a ScrollView reaches its target when the view gives up on a scroll (0.2 s)
SCROLL_RELEASE_S = 0.6
# how long a probe waits for its touch to arrive: it stops as soon as it does, so a long wait
# costs only a touch that never lands, while a busy machine's slow frames need the time
PROBE_WAIT_S = 3.0


def ancestors(w: Any) -> Iterator[Any]:
    """The widget's parents up to the Window (whose parent is itself)."""
    p = w.parent
    while p is not None:
        yield p
        if p is p.parent:
            break
        p = p.parent


def shown(w: Any) -> bool:
    """On the screen a player looks at: in the Window's tree, with size, and not transparent."""
    from kivy.core.window import Window

    if w.width < 1 or w.height < 1 or w.opacity == 0:
        return False
    chain = [w, *ancestors(w)]
    if chain[-1] is not Window:
        return False
    return all(a.opacity > 0 and a.width >= 1 and a.height >= 1 for a in chain[:-1])


def pressable(w: Any) -> bool:
    return hasattr(w, "on_release") and hasattr(w, "on_press")


class TapMissed(AssertionError):
    """A touch at a widget's centre did not reach it."""


class Finger:
    """Taps and drags on the running app's Window; counts the taps."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.taps = 0

    # ------------------------------------------------------------ the loop
    def pump(self, n: int = 3) -> None:
        from kivy.base import EventLoop

        for _ in range(n):
            EventLoop.idle()

    def wait(self, seconds: float, until: Any = None) -> None:
        """Run the loop for up to ``seconds`` of real time, or until ``until()`` is true."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(1)
            if until is not None and until():
                break
            time.sleep(0.005)
        self.pump(2)

    @property
    def screen(self) -> Any:
        return self.app.sm.current_screen

    # ------------------------------------------------------------ where
    def bring_into_view(self, w: Any) -> None:
        """Scroll every ScrollView above ``w`` so that it shows, the way a thumb would."""
        from kivy.uix.scrollview import ScrollView

        self.pump(2)
        for sv in [a for a in ancestors(w) if isinstance(a, ScrollView)]:
            # a thumb put down stops a fling: a drag before, timed on a busy machine, can leave
            # the content gliding at a speed measured over a few milliseconds
            for effect in (sv.effect_x, sv.effect_y):
                if effect is not None:
                    effect.velocity = 0
            if self._inside(w, sv):
                continue  # already in view: a thumb would not scroll
            # a screen that has just filled lays its rows out over a few frames: scroll again
            # until the widget shows, at most ten times
            for k in range(10):
                sv.scroll_to(w, padding=4, animate=False)
                self.pump(2)
                if k >= 2 and self._inside(w, sv):
                    break
            for _ in range(3):
                sv._update_effect_bounds()  # as a drag leaves it, so the next touch does not bounce back
                self.pump(2)
                if self._inside(w, sv):
                    break
                sv.scroll_to(w, padding=4, animate=False)  # the rows settled after the last scroll
                self.pump(2)
            # a widget that fits the view but still lies outside it: the screen is still laying
            # out its rows (a busy machine draws them late), so a thumb scrolls on, for up to ten
            # seconds (a widget that cannot fit is not waited for)
            fits = w.width <= sv.width + 1 and w.height <= sv.height + 1
            deadline = time.monotonic() + 10.0
            while fits and not self._inside(w, sv) and time.monotonic() < deadline:
                sv.scroll_to(w, padding=4, animate=False)
                self.pump(2)
                sv._update_effect_bounds()
                self.pump(2)

    @staticmethod
    def _inside(w: Any, sv: Any) -> bool:
        x, y = w.to_window(w.x, w.y)
        sx, sy = sv.to_window(sv.x, sv.y)
        return (sx - 1 <= x and x + w.width <= sx + sv.width + 1
                and sy - 1 <= y and y + w.height <= sy + sv.height + 1)

    def centre(self, w: Any) -> tuple[float, float]:
        return w.to_window(*w.center)

    def visible_at(self, w: Any, x: float, y: float) -> bool:
        """The point lies inside the Window and inside every ScrollView clipping ``w``."""
        from kivy.core.window import Window
        from kivy.uix.scrollview import ScrollView

        if not (0 <= x < Window.width and 0 <= y < Window.height):
            return False
        for sv in (a for a in ancestors(w) if isinstance(a, ScrollView)):
            sx, sy = sv.to_window(sv.x, sv.y)
            if not (sx <= x <= sx + sv.width and sy <= y <= sy + sv.height):
                return False
        return True

    # ------------------------------------------------------------ touches
    def touch_at(self, x: float, y: float, move_to: tuple[float, float] | None = None,
                 until: Any = None, settle: bool = True, wait_s: float = SCROLL_RELEASE_S) -> None:
        """One finger down at window pixel (x, y), optionally dragged, then lifted."""
        from kivy.tests.common import UnitTestTouch

        t = UnitTestTouch(x, y)
        t.touch_down()
        self.pump(1)
        if move_to is not None:
            steps = 6
            for i in range(1, steps + 1):
                t.touch_move(x + (move_to[0] - x) * i / steps, y + (move_to[1] - y) * i / steps)
                self.pump(1)
        t.touch_up()
        self.wait(wait_s, until)
        if settle:
            self.settle()

    def settle(self) -> None:
        """A ScrollView lifts a touch for its children 0.2 s later: let every such touch-up land
        before the next tap, a screen change or a window resize."""
        self.wait(1.0, lambda: not _pending())
        if getattr(self.app, "busy", False):  # a photo read on a worker thread: watch it finish
            self.wait(300.0, lambda: not self.app.busy)

    def tap(self, w: Any) -> None:
        """Tap a widget where it is drawn; fail if the touch did not reach it."""
        assert shown(w), f"{_name(w)} is not shown"
        assert not w.disabled, f"{_name(w)} is disabled"
        self.bring_into_view(w)
        x, y = self.centre(w)
        assert self.visible_at(w, x, y), f"{_name(w)} at {x:.0f},{y:.0f} is outside the view"
        got: list[str] = []
        ev = "on_release" if pressable(w) else None

        def cb(*_: Any) -> None:
            got.append("release")
        if ev:
            w.fbind(ev, cb)
        try:
            self.touch_at(x, y, until=(lambda: bool(got)) if ev else None)
        finally:
            if ev:
                w.funbind(ev, cb)
        self.taps += 1
        if ev and not got:
            raise TapMissed(f"a touch at {x:.0f},{y:.0f} did not reach {_name(w)} "
                            f"on {self.screen.name}; it lands on {_name(self.hit(x, y))}")
        self.pump(2)

    def reaches(self, w: Any) -> bool:
        """Does a touch at the widget's centre reach it? Probed without running its action:
        the widget's own touch handler is swapped for a recorder for one touch."""
        self.bring_into_view(w)
        x, y = self.centre(w)
        if not self.visible_at(w, x, y):
            return False
        got: list[bool] = []

        def probe(touch: Any) -> bool:
            if w.collide_point(*touch.pos):
                got.append(True)
                return True
            return False
        w.on_touch_down = probe
        try:
            self.touch_at(x, y, until=lambda: bool(got), settle=False, wait_s=PROBE_WAIT_S)
        finally:
            del w.on_touch_down
        return bool(got)

    def hit(self, x: float, y: float) -> Any:
        """The deepest shown widget under a window point (for a message when a tap misses)."""
        from kivy.core.window import Window

        best = None
        for w in (w for r in reversed(Window.children) for w in r.walk(restrict=True)):
            if not shown(w):
                continue
            x0, y0 = w.to_window(w.x, w.y)
            if x0 <= x <= x0 + w.width and y0 <= y <= y0 + w.height:
                best = w
        return best

    # ------------------------------------------------------------ finding
    def buttons(self, root: Any = None) -> list[Any]:
        """Every shown, enabled button under ``root`` (the Window: the screen and any dialog)."""
        from kivy.core.window import Window

        roots = [root] if root is not None else list(reversed(Window.children))
        return [w for r in roots for w in r.walk(restrict=True)
                if pressable(w) and shown(w) and not w.disabled]

    def button(self, text: str) -> Any:
        """The shown button whose text is ``text``: in an open dialog first, else on the screen."""
        from kivy.core.window import Window

        for root in [*reversed([c for c in Window.children if c is not self.app.root]), self.screen]:
            found = [w for w in root.walk(restrict=True) if pressable(w) and shown(w) and w.text == text]
            if found:
                return found[0]
        raise AssertionError(f"no button {text!r} on {self.screen.name}: " + ", ".join(
            sorted({w.text for w in self.buttons() if getattr(w, "text", "")})))

    def tap_text(self, key: str, **kw: Any) -> None:
        """Tap the button that shows the UI word ``key`` in the app's language."""
        self.tap(self.button(self.app.state.t(key, **kw)))

    def choose(self, choice: Any, value: Any) -> None:
        """Tap one option of a ``Choice`` row."""
        self.tap(choice.buttons[value])

    def type_text(self, field: Any, text: str) -> None:
        """Tap a text field to focus it, then type (the on-screen keyboard's part)."""
        self.tap_field(field)
        field.text = text
        self.pump(1)

    def tap_field(self, field: Any) -> None:
        assert shown(field), f"{_name(field)} is not shown"
        self.bring_into_view(field)
        x, y = self.centre(field)
        assert self.visible_at(field, x, y), f"{_name(field)} is outside the view"
        self.touch_at(x, y, until=lambda: field.focus)
        self.taps += 1
        assert field.focus, f"a touch did not focus {_name(field)}; it lands on {_name(self.hit(x, y))}"


def _pending() -> bool:
    """Is a clock event still due to deliver a touch (a ScrollView's delayed touch-up)?"""
    from kivy.clock import Clock
    from kivy.input.motionevent import MotionEvent

    for ev in Clock.get_events():
        cb = ev.get_callback()
        if any(isinstance(a, MotionEvent) for a in getattr(cb, "args", ())):
            return True
    return False


def _name(w: Any) -> str:
    if w is None:
        return "nothing"
    text = getattr(w, "text", "")
    return f"{type(w).__name__}({text!r})" if isinstance(text, str) and text else type(w).__name__
