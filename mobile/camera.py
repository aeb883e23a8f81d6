"""The capture screen: the camera's live preview with the cards read on it, the shutter, and the
photos already taken (the pictures folder on the desktop, the photo picker on Android).

On the desktop the frames come from OpenCV (``capture.CvCamera``: the device or the video file
chosen in settings) and the shutter keeps a full-resolution frame; ``capture.LiveReader`` reads
the cards of the newest frame beside the preview. On Android the system camera takes the photo
and the system picker chooses one (``media.AndroidMedia``).
"""

from __future__ import annotations

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
from kivy.uix.label import Label
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
                self.live_text = t("camera_error", msg=str(exc))
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
            self.live_text = self.state.t("camera_error", msg=str(exc))
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
            _app().notify(self.state.t("camera_error", msg=str(exc)))
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
        if not chooser.path or not Path(chooser.path).is_dir() or chooser.path == "/":
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
        self.stop_camera()  # the live read and the photo's scan share the detector
        if self.purpose == "teach":
            _app().sm.get_screen("teach").learn_from(path)
            return
        _app().notify(t("scanning"))
        if _app().guard(self.state.load_photo, path) is not None:
            _app().go("review")
        else:  # the photo was refused (the status line says why): the preview goes on
            self.start_camera()
