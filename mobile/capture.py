"""The desktop camera through OpenCV, and the live read of the cards on its preview.

``CvCamera`` opens a device (``"0"``, ``"1"``…) or a video file standing in for one (played
in a loop) with ``cv2.VideoCapture``; the shutter keeps a full-resolution frame, not the
on-screen preview. ``LiveReader`` runs the detector's networks on the newest frame in a thread
of its own, so the preview never waits for them and the player sees, before shooting, which
cards are read. No Kivy here: the capture screen draws what these return.

OpenCV is the ``app`` extra's and is imported on first use only: ``zipai score`` and the photo
path (vision/) never need it.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAX_FRAME_SIDE = 8192  # a frame larger than this is no camera's: refuse it rather than hold it
PREVIEW_SIDE = 1280  # the live read looks at the frame scaled to this long side, at most
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v")


class CaptureError(ValueError):
    """The camera or the video file cannot be used; one line says which and why. ``code`` and
    ``source`` let the app word it in the player's language (``words``)."""

    def __init__(self, message: str, code: str = "", source: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.source = source

    def words(self, t: Callable[..., str]) -> str:
        """The refusal in the app's words (``camera_<code>``), never this English line."""
        if not self.code:
            return t("camera_cannot_open", s=self.source)
        return t(f"camera_{self.code}", s=self.source, ext=", ".join(VIDEO_SUFFIXES))


def _cv2() -> Any:
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")  # a missing device is our one line, not its log
    try:
        import cv2
    except ImportError:
        raise CaptureError("the camera needs OpenCV: pip install 'zipai-scorer[app]' "
                           "(opencv-python-headless)", "no_opencv") from None
    return cv2


@dataclass(frozen=True, slots=True)
class Source:
    """What the camera setting names: a device number or a video file."""

    device: int | None = None
    video: Path | None = None

    @classmethod
    def parse(cls, text: str) -> Source:
        """``"0"`` is the first camera; anything else must be an existing video file."""
        t = text.strip()
        if t.isdigit() and len(t) <= 3:
            return cls(device=int(t))
        p = Path(t).expanduser()
        if not t or not p.is_file():
            raise CaptureError(f"camera {text!r}: neither a device number (0, 1, …) nor a video file",
                               "bad_source", text)
        if p.suffix.lower() not in VIDEO_SUFFIXES:
            raise CaptureError(f"camera {text!r}: a video file ends in {', '.join(VIDEO_SUFFIXES)}",
                               "bad_video", text)
        return cls(video=p)

    def __str__(self) -> str:
        return str(self.device) if self.video is None else str(self.video)


class CvCamera:
    """Frames from ``cv2.VideoCapture``, RGB; a video file starts again at its end."""

    def __init__(self, source: Source | str, resolution: tuple[int, int] | None = None) -> None:
        cv2 = self._cv2 = _cv2()
        self.source = Source.parse(source) if isinstance(source, str) else source
        target = self.source.device if self.source.video is None else str(self.source.video)
        self.cap = cv2.VideoCapture(target)
        if not self.cap.isOpened():
            self.cap.release()
            raise CaptureError(f"camera {self.source}: cannot be opened", "cannot_open", str(self.source))
        if self.source.video is None and resolution is not None:
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, resolution[0])
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, resolution[1])
        self._lock = threading.Lock()

    def frame(self) -> np.ndarray:
        """The next frame, H×W×3 RGB uint8, at the camera's full resolution."""
        with self._lock:
            ok, bgr = self.cap.read()
            if not ok and self.source.video is not None:
                self.cap.set(self._cv2.CAP_PROP_POS_FRAMES, 0)
                ok, bgr = self.cap.read()
        if not ok or bgr is None:
            raise CaptureError(f"camera {self.source}: gives no picture", "no_picture", str(self.source))
        if bgr.ndim != 3 or bgr.shape[2] != 3 or max(bgr.shape[:2]) > MAX_FRAME_SIDE:
            raise CaptureError(f"camera {self.source}: a {bgr.shape} frame is not a colour picture",
                               "no_picture", str(self.source))
        return np.ascontiguousarray(bgr[:, :, ::-1])

    @property
    def size(self) -> tuple[int, int]:
        cv2 = self._cv2
        return int(self.cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(self.cap.get(cv2.CAP_PROP_FRAME_HEIGHT))

    def close(self) -> None:
        with self._lock:
            self.cap.release()


def save_frame(frame: np.ndarray, folder: Path) -> Path:
    """The shutter's photo: the full frame as a JPEG in ``folder``, named by the time it was taken."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{int(time.time() * 1000) % 1000:03d}"
    dest = folder / f"capture-{stamp}.jpg"
    n = 1
    while dest.exists():
        dest = folder / f"capture-{stamp}-{n}.jpg"
        n += 1
    Image.fromarray(frame).save(dest, quality=92)
    return dest


@dataclass(frozen=True, slots=True)
class Seen:
    """One card read on the preview: its face (or ``back``) and box in frame pixels."""

    card: str
    box: tuple[float, float, float, float]


Reader = Callable[[np.ndarray], Sequence[Seen]]


def detector_reader(detector: Any, long_side: int = PREVIEW_SIDE) -> Reader:
    """The cheapest detector call that names every card: one look (finder, reader, the
    manifest's choice of finds), no closer second look and no layout. Boxes in frame pixels."""
    from PIL import Image

    from zipai.vision.decode import Decoded

    def read(frame: np.ndarray) -> list[Seen]:
        h, w = frame.shape[:2]
        img = Image.fromarray(frame)
        if max(w, h) > long_side:
            k = long_side / max(w, h)
            img = img.resize((max(1, round(w * k)), max(1, round(h * k))), Image.Resampling.BILINEAR)
        dets = detector.build(detector.look(Decoded(img, w, h))).detections
        return [Seen(d.card, (float(d.box[0]), float(d.box[1]), float(d.box[2]), float(d.box[3])))
                for d in dets]
    return read


class LiveReader:
    """Reads the newest frame offered while the last read is done; frames offered meanwhile are
    skipped, so the preview runs at the camera's pace and the reads at the detector's."""

    def __init__(self, read: Reader) -> None:
        self._read = read
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._frame: np.ndarray | None = None
        self._stop = False
        self.seen: list[Seen] = []
        self.size: tuple[int, int] = (0, 0)  # the frame the last read was of
        self.reads = 0
        self.error: str | None = None
        self._times: deque[float] = deque(maxlen=12)
        self._thread = threading.Thread(target=self._run, name="zipai-live-read", daemon=True)
        self._thread.start()

    def offer(self, frame: np.ndarray) -> None:
        with self._lock:
            self._frame = frame
            self._wake.notify()

    @property
    def rate(self) -> float:
        """Reads per second over the last few reads (0 until two are done)."""
        with self._lock:
            t = list(self._times)
        return (len(t) - 1) / (t[-1] - t[0]) if len(t) > 1 and t[-1] > t[0] else 0.0

    def _run(self) -> None:
        while True:
            with self._lock:
                while self._frame is None and not self._stop:
                    self._wake.wait()
                if self._stop:
                    return
                frame, self._frame = self._frame, None
                assert frame is not None  # the wait above ends on a frame unless stopped
            try:
                seen = list(self._read(frame))
                err = None
            except Exception as exc:  # a failing read shows as a line, the preview goes on
                seen, err = [], f"{type(exc).__name__}: {exc}"
            with self._lock:
                self.seen, self.error = seen, err
                self.size = (frame.shape[1], frame.shape[0])
                self.reads += 1
                self._times.append(time.perf_counter())

    def stop(self, wait: float = 2.0) -> None:
        with self._lock:
            self._stop = True
            self._wake.notify()
        self._thread.join(wait)


def write_video(frames: Sequence[np.ndarray], path: Path, fps: float = 10.0) -> Path:
    """RGB frames into a video file (MJPG in .avi), a camera's stand-in for tests and benches."""
    cv2 = _cv2()
    h, w = frames[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    if not out.isOpened():
        raise CaptureError(f"{path}: OpenCV cannot write this video")
    try:
        for f in frames:
            out.write(np.ascontiguousarray(f[:, :, ::-1]))
    finally:
        out.release()
    return path
