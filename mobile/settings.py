"""What the app remembers and holds between screens, apart from any widget: the settings file,
how a hand was won, the hand being entered, and the refusal the screens show.

Kept apart from ``state`` so that the small value types load without the ledger or the engine's
scoring; ``zipai.mobile.state`` re-exports every name here.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zipai.engine.variants import variant_names

from .draft import PLACES, Draft
from .i18n import LANGS

WON_BY = ("self_draw", "stock", "discard", "dealt")
PRESETS = variant_names()  # the rule sets offered, in the registry's order
CAMERA_RESOLUTIONS = ("640x480", "1280x720", "1920x1080")


MAX_NAME = 8  # characters of a player's name: what a seat's button shows on a 360 dp phone


def _drawable(ch: str) -> bool:
    """A character the CJK font draws: no emoji, pictographs or other symbols beyond the BMP."""
    cp = ord(ch)
    return cp < 0x10000 and not (0x2600 <= cp <= 0x27BF or 0xFE00 <= cp <= 0xFE0F or 0x200D == cp
                                 or 0x2B00 <= cp <= 0x2BFF or 0xE000 <= cp <= 0xF8FF)


class AppError(ValueError):
    """Something the user asked for cannot be done; the message says what, in one line, in the
    user's language (worded from ``code``, never the English text of the layer below)."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Settings:
    """What the app remembers between runs (besides the ledger)."""

    lang: str = "zh_Hans"
    preset: str = "hunan"
    camera: str = "1280x720"
    camera_source: str = "0"  # the desktop camera: a device number, or a video file standing in
    screen: str = "start"  # the last screen shown, to come back to after a kill
    deck: str = ""  # the deck in use (认牌), by name; "" reads with the shipped reader alone
    teach_offered: bool = False  # the first start's offer to teach a deck was answered
    photo_dir: str = ""  # the folder the last photo was picked from (the chooser opens there)
    # each evening's answer to which row of a photo holds the claimed groups: session id -> a place
    # (top, bottom, left or right)
    claimed: dict[str, str] = field(default_factory=dict)


    @classmethod
    def load(cls, path: Path) -> Settings:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        s = cls()
        for k in ("lang", "preset", "camera", "camera_source", "screen", "deck", "photo_dir"):
            if isinstance(raw.get(k), str):
                setattr(s, k, raw[k])
        if isinstance(raw.get("teach_offered"), bool):
            s.teach_offered = raw["teach_offered"]
        if isinstance(raw.get("claimed"), dict):
            s.claimed = {k: v for k, v in raw["claimed"].items() if isinstance(k, str) and v in PLACES}
        if s.lang not in LANGS:
            s.lang = "zh_Hans"
        if s.preset not in PRESETS:
            s.preset = "hunan"
        return s


@dataclass
class WinInfo:
    """How the hand was won (RULINGS section 5), as the win screen sets it."""

    winner: int | None = None
    won_by: str = "self_draw"
    discarder: int | None = None
    winning_card: str | None = None
    minimum: int | None = None  # Guangxi: the dealer's minimum for this hand
    xing: str | None = None  # Guilin: the turned 醒 card
    first_discard: bool = False


@dataclass
class Pending:
    """What the app is doing now: the draft, the win, and which ledger hand is being edited."""

    draft: Draft = field(default_factory=Draft.manual)
    win: WinInfo = field(default_factory=WinInfo)
    editing: int | None = None  # the ledger's hand number when editing a recorded hand
    first: dict[str, Any] | None = None  # Guangxi: the first of two instant wins after one deal
    ack: bool = False  # the review's doubts ticked off: this draft's only, a new photo starts unticked
    session: int | None = None  # the session the hand is entered in: a draft never follows into another
    seen: list[str] = field(default_factory=list)  # the review's scene doubts the player has looked at


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def default_data_dir() -> Path:
    """``$ZIPAI_APP_DATA``, else the app's private folder on Android, else ``$XDG_DATA_HOME/zipai/app``
    (``~/.local/share/zipai/app``)."""
    env = os.environ.get("ZIPAI_APP_DATA")
    if env:
        return Path(env)
    if os.environ.get("ANDROID_PRIVATE"):  # set by python-for-android: the app's own files folder
        return Path(os.environ["ANDROID_PRIVATE"]) / "zipai"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "zipai" / "app"
