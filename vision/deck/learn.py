"""Learning a deck from one teaching photo of its 20 faces: the faces found, each learnt as the
card its place names, and what was learnt (``Taught``). Where the faces lie is ``places``; the
refusals (``TeachRefused``) that name what is wrong with a photo are ``refusals``; their names
stay importable from here."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from zipai.engine import CARD_NAMES

from ..decode import decode
from ..detector import Detector
from ..preprocess import cut_crops
from .model import (
    CROP,
    CROP_MARGIN,
    TILT,
    Deck,
    DeckError,
    Example,
    Peaks,
    TeachRefused,
    _card_name,
    _embed_crops,
    check_name,
    confusable,
    deck_detector,
    derive,
    finder_fingerprint,
    glyph,
    place,
)
from .places import (  # noqa: F401
    _TURNS,
    UPRIGHT,
    _agree,
    _along_rows,
    _below,
    _columns,
    _far_ends,
    _far_rows,
    _find_faces,
    _fit_places,
    _Frame,
    _frame,
    _laid_out,
    _likeness,
    _one_glyph,
    _photo_box,
    _Places,
    _plainly_upright,
    _rows,
    _Shown,
    _side,
    _turn,
    _turned,
    locate,
    read_places,
)
from .refusals import (  # noqa: F401
    _check_order,
    _check_sharp,
    _check_vacant,
    sharpness,
    vacancy,
    vacant_scores,
)

# ----------------------------------------------------------------------------- learning

@dataclass(frozen=True)
class Face:
    """One face of the teaching layout: the card its place names, its box (photo pixels), what
    the untaught reader read and how sure it was, and how strongly the finder found it."""

    card: str
    box: tuple[float, float, float, float]
    read_as: str
    confidence: float
    peak: float = 0.0  # the finder's peak on it
    found: bool = True  # whether the finder found it; else it was read at its place

    @property
    def disagrees(self) -> bool:
        """Whether the untaught read named another card (or none) than the place: worth a look."""
        return self.read_as != self.card

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card, "box": [round(v, 1) for v in self.box], "read_as": self.read_as,
                "confidence": round(self.confidence, 4), "peak": round(self.peak, 4), "found": self.found}


@dataclass(frozen=True)
class Taught:
    """What ``learn`` made of a teaching photo (the app shows it for one look and a tap to fix)."""

    deck: Deck
    faces: tuple[Face, ...]
    back: tuple[float, float, float, float] | None
    separations: dict[str, tuple[str, float]]
    warnings: tuple[str, ...]
    upside_down: bool
    seconds: float
    detector: Detector | None = field(default=None, repr=False, compare=False)

    @property
    def disagreed(self) -> list[int]:
        """The faces whose untaught read disagreed with the card their place names."""
        return [i for i, f in enumerate(self.faces) if f.disagrees]

    def disagreements(self) -> tuple[str, ...]:
        """One line per place that disagreed with the order, for a glance: learnt by its place."""
        return tuple(f"{place(i)}: {glyph(f.card)}, {'read as' if f.found else 'not found, read there as'} "
                     f"{glyph(f.read_as)}" for i, f in enumerate(self.faces) if f.disagrees)

    def relabel(self, index: int, card: str) -> Taught:
        """The deck with face ``index`` taken to show ``card`` (a tap to fix), derived again."""
        if not 0 <= index < len(self.faces):
            raise DeckError(f"no face {index} in deck {self.deck.name!r} (0 to {len(self.faces) - 1})")
        card = _card_name(card)
        faces = list(self.faces)
        faces[index] = replace(faces[index], card=card)
        examples = list(self.deck.examples)
        examples[index] = replace(examples[index], card=card)
        det = self.detector or deck_detector()
        deck = derive(det, self.deck.name, examples, self.deck.created, _peaks(det, faces))
        seps = deck.separations()
        dup = _duplicates(faces)
        return replace(self, deck=deck, faces=tuple(faces), separations=seps,
                       warnings=dup + confusable(seps))

    def to_json(self) -> dict[str, Any]:
        return {"deck": self.deck.name, "faces": [f.to_json() for f in self.faces],
                "back": None if self.back is None else [round(v, 1) for v in self.back],
                "separations": {c: {"nearest": n, "distance": d} for c, (n, d) in self.separations.items()},
                "warnings": list(self.warnings), "upside_down": self.upside_down,
                "disagreed": self.disagreed,
                "seconds": round(self.seconds, 3), "counts": self.deck.counts()}


def _peaks(det: Detector, faces: Sequence[Face]) -> Peaks:
    """Each card's peak: its face's (the stronger, should two faces be taken as one card)."""
    values = [0.0] * len(CARD_NAMES)
    for f in faces:
        i = CARD_NAMES.index(f.card)
        values[i] = max(values[i], f.peak)
    return Peaks(finder_fingerprint(det), tuple(values))


def _duplicates(faces: Sequence[Face]) -> tuple[str, ...]:
    seen = [f.card for f in faces]
    missing = [c for c in CARD_NAMES if c not in seen]
    return (f"no face is taken as {', '.join(glyph(c) for c in missing)}",) if missing else ()


def learn(photo: bytes, name: str, detector: Detector | None = None,
          progress: Callable[[float], None] | None = None) -> Taught:
    """Learn a deck from a photo of its 20 faces in two rows of ten (small cards on top, each
    row 一 to 十 left to right), by place: the layout's order is the truth learnt from, so a
    face the finder missed is read where its place lies, and a face the reader misreads is
    learnt as the card its place names (the places that disagreed are ``Taught.disagreed``).
    Raises ``TeachRefused`` with the line to show the player. ``progress`` is told the share
    done (0 to 1) as the work goes (an app draws it)."""
    t0 = time.perf_counter()
    tell = progress or (lambda _share: None)
    check_name(name)
    det = detector or deck_detector()
    decoded = decode(photo, "teaching photo")
    tell(0.05)
    quarters, decoded, (rows, back, n, frame, places) = locate(det, decoded, tell)
    turned = quarters == 2  # taken upside down
    _check_sharp(decoded, [d for r in rows for d in r], det)
    if places is None:
        shape = " and ".join(str(len(r)) for r in rows[:4]) + (" and more" if len(rows) > 4 else "")
        where = "" if n != 20 else f" (in rows of {shape})"
        raise TeachRefused(f"found {n} faces{where}, need 20 in two rows of ten",
                           "teach_found_rows" if where else "teach_found", n=n,
                           rows=",".join(str(len(r)) for r in rows[:4]) + (",…" if len(rows) > 4 else ""))
    arr = np.asarray(decoded.image, np.uint8)
    k = decoded.scale
    boxes = places.boxes / k
    found, boxes = read_places(det, arr, boxes, places, k)
    _check_vacant(arr, boxes, places, found)
    upright = list(CARD_NAMES)
    flipped = [*reversed(CARD_NAMES[10:]), *reversed(CARD_NAMES[:10])]
    miss = [sum(d.card != c for d, c in zip(found, want, strict=True)) for want in (upright, flipped)]
    half = miss[1] < miss[0]
    labels = flipped if half else upright
    if half:  # each card reads the same turned round: only the order shows the photo was turned
        turned = not turned
    emb = _embed_crops(det, cut_crops(arr, boxes, det.config.reader.size, det.config.reader.margin))
    _check_order(found, labels, emb)
    tell(0.85)
    # glyphs kept upright, as a straight photo shows them (a photo turned by less is cut as it is)
    angle = frame.angle if abs(frame.angle) > TILT else 0.0
    crops = cut_crops(arr, boxes, CROP, CROP_MARGIN,
                      np.full(len(boxes), angle, np.float32) if angle else None)
    order = np.argsort([CARD_NAMES.index(c) for c in labels])  # the faces in CARD_NAMES order
    faces = [Face(labels[i], _photo_box(found[i].box, decoded, quarters),
                  found[i].card, float(found[i].class_prob), float(found[i].finder_score),
                  places.finds[i] is not None) for i in order]
    examples = [Example(labels[i], "teach", crops[i]) for i in order]
    back_box = None
    if back is not None:
        size = float(np.median(boxes[:, 2:] - boxes[:, :2]))
        cx, cy = back.center
        cx, cy, half_side = cx / k, cy / k, size / 2
        bb = np.asarray([[cx - half_side, cy - half_side, cx + half_side, cy + half_side]], np.float32)
        turn = np.asarray([angle], np.float32) if angle else None
        examples.append(Example("back", "teach", cut_crops(arr, bb, CROP, CROP_MARGIN, turn)[0]))
        back_box = _photo_box(back.box, decoded, quarters)
    deck = derive(det, name, examples, peaks=_peaks(det, faces))
    tell(1.0)
    seps = deck.separations()
    return Taught(deck, tuple(faces), back_box, seps, confusable(seps), turned,
                  time.perf_counter() - t0, det)
