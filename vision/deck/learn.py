"""Learning a deck from one teaching photo of its 20 faces: the faces found, the places and
rows they lie in, the order they are laid in, and the refusals (``TeachRefused``) that name
what is wrong with a photo."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from PIL import Image

from zipai.engine import CARD_NAMES, Card

from ..decode import Decoded, decode
from ..detector import Detection, Detector
from ..preprocess import cut_crops
from ..selector import SYMMETRIC
from ..steps import ClassIndex
from .model import (
    ALIKE,
    CROP,
    CROP_MARGIN,
    MAX_STRAY,
    MAX_UNSURE,
    MIN_PLACED,
    MIN_SHARPNESS,
    SEARCH,
    TILT,
    TWINS,
    VACANT_CROP,
    VACANT_INK,
    VACANT_PAPER,
    VACANT_SPREAD,
    Deck,
    DeckError,
    Example,
    Peaks,
    TeachRefused,
    _at,
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


@dataclass(frozen=True, slots=True)
class _Frame:
    """The teaching layout's own axes: ``down`` the cards' top-to-bottom direction in the photo,
    rows across it. A phone held at a slant turns the whole layout; rows and far ends are found
    along these axes, so a tilted photo reads as a straight one."""

    down: tuple[float, float] = (0.0, 1.0)

    def at(self, d: Detection) -> tuple[float, float]:
        """(along the rows, down the cards) of a find's centre."""
        (x, y), (dx, dy) = d.center, self.down
        return x * dy - y * dx, x * dx + y * dy

    @property
    def angle(self) -> float:
        """The turn (radians, ``cut_crops``' sense) that sets the layout's glyphs upright."""
        return float(np.arctan2(-self.down[0], self.down[1]))


UPRIGHT = _Frame()


def _frame(faces: list[Detection]) -> _Frame:
    """The layout's axes from the down directions the reader gives the faces that show one (not
    一二三十, which read the same turned round); the photo's own axes when too few do, or when
    the layout lies more than 60 degrees round: the reader's downs are unsure that far, and a
    photo on its side is read turned a right angle instead (``learn``)."""
    downs = np.asarray([d.down for d in faces if d.card not in SYMMETRIC], np.float64).reshape(-1, 2)
    if len(downs) < 4:
        return UPRIGHT
    m = np.median(downs, axis=0)
    n = float(np.linalg.norm(m))
    return UPRIGHT if n < 0.5 or m[1] / n < 0.5 else _Frame((float(m[0] / n), float(m[1] / n)))


def _along_rows(frame: _Frame, rows: list[list[Detection]]) -> _Frame:
    """The frame turned to lie along the rows themselves: the reader's down directions are a
    few degrees shy on a slanted photo, and a row of ten cards shows its slope better. The
    slope is the least-squares one of the rows of five or more, each about its own mean."""
    pts = [np.asarray([frame.at(d) for d in r], np.float64) for r in rows if len(r) >= 5]
    if not pts:
        return frame
    centred = np.concatenate([p - p.mean(axis=0) for p in pts])
    spread = float(centred[:, 0] @ centred[:, 0])
    if spread <= 0:
        return frame
    slope = float(centred[:, 0] @ centred[:, 1]) / spread
    (dx, dy) = frame.down
    rx, ry = dy + slope * dx, -dx + slope * dy  # the rows' direction in the photo
    n = float(np.hypot(rx, ry))
    return _Frame((-ry / n, rx / n))


def _rows(faces: list[Detection], frame: _Frame = UPRIGHT) -> list[list[Detection]]:
    """The faces in rows, top to bottom, each left to right: a new row where the next glyph
    down lies more than a glyph size below the last."""
    if not faces:
        return []
    size = float(np.median([_side(d) for d in faces]))
    rows: list[list[Detection]] = []
    for d in sorted(faces, key=lambda d: frame.at(d)[1]):
        if rows and frame.at(d)[1] - frame.at(rows[-1][-1])[1] <= size:
            rows[-1].append(d)
        else:
            rows.append([d])
    return [sorted(r, key=lambda d: frame.at(d)[0]) for r in rows]


def _below(d: Detection, u: Detection, frame: _Frame, size: float) -> bool:
    """Whether ``d`` lies straight below ``u``, further than a glyph and within a card's length."""
    (du, dv), (uu, uv) = frame.at(d), frame.at(u)
    return abs(du - uu) < 0.6 * size and 1.5 * size < dv - uv < 7 * size


def _one_glyph(faces: list[Detection], frame: _Frame = UPRIGHT) -> list[Detection]:
    """The faces with the pieces of one glyph made one: a glyph the finder split in two (the
    two strokes of 二, the 三 under 叁's 厶 and 大) gives a weaker find inside or just below the
    strong one. The teaching layout's cards never overlap, so two faces closer than a glyph
    (the photo's median glyph size: a piece's own box is small) are one card's; the stronger
    keeps its card and takes the union of the boxes."""
    if len(faces) < 2:
        return faces
    size = float(np.median([_side(d) for d in faces]))
    kept: list[Detection] = []
    for d in sorted(faces, key=lambda d: -d.score):
        (du, dv) = frame.at(d)
        for n, u in enumerate(kept):
            uu, uv = frame.at(u)
            if abs(du - uu) < 0.6 * size and abs(dv - uv) < 1.0 * size:
                box = (min(u.box[0], d.box[0]), min(u.box[1], d.box[1]),
                       max(u.box[2], d.box[2]), max(u.box[3], d.box[3]))
                kept[n] = replace(u, box=box)
                break
        else:
            kept.append(d)
    return kept


def _far_ends(faces: list[Detection], frame: _Frame = UPRIGHT) -> list[Detection]:
    """The faces less the far ends the finder kept: 一二三十 read the same turned round, so the
    reader gives them no down, and a card's other end is the same card straight below it,
    within a card's length."""
    def far(d: Detection) -> bool:
        return d.card in SYMMETRIC and any(
            u is not d and u.card == d.card and _below(d, u, frame, _side(u)) for u in faces)

    return [d for d in faces if not far(d)]


def _far_rows(rows: list[list[Detection]], frame: _Frame = UPRIGHT) -> list[list[Detection]]:
    """Rows less a short one (three finds or fewer) between or below full rows whose every find
    lies straight below a find of the row above, within a card's length: far ends the reader
    misread (一's far end read as 三). A find of that short row below a gap of the row above
    is the far end of the card whose near end the finder missed (a faint 一): as 一二三十 read
    the same either way round, it stands in for its card, in the row above."""
    kept: list[list[Detection]] = []
    for r in rows:
        above = kept[-1] if kept else []
        if len(r) <= 3 and len(above) >= 5:
            size = float(np.median([_side(u) for u in above]))
            level = float(np.median([frame.at(u)[1] for u in above]))

            def under(d: Detection, above: list[Detection] = above) -> bool:
                return any(_below(d, u, frame, _side(u)) for u in above)

            def stands_in(d: Detection, above: list[Detection] = above, size: float = size,
                          level: float = level) -> bool:
                (du, dv) = frame.at(d)
                return d.card in SYMMETRIC and len(above) < 10 and 1.5 * size < dv - level < 7 * size \
                    and all(abs(du - frame.at(u)[0]) >= 0.6 * size for u in above)

            if all(under(d) or stands_in(d) for d in r):
                kept[-1] = sorted([*above, *(d for d in r if not under(d))], key=lambda d: frame.at(d)[0])
                continue
        kept.append(r)
    return kept


def _side(d: Detection) -> float:
    return max(d.box[2] - d.box[0], d.box[3] - d.box[1], 1.0)


def _turned(d: Detection) -> bool:
    """A glyph that reads upside down in the photo (a card's far end, or a turned photo)."""
    return d.card not in SYMMETRIC and d.down[1] < -0.5


def _find_faces(det: Detector, decoded: Decoded) -> _Shown:
    dets = det.detect(decoded).detections
    faces = [d for d in dets if d.card != "back" and not _turned(d)]
    backs = sorted((d for d in dets if d.card == "back"), key=lambda d: -d.score)
    frame = _frame(faces)
    rows = _far_rows(_rows(_far_ends(_one_glyph(faces, frame), frame), frame), frame)
    if frame is not UPRIGHT or any(len(r) != 10 for r in rows):
        frame = _along_rows(frame, rows)
        rows = _far_rows(_rows(_far_ends(_one_glyph(faces, frame), frame), frame), frame)
    return rows, backs[0] if backs else None, sum(len(r) for r in rows), frame, _fit_places(rows, frame)


_TURNS = {1: Image.Transpose.ROTATE_90, 2: Image.Transpose.ROTATE_180, 3: Image.Transpose.ROTATE_270}


def _turn(decoded: Decoded, quarters: int = 2) -> Decoded:
    """The decoded photo turned anticlockwise by ``quarters`` right angles."""
    w, h = (decoded.height, decoded.width) if quarters % 2 else (decoded.width, decoded.height)
    return Decoded(decoded.image.transpose(_TURNS[quarters]), w, h)


def _laid_out(rows: list[list[Detection]]) -> bool:
    return [len(r) for r in rows] == [10, 10]


@dataclass(frozen=True, slots=True)
class _Places:
    """The 20 places of the teaching layout in one photo, photo rows top to bottom, each left
    to right: the face the finder found at each (None: it found nothing there), and each place's
    glyph box (photo pixels). A missed place's box lies between its row's found neighbours by
    its column, as wide and tall as its row's glyphs: the layout's order and spacing are known,
    so the faces found show where the others lie."""

    finds: tuple[Detection | None, ...]
    boxes: np.ndarray  # [20, 4] float32
    step: tuple[float, float] = (0.0, 0.0)  # from one place to the next along a row (photo pixels)

    @property
    def found(self) -> int:
        return sum(d is not None for d in self.finds)

    @property
    def missed(self) -> list[int]:
        return [i for i, d in enumerate(self.finds) if d is None]


# what one way of turning a teaching photo shows: rows of faces, the back, the faces' count, the
# layout's axes and its places
_Shown = tuple[list[list[Detection]], Detection | None, int, _Frame, _Places | None]


def _columns(row: list[Detection], frame: _Frame, pitch: float) -> list[int]:
    """Each face's column, the row's first at 0: a gap of about k pitches leaves k - 1 places empty."""
    us = [frame.at(d)[0] for d in row]
    cols = [0]
    for a, b in itertools.pairwise(us):
        cols.append(cols[-1] + max(1, round((b - a) / pitch)))
    return cols


def _agree(at: dict[int, Detection], names: Sequence[str]) -> int:
    return sum(d.card == names[c] for c, d in at.items())


def _fit_places(rows: list[list[Detection]], frame: _Frame) -> _Places | None:
    """The layout's 20 places from the faces found (``_Places``), or None where the rows do not
    show it: fewer than MIN_PLACED faces in the two longest rows, a row of under five, more than
    ten places in a row, or more than MAX_STRAY faces off them. Each row's columns come from its
    gaps (the spacing is the median gap); a row that spans fewer than ten columns is set where
    its columns line up with the other row's, then where its faces read as their places name
    them (upright or turned round)."""
    if len(rows) < 2:
        return None
    order = sorted(range(len(rows)), key=lambda i: -len(rows[i]))
    if sum(len(rows[i]) for i in order[2:]) > MAX_STRAY:
        return None
    pair = [rows[i] for i in sorted(order[:2])]
    if min(len(r) for r in pair) < 5 or sum(len(r) for r in pair) < MIN_PLACED:
        return None
    us = [[frame.at(d)[0] for d in r] for r in pair]
    pitch = float(np.median([b - a for u in us for a, b in itertools.pairwise(u)]))
    if pitch < 0.8 * float(np.median([_side(d) for r in pair for d in r])):
        return None  # glyphs closer than their size: not cards laid side by side
    cols = [_columns(r, frame, pitch) for r in pair]
    if max(c[-1] for c in cols) > 9:
        return None
    upright = (CARD_NAMES[:10], CARD_NAMES[10:])
    flipped = (CARD_NAMES[:9:-1], CARD_NAMES[9::-1])
    best: tuple[tuple[bool, int, float], tuple[dict[int, Detection], ...]] | None = None
    for o0 in range(10 - cols[0][-1]):
        for o1 in range(10 - cols[1][-1]):
            at = ({c + o0: d for c, d in zip(cols[0], pair[0], strict=True)},
                  {c + o1: d for c, d in zip(cols[1], pair[1], strict=True)})
            shared = sorted(at[0].keys() & at[1].keys())
            off = [abs(frame.at(at[0][c])[0] - frame.at(at[1][c])[0]) for c in shared]
            err = float(np.mean(off)) / pitch if off else 0.0
            agree = max(sum(_agree(a, n) for a, n in zip(at, names, strict=True))
                        for names in (upright, flipped))
            key = (err < 0.5, agree, -err)
            if best is None or key > best[0]:
                best = (key, at)
    assert best is not None
    ats = best[1]
    centres = [{c: np.asarray(d.center, np.float64) for c, d in at.items()} for at in ats]
    steps = [np.median([(ct[b] - ct[a]) / (b - a) for a, b in itertools.pairwise(sorted(ct))], axis=0)
             for ct in centres]
    step = np.median(np.stack(steps), axis=0)
    finds: list[Detection | None] = []
    boxes = np.zeros((20, 4), np.float32)
    for r, at in enumerate(ats):
        have, ct, other = sorted(at), centres[r], centres[1 - r]
        shared = [c for c in have if c in other]
        apart = np.median([ct[c] - other[c] for c in shared], axis=0) if shared else None
        w = float(np.median([at[c].box[2] - at[c].box[0] for c in have]))
        h = float(np.median([at[c].box[3] - at[c].box[1] for c in have]))
        for c in range(10):
            d = at.get(c)
            finds.append(d)
            if d is not None:
                boxes[r * 10 + c] = d.box
                continue
            left = [k for k in have if k < c]
            right = [k for k in have if k > c]
            if left and right:  # between its neighbours, by column
                a, b = left[-1], right[0]
                guess = ct[a] + (ct[b] - ct[a]) * (c - a) / (b - a)
            else:  # beyond the row's found end: the nearest carries on by the row's step
                near = left[-1] if left else right[0]
                guess = ct[near] + step * (c - near)
            if apart is not None and c in other:  # and as far from its column's other card as the rows lie
                guess = (guess + other[c] + apart) / 2
            x, y = guess
            boxes[r * 10 + c] = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
    return _Places(tuple(finds), boxes, (float(step[0]), float(step[1])))


def _likeness(quarters: int, rows: list[list[Detection]], places: _Places | None
              ) -> tuple[bool, int, int, float, int]:
    """How much one way of turning the photo shows the layout, to rank the ways: its places
    fitted; then how many faces read as their places name them, small cards on top (each card
    prints its numeral at both ends, so a layout a right angle round one way shows upright far
    ends in the reverse order); then the faces found at places; then the share of faces that
    read upright; then the faces in the two longest rows, where a turned photo must show nearly
    all the layout to be preferred to the photo as taken."""
    two = sum(sorted((len(r) for r in rows), reverse=True)[:2])
    if places is None:
        return False, 0, 0, 0.0, two if quarters == 0 or two >= 18 else -1
    found = [d for d in places.finds if d is not None]
    downs = [d.down[1] for d in found if d.card not in SYMMETRIC]
    upright = sum(v > 0.5 for v in downs) / len(downs) if downs else 0.0
    straight = sum(d is not None and d.card == c for d, c in zip(places.finds, CARD_NAMES, strict=True))
    return True, straight, places.found, upright, two


def _plainly_upright(shown: _Shown) -> bool:
    """Two rows of ten; or the layout's places fitted with most faces upright and reading as
    their places name them, small cards on top (turned round, every face but 一二三十 reads
    upside down and is set aside; on its side, no two rows show)."""
    rows, places = shown[0], shown[4]
    if _laid_out(rows):
        return True
    if places is None:
        return False
    found = [d for d in places.finds if d is not None]
    downs = [d.down[1] for d in found if d.card not in SYMMETRIC]
    straight = sum(d is not None and d.card == c for d, c in zip(places.finds, CARD_NAMES, strict=True))
    return bool(downs) and sum(v > 0.5 for v in downs) >= 0.8 * len(downs) and straight >= MIN_PLACED - 3


def locate(det: Detector, decoded: Decoded, tell: Callable[[float], None] | None = None
           ) -> tuple[int, Decoded, _Shown]:
    """The way the photo is turned that shows the layout best, the photo so turned, and what it
    shows: the rows of faces, the back, the faces' count, the layout's axes and its places. The
    photo as taken; unless it shows two rows of ten, also turned round (taken from the other
    side: every glyph reads upside down) and on either side (its orientation lost): the way most
    like the layout (``_likeness``) is read, and a refusal names its count. A photo as taken
    whose places fit and whose faces read upright is not turned: a turned photo shows no two
    rows of upright faces."""
    tell = tell or (lambda _share: None)
    tries = [(0, _find_faces(det, decoded))]
    tell(0.3)
    if not _plainly_upright(tries[0][1]):
        for k, q in enumerate((2, 1, 3)):
            tries.append((q, _find_faces(det, _turn(decoded, q))))
            tell(0.3 + 0.15 * (k + 1))
    quarters, found = max(tries, key=lambda t: _likeness(t[0], t[1][0], t[1][4]))
    return quarters, _turn(decoded, quarters) if quarters else decoded, found


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
        examples.append(Example("back", "teach", cut_crops(arr, bb, CROP, CROP_MARGIN,
                                                            np.float32([angle]) if angle else None)[0]))
        back_box = _photo_box(back.box, decoded, quarters)
    deck = derive(det, name, examples, peaks=_peaks(det, faces))
    tell(1.0)
    seps = deck.separations()
    return Taught(deck, tuple(faces), back_box, seps, confusable(seps), turned,
                  time.perf_counter() - t0, det)


def vacancy(arr: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Per glyph box (decoded pixels), what the square round it shows [N, 4]: its median colour
    (RGB; on a card the paper, as ink covers less than half a glyph's square) and the ink's depth
    (the deepest channel's drop from that median to the square's darkest tenth, over 255)."""
    crops = cut_crops(arr, boxes, VACANT_CROP, 1.0).astype(np.float32)
    flat = crops.reshape(len(crops), -1, 3)
    paper = np.median(flat, axis=1)
    ink = (paper - np.percentile(flat, 10, axis=1)).max(axis=1) / 255.0
    return np.concatenate([paper, ink[:, None]], axis=1)


def vacant_scores(arr: np.ndarray, boxes: np.ndarray, places: _Places) -> dict[int, tuple[float, float]]:
    """Per place the finder missed: how far its square's colour lies from the found faces'
    median, as a share of the farthest found face's distance; and its ink as a share of the
    found faces' median ink."""
    missed = places.missed
    if not missed:
        return {}
    f = vacancy(arr, boxes)
    have = [i for i in range(len(boxes)) if i not in missed]
    paper = np.median(f[have, :3], axis=0)
    far = max(float(np.linalg.norm(f[have, :3] - paper, axis=1).max()), VACANT_SPREAD)
    ink = max(float(np.median(f[have, 3])), 1e-3)
    return {i: (float(np.linalg.norm(f[i, :3] - paper)) / far, float(f[i, 3]) / ink) for i in missed}


def _check_vacant(arr: np.ndarray, boxes: np.ndarray, places: _Places, found: Sequence[Detection]) -> None:
    """Refuse a place where no card lies, naming the places: a place the finder missed where the
    reader reads no face (none, or a back) and the square there shows neither the found faces'
    paper nor their ink (VACANT_PAPER, VACANT_INK; chosen on validation teaching photos, ``zipai
    tune vacant-places``). A face the reader cannot name but whose paper and ink are there is a
    card: it is learnt by its place."""
    scores = vacant_scores(arr, boxes, places)
    empty = [i for i, (paper, ink) in scores.items()
             if found[i].card not in CARD_NAMES and (paper > VACANT_PAPER or ink < VACANT_INK)]
    if empty:
        names = "; ".join(f"{place(i)}: no card there" for i in empty)
        raise TeachRefused(f"{names} (lay all 20 faces, small 一…十 on top, big 壹…拾 below)", "teach_empty",
                           n=len(empty), **_at(empty[0]), places=",".join(f"{i // 10 + 1}-{i % 10 + 1}"
                                                                            for i in empty))


def read_places(det: Detector, arr: np.ndarray, boxes: np.ndarray, places: _Places, scale: float
                 ) -> tuple[list[Detection], np.ndarray]:
    """What each place shows, and its box (decoded pixels): its face as found, or where the
    finder found nothing, the reader's read of the crop at the place, looked for a little along
    the row and across it (SEARCH) where the crop shows a face most surely (a read with no
    finder peak and no measured ink colour; boxes in ``places.boxes`` are photo pixels,
    ``scale`` of them to a decoded one)."""
    out = list(places.finds)
    boxes = boxes.copy()
    missed = places.missed
    if not missed:
        return [d for d in out if d is not None], boxes
    step = np.asarray(places.step, np.float64) / scale
    along = step / max(float(np.linalg.norm(step)), 1e-6)
    across = np.asarray([-along[1], along[0]])
    tries = []
    for i in missed:
        h = float(boxes[i, 3] - boxes[i, 1])
        for a, b in SEARCH:
            dx, dy = step * a + across * h * b
            tries.append(boxes[i] + np.asarray([dx, dy, dx, dy], np.float32))
    reading, _ = det.reader(arr, np.asarray(tries, np.float32))
    classes = det.config.classes
    idx = ClassIndex.of(tuple(classes))
    probs = reading.probs.reshape(len(missed), len(SEARCH), -1)
    off = np.asarray([abs(a) / 0.1 + abs(b) / 0.25 for a, b in SEARCH])  # the place's own box wins ties
    face = probs[:, :, idx.faces].sum(axis=2) - 0.02 * off
    for n, i in enumerate(missed):
        k = int(np.argmax(face[n]))
        p = probs[n, k]
        top = int(np.argmax(p))
        boxes[i] = tries[n * len(SEARCH) + k]
        x0, y0, x1, y1 = (float(v) * scale for v in boxes[i])
        out[i] = Detection(classes[top], (x0, y0, x1, y1), 0.0, None, finder_score=0.0,
                           class_prob=float(p[top]), color_margin=0.0)
    return [d for d in out if d is not None], boxes


def _photo_box(box: tuple[float, float, float, float], decoded: Decoded,
               quarters: int) -> tuple[float, float, float, float]:
    """A box in the photo as the player took it: a box of ``decoded``, the photo turned
    anticlockwise by ``quarters`` right angles, turned back."""
    x0, y0, x1, y1 = box
    w, h = decoded.width, decoded.height  # the turned photo's
    if quarters == 1:  # the photo's (x, y) lies at (y, its width - x)
        return (h - y1, x0, h - y0, x1)
    if quarters == 2:
        return (w - x1, h - y1, w - x0, h - y0)
    if quarters == 3:  # the photo's (x, y) lies at (its height - y, x)
        return (y0, w - x1, y1, w - x0)
    return box


def sharpness(crops: np.ndarray) -> float:
    """How sharp glyph crops are: the median over crops of the strongest Laplacian over the
    crop's contrast. Rendered teaching photos in focus give 2.6 to 4.9, badly out of focus 0.25
    to 0.45."""
    g = crops.astype(np.float32).mean(axis=-1)
    lap = np.abs(4 * g[:, 1:-1, 1:-1] - g[:, :-2, 1:-1] - g[:, 2:, 1:-1] - g[:, 1:-1, :-2] - g[:, 1:-1, 2:])
    flat = g.reshape(len(g), -1)
    return float(np.median(lap.reshape(len(g), -1).max(axis=1) / (flat.std(axis=1) + 5.0)))


def _check_sharp(decoded: Decoded, faces: list[Detection], det: Detector) -> None:
    if len(faces) < 5:
        return
    boxes = np.asarray([d.box for d in faces], np.float32) / decoded.scale
    r = det.config.reader
    sharp = sharpness(cut_crops(np.asarray(decoded.image, np.uint8), boxes, r.size, r.margin))
    if sharp < MIN_SHARPNESS:
        raise TeachRefused(f"the photo is too blurred to learn from (sharpness {sharp:.2f}, need "
                           f"{MIN_SHARPNESS}): hold the phone steady and take it again", "teach_blurred",
                           s=f"{sharp:.2f}", need=f"{MIN_SHARPNESS}")


def _check_order(found: list[Detection], labels: list[str], emb: np.ndarray) -> None:
    """Refuse a broken order, naming the places: the rows swapped; a card laid twice (two faces
    with embeddings alike past ALIKE where one reads as the other's card, or past TWINS however
    they read); two cards laid in each other's places (each read as the other); or more than
    MAX_UNSURE places read as other cards of the deck (shuffled). A place read as no card, or a
    few misread, is learnt by its place: the order is the truth, and the player is shown them."""
    wrong = [(i, d) for i, (d, c) in enumerate(zip(found, labels, strict=True)) if d.card != c]
    other = [(i, d) for i, d in wrong if d.card in CARD_NAMES]
    big = [d.card in CARD_NAMES and Card.parse(d.card).big for d in found]
    small = [d.card in CARD_NAMES and not Card.parse(d.card).big for d in found]
    if len(other) > MAX_UNSURE and sum(big[:10]) >= 7 and sum(small[10:]) >= 7:
        raise TeachRefused("the rows are swapped: the small cards 一…十 go in the top row, the big ones "
                           "壹…拾 below", "teach_swapped")
    for i, d in other:
        twin = next((j for j, e in enumerate(found) if j != i and e.card == d.card == labels[j]), None)
        if twin is not None and float(emb[i] @ emb[twin]) >= ALIKE:
            raise TeachRefused(f"{place(i)} reads as {glyph(d.card)}, as {place(twin)} does: is a card laid "
                               f"twice? ({glyph(labels[i])} belongs there)", "teach_twice", **_at(i),
                               **_at(twin, "2"), read=d.card, want=labels[i])
    if len(emb) > 1:  # a card the reader misreads where it belongs as well as where it was laid again
        alike = emb @ emb.T
        np.fill_diagonal(alike, -1.0)
        i, j = sorted(int(k) for k in np.unravel_index(int(np.argmax(alike)), alike.shape))
        if alike[i, j] >= TWINS:
            raise TeachRefused(f"{place(i)} and {place(j)} look like one card: is a card laid twice? "
                               f"({glyph(labels[i])} and {glyph(labels[j])} belong there)", "teach_alike",
                               **_at(i), **_at(j, "2"), want=labels[i], want2=labels[j])
    for i, d in other:
        j = labels.index(d.card)
        if found[j].card == labels[i]:
            raise TeachRefused(f"{place(i)} and {place(j)} read as each other's cards ({glyph(d.card)} and "
                               f"{glyph(labels[i])}): are they laid in each other's places?", "teach_crossed",
                               **_at(i), **_at(j, "2"), want=labels[i], want2=labels[j])
    if len(other) > MAX_UNSURE:
        where = "; ".join(f"{place(i)} reads as {glyph(d.card)}" for i, d in other[:4])
        raise TeachRefused(f"{len(other)} places read as other cards than the order names ({where}"
                           f"{'; …' if len(other) > 4 else ''}): is the order right, is the photo sharp?",
                           "teach_misreads", n=len(other), **_at(other[0][0]), read=other[0][1].card,
                           want=labels[other[0][0]])
