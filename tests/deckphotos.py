"""Teaching photos and a table scene of one held-out deck, rendered once per test run (the deck
tests share them; rendering is the slow part)."""

from __future__ import annotations

import functools
import io

from zipai.datasets.scene import render_scene_full
from zipai.datasets.teach import DeckRef, render_teach

REF = DeckRef(5, "heldout", 0)
SIZE = (960, 720)


def _jpeg(img: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=90)  # type: ignore[attr-defined]
    return buf.getvalue()


# a deck whose 二 the finder splits into its two strokes and whose 叁's 三 it finds apart
SPLIT_GLYPHS = DeckRef(21, "heldout", 18, 1, 0.3)


@functools.cache
def teach(variant: str = "good", ref: DeckRef = REF) -> tuple[bytes, dict]:
    """A teaching photo of ``ref``'s deck (``datasets.teach.VARIANTS``) and its label."""
    img, label = render_teach(ref, variant, SIZE)
    return _jpeg(img), label


@functools.cache
def scene() -> bytes:
    """A table scene printed with REF's deck."""
    img, _, _ = render_scene_full(5, "heldout", 1000, SIZE, deck=REF.deck())
    return _jpeg(img)
