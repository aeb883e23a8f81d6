"""Detectors that see less than the real one, to show the learner what a real photo can do to
it: ``Blindfold`` misses some faces of a teaching photo (a thin 一, a red 七, a faint print),
``Misreader`` takes some faces for other cards. ``zipai eval decks --blind``, the vacant-place
tuning and the tests use them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zipai.engine import CARD_NAMES
from zipai.models.evaluate import inside
from zipai.vision.decode import Decoded
from zipai.vision.detector import Detector


class Blindfold:
    """A detector that does not see some cards of one teaching photo: every find whose centre
    lies on a blinded card (inside its drawn outline, the label's ``card_corners``) is deleted
    from what ``detect`` returns, its face and far end alike, however the learner turns the
    photo (the turn is told by comparing a thumbnail with the photo's, turned each way). The
    reader still reads any box it is given: so a face the finder misses on a real photo (a thin
    一, a red 七, a faint print) is shown to the learner. Everything else is the detector's."""

    def __init__(self, det: Detector, photo: bytes, label: dict[str, Any], cards: Sequence[str]) -> None:
        from zipai.vision.decode import decode

        self._det = det
        self.cards = tuple(cards)
        outlines = {f["card"]: f["card_corners"] for f in label["faces"]}
        self._outlines = [outlines[c] for c in self.cards]
        decoded = decode(photo, "teaching photo")
        image = decoded.image
        self._size = (decoded.width, decoded.height)  # the photo's pixels, which boxes are in
        self._thumbs = [self._thumb(image.rotate(90 * q, expand=True)) for q in range(4)]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._det, name)

    @staticmethod
    def _thumb(image: Any) -> Any:
        import numpy as np

        return np.asarray(image.convert("L").resize((24, 24)), np.float32)

    def _turned(self, q: int, x: float, y: float) -> tuple[float, float]:
        """A point of the photo in the photo turned anticlockwise by ``q`` right angles."""
        w, h = self._size
        return ((x, y), (y, w - x), (w - x, h - y), (h - y, x))[q]

    def detect(self, decoded: Decoded, *args: Any, **kw: Any) -> Any:
        import dataclasses

        import numpy as np

        got = self._det.detect(decoded, *args, **kw)
        thumb = self._thumb(decoded.image)
        q = min(range(4), key=lambda k: float(np.mean((self._thumbs[k] - thumb) ** 2))
                if self._thumbs[k].shape == thumb.shape else np.inf)
        polys = [[self._turned(q, float(x), float(y)) for x, y in poly] for poly in self._outlines]
        kept = [d for d in got.detections if not any(inside(d.center, p) for p in polys)]
        return dataclasses.replace(got, detections=kept)


class Misreader:
    """A detector whose reader takes some faces of a photo for other cards (``reads``: the card
    read -> the card it is taken for, as surely as ``sure``): a brush 叁 read as 肆, a 貳 as 玖."""

    def __init__(self, det: Any, reads: dict[str, str], sure: float = 0.97) -> None:
        self._det, self.reads, self.sure = det, dict(reads), sure

    def __getattr__(self, name: str) -> Any:
        return getattr(self._det, name)

    def detect(self, decoded: Decoded, *args: Any, **kw: Any) -> Any:
        import dataclasses

        got = self._det.detect(decoded, *args, **kw)
        out = [dataclasses.replace(d, card=self.reads[d.card], class_prob=self.sure) if d.card in self.reads
               else d for d in got.detections]
        return dataclasses.replace(got, detections=out)


def blind_cards(det: Detector, photo: bytes, label: dict[str, Any], n: int) -> tuple[str, ...]:
    """The ``n`` faces (1 to 3) a blinded variant hides: the thin 一, the red 七, then the face
    the finder finds most faintly of the others on this photo (its faint print)."""
    from zipai.vision.decode import decode

    picked = ["x1", "x7"][:n]
    if n > 2:
        dets = det.detect(decode(photo, "teaching photo")).detections
        peak = {}
        for f in label["faces"]:
            on = [d.finder_score for d in dets if d.card != "back" and inside(d.center, f["card_corners"])]
            peak[f["card"]] = max(on, default=0.0)
        picked.append(min((c for c in peak if c not in picked), key=lambda c: (peak[c], CARD_NAMES.index(c))))
    return tuple(picked)
