"""The OpenCV camera with a video file made from rendered scenes standing in for it: frames, the
live read with the shipped detector, and the capture screen driven by touches on three sizes."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_mobile_quick import SIZES, Finger, session, sized

from zipai.mobile.capture import (
    CaptureError,
    CvCamera,
    LiveReader,
    Seen,
    Source,
    detector_reader,
    save_frame,
    write_video,
)


def scene_frames(n: int = 3, size: tuple[int, int] = (1280, 720)) -> tuple[list[np.ndarray], list[list[str]]]:
    """Rendered table scenes as frames, with the faces labelled on each (cards lying apart too)."""
    from zipai.datasets import render_scene_full
    from zipai.engine import ALL_CARDS

    frames, faces = [], []
    for i in range(n):
        img, anns, _ = render_scene_full(0, "val", i, size)
        frames.append(np.asarray(img.convert("RGB")))
        faces.append([str(ALL_CARDS[a["category_id"] - 1]) for a in anns
                      if not a.get("ignore") and a["category_id"] != 21])
    return frames, faces


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[np.ndarray], list[list[str]]]:
    frames, faces = scene_frames()
    path = write_video(frames, tmp_path_factory.mktemp("video") / "table.avi", fps=5)
    return path, frames, faces


def test_frames_come_at_full_resolution_and_the_file_loops(video: Any) -> None:
    path, frames, _ = video
    cam = CvCamera(str(path))
    try:
        assert cam.size == (1280, 720)
        got = [cam.frame() for _ in range(len(frames) + 2)]
    finally:
        cam.close()
    assert all(g.shape == (720, 1280, 3) and g.dtype == np.uint8 for g in got)
    for g, f in zip(got, frames + frames[:2], strict=True):  # MJPG keeps each frame close
        assert np.abs(g.astype(int) - f.astype(int)).mean() < 4
    dest = save_frame(got[0], path.parent / "photos")
    from PIL import Image

    with Image.open(dest) as im:
        assert im.size == (1280, 720) and im.format == "JPEG"


def test_sources_that_cannot_be_a_camera_are_named(tmp_path: Path) -> None:
    assert Source.parse(" 1 ") == Source(device=1)
    with pytest.raises(CaptureError, match="neither a device number"):
        Source.parse(str(tmp_path / "missing.mp4"))
    notes = tmp_path / "notes.txt"
    notes.write_text("x", encoding="utf-8")
    with pytest.raises(CaptureError, match="a video file ends in"):
        Source.parse(str(notes))
    junk = tmp_path / "junk.avi"
    junk.write_bytes(b"not a video at all" * 100)
    with pytest.raises(CaptureError, match=r"junk\.avi"):
        cam = CvCamera(str(junk))
        cam.frame()


def test_the_live_read_names_the_cards_of_the_frame(video: Any) -> None:
    """The shipped detector on the preview reads (nearly) every labelled face of the frame."""
    from zipai.mobile.camera import shared_detector

    _path, frames, faces = video
    read = detector_reader(shared_detector())
    for frame, truth in zip(frames, faces, strict=True):
        seen = [s.card for s in read(frame) if s.card != "back"]
        common = sum((Counter(seen) & Counter(truth)).values())
        assert common >= 0.9 * len(truth), (sorted(seen), sorted(truth))
        assert len(seen) <= len(truth) + 2


def test_the_live_reader_skips_to_the_newest_frame() -> None:
    calls: list[int] = []

    def slow(frame: np.ndarray) -> list[Seen]:
        calls.append(int(frame[0, 0, 0]))
        time.sleep(0.05)
        return [Seen("x1", (0, 0, 1, 1))] * int(frame[0, 0, 0])

    live = LiveReader(slow)
    try:
        for v in range(1, 40):
            live.offer(np.full((4, 4, 3), v, np.uint8))
            time.sleep(0.005)
        deadline = time.time() + 3
        while (not calls or calls[-1] != 39) and time.time() < deadline:
            time.sleep(0.01)
    finally:
        live.stop()
    assert calls[-1] == 39 and len(calls) < 39  # frames offered during a read were dropped
    assert len(live.seen) == 39 and live.size == (4, 4) and live.reads == len(calls)

    def broken(_f: np.ndarray) -> list[Seen]:
        raise RuntimeError("model gone")
    live = LiveReader(broken)
    live.offer(np.zeros((2, 2, 3), np.uint8))
    deadline = time.time() + 2
    while live.reads == 0 and time.time() < deadline:
        time.sleep(0.01)
    live.stop()
    assert live.error == "RuntimeError: model gone" and live.seen == []


def test_scoring_and_the_photo_path_need_no_opencv(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['cv2'] = None\n"
            "import zipai.vision, zipai.mobile.capture as c\n"
            "from zipai.engine.cli import main\n"
            "try:\n    c.CvCamera('0')\nexcept c.CaptureError as e:\n    print('refused:', e)\n"
            "sys.exit(main(['--text', 'd5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8']))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-800:]
    assert "refused: the camera needs OpenCV" in res.stdout and "score: 36" in res.stdout


# ------------------------------------------------------------------ the capture screen, by touch
@pytest.fixture(scope="module")
def finger(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from test_mobile_ui import kivy_env, start_app, truth_scan

    base = tmp_path_factory.mktemp("capture")
    kivy_env(str(base / "kivy"))
    # the camera films a scene whose labels make a complete winning layout; the shutter's photo
    # is read by a stand-in scanner built from those labels (the live read uses the real model)
    sc, _truth = truth_scan(base / "scene.jpg", misread=False)
    from PIL import Image

    frame = np.asarray(Image.open(base / "scene.jpg").convert("RGB"))
    film = write_video([frame] * 3, base / "table.avi", fps=5)
    shots: list[str] = []

    def scanner(path: str) -> Any:
        shots.append(path)
        if path.endswith("broken.jpg"):
            from zipai.vision.errors import ImageError  # what vision raises, with its code

            raise ImageError(f"{path}: cannot decode image (the file is truncated)", code="bad_image")
        return sc

    home = base / "home"
    (home / "图片").mkdir(parents=True)
    Image.fromarray(frame).save(home / "图片" / "table.jpg", quality=90)
    (home / "图片" / "broken.jpg").write_bytes(b"\xff\xd8 truncated")
    mp = pytest.MonkeyPatch()
    mp.setenv("HOME", str(home))
    mp.delenv("XDG_CONFIG_HOME", raising=False)
    ui = start_app(base / "data", scanner)
    f = Finger(ui.app)
    f.film, f.shots, f.home = film, shots, home  # type: ignore[attr-defined]
    yield f
    ui.app.stop()
    f.pump(2)
    mp.undo()


def wait_for_reads(f: Finger, n: int = 2, timeout: float = 30) -> None:
    scr = f.app.sm.get_screen("capture")
    deadline = time.time() + timeout
    while (scr.reader is None or scr.reader.reads < n or not scr.ids.preview.seen) and time.time() < deadline:
        f.pump(1)
        time.sleep(0.03)
    assert scr.reader is not None and scr.reader.reads >= n, scr.live_text
    assert scr.ids.preview.seen, "the preview shows no read"


def test_the_camera_is_chosen_in_settings(finger: Finger) -> None:
    f = finger
    sized(f, (540, 960))
    session(f, "settings")
    f.tap_text("settings")
    field = f.screen.ids.camera_source
    field.text = str(f.home / "nothing.mp4")  # typed on the keyboard
    f.tap(f.button(f.app.state.t("set")))
    # in the app's words (the test of English on a Chinese screen covers this line too)
    assert f.app.status == f.app.state.t("error", msg=f.app.state.t("camera_bad_source", s=field.text))
    assert f.app.state.settings.camera_source == "0"
    field.text = str(f.film)
    f.tap(f.button(f.app.state.t("set")))
    assert f.app.state.settings.camera_source == str(f.film)


@pytest.mark.parametrize("size", SIZES)
def test_preview_reads_cards_live_and_the_shutter_keeps_a_full_frame(finger: Finger,
                                                                      size: tuple[int, int]) -> None:
    f = finger
    f.app.state.settings.camera_source = str(f.film)
    sized(f, size)
    session(f, f"capture-{size[0]}")
    start = f.taps
    f.tap_text("capture")
    assert f.screen.name == "capture" and f.screen.has_camera
    wait_for_reads(f)
    scr = f.screen
    faces = [s for s in scr.reader.seen if s.card != "back"]
    assert len(faces) >= 15 and scr.ids.preview.seen  # drawn on the preview
    m = re.match(r"读到 (\d+) 张牌、(\d+) 张背面 · 每秒读 \d+ 次$", scr.live_text)
    assert m and int(m.group(1)) >= 15, scr.live_text
    f.tap(scr.ids.shutter)
    assert f.screen.name == "win", f.app.status  # nothing in doubt: straight on to how it was won
    from PIL import Image

    with Image.open(f.shots[-1]) as im:
        assert im.size == (800, 600)  # the camera's own frame size, not the preview widget's
    assert scr.camera is None and scr.reader is None  # the camera is let go
    # the rest of the photo path, by touch: winner, how won, score, confirm
    f.tap(f.screen.ids.winner.buttons[1])
    f.tap(f.screen.ids.won_by.buttons["self_draw"])
    f.tap_text("score_it")
    assert f.screen.name == "result"
    f.tap(f.screen.ids.confirm)
    assert f.screen.name == "ledger"
    assert f.taps - start == 6
    e = f.app.state.sstate.history[-1]
    assert e.entered_by == "cards" and e.photo


def test_the_picker_opens_the_pictures_folder_in_chinese(finger: Finger) -> None:
    f = finger
    sized(f, (540, 960))
    f.app.state.settings.camera_source = "9"  # no such device: the picker alone
    session(f, "picker")
    f.tap_text("capture")
    scr = f.screen
    assert not scr.has_camera and scr.live_text == f.app.state.t(
        "camera_error", msg=f.app.state.t("camera_cannot_open", s="9"))
    chooser = scr.ids.chooser
    assert Path(chooser.path) == f.home / "图片"
    texts = {getattr(w, "text", "") for w in chooser.walk()}
    assert {"文件名", "大小"} <= texts and not {"Name", "Size"} & texts
    f.pump(5)

    def entry(name: str) -> Any:
        return next(w for w in chooser.walk() if getattr(w, "path", "").endswith(name)
                    and w.__class__.__name__ == "FileListEntry")
    f.tap(entry("broken.jpg"))
    f.tap_text("use_photo")
    # refused in one line, in the app's words for vision's code (never its English)
    assert f.screen.name == "capture" and f.app.status == f.app.state.t(
        "error", msg=f.app.state.t.error("bad_image"))
    f.tap(entry("table.jpg"))
    assert chooser.selection and chooser.selection[0].endswith("table.jpg")
    f.tap_text("use_photo")
    assert f.screen.name == "win" and f.shots[-1].endswith("table.jpg")  # no doubt: straight on


def test_settlement_share_lands_in_the_pictures_folder(finger: Finger) -> None:
    f = finger
    sized(f, (360, 780))
    session(f, "share")
    f.app.state.ledger.record_hand(f.app.state.session, {"winner": 1, "won_by": "stock", "total": 20})
    f.tap_text("settle")
    assert f.screen.name == "settle"
    f.tap_text("share_text")
    f.tap_text("share_image")
    pics = sorted(p.name for p in (f.home / "图片").iterdir() if p.name.startswith("zipai-"))
    assert pics == ["zipai-share.png", "zipai-share.txt"]
    assert "乙: +" in (f.home / "图片" / "zipai-share.txt").read_text(encoding="utf-8")
    assert str(f.home / "图片") in f.app.status


def test_android_camera_and_picker_by_touch(finger: Finger, monkeypatch: pytest.MonkeyPatch) -> None:
    """The capture screen as on a phone: the shutter asks for the permissions, then opens the
    system camera; 相册 opens the picker; each result is read and, holding no doubt, goes on to how
    the hand was won (JVM stood in for)."""
    import types

    from test_mobile_media import Activity, Data, autoclass

    from zipai.mobile.media import REQUEST_CAMERA, REQUEST_PICK, RESULT_OK, AndroidMedia

    f = finger
    sized(f, (360, 780))
    session(f, "phone")
    scr = f.app.sm.get_screen("capture")
    jpeg = (f.home / "图片" / "table.jpg").read_bytes()
    act = Activity(jpeg, "image/jpeg")
    bound: dict[str, Any] = {}
    asked: list[list[str]] = []
    fake = types.ModuleType("android.permissions")
    fake.request_permissions = lambda perms, cb: (asked.append(perms), cb(perms, [True] * len(perms)))
    monkeypatch.setitem(sys.modules, "android", types.ModuleType("android"))
    monkeypatch.setitem(sys.modules, "android.permissions", fake)
    scr.android, scr.granted = True, False
    scr.media = AndroidMedia(autoclass, act, lambda **kw: bound.update(kw), sdk=34)
    try:
        f.tap_text("capture")
        assert f.screen is scr and scr.has_camera and scr.camera is None  # no OpenCV on a phone
        f.tap(scr.ids.shutter)
        assert asked and "android.permission.READ_MEDIA_IMAGES" in asked[0]
        assert act.started[-1][1] == REQUEST_CAMERA
        dest = scr.state.data_dir / "photos" / "camera.jpg"
        dest.write_bytes(jpeg)  # the camera app writes the photo
        bound["on_activity_result"](REQUEST_CAMERA, RESULT_OK, Data(None))
        f.pump(3)
        f.settle()  # the photo is read on a worker thread
        assert f.screen.name == "win" and f.shots[-1] == str(dest)  # read, with no doubt: straight on
        f.app.go("capture")
        f.pump(3)
        f.tap_text("gallery")
        assert act.started[-1][1] == REQUEST_PICK and len(asked) == 1  # asked once
        bound["on_activity_result"](REQUEST_PICK, RESULT_OK, Data("content://media/7"))
        f.pump(3)
        from kivy.core.window import Window

        from zipai.mobile.widgets import Ask

        ask = next(w for w in Window.children if isinstance(w, Ask))  # it replaces the first photo's hand
        f.tap(ask.yes_button)
        assert f.screen.name == "win" and f.shots[-1].endswith("picked.jpg")
        assert Path(f.shots[-1]).read_bytes() == jpeg
    finally:
        scr.android, scr.media = False, None
        f.app.go("ledger")
        f.pump(2)
