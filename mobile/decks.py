"""The decks the app has been taught (认牌), through ``zipai.vision.deck``: the one place the app
calls it, so the state and the screens speak of deck names, a ``Taught`` and a hand's fixes.

The app keeps its decks beside its ledger (``<data>/decks``), or where ``$ZIPAI_DECKS`` says, so
``zipai deck list`` sees the same decks when pointed there. Learning and reading with a deck
need the reader's embedding twin, a second detector loaded only when a deck is used. No Kivy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from zipai.engine import CARD_NAMES, Card
from zipai.vision import Detector, VisionError
from zipai.vision.deck import CONFUSABLE, Deck, DeckError, DeckStore, Taught, TeachRefused, learn

from .i18n import Translator

MAX_PHOTO_BYTES = 64 * 2**20  # a teaching photo larger than this is refused, not read into memory
Box = tuple[float, float, float, float]


def read_photo(path: str | Path) -> bytes:
    """A photo's bytes, size-capped before reading (a picked file may be anything)."""
    p = Path(path)
    try:
        if not p.is_file():
            raise VisionError(f"{p.name}: not a photo file", code="not_image")
        size = p.stat().st_size
        if size > MAX_PHOTO_BYTES:
            raise VisionError(f"{p.name}: {size // 2**20} MiB is too large for a photo", code="too_large")
        return p.read_bytes()
    except OSError as exc:
        raise VisionError(f"{p.name}: {exc.strerror or exc}", code="bad_image") from None


class Shelf:
    """The app's deck store: teach, name, save, load, and add a recorded hand's corrections.

    ``detector`` makes the embedding detector on first need: listing decks never loads it."""

    def __init__(self, root: Path, detector: Callable[[], Detector]) -> None:
        self.root = root
        self.detector = detector

    def _store(self) -> DeckStore:
        return DeckStore(self.root, detector=self.detector())

    def names(self) -> list[str]:
        return DeckStore(self.root).names()

    def load(self, name: str) -> Deck:
        return self._store().load(name)

    def learn(self, photo: str | Path, name: str, progress: Callable[[float], None] | None = None) -> Taught:
        """The 20 faces of a teaching photo, named by their places (raises TeachRefused);
        ``progress`` is told the share done as the learner goes."""
        return learn(read_photo(photo), name, detector=self.detector(), progress=progress)

    def relabel(self, taught: Taught, index: int, card: str) -> Taught:
        if card not in CARD_NAMES:
            raise DeckError(f"{card!r} is not a face card", "draft")
        return taught.relabel(index, card)

    def save(self, taught: Taught, name: str) -> Deck:
        """Store the taught deck under ``name`` (the name typed after teaching wins)."""
        deck = taught.deck if taught.deck.name == name else replace(taught.deck, name=name)
        self._store().save(deck)
        return deck

    def add_fixes(self, name: str, photo: str | Path, fixes: Sequence[tuple[Box, str]]) -> Deck:
        """The cards a player corrected in the review, added to the deck as examples."""
        return self._store().add_examples(name, read_photo(photo), list(fixes), "review")


def confusable_pairs(taught: Taught) -> list[tuple[str, str]]:
    """The pairs of cards this deck's prototypes leave close, each once, in card order."""
    pairs = {(min(a, b, key=CARD_NAMES.index), max(a, b, key=CARD_NAMES.index))
             for a, (b, d) in taught.separations.items() if d < CONFUSABLE}
    return sorted(pairs, key=lambda p: (CARD_NAMES.index(p[0]), CARD_NAMES.index(p[1])))


def untaken(taught: Taught) -> list[str]:
    """Cards no face is taken as (after a fix made two faces one card)."""
    have = {f.card for f in taught.faces}
    return [c for c in CARD_NAMES if c not in have]


def default_root(data_dir: Path, env: Mapping[str, str]) -> Path:
    """``$ZIPAI_DECKS`` when set, else ``<data>/decks``."""
    return Path(env["ZIPAI_DECKS"]) if env.get("ZIPAI_DECKS") else data_dir / "decks"


def _glyph(numeral: str, t: Translator) -> str:
    try:
        return Card.parse(numeral).chinese(traditional=t.traditional)
    except ValueError:
        return numeral


def refusal_words(exc: TeachRefused, t: Translator) -> str:
    """A refused teaching photo's line in the player's words, from the refusal's kind and fields;
    a kind this app has no words for is shown as the learner wrote it."""
    if not t.has(exc.kind):
        return str(exc)
    fields = {k: str(v) for k, v in exc.fields.items()}
    for k in ("read", "want", "want2"):
        if k in fields:
            fields[k] = _glyph(fields[k], t)
    if "rows" in fields:
        fields["rows"] = fields["rows"].replace(",", "、")
    try:
        return t(exc.kind, **fields)
    except (KeyError, IndexError):
        return str(exc)


__all__ = ["Box", "Deck", "DeckError", "Shelf", "Taught", "TeachRefused", "confusable_pairs", "default_root",
           "read_photo", "refusal_words", "untaken"]
