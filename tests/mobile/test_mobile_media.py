"""Photos in and settlements out: the pictures folder, and the Android camera, picker and share
sheet through the pyjnius seam with the Java side stood in for (no APK is built here)."""

from __future__ import annotations

import configparser
from pathlib import Path
from typing import Any

import pytest

from zipai.mobile.android_hook import PATHS_RESOURCE, add_file_provider, before_apk_assemble
from zipai.mobile.media import (
    MAX_PICKED_BYTES,
    REQUEST_CAMERA,
    REQUEST_PICK,
    RESULT_OK,
    AndroidMedia,
    MediaError,
    pictures_dir,
    request_permissions,
    save_to_pictures,
    share,
)


# ------------------------------------------------------------------ a stand-in for the JVM
class JObject:
    """A Java object that records what is called on it."""

    def __init__(self, kind: str, *args: Any) -> None:
        self.kind, self.args, self.calls = kind, args, []

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any) -> Any:
            self.calls.append((name, args))
            return None
        return call


class IntentClass:
    ACTION_SEND = "android.intent.action.SEND"
    ACTION_GET_CONTENT = "android.intent.action.GET_CONTENT"
    CATEGORY_OPENABLE = "android.intent.category.OPENABLE"
    EXTRA_TEXT = "android.intent.extra.TEXT"
    EXTRA_STREAM = "android.intent.extra.STREAM"
    FLAG_GRANT_READ_URI_PERMISSION = 1
    FLAG_GRANT_WRITE_URI_PERMISSION = 2
    def __new__(cls, action: str) -> Any:  # type: ignore[misc]
        return JObject("Intent", action)

    @staticmethod
    def createChooser(intent: Any, title: Any) -> Any:
        return JObject("Chooser", intent, title)


class MediaStore:
    ACTION_IMAGE_CAPTURE = "android.media.action.IMAGE_CAPTURE"
    ACTION_PICK_IMAGES = "android.provider.action.PICK_IMAGES"
    EXTRA_OUTPUT = "output"


class FileProvider:
    @staticmethod
    def getUriForFile(ctx: Any, authority: str, f: Any) -> str:
        return f"content://{authority}/{Path(f.args[0]).name}"


class Stream:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos, self.closed = data, 0, False

    def read(self, buf: bytearray) -> int:
        chunk = self.data[self.pos:self.pos + len(buf)]
        buf[:len(chunk)] = chunk
        self.pos += len(chunk)
        return len(chunk) if chunk else -1

    def close(self) -> None:
        self.closed = True


class Resolver:
    def __init__(self, data: bytes, mime: str) -> None:
        self.stream, self.mime = Stream(data), mime

    def getType(self, uri: Any) -> str:
        return self.mime

    def openInputStream(self, uri: Any) -> Stream:
        return self.stream


class Activity:
    def __init__(self, data: bytes = b"", mime: str = "image/jpeg") -> None:
        self.started: list[tuple[Any, int | None]] = []
        self.resolver = Resolver(data, mime)

    def getPackageName(self) -> str:
        return "org.zipai.zipaiscorer"

    def startActivityForResult(self, intent: Any, request: int) -> None:
        self.started.append((intent, request))

    def startActivity(self, intent: Any) -> None:
        self.started.append((intent, None))

    def getContentResolver(self) -> Resolver:
        return self.resolver


def autoclass(name: str) -> Any:
    return {"android.content.Intent": IntentClass, "android.provider.MediaStore": MediaStore,
            "androidx.core.content.FileProvider": FileProvider,
            "java.io.File": lambda p: JObject("File", p), "java.lang.String": str}[name]


def media(activity: Activity, sdk: int = 34) -> tuple[AndroidMedia, dict[str, Any]]:
    bound: dict[str, Any] = {}
    m = AndroidMedia(autoclass, activity, lambda **kw: bound.update(kw), sdk=sdk)
    return m, bound


class Data:
    def __init__(self, uri: Any) -> None:
        self.uri = uri

    def getData(self) -> Any:
        return self.uri


# ------------------------------------------------------------------ Android
def test_the_system_camera_writes_into_our_file_through_the_provider(tmp_path: Path) -> None:
    act = Activity()
    m, bound = media(act)
    got: list[Path | None] = []
    dest = tmp_path / "photos" / "camera.jpg"
    m.take_photo(dest, got.append)
    intent, request = act.started[-1]
    assert request == REQUEST_CAMERA and intent.args == (MediaStore.ACTION_IMAGE_CAPTURE,)
    assert ("putExtra", ("output", "content://org.zipai.zipaiscorer.fileprovider/camera.jpg")) in intent.calls
    assert ("addFlags", (IntentClass.FLAG_GRANT_WRITE_URI_PERMISSION,)) in intent.calls
    dest.write_bytes(b"\xff\xd8photo")  # the camera app writes the full-resolution photo
    bound["on_activity_result"](REQUEST_CAMERA, RESULT_OK, Data(None))
    assert got == [dest]
    m.take_photo(dest, got.append)
    bound["on_activity_result"](REQUEST_CAMERA, 0, None)  # cancelled
    assert got == [dest, None]
    bound["on_activity_result"](REQUEST_CAMERA, RESULT_OK, None)  # no request waits: ignored
    assert len(got) == 2


@pytest.mark.parametrize(("sdk", "action"), [(34, MediaStore.ACTION_PICK_IMAGES),
                                              (30, IntentClass.ACTION_GET_CONTENT)])
def test_the_photo_picker_copies_the_chosen_photo_in(tmp_path: Path, sdk: int, action: str) -> None:
    act = Activity(b"\x89PNG" + bytes(200_000), "image/png")
    m, bound = media(act, sdk)
    got: list[Path | None] = []
    m.pick_photo(tmp_path / "photos", got.append)
    intent, request = act.started[-1]
    assert request == REQUEST_PICK and intent.args == (action,)
    assert ("setType", ("image/*",)) in intent.calls
    assert (("addCategory", (IntentClass.CATEGORY_OPENABLE,)) in intent.calls) == (sdk < 33)
    bound["on_activity_result"](REQUEST_PICK, RESULT_OK, Data("content://media/1"))
    assert got == [tmp_path / "photos" / "picked.png"]
    assert got[0].read_bytes() == b"\x89PNG" + bytes(200_000) and act.resolver.stream.closed


def test_a_picked_file_too_large_is_refused_and_left_nowhere(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("zipai.mobile.media.MAX_PICKED_BYTES", 100_000)
    act = Activity(bytes(150_000))
    m, _ = media(act)
    with pytest.raises(MediaError, match="larger than"):
        m._copy_in("content://media/2", tmp_path)
    assert list(tmp_path.iterdir()) == [] and act.resolver.stream.closed
    assert MAX_PICKED_BYTES >= 32 * 2**20


def test_the_share_sheet_gets_the_text_and_the_picture(tmp_path: Path) -> None:
    act = Activity()
    m, _ = media(act)
    png = tmp_path / "settlement-1.png"
    m.share("甲 +30\n乙 -30", png, "分享")
    chooser, request = act.started[-1]
    assert request is None and chooser.kind == "Chooser" and chooser.args[1] == "分享"
    intent = chooser.args[0]
    assert intent.args == (IntentClass.ACTION_SEND,)
    assert ("putExtra", (IntentClass.EXTRA_TEXT, "甲 +30\n乙 -30")) in intent.calls
    assert ("putExtra", (IntentClass.EXTRA_STREAM,
                         "content://org.zipai.zipaiscorer.fileprovider/settlement-1.png")) in intent.calls
    assert ("setType", ("image/png",)) in intent.calls
    assert ("addFlags", (IntentClass.FLAG_GRANT_READ_URI_PERMISSION,)) in intent.calls
    m.share("text only", None, "分享")
    assert ("setType", ("text/plain",)) in act.started[-1][0].args[0].calls


@pytest.mark.parametrize(("sdk", "photos"), [(34, "READ_MEDIA_IMAGES"), (32, "READ_EXTERNAL_STORAGE")])
def test_runtime_permissions_follow_the_android_version(sdk: int, photos: str) -> None:
    asked: list[list[str]] = []
    answers: list[bool] = []

    def ask(perms: list[str], callback: Any) -> None:  # p4a answers once the player has chosen
        asked.append(perms)
        callback(perms, [True] * len(perms))
        callback(perms, [True, False])
    request_permissions(sdk, ask, answers.append)
    assert asked == [["android.permission.CAMERA", f"android.permission.{photos}"]]
    assert answers == [True, False]


def test_the_spec_and_the_hook_declare_what_the_seam_uses(tmp_path: Path) -> None:
    spec = configparser.ConfigParser()
    spec.read(Path(__file__).resolve().parents[2] / "mobile" / "buildozer.spec", encoding="utf-8")
    app = spec["app"]
    for perm in ("CAMERA", "READ_MEDIA_IMAGES", "READ_EXTERNAL_STORAGE"):
        assert f"android.permission.{perm}" in app["android.permissions"]
    assert app["p4a.hook"] == "zipai/mobile/android_hook.py" and "androidx.core:core" in \
        app["android.gradle_dependencies"] and app["android.enable_androidx"] == "True"
    main = tmp_path / "dist" / "src" / "main"
    main.mkdir(parents=True)
    (main / "AndroidManifest.xml").write_text(
        '<manifest package="org.zipai.zipaiscorer"><application android:label="x">\n'
        '<activity android:name="PythonActivity"/>\n</application></manifest>', encoding="utf-8")

    class Toolchain:
        class _dist:  # p4a's attribute name
            dist_dir = str(tmp_path / "dist")

    before_apk_assemble(Toolchain())
    text = (main / "AndroidManifest.xml").read_text(encoding="utf-8")
    assert text.index("<provider") < text.index("</application>")
    assert 'android:authorities="org.zipai.zipaiscorer.fileprovider"' in text
    assert f"@xml/{PATHS_RESOURCE}" in text and (main / "res" / "xml" / f"{PATHS_RESOURCE}.xml").is_file()
    assert add_file_provider(text, "org.zipai.zipaiscorer") == text  # once only
    with pytest.raises(ValueError, match="application"):
        add_file_provider("<manifest/>", "p")


# ------------------------------------------------------------------ the desktop
def test_pictures_folder_from_user_dirs_then_the_usual_names(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert pictures_dir(home, {}) == home
    (home / "图片").mkdir()
    assert pictures_dir(home, {}) == home / "图片"
    (home / "Photos").mkdir()
    (home / ".config").mkdir()
    (home / ".config" / "user-dirs.dirs").write_text('XDG_PICTURES_DIR="$HOME/Photos"\n', encoding="utf-8")
    assert pictures_dir(home, {}) == home / "Photos"
    (home / ".config" / "user-dirs.dirs").write_text('XDG_PICTURES_DIR="$HOME/gone"\n', encoding="utf-8")
    assert pictures_dir(home, {}) == home / "图片"  # a folder that is not there is not used


def test_desktop_share_copies_into_pictures_without_overwriting(tmp_path: Path) -> None:
    src = tmp_path / "settlement-1.txt"
    src.write_text("甲 +30", encoding="utf-8")
    pics = tmp_path / "pics"
    first = share("甲 +30", [src], "../周五/夜", "分享", android=False, folder=pics)
    second = share("甲 +30", [src], "../周五/夜", "分享", android=False, folder=pics)
    assert [p.parent for p in first + second] == [pics, pics]  # the session name names no folder
    assert first[0].name == "zipai-周五_夜.txt" and second[0].name == "zipai-周五_夜-1.txt"
    assert second[0].read_text(encoding="utf-8") == "甲 +30"
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(MediaError, match="pictures folder"):
        share("t", [src], "s", "分享", android=False, folder=blocker / "sub")
    assert save_to_pictures([], pics, "x") == []
