"""The decks the app has been taught (认牌), through ``zipai.vision.deck``: the one place the app
calls it, so the state and the screens speak of deck names, a ``Taught`` and a hand's fixes.

The app keeps its decks beside its ledger (``<data>/decks``), or where ``$ZIPAI_DECKS`` says, so
``zipai deck list`` sees the same decks when pointed there. No Kivy here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from zipai.engine import CARD_NAMES
from zipai.vision import VisionError

MAX_PHOTO_BYTES = 64 * 2**20  # a teaching photo larger than this is refused, not read into memory
Box = tuple[float, float, float, float]


class Face(NamedTuple):
    """One of a teaching photo's 20 faces as the screen shows it."""

    card: str  # the card its place in the layout says it is (or the player's fix)
    box: Box  # in photo pixels
    read_as: str  # what the untaught reader read
    confidence: float

    @property
    def disputed(self) -> bool:
        """The untaught reader read another card here: worth one look."""
        return self.read_as != self.card


def faces(taught: Any) -> list[Face]:
    """A Taught's faces in layout order (x1…x10, then d1…d10 unless fixed)."""
    out = []
    for f in taught.faces:
        card, box, read_as, conf = (f.card, f.box, f.read_as, f.confidence) if hasattr(f, "card") else f
        out.append(Face(str(card), tuple(float(v) for v in box), str(read_as), float(conf)))  # type: ignore[arg-type]
    return out


class DeckUnavailable(VisionError):
    """This build has no deck learner (``zipai.vision.deck`` is missing): teaching cannot run."""

    def __init__(self) -> None:
        super().__init__("this build cannot learn decks: zipai.vision.deck is missing", code="no_decks")


def _api() -> Any:
    try:
        from zipai.vision import deck
    except ImportError:
        raise DeckUnavailable() from None
    return deck


def read_photo(path: str | Path) -> bytes:
    """A photo's bytes, size-capped before reading (a picked file may be anything)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if not p.is_file():
            raise VisionError(f"{p.name}: not a photo file", code="not_image")
        if size > MAX_PHOTO_BYTES:
            raise VisionError(f"{p.name}: {size // 2**20} MiB is too large for a photo", code="too_large")
        return p.read_bytes()
    except OSError as exc:
        raise VisionError(f"{p.name}: {exc.strerror or exc}", code="bad_image") from None


class Shelf:
    """The app's deck store: teach, name, save, load, and add a recorded hand's corrections."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._store: Any = None

    @property
    def store(self) -> Any:
        if self._store is None:
            self._store = _api().DeckStore(self.root)
        return self._store

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return list(self.store.names())

    def load(self, name: str) -> Any:
        return self.store.load(name)

    def learn(self, photo: str | Path, name: str, detector: Any = None) -> Any:
        """The 20 faces of a teaching photo, read and labelled by position (raises TeachRefused)."""
        return _api().learn(read_photo(photo), name, detector=detector)

    def relabel(self, taught: Any, index: int, card: str) -> Any:
        if card not in CARD_NAMES:
            raise VisionError(f"{card!r} is not a face card", code="draft")
        return taught.relabel(index, card)

    def save(self, taught: Any, name: str) -> Any:
        """Store the taught deck under ``name`` (the name typed after teaching wins)."""
        deck = taught.deck if taught.deck.name == name else dataclasses.replace(taught.deck, name=name)
        self.store.save(deck)
        return deck

    def add_fixes(self, name: str, photo: str | Path, fixes: Sequence[tuple[Box, str]]) -> Any:
        """The cards a player corrected in the review, added to the deck as examples."""
        return self.store.add_examples(name, read_photo(photo), list(fixes), "review")


def default_root(data_dir: Path, env: dict[str, str]) -> Path:
    """``$ZIPAI_DECKS`` when set, else ``<data>/decks``."""
    return Path(env["ZIPAI_DECKS"]) if env.get("ZIPAI_DECKS") else data_dir / "decks"
