"""Teaching the scanner one printed deck from a photo of its 20 faces, and reading with it
(docs/decks.md). Four parts, each on the ones below it: ``model`` (the deck's types, its
prototypes and the file format), ``lens`` (reading a scan's finds with a deck), ``learn``
(learning a deck from a teaching photo; where its faces lie is ``places``, its refusals
``refusals``) and ``store`` (where decks live, written atomically under a lock); ``cli`` is
``zipai deck``. The names are re-exported here so callers import the package.

Runtime code: numpy, Pillow and onnxruntime only."""

from zipai.engine import CARD_NAMES

from ..detection import Finds
from ..detector import Detection, Detector
from .learn import Face, Taught, learn
from .lens import ADMIT, Admit, Lens, reread
from .model import (
    ALIKE,
    AUGMENTS,
    CLASSES,
    CONFUSABLE,
    CROP,
    CROP_MARGIN,
    EXAMPLE_BYTES,
    FORMAT,
    LOCK_WAIT,
    MAGIC,
    MAX_DIM,
    MAX_EXAMPLES,
    MAX_FILE,
    MAX_HEADER,
    MAX_NAME,
    MAX_PER_CARD,
    MAX_STRAY,
    MAX_UNSURE,
    MIN_PLACED,
    MIN_SHARPNESS,
    NAME_BYTES,
    READ_FORMATS,
    SEARCH,
    SHARPNESS,
    SOURCES,
    TILT,
    TWINS,
    VACANT_CROP,
    VACANT_INK,
    VACANT_PAPER,
    VACANT_SPREAD,
    WEIGHT,
    Deck,
    DeckError,
    Example,
    Peaks,
    TeachRefused,
    check_name,
    confusable,
    deck_detector,
    derive,
    dumps,
    embed_dim,
    finder_fingerprint,
    fingerprint,
    glyph,
    loads,
    place,
    read_deck,
    separations,
    views,
    with_back,
)
from .places import (
    UPRIGHT,
    _far_ends,
    _far_rows,
    _fit_places,
    _one_glyph,
    _rows,
    _turned,
    locate,
    read_places,
)
from .refusals import sharpness, vacancy, vacant_scores
from .store import SUFFIX, DeckStore, _checked_box, box_numbers, default_root

__all__ = [
    "ADMIT", "ALIKE", "AUGMENTS", "CARD_NAMES", "CLASSES", "CONFUSABLE", "CROP", "CROP_MARGIN",
    "EXAMPLE_BYTES", "FORMAT", "LOCK_WAIT", "MAGIC", "MAX_DIM", "MAX_EXAMPLES", "MAX_FILE", "MAX_HEADER",
    "MAX_NAME", "MAX_PER_CARD", "MAX_STRAY", "MAX_UNSURE", "MIN_PLACED", "MIN_SHARPNESS", "NAME_BYTES",
    "READ_FORMATS", "SEARCH", "SHARPNESS", "SOURCES", "SUFFIX", "TILT", "TWINS", "UPRIGHT", "VACANT_CROP",
    "VACANT_INK", "VACANT_PAPER", "VACANT_SPREAD", "WEIGHT", "Admit", "Deck", "DeckError", "DeckStore",
    "Detection", "Detector", "Example", "Face", "Finds", "Lens", "Peaks", "Taught", "TeachRefused",
    "_checked_box", "_far_ends", "_far_rows", "_fit_places", "_one_glyph", "_rows", "_turned",
    "box_numbers", "check_name", "confusable", "deck_detector", "default_root", "derive", "dumps",
    "embed_dim", "finder_fingerprint", "fingerprint", "glyph", "learn", "loads", "locate", "place",
    "read_deck", "read_places", "reread", "separations", "sharpness", "vacancy", "vacant_scores", "views",
    "with_back",
]
