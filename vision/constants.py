"""The classes and network shapes that the scenes' labels, training and the runtime must agree on.

A scene's COCO category, a training target and a manifest's class list are three views of one
numbering; a network trained at one stride or crop size reads nothing at another. They live
here once, below ``zipai.datasets`` and ``zipai.models``, so that no package keeps its own copy.
The manifest of a shipped model records the shapes it was trained at, and the runtime reads
them from there; these are the values training exports. Imports nothing but the engine.
"""

from __future__ import annotations

from zipai.engine import CARD_NAMES

N_FACES = len(CARD_NAMES)  # the 20 faces, in the engine's index order: x1..x10, d1..d10
BACK = "back"
# COCO categories of a rendered scene: 1..20 the faces, 21 a card back
CATEGORY_NAMES: tuple[str, ...] = (*CARD_NAMES, BACK)
BACK_ID = CATEGORY_NAMES.index(BACK) + 1
# what the finder tells apart; it reads no face
FINDER_CLASSES: tuple[str, ...] = ("glyph", BACK)
# what the reader tells apart: the faces, a back, and "none" (no card glyph: a face upside down
# at a card's far end, a pattern, a false find)
READER_CLASSES: tuple[str, ...] = (*CARD_NAMES, BACK, "none")

FINDER_STRIDE = 4  # photo pixels of the finder's input per heatmap cell
FINDER_LONG_SIDE = 416  # the finder's input: the photo scaled to this long side …
FINDER_MULTIPLE = 32  # … and padded to a multiple of this
READER_CROP = 48  # the reader's input: a square crop this many pixels wide …
READER_MARGIN = 1.3  # … around a glyph box grown by this factor

# faces that read the same turned half round (一 二 三 十), so that a card's two ends agree
SYMMETRIC: frozenset[str] = frozenset({"x1", "x2", "x3", "x10"})
RED: frozenset[str] = frozenset({"x2", "x7", "x10", "d2", "d7", "d10"})  # printed in red ink


def category_name(category_id: int) -> str:
    """A COCO category id's card name (``back`` for 21)."""
    return CATEGORY_NAMES[category_id - 1]
