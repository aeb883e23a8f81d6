"""Where a teaching photo's faces lie: the way the photo is turned, the layout's axes, its rows
of faces (far ends joined, one glyph a card), the twenty places fitted to them, and what each
place shows where the finder found nothing. The geometry of learning a deck, apart from
deciding what a deck learns and what it refuses."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image

from zipai.engine import CARD_NAMES

from ..constants import SYMMETRIC
from ..decode import Decoded
from ..detector import Detection, Detector
from ..steps import ClassIndex
from .model import MAX_STRAY, MIN_PLACED, SEARCH


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
    for r, row in enumerate(ats):
        have, ct, other = sorted(row), centres[r], centres[1 - r]
        shared = [c for c in have if c in other]
        apart = np.median([ct[c] - other[c] for c in shared], axis=0) if shared else None
        w = float(np.median([row[c].box[2] - row[c].box[0] for c in have]))
        h = float(np.median([row[c].box[3] - row[c].box[1] for c in have]))
        for c in range(10):
            d = row.get(c)
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
