"""Photos in and settlements out, where the player keeps them: the pictures folder on the desktop;
on Android the system camera, the photo picker and the share sheet (WeChat and the rest).

The Android half goes through pyjnius, with the Java classes looked up by an ``autoclass``
function and results delivered through an ``activity`` seam (``android.activity``'s
``bind(on_activity_result=…)`` and the Python activity), both passed in, so tests stand in
for the JVM. A photo the camera writes, and a file to share, cross to the other app as a
``content://`` URI of the app's FileProvider (``<package>.fileprovider``, buildozer.spec).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_PICKED_BYTES = 64 * 2**20  # a picked photo larger than this is refused, not read into memory
CHUNK = 1 << 16
REQUEST_CAMERA = 0x5A01
REQUEST_PICK = 0x5A02
RESULT_OK = -1  # android.app.Activity.RESULT_OK


class MediaError(ValueError):
    """A photo or a share could not be made; the line says which and why."""


def pictures_dir(home: Path | None = None, env: dict[str, str] | None = None) -> Path:
    """The user's pictures folder: ``XDG_PICTURES_DIR`` from ``~/.config/user-dirs.dirs``
    (a Chinese desktop names it 图片), else ``~/Pictures`` or ``~/图片`` where one exists, else home."""
    home = home or Path.home()
    env = dict(os.environ) if env is None else env
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "user-dirs.dirs"
    try:
        text = config.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    m = re.search(r'^XDG_PICTURES_DIR="([^"\n]*)"', text, re.M)
    if m:
        p = Path(m.group(1).replace("$HOME", str(home)))
        if p.is_absolute() and p.is_dir() and p != home:
            return p
    for name in ("Pictures", "图片", "圖片"):
        if (home / name).is_dir():
            return home / name
    return home


def _safe_name(name: str) -> str:
    """A file name made by us from a session name: no folders, nothing odd."""
    clean = re.sub(r"[^\w.\-]+", "_", name, flags=re.UNICODE).strip("._")
    return clean[:60] or "zipai"


def save_to_pictures(files: list[Path], folder: Path, stem: str) -> list[Path]:
    """The desktop's share: copies of ``files`` into ``folder`` named ``zipai-<stem>``, never
    over an existing file."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    base = f"zipai-{_safe_name(stem)}"
    for f in files:
        dest = folder / f"{base}{f.suffix}"
        n = 1
        while dest.exists():
            dest = folder / f"{base}-{n}{f.suffix}"
            n += 1
        shutil.copyfile(f, dest)
        out.append(dest)
    return out


class AndroidMedia:
    """The system camera, photo picker and share sheet through Android intents."""

    def __init__(self, autoclass: Callable[[str], Any], activity: Any, bind: Callable[..., None],
                 sdk: int | None = None) -> None:
        self.find = autoclass
        self.activity = activity  # org.kivy.android.PythonActivity.mActivity
        self._waiting: dict[int, Callable[[Any], None]] = {}
        bind(on_activity_result=self._on_result)
        self.sdk = sdk if sdk is not None else int(autoclass("android.os.Build$VERSION").SDK_INT)

    def _uri(self, path: Path) -> Any:
        """A content:// URI another app may read or write (FileProvider, not a file:// path)."""
        provider = self.find("androidx.core.content.FileProvider")
        authority = f"{self.activity.getPackageName()}.fileprovider"
        return provider.getUriForFile(self.activity, authority, self.find("java.io.File")(str(path)))

    def _start(self, intent: Any, request: int, done: Callable[[Any], None]) -> None:
        self._waiting[request] = done
        try:
            self.activity.startActivityForResult(intent, request)
        except Exception as exc:
            self._waiting.pop(request, None)
            raise MediaError(f"no app answers this request ({exc})") from None

    def _on_result(self, request: int, result: int, data: Any) -> None:
        done = self._waiting.pop(request, None)
        if done is not None:
            done(data if result == RESULT_OK else None)

    def take_photo(self, dest: Path, done: Callable[[Path | None], None]) -> None:
        """The system camera writes a full-resolution photo into ``dest``; ``done`` gets it
        (None when the player cancels)."""
        intent_cls = self.find("android.content.Intent")
        store = self.find("android.provider.MediaStore")
        intent = intent_cls(store.ACTION_IMAGE_CAPTURE)
        dest.parent.mkdir(parents=True, exist_ok=True)
        intent.putExtra(store.EXTRA_OUTPUT, self._uri(dest))
        intent.addFlags(intent_cls.FLAG_GRANT_WRITE_URI_PERMISSION)
        self._start(intent, REQUEST_CAMERA,
                    lambda data: done(dest if data is not None and dest.is_file() else None))

    def pick_photo(self, dest_dir: Path, done: Callable[[Path | None], None]) -> None:
        """The photo picker (Android 13+) or the document chooser for images; the chosen photo
        is copied into ``dest_dir`` and ``done`` gets the copy (None when cancelled)."""
        intent_cls = self.find("android.content.Intent")
        if self.sdk >= 33:
            intent = intent_cls(self.find("android.provider.MediaStore").ACTION_PICK_IMAGES)
        else:
            intent = intent_cls(intent_cls.ACTION_GET_CONTENT)
            intent.addCategory(intent_cls.CATEGORY_OPENABLE)
        intent.setType("image/*")

        def got(data: Any) -> None:
            uri = data.getData() if data is not None else None
            done(self._copy_in(uri, dest_dir) if uri is not None else None)
        self._start(intent, REQUEST_PICK, got)

    def _copy_in(self, uri: Any, dest_dir: Path) -> Path:
        """The picked photo's bytes, read in chunks through the content resolver, into a file."""
        dest_dir.mkdir(parents=True, exist_ok=True)
        mime = str(self.activity.getContentResolver().getType(uri) or "image/jpeg")
        suffix = {"image/png": ".png", "image/webp": ".webp"}.get(mime, ".jpg")
        dest = dest_dir / f"picked{suffix}"
        stream = self.activity.getContentResolver().openInputStream(uri)
        if stream is None:
            raise MediaError("the picked photo cannot be opened")
        total = 0
        try:
            with open(dest, "wb") as out:
                buf = bytearray(CHUNK)
                while (n := stream.read(buf)) > 0:
                    total += n
                    if total > MAX_PICKED_BYTES:
                        raise MediaError(f"the picked photo is larger than {MAX_PICKED_BYTES // 2**20} MB")
                    out.write(bytes(buf[:n]))  # pyjnius copies a byte[] argument back
        except MediaError:
            dest.unlink(missing_ok=True)
            raise
        finally:
            stream.close()
        return dest

    def share(self, text: str, image: Path | None, title: str) -> None:
        """The system share sheet with the settlement text and, when given, its picture."""
        intent_cls = self.find("android.content.Intent")
        intent = intent_cls(intent_cls.ACTION_SEND)
        intent.putExtra(intent_cls.EXTRA_TEXT, self.find("java.lang.String")(text))
        if image is not None:
            intent.setType("image/png")
            intent.putExtra(intent_cls.EXTRA_STREAM, self._uri(image))
            intent.addFlags(intent_cls.FLAG_GRANT_READ_URI_PERMISSION)
        else:
            intent.setType("text/plain")
        chooser = intent_cls.createChooser(intent, self.find("java.lang.String")(title))
        try:
            self.activity.startActivity(chooser)
        except Exception as exc:
            raise MediaError(f"no app can share this ({exc})") from None


def android_media() -> AndroidMedia:
    """The real seam inside the APK (pyjnius and p4a's ``android`` module)."""
    try:
        from android import activity as act  # type: ignore[import-not-found]
        from jnius import autoclass  # type: ignore[import-not-found]
    except ImportError as exc:
        raise MediaError(f"the Android camera and share sheet need the APK ({exc})") from None
    return AndroidMedia(autoclass, autoclass("org.kivy.android.PythonActivity").mActivity, act.bind)


def request_permissions(sdk: int, ask: Callable[..., None], then: Callable[[bool], None]) -> list[str]:
    """Ask for the camera and the photos (Android 13+ by READ_MEDIA_IMAGES, before that
    READ_EXTERNAL_STORAGE), then call ``then(all granted)``: an app that declares CAMERA may not
    start the system camera before the player grants it. ``ask`` is p4a's
    ``android.permissions.request_permissions(permissions, callback)``."""
    photos = "READ_MEDIA_IMAGES" if sdk >= 33 else "READ_EXTERNAL_STORAGE"
    wanted = ["android.permission.CAMERA", f"android.permission.{photos}"]
    ask(wanted, lambda _perms, grants: then(bool(grants) and all(grants)))
    return wanted


_ANDROID: AndroidMedia | None = None


def share(text: str, files: list[Path], stem: str, title: str, android: bool,
          folder: Path | None = None) -> list[Path]:
    """Share a settlement: Android's share sheet with the text and the picture (the first .png of
    ``files``); on the desktop, copies of ``files`` in the pictures folder (returned)."""
    global _ANDROID
    if android:
        if _ANDROID is None:
            _ANDROID = android_media()
        image = next((f for f in files if f.suffix == ".png"), None)
        _ANDROID.share(text, image, title)
        return []
    try:
        return save_to_pictures(files, folder or pictures_dir(), stem)
    except OSError as exc:
        raise MediaError(f"cannot save into the pictures folder ({exc.strerror or exc})") from None
