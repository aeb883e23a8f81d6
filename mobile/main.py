"""``zipai app``: start the table app, or walk every screen and save a PNG of each.

    zipai app                          # the app, data in ~/.local/share/zipai/app
    zipai app --data DIR               # another data folder (ledger, photos, settings)
    zipai app --screenshots DIR        # one PNG per screen, with the sample photo, then exit
    zipai app --size 720x1280          # window size (portrait phone by default for screenshots)
    zipai app --screenshots DIR --teach-photo T.jpg   # 认牌 shown with that teaching photo learned
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="zipai app", description="The Zipai table app (Kivy).")
    p.add_argument("--data", metavar="DIR", help="data folder: ledger, photos, settings "
                   "(default $ZIPAI_APP_DATA or ~/.local/share/zipai/app)")
    p.add_argument("--screenshots", metavar="DIR", help="walk every screen with the sample photo, save "
                   "one PNG per screen into DIR, and exit (uses a fresh temporary data folder)")
    p.add_argument("--photo", metavar="FILE", help="the photo for --screenshots (default: models/sample.jpg)")
    p.add_argument("--teach-photo", metavar="FILE", help="a teaching photo (20 faces in two rows) "
                   "for the 认牌 screen of --screenshots; without it that screen shows its guide")
    p.add_argument("--size", metavar="WxH", help="window size in pixels, e.g. 540x960")
    p.add_argument("--lang", choices=("zh_Hans", "zh_Hant", "en"), help="language for this run")
    return p


def _size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size must look like 540x960, not {text!r}") from None
    if not (200 <= w <= 4000 and 200 <= h <= 4000):
        raise ValueError(f"--size {text}: each side must be 200–4000 pixels")
    return w, h


def _no_display() -> bool:
    """A Linux desktop without X11 or Wayland (and no SDL driver chosen): nothing to show on."""
    from .android_ort import on_android

    if sys.platform != "linux" or on_android() or os.environ.get("SDL_VIDEODRIVER"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def kivy_env(headless: bool = False, home: str | None = None) -> None:
    """Settings Kivy reads on first import: no argv parsing, quiet console, own config home."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    os.environ.setdefault("KIVY_CLIPBOARD", "sdl2")
    if home:
        os.environ["KIVY_HOME"] = home
    if headless:
        os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
        os.environ.pop("DISPLAY", None)


def _say(msg: str) -> None:
    """One line on the real stderr (Kivy's logger takes over ``sys.stderr`` once imported)."""
    print(f"zipai app: {msg}", file=sys.__stderr__ or sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        size = _size(args.size)
    except ValueError as exc:
        _say(f"{exc}")
        return 2
    shots = Path(args.screenshots) if args.screenshots else None
    photo = None
    if shots is not None:
        from .state import sample_photo

        photo = Path(args.photo) if args.photo else sample_photo()
        if photo is not None and not photo.is_file():
            _say(f"photo {str(photo)!r} not found")
            return 2
        if args.teach_photo and not Path(args.teach_photo).is_file():
            _say(f"teaching photo {args.teach_photo!r} not found")
            return 2
        try:
            shots.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _say(f"cannot create {str(shots)!r}: {exc.strerror}")
            return 2
        size = size or (540, 960)
    if shots is None and _no_display():
        _say("no display (DISPLAY and WAYLAND_DISPLAY are not set); start it in a desktop "
             "session, or save every screen with --screenshots DIR")
        return 2
    tmp = tempfile.TemporaryDirectory(prefix="zipai-app-") if shots is not None and not args.data else None
    data = Path(args.data) if args.data else (Path(tmp.name) if tmp else None)
    kivy_env(headless=shots is not None and not os.environ.get("DISPLAY"),
             home=str((data or Path(tempfile.gettempdir())) / ".kivy") if shots is not None else None)
    if size is not None:
        from kivy.config import Config

        Config.set("graphics", "width", str(size[0]))
        Config.set("graphics", "height", str(size[1]))
    from .state import default_data_dir

    data = data or default_data_dir()
    if data.exists() and not data.is_dir():
        _say(f"data folder {str(data)!r} is a file, not a folder")
        return 2
    try:
        from .app import ZipaiApp
    except ImportError as exc:
        _say(f"cannot start Kivy ({exc})")
        return 2
    try:
        app = ZipaiApp(data)
    except ValueError as exc:  # a damaged or foreign ledger file
        _say(f"{exc}")
        return 2
    except OSError as exc:  # a data folder that cannot be made or written
        _say(f"data folder {str(data)!r}: {exc.strerror or exc}")
        return 2
    if args.lang:
        app.state.set_lang(args.lang)
        app.lang = args.lang
    if shots is not None:
        from .shots import Walker

        walker = Walker(app, shots, photo, Path(args.teach_photo) if args.teach_photo else None)
        walker.start()
        app.run()
        if tmp is not None:
            tmp.cleanup()
        if walker.error:
            _say(f"{walker.error}")
            return 2
        for p in walker.saved:
            print(p)
        return 0
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
