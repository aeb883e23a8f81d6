"""The reader network as a callable: image + glyph boxes -> crops -> session -> per-box reads."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .config import ReaderConfig, Upright
from .detection import Timing
from .preprocess import cut_crops, normalise, turned_crops
from .session import Session


@dataclass(frozen=True, slots=True)
class Reading:
    """Per box: class probabilities [N, classes], the card's down direction [N, 2] (unit), and
    the reader's pooled feature [N, D] where the network gives one (a third output), else None.
    Each is averaged over the crop margins the reader looks at."""

    probs: np.ndarray
    downs: np.ndarray
    embedding: np.ndarray | None = None


class Reader:
    """What each glyph box shows. Stateless: one reader serves many threads at once."""

    def __init__(self, session: Session, config: ReaderConfig, classes: tuple[str, ...],
                 mean: tuple[float, ...], std: tuple[float, ...]) -> None:
        self.session = session
        self.config = config
        self.classes = classes
        self.mean, self.std = mean, std

    def preprocess(self, arr: np.ndarray, boxes: np.ndarray, margins: tuple[float, ...],
                   angles: np.ndarray | None = None) -> np.ndarray:
        """The network input: each box cut at each margin (margin-major), turned by ``angles``
        (radians) when given."""
        n, k = len(boxes), len(margins)
        size = self.config.size
        if angles is None:
            crops = cut_crops(arr, np.tile(boxes, (k, 1)), size, np.repeat(margins, n))
        else:
            crops = turned_crops(arr, np.tile(boxes, (k, 1)), size, np.repeat(margins, n), np.tile(angles, k))
        return normalise(crops, self.mean, self.std)

    def postprocess(self, outs: list[np.ndarray], n: int, k: int) -> Reading:
        probs = np.asarray(outs[0], np.float32).reshape(k, n, -1).mean(axis=0)
        if len(outs) > 1:
            d = np.asarray(outs[1], np.float32).reshape(k, n, 2).sum(axis=0)
            downs = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-6)
        else:
            downs = np.tile([0.0, 1.0], (n, 1))
        emb = np.asarray(outs[2], np.float32).reshape(k, n, -1).mean(axis=0) if len(outs) > 2 else None
        return Reading(probs, downs.astype(np.float32), emb)

    def __call__(self, arr: np.ndarray, boxes: np.ndarray) -> tuple[Reading, Timing]:
        """The reads of glyph ``boxes`` (decoded-image pixels) in ``arr`` (decoded pixels)."""
        if len(boxes) == 0:
            empty = Reading(np.zeros((0, len(self.classes)), np.float32), np.zeros((0, 2), np.float32))
            return empty, Timing()
        t0 = time.perf_counter()
        margins = self.config.margins
        x = self.preprocess(arr, boxes, margins)
        t1 = time.perf_counter()
        outs = self.session.run({self.config.input: x})
        t2 = time.perf_counter()
        return self.postprocess(outs, len(boxes), len(margins)), Timing(t1 - t0, 0.0, t2 - t1)

    def upright(self, arr: np.ndarray, boxes: np.ndarray, scores: np.ndarray, probs: np.ndarray,
                downs: np.ndarray, up: Upright) -> tuple[np.ndarray, Timing]:
        """``probs`` with each unsure find's read averaged with a read of its crop turned upright
        by the reader's own down direction: a second view of the glyphs the reader finds hard.
        ``zipai tune upright`` chose it once decorated scenes joined the tuning scenes: it reads
        their cards, the stand-ins for printed decks, best."""
        unsure = np.flatnonzero((scores >= up.floor) & (probs.max(axis=1) < up.below))
        if len(unsure) == 0 or not up.margins:
            return probs, Timing()
        t0 = time.perf_counter()
        n, k = len(unsure), len(up.margins)
        angles = np.arctan2(-downs[unsure, 0], downs[unsure, 1]).astype(np.float32)
        x = self.preprocess(arr, boxes[unsure], up.margins, angles)
        t1 = time.perf_counter()
        outs = self.session.run({self.config.input: x})
        t2 = time.perf_counter()
        out = probs.copy()
        out[unsure] = (probs[unsure] + np.asarray(outs[0], np.float32).reshape(k, n, -1).mean(axis=0)) / 2
        return out, Timing(t1 - t0, 0.0, t2 - t1)
