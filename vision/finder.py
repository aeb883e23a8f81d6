"""The finder network as a callable: photo -> letterboxed input -> session -> peaks -> boxes."""

from __future__ import annotations

import time

import numpy as np

from .config import FinderConfig, Turned
from .decode import Decoded
from .detection import Timing
from .postprocess import Found, decode_heatmap, nms, to_image, turned_back
from .preprocess import Letterbox, letterbox, turned_input
from .session import Session

Window = tuple[int, int, int, int]  # part of the decoded photo, x0, y0, x1, y1
NEAR_BEFORE = 1.5  # a turned find this many glyph sizes from a first-pass find is that find again


class Finder:
    """Glyph and back boxes in a photo. Stateless: one finder serves many threads at once (as
    far as its session does; onnxruntime's does)."""

    def __init__(self, session: Session, config: FinderConfig, mean: tuple[float, ...],
                 std: tuple[float, ...]) -> None:
        self.session = session
        self.config = config
        self.mean, self.std = mean, std

    def preprocess(self, decoded: Decoded, long_side: int | None = None,
                   window: Window | None = None) -> tuple[np.ndarray, Letterbox]:
        img = decoded.image if window is None else decoded.image.crop(window)
        return letterbox(img, long_side or self.config.long_side, self.config.multiple, self.mean, self.std)

    def run(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The heatmap and the box regression of one input."""
        heat, reg = self.session.run({self.config.input: x})[:2]
        return heat, reg

    def __call__(self, decoded: Decoded, threshold: float, long_side: int | None = None,
                 window: Window | None = None, turned: Turned | None = None) -> tuple[Found, Timing]:
        """Finder boxes (decoded-image pixels), scores and kinds (0 glyph, 1 back), deduplicated;
        the photo, or its ``window`` (x0, y0, x1, y1 in decoded pixels), is scaled to
        ``long_side`` (default: the config's) for the finder; with ``turned`` (default: the
        config's) it looks at the photo turned too."""
        turned = self.config.turned if turned is None else turned
        t0 = time.perf_counter()
        x, lb = self.preprocess(decoded, long_side, window)
        t1 = time.perf_counter()
        heat, reg = self.run(x)
        t2 = time.perf_counter()
        found = decode_heatmap(heat, reg, self.config.stride, threshold, valid=(lb.content_w, lb.content_h))
        fb, fs, fk = found.boxes, found.scores, found.kinds
        turning = 0.0  # the turned passes, turning and all, count as the finder's
        if turned is not None:
            t = time.perf_counter()
            fb, fs, fk = self.turned(turned, x, lb, threshold, fb, fs, fk)
            turning = time.perf_counter() - t
        keep = nms(fb, fs, fk)
        boxes = to_image(fb[keep], lb)
        if window is not None:
            boxes[:, [0, 2]] += window[0]
            boxes[:, [1, 3]] += window[1]
        t3 = time.perf_counter()
        return Found(boxes, fs[keep], fk[keep]), Timing(t1 - t0, t2 - t1 + turning, 0.0, t3 - t2 - turning)

    def turned(self, turned: Turned, x: np.ndarray, lb: Letterbox, thr: float, boxes: np.ndarray,
               scores: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The first pass's finds (finder-input pixels) joined with those of the turned passes."""
        content = (lb.content_w, lb.content_h)
        scores = scores.copy()
        parts = [(boxes, scores, kinds)]
        for angle in turned.angles:
            xt, size, valid = turned_input(x, *content, angle, turned.scale, self.config.multiple)
            heat, reg = self.run(xt)
            found = decode_heatmap(heat, reg, self.config.stride, thr, valid=valid)
            back, on = turned_back(found.boxes, angle, size, content, turned.scale)
            wanted = on & ((found.kinds == 0) | turned.backs)
            again = found_before(back, found.kinds, boxes, kinds)
            if turned.lift:  # a first-pass find takes the turned pass's peak where that is higher
                both = wanted & (again >= 0)
                np.maximum.at(scores, again[both], found.scores[both])
            new = wanted & (again < 0)
            parts.append((back[new], found.scores[new], found.kinds[new]))
        return (np.concatenate([p[0] for p in parts]).reshape(-1, 4), np.concatenate([p[1] for p in parts]),
                np.concatenate([p[2] for p in parts]))


def found_before(boxes: np.ndarray, kinds: np.ndarray, first: np.ndarray,
                 first_kinds: np.ndarray) -> np.ndarray:
    """For each turned-pass find, the first-pass find it finds again (-1: none): the nearest of
    the same kind within ``NEAR_BEFORE`` of the larger box's size. The first pass keeps its own
    box, a turned box holding the glyph turned (too large for one lying square to the photo),
    and a stroke found beside a first-pass glyph is that glyph split."""
    out = np.full(len(boxes), -1, np.int64)
    if not len(boxes) or not len(first):
        return out
    c = (boxes[:, :2] + boxes[:, 2:]) / 2
    f = (first[:, :2] + first[:, 2:]) / 2
    size = np.maximum(first[:, 2] - first[:, 0], first[:, 3] - first[:, 1])
    own = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    d = np.hypot(c[:, None, 0] - f[None, :, 0], c[:, None, 1] - f[None, :, 1])
    reach = NEAR_BEFORE * np.maximum(size[None, :], own[:, None])
    d[(kinds[:, None] != first_kinds[None, :]) | (d >= reach)] = np.inf
    near = np.argmin(d, axis=1)
    hit = np.isfinite(d[np.arange(len(boxes)), near])
    out[hit] = near[hit]
    return out
