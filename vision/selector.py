"""Which finds are cards: a small learnt model over each find's evidence (``postprocess.selector``).

The hand-set rules after the networks (thresholds, a second chance for weak peaks, the reader's
floor, far ends, one back found twice) each look at one kind of evidence with one limit. A find
is a card or not by all of it together: a weak peak the reader is sure of in a column of cards
is a card, a strong one at a card's far end is not. The selector weighs, for every find above a
low peak floor, its own peak and read, its size against the photo's other glyphs, the ink's
colour against the class, and what lies around it (a stronger find on the same glyph, a find of
the same face a card's length away along its axis, and the card body between them), with a
two-layer perceptron trained on rendered scenes that no figure reports
(``zipai.models.selector``). Numpy only: it runs wherever the detector runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .constants import RED, SYMMETRIC

FEATURES = (
    "peak", "is_back", "face_p", "none_p", "back_p", "face_margin", "size_ratio", "glyph_px",
    "colour", "near_peak", "near_same", "near_stronger", "pair", "pair_peak", "pair_upright",
    "pair_edge", "pair_dark", "pair_sin", "pair_blocked", "neighbours", "nearest", "back_cover",
    "back_reach", "symmetric", "rules",
)
STRONG = 0.35  # a find this strong counts as context for the others (a column's cards, glyph sizes)
PAIR = (1.5, 5.5, 0.35)  # a far-end partner: this many glyph sizes away, at most this sine off the axis

Body = Callable[[tuple[float, float], tuple[float, float], float], tuple[float, float]]


class SelectorError(ValueError):
    """A manifest's selector that cannot be used (names the field)."""


@dataclass(frozen=True, slots=True, eq=False)
class Selector:
    """The learnt model: feature standardisation, layers (weights [in, out], biases [out]; ReLU
    between, a sigmoid at the end), the probability a find must reach, and the peak floor below
    which a find is not looked at. Equal when every number is (hashed by identity)."""

    mean: np.ndarray
    std: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]
    threshold: float
    floor: float

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Selector:
        try:
            names = list(d["features"])
            if names != list(FEATURES):
                raise SelectorError(f"features {names} are not this version's {list(FEATURES)}")
            mean = np.asarray(d["mean"], np.float32)
            std = np.asarray(d["std"], np.float32)
            layers = tuple((np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in d["layers"])
            out = cls(mean, std, layers, float(d["threshold"]), float(d["floor"]))
        except SelectorError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise SelectorError(f"unreadable ({exc.__class__.__name__}: {exc})") from None
        n = len(FEATURES)
        shapes_ok = mean.shape == (n,) and std.shape == (n,) and bool(layers)
        width = n
        for w, b in layers:
            shapes_ok = shapes_ok and w.ndim == 2 and w.shape[0] == width and b.shape == (w.shape[1],)
            width = w.shape[1] if w.ndim == 2 else -1
        if not shapes_ok or width != 1:
            raise SelectorError("layer shapes do not chain from the features to one output")
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Selector):
            return NotImplemented
        if (self.threshold, self.floor, len(self.layers)) != \
                (other.threshold, other.floor, len(other.layers)):
            return False
        return np.array_equal(self.mean, other.mean) and np.array_equal(self.std, other.std) \
            and all(np.array_equal(w, v) and np.array_equal(b, c)
                    for (w, b), (v, c) in zip(self.layers, other.layers, strict=True))

    __hash__ = object.__hash__

    def same_weights(self, other: Selector) -> bool:
        """Whether ``other`` is this model with perhaps another threshold (it weighs finds alike)."""
        return self.floor == other.floor and self.layers is other.layers and self.mean is other.mean

    def to_json(self) -> dict[str, Any]:
        return {"features": list(FEATURES), "mean": _round(self.mean), "std": _round(self.std),
                "layers": [[_round(w), _round(b)] for w, b in self.layers],
                "threshold": self.threshold, "floor": self.floor}

    def probability(self, x: np.ndarray) -> np.ndarray:
        """The probability that each find [N, features] is a card."""
        h = (np.asarray(x, np.float32) - self.mean) / self.std
        for k, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if k < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        p: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(h[:, 0], -30, 30)))
        return p


def _round(a: np.ndarray) -> Any:
    return np.round(np.asarray(a, np.float64), 6).tolist()


def features(cards: Sequence[str], boxes: np.ndarray, peaks: np.ndarray, probs: np.ndarray,
             downs: np.ndarray, classes: Sequence[str], redness: np.ndarray, red_threshold: float,
             finder_scale: float, body: Body | None = None, rules: np.ndarray | None = None) -> np.ndarray:
    """The evidence for each find [N, len(FEATURES)]: ``cards`` its class (a face or ``back``),
    ``boxes`` photo pixels, ``peaks`` the finder's, ``probs`` the reader's over ``classes``,
    ``downs`` the reader's down directions, ``redness`` the measured ink, ``finder_scale`` finder
    pixels per photo pixel, ``body`` the look at the photo between two glyph centres
    (``detector.body_between``; without it a pair's body counts as plain), ``rules`` whether the
    hand-set rules keep each find (the selector learns where to differ from them)."""
    n = len(cards)
    x = np.zeros((n, len(FEATURES)), np.float32)
    if n == 0:
        return x
    col = {name: k for k, name in enumerate(FEATURES)}
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    peaks = np.asarray(peaks, np.float64)
    downs = np.asarray(downs, np.float64).reshape(-1, 2)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sizes = np.maximum(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]), 1.0)
    back = np.asarray([c == "back" for c in cards])
    face_i = [k for k, c in enumerate(classes) if c not in ("back", "none")]
    fp = np.sort(probs[:, face_i], axis=1)
    strong_faces = (~back) & (peaks >= STRONG)
    glyph = float(np.median(sizes[strong_faces])) if strong_faces.any() else float(np.median(sizes))
    x[:, col["peak"]] = peaks
    x[:, col["is_back"]] = back
    x[:, col["face_p"]] = fp[:, -1]
    x[:, col["none_p"]] = probs[:, list(classes).index("none")] if "none" in classes else 0.0
    x[:, col["back_p"]] = probs[:, list(classes).index("back")] if "back" in classes else 0.0
    x[:, col["face_margin"]] = fp[:, -1] - fp[:, -2]
    x[:, col["size_ratio"]] = np.log(sizes / glyph)
    x[:, col["glyph_px"]] = np.log(max(glyph * finder_scale, 1.0))
    agree = np.asarray([(r > red_threshold) == (c in RED) for r, c in zip(redness, cards, strict=True)])
    margin = np.minimum(np.abs(np.asarray(redness, np.float64) - red_threshold), 0.2)
    x[:, col["colour"]] = np.where(back, 0.0, np.where(agree, margin, -margin))
    sym = np.asarray([c in SYMMETRIC for c in cards])
    x[:, col["symmetric"]] = sym
    if rules is not None:
        x[:, col["rules"]] = rules
    diff = centres[None, :, :] - centres[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    pair_size = np.maximum(sizes[:, None], sizes[None, :])
    rel = dist / pair_size
    np.fill_diagonal(rel, np.inf)
    strong = peaks >= STRONG
    axis = main_axis(downs[strong_faces & ~sym])
    for i in range(n):
        near = np.flatnonzero(rel[i] < 1.0)
        if len(near):
            j = near[np.argmax(peaks[near])]
            x[i, col["near_peak"]] = peaks[j]
            x[i, col["near_same"]] = cards[j] == cards[i]
            x[i, col["near_stronger"]] = peaks[j] > peaks[i]
        ctx = np.flatnonzero(strong & (np.arange(n) != i))
        x[i, col["neighbours"]] = min(int((rel[i, ctx] < 3.0).sum()), 10) / 10
        x[i, col["nearest"]] = min(float(rel[i, ctx].min()), 10.0) if len(ctx) else 10.0
        if back[i]:
            others = np.flatnonzero(back & (peaks > peaks[i]))
            if len(others):
                cover = max(covers(boxes[i], boxes[j]) for j in others)
                x[i, col["back_cover"]] = cover
                x[i, col["back_reach"]] = min(float(dist[i, others].min()) / glyph, 10.0)
            continue
        _pair(i, cards, centres, sizes, peaks, downs, dist, axis, strong, body, x[i], col)
    return x


def _pair(i: int, cards: Sequence[str], centres: np.ndarray, sizes: np.ndarray, peaks: np.ndarray,
          downs: np.ndarray, dist: np.ndarray, axis: np.ndarray | None, strong: np.ndarray,
          body: Body | None, row: np.ndarray, col: dict[str, int]) -> None:
    """The strongest find that could be the other end of this one's card: the same face, 1.5–5.5
    glyph sizes away along the card's axis, turned round against it (unless the face reads the
    same turned round); the body between them and whether a strong find lies between."""
    lo, hi, max_sin = PAIR
    row[col["pair_dark"]] = 1.0  # no pair, or no look at the body: a plain body, the neutral value
    best, best_sin, u = -1, 1.0, np.zeros(2)
    for j in np.argsort(-peaks):
        if j == i or cards[j] != cards[i]:
            continue
        s = max(sizes[i], sizes[j])
        if not lo * s <= dist[i, j] <= hi * s:
            continue
        if cards[i] not in SYMMETRIC and float(downs[i] @ downs[j]) > -0.5:
            continue
        u = (centres[j] - centres[i]) / dist[i, j]
        ds = [downs[i], downs[j]] + ([axis] if axis is not None else [])
        sin = min(abs(u[0] * d[1] - u[1] * d[0]) for d in ds)
        if sin < max_sin:
            best, best_sin = int(j), float(sin)
            break
    if best < 0:
        return
    j = best
    row[col["pair"]] = 1.0
    row[col["pair_peak"]] = peaks[j]
    row[col["pair_upright"]] = downs[i][1] - downs[j][1]
    row[col["pair_sin"]] = best_sin
    rel = centres - centres[i]
    t = rel @ u
    off = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
    between = strong & (t > 0.1 * dist[i, j]) & (t < 0.9 * dist[i, j]) & (off < 0.6 * max(sizes[i], sizes[j]))
    between[[i, j]] = False
    row[col["pair_blocked"]] = bool(between.any())
    if body is not None:
        edge, dark = body((float(centres[i][0]), float(centres[i][1])),
                          (float(centres[j][0]), float(centres[j][1])), float(max(sizes[i], sizes[j])))
        row[col["pair_edge"]] = min(edge, 5.0)
        row[col["pair_dark"]] = dark


def main_axis(downs: np.ndarray) -> np.ndarray | None:
    """The photo's main card axis (up to sign) from down directions [N, 2]: the mean of the
    doubled angles, so that cards turned round count the same; None when they lie every which
    way."""
    if not len(downs):
        return None
    ang = np.arctan2(downs[:, 1], downs[:, 0]) * 2
    c, s = float(np.cos(ang).mean()), float(np.sin(ang).mean())
    if np.hypot(c, s) < 0.5:
        return None
    half = float(np.arctan2(s, c)) / 2
    return np.asarray([np.cos(half), np.sin(half)])


def covers(a: np.ndarray, b: np.ndarray) -> float:
    """How much of the smaller of two boxes lies inside the other (intersection over the smaller)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    small = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return float(w * h / max(small, 1e-6))
