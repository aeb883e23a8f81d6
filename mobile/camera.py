"""The capture screen: the camera's live preview with the cards read on it, the shutter, and the
photos already taken (the pictures folder on the desktop, the photo picker on Android).

On the desktop the frames come from OpenCV (``capture.CvCamera``: the device or the video file
chosen in settings) and the shutter keeps a full-resolution frame; ``capture.LiveReader`` reads
the cards of the newest frame beside the preview. On Android the system camera takes the photo
and the system picker chooses one (``media.AndroidMedia``).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from kivy.app import App
from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.progressbar import ProgressBar
from kivy.uix.widget import Widget

from .android_ort import on_android
from .capture import CaptureError, CvCamera, LiveReader, Seen, detector_reader
from .media import MediaError, android_media, pictures_dir, request_permissions
from .screens import Base
from .widgets import INK_BLACK, INK_RED, face_text

PREVIEW_FPS = 15.0
CHOOSER_HEADERS = {"Name": "file_name", "Size": "file_size"}  # Kivy's list view writes them in English


def _app() -> Any:
    return App.get_running_app()


def shared_detector() -> Any:
    """The app's one detector, shared by the live read, the photo's scan and 认牌."""
    from .state import _detector

    return _detector()


class LivePreview(Widget):
    """The newest frame, fitted, with a box and the glyph of every card read on it."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.texture: Texture | None = None
        self.frame_size = (0, 0)
        self.seen: list[Seen] = []
        self.seen_size = (0, 0)
        self._glyphs: dict[str, Texture] = {}
        self.bind(pos=self.redraw, size=self.redraw)

    def show(self, frame: np.ndarray, seen: list[Seen], seen_size: tuple[int, int]) -> None:
        h, w = frame.shape[:2]
        if self.texture is None or self.frame_size != (w, h):
            self.texture = Texture.create(size=(w, h), colorfmt="rgb")
            self.texture.flip_vertical()
            self.frame_size = (w, h)
        self.texture.blit_buffer(frame.tobytes(), colorfmt="rgb", bufferfmt="ubyte")
        self.seen, self.seen_size = seen, seen_size
        self.redraw()

    def fit(self) -> tuple[float, float, float]:
        """Scale and origin of the frame fitted inside the widget."""
        w, h = self.frame_size
        if not w or not h:
            return 1.0, self.x, self.y
        s = min(self.width / w, self.height / h)
        return s, self.x + (self.width - w * s) / 2, self.y + (self.height - h * s) / 2

    def _glyph(self, card: str) -> Texture:
        tex = self._glyphs.get(card)
        if tex is None:
            lab = CoreLabel(text=face_text(card), font_size=sp(15), color=(1, 1, 1, 1))
            lab.refresh()
            tex = self._glyphs[card] = lab.texture
        return tex

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        if self.texture is None:
            return
        s, ox, oy = self.fit()
        w, h = self.frame_size
        with self.canvas:
            Color(1, 1, 1, 1)
            Rectangle(texture=self.texture, pos=(ox, oy), size=(w * s, h * s))
            sw, sh = self.seen_size
            k = s * (w / sw if sw else 1.0)
            for d in self.seen:
                x0, y0, x1, y1 = d.box
                ink = (0.25, 0.45, 0.9, 1) if d.card == "back" else (
                    INK_RED if d.card[1:] in ("2", "7", "10") else INK_BLACK)
                Color(*ink)
                Line(rectangle=(ox + x0 * k, oy + (sh - y1) * k, (x1 - x0) * k, (y1 - y0) * k), width=dp(1.5))
                tex = self._glyph(d.card)
                Rectangle(pos=(ox + x0 * k, oy + (sh - y0) * k), size=(tex.width + dp(4), tex.height))
                Color(1, 1, 1, 1)
                Rectangle(texture=tex, pos=(ox + x0 * k + dp(2), oy + (sh - y0) * k), size=tex.size)


class CaptureScreen(Base):
    """Preview, shutter and picked photos; the live line says how many cards are read."""

    back_to = StringProperty("ledger")
    purpose = StringProperty("hand")  # "teach": the photo goes to 认牌, not to the review
    has_camera = BooleanProperty(False)
    android = BooleanProperty(False)
    live_text = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.camera: CvCamera | None = None
        self.reader: LiveReader | None = None
        self._tick_ev: Any = None
        self.media: Any = None
        self.granted = False  # Android: the camera and photo permissions
        self.android = on_android()
        self.job: PhotoJob | None = None  # the photo being read on a worker thread
        self.progress: ReadingView | None = None
        self._poll: Any = None

    def on_kv_post(self, base_widget: Any) -> None:
        # Kivy's list rows are 24 px at density 1: too small to hit with a finger
        self.ids.chooser.layout.bind(on_entry_added=lambda _l, entry, *_: setattr(entry, "height", dp(44)))

    # ------------------------------------------------------------ the camera
    def on_enter(self, *_: Any) -> None:
        self.start_camera()

    def on_leave(self, *_: Any) -> None:
        self.stop_camera()
        self.purpose, self.back_to = "hand", "ledger"  # 认牌 borrows the screen for one photo

    def start_camera(self) -> None:
        t = self.state.t
        if self.android:
            self.has_camera = True
            self.live_text = t("frame_hint")
            return
        if self.camera is None:
            w, h = (int(v) for v in self.state.settings.camera.split("x"))
            try:
                self.camera = CvCamera(self.state.settings.camera_source, (w, h))
            except CaptureError as exc:
                self.has_camera = False
                self.live_text = t("camera_error", msg=exc.words(t))
                return
        if self.reader is None:
            self.reader = LiveReader(detector_reader(shared_detector()))
        self.has_camera = True
        self.live_text = t("frame_hint")
        if self._tick_ev is None:
            self._tick_ev = Clock.schedule_interval(self._tick, 1 / PREVIEW_FPS)

    def stop_camera(self) -> None:
        if self._tick_ev is not None:
            self._tick_ev.cancel()
            self._tick_ev = None
        if self.reader is not None:
            self.reader.stop()
            self.reader = None
        if self.camera is not None:
            self.camera.close()
            self.camera = None

    def _tick(self, _dt: float) -> None:
        if _app() is None:  # the app has stopped: let the camera go
            self.stop_camera()
            return
        if self.camera is None or self.reader is None:
            return
        try:
            frame = self.camera.frame()
        except CaptureError as exc:
            self.stop_camera()
            self.has_camera = False
            self.live_text = self.state.t("camera_error", msg=exc.words(self.state.t))
            return
        self.reader.offer(frame)
        self.ids.preview.show(frame, self.reader.seen, self.reader.size)
        self.live_text = self.live_line()

    def live_line(self) -> str:
        """How many cards the last read found, faces and backs, and the reads per second."""
        t, r = self.state.t, self.reader
        if r is None:
            return ""
        if r.error:
            return t("error", msg=r.error)
        if r.reads == 0:
            return t("frame_hint")
        faces = sum(1 for d in r.seen if d.card != "back")
        return t("live_read", n=faces, b=len(r.seen) - faces, r=f"{r.rate:.0f}")

    def shoot(self) -> None:
        """Desktop: keep the camera's next full frame; Android: the system camera's photo."""
        photos = self.state.data_dir / "photos"
        if self.android:
            self._android(lambda m: m.take_photo(photos / "camera.jpg", self._got))
            return
        if self.camera is None:
            _app().notify(self.state.t("no_camera"))
            return
        from .capture import save_frame

        try:
            frame = self.camera.frame()
        except CaptureError as exc:
            _app().notify(self.state.t("camera_error", msg=exc.words(self.state.t)))
            return
        path = save_frame(frame, photos)
        self.stop_camera()
        self.use(str(path))

    def gallery(self) -> None:
        """Android's photo picker (the desktop shows its pictures folder beside the preview)."""
        self._android(lambda m: m.pick_photo(self.state.data_dir / "photos", self._got))

    def _android(self, call: Any) -> None:
        """Run ``call(media)`` once the camera and photo permissions are granted."""
        t = self.state.t
        try:
            if self.media is None:
                self.media = android_media()
            if not self.granted:
                from android.permissions import request_permissions as ask  # type: ignore[import-not-found]

                request_permissions(self.media.sdk, ask,
                                    lambda ok: Clock.schedule_once(lambda _dt: self._granted(ok, call), 0))
                return
            call(self.media)
        except (MediaError, ImportError) as exc:
            _app().notify(t("error", msg=str(exc)))

    def _granted(self, ok: bool, call: Any) -> None:
        self.granted = ok
        if ok:
            self._android(call)
        else:
            _app().notify(self.state.t("error", msg=self.state.t("permission_refused")))

    def _got(self, path: Path | None) -> None:
        if path is not None:  # the result comes on Android's thread: use it on Kivy's
            Clock.schedule_once(lambda _dt: self.use(str(path)), 0)

    # ------------------------------------------------------------ picked photos
    def refresh(self) -> None:
        chooser = self.ids.chooser
        last = self.state.settings.photo_dir
        if last and Path(last).is_dir():  # where the last photo came from
            if chooser.path != last:
                chooser.path = last
        elif not chooser.path or not Path(chooser.path).is_dir() or chooser.path == "/":
            chooser.path = str(pictures_dir())
        t = self.state.t
        for w in chooser.walk(restrict=True):
            if not isinstance(w, Label):
                continue
            head = getattr(w, "zipai_header", w.text)  # the English header, once translated too
            if head in CHOOSER_HEADERS:
                w.zipai_header = head
                w.text = t(CHOOSER_HEADERS[head])

    def use(self, path: str | None = None) -> None:
        t = self.state.t
        if path is None:
            sel = self.ids.chooser.selection
            if not sel:
                _app().notify(t("pick_photo"))
                return
            path = sel[0]
            self.state.settings.photo_dir = str(Path(path).parent)  # the chooser opens here next time
            self.state.save_settings()
        self.stop_camera()  # the live read and the photo's scan share the detector
        if self.purpose == "teach":
            _app().sm.get_screen("teach").learn_from(path)
            return
        typed = self.state.typed_cards()
        if typed:  # a photo makes a new hand: the one being entered would go, so ask first
            _app().ask(t("ask_photo_over", n=typed), t("use_photo"), lambda: self.read(path))
            return
        self.read(path)

    def read(self, path: str) -> None:
        """Read the photo on a worker thread; the screen keeps drawing, shows how long it has
        been reading and offers 取消. The result comes back on Kivy's thread."""
        if self.job is not None:
            return
        self.stop_camera()
        _app().notify(self.state.t("scanning"))
        self.job = job = PhotoJob(self.state, path)
        self.progress = ReadingView(self.state.t, job.cancel)
        self.progress.open(animation=False)
        self._poll = Clock.schedule_interval(lambda _dt: self._check(job), 1 / 20)

    def _check(self, job: PhotoJob) -> bool:
        if self.progress is not None:
            self.progress.tick(job.elapsed)
        if not job.done.is_set() and not job.cancelled:
            return True
        self._poll = None
        if self.progress is not None:
            self.progress.dismiss()
            self.progress = None
        self.job = None
        if job.cancelled:  # the read's result is dropped; the draft is as it was
            _app().notify(self.state.t("scan_cancelled"))
            self.start_camera()
            return False
        if job.error is not None:  # the photo was refused (the status line says why)
            _app().notify(self.state.t("error", msg=str(job.error)))
            self.start_camera()
            return False
        if _app().guard(self.state.take_scan, job.path, job.scan) is not None:
            _app().go(self.state.after_scan())  # no doubt: straight on to how the hand was won
        return False

    @property
    def busy(self) -> bool:
        return self.job is not None


class PhotoJob:
    """One photo read on a worker thread; ``cancel`` drops its result (the detector's call
    itself cannot be stopped, it just finishes unheard)."""

    def __init__(self, state: Any, path: str) -> None:
        self.path = path
        self.scan: Any = None
        self.error: Exception | None = None
        self.cancelled = False
        self.done = threading.Event()
        self.started = time.monotonic()
        self._state = state
        threading.Thread(target=self._run, name="zipai-photo-read", daemon=True).start()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def _run(self) -> None:
        try:
            self.scan = self._state.read_photo(self.path)
        except ValueError as exc:  # AppError: already in the player's words
            self.error = exc
        except Exception as exc:
            self.error = ValueError(self._state.t.error("bad_photo") + f" ({type(exc).__name__})")
        finally:
            self.done.set()

    def cancel(self) -> None:
        self.cancelled = True


class ReadingView(ModalView):
    """识别中…: the seconds so far and a moving bar, redrawn every frame, and 取消."""

    def __init__(self, t: Any, on_cancel: Any, **kw: Any) -> None:
        kw.setdefault("size_hint", (0.85, None))
        kw.setdefault("auto_dismiss", False)
        super().__init__(**kw)
        self.t = t
        box = BoxLayout(orientation="vertical", padding=dp(14), spacing=dp(10), size_hint_y=None)
        box.bind(minimum_height=box.setter("height"))
        box.bind(height=lambda _b, h: setattr(self, "height", h))
        self.line = Label(text=t("scanning"), font_size=sp(18), color=(1, 1, 1, 1),
                          size_hint_y=None, height=dp(30))
        self.bar = ProgressBar(max=1.0, value=0.0, size_hint_y=None, height=dp(16))
        self.cancel_button = Button(text=t("cancel"), size_hint_y=None, height=dp(52),
                                    background_normal="", background_down="",
                                    background_color=(0.4, 0.4, 0.38, 1), font_size=sp(17))
        self.cancel_button.bind(on_release=lambda _b: on_cancel())
        for w in (self.line, self.bar, self.cancel_button):
            box.add_widget(w)
        self.add_widget(box)
        self.ticks = 0  # how often the line was redrawn while reading (a frozen screen stays at 0)

    def tick(self, elapsed: float) -> None:
        self.ticks += 1
        self.line.text = self.t("scanning_s", s=f"{elapsed:.1f}")
        self.bar.value = (elapsed / 2.0) % 1.0  # no honest percentage exists: the bar moves, it does not fill

    def dismiss(self, *args: Any, **kw: Any) -> None:
        kw["animation"] = False
        super().dismiss(*args, **kw)
