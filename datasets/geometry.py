"""The plane's geometry and the shapes of the label maps: perspective warps and rotations, and
the visible part of a card's ink as a box and a short outline. Pure numpy, shared by the layout
plans, the cards laid on the table and the teaching photos."""

from __future__ import annotations

import math

import numpy as np


def _homography(src: list[tuple[float, float]], dst: list[tuple[float, float]]) -> np.ndarray:
    """3x3 H with dst ~ H @ src."""
    a = []
    b = []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b += [u, v]
    h = np.linalg.solve(np.array(a, float), np.array(b, float))
    return np.append(h, 1.0).reshape(3, 3)


def _apply(hm: np.ndarray, pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    p = np.array([[x, y, 1.0] for x, y in pts]).T
    q = hm @ p
    return [(float(q[0, i] / q[2, i]), float(q[1, i] / q[2, i])) for i in range(q.shape[1])]


def _rot(x: float, y: float, deg: float) -> tuple[float, float]:
    """Rotate as PIL's counter-clockwise ``rotate`` does, in image coordinates (y down)."""
    t = math.radians(deg)
    return x * math.cos(t) + y * math.sin(t), -x * math.sin(t) + y * math.cos(t)


def _main_part(mask: np.ndarray, card_w: float) -> np.ndarray:
    """The mask without slivers thinner than ~15% of the card's width (a card peeking out a pixel
    or two beside the one on top of it), so the visible polygon does not swallow its neighbour."""
    k = int(card_w * 0.15) // 2 * 2 + 1
    if k < 3:
        return mask
    opened = _opening(mask, k)
    return opened if opened.any() else mask


def _opening(mask: np.ndarray, k: int) -> np.ndarray:
    """The mask opened by a k×k square: eroded (every pixel of the window set), then dilated
    (any set)."""
    return _window_sums(_window_sums(mask, k) == k * k, k) > 0


def _window_sums(mask: np.ndarray, k: int) -> np.ndarray:
    """How many pixels of each k×k window around a pixel are set, the edges repeated outward.

    Counting through running sums costs the same for any k, where Pillow's Min/MaxFilter (the
    same result, its edges also repeated) cost k² a pixel: two thirds of a scene's rendering
    time went there."""
    r = k // 2
    c = np.cumsum(np.pad(mask, r, mode="edge").astype(np.int32), axis=0)
    rows = c[k - 1:] - np.concatenate([np.zeros((1, c.shape[1]), np.int32), c[:-k]])
    c = np.cumsum(rows, axis=1)
    sums: np.ndarray = c[:, k - 1:] - np.concatenate([np.zeros((c.shape[0], 1), np.int32), c[:, :-k]], axis=1)
    return sums


def _simplify(pts: list[tuple[float, float]], eps: float) -> list[tuple[float, float]]:
    """Douglas-Peucker on an open chain."""
    if len(pts) < 3:
        return pts
    xy = np.asarray(pts, np.float64)
    keep = np.zeros(len(pts), bool)
    keep[[0, -1]] = True
    spans = [(0, len(pts) - 1)]
    while spans:  # each span's farthest point splits it, as the recursive form would
        a, b = spans.pop()
        if b - a < 2:
            continue
        (x0, y0), (x1, y1) = xy[a], xy[b]
        dx, dy = x1 - x0, y1 - y0
        norm = math.hypot(dx, dy) or 1.0
        d = np.abs(dy * (xy[a + 1:b, 0] - x0) - dx * (xy[a + 1:b, 1] - y0)) / norm
        i = int(np.argmax(d))  # the first farthest, as a strict > scan finds it
        if d[i] > eps:
            keep[a + 1 + i] = True
            spans += [(a, a + 1 + i), (a + 1 + i, b)]
    return [pts[i] for i in np.flatnonzero(keep)]


def _mask_outline(mask: np.ndarray, ox: int, oy: int, max_points: int = 12) -> list[list[float]]:
    """The outline of a visible region, row by row (exact for any region whose rows are single
    runs, as a card's visible part is), simplified to at most ``max_points`` corners."""
    rows = np.nonzero(mask.any(axis=1))[0]
    if len(rows) == 0:
        return []
    sub = mask[rows]
    left = sub.argmax(axis=1)
    right = sub.shape[1] - sub[:, ::-1].argmax(axis=1)
    ys = np.stack([rows, rows + 1], axis=1).ravel().tolist()  # each row's top and bottom edge
    chain_l: list[tuple[float, float]] = list(zip(np.repeat(left, 2).tolist(), ys, strict=True))
    chain_r: list[tuple[float, float]] = list(zip(np.repeat(right, 2).tolist(), ys, strict=True))
    poly = np.asarray(_simplify(chain_l, 0.75) + _simplify(chain_r[::-1], 0.75), np.int64)
    # drop the corners that change the area least until few remain
    while len(poly) > max_points:
        a, c = np.roll(poly, 1, axis=0) - poly, np.roll(poly, -1, axis=0) - poly
        areas = np.abs(a[:, 0] * c[:, 1] - c[:, 0] * a[:, 1])
        poly = np.delete(poly, int(np.argmin(areas)), axis=0)
    return [[round(float(x) + ox, 1), round(float(y) + oy, 1)] for x, y in poly.tolist()]


def _bbox(mask: np.ndarray, ox: int, oy: int) -> list[int]:
    ys = np.nonzero(mask.any(axis=1))[0]
    xs = np.nonzero(mask.any(axis=0))[0]
    return [int(xs[0] + ox), int(ys[0] + oy), int(xs[-1] - xs[0] + 1), int(ys[-1] - ys[0] + 1)]
