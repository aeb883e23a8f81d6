"""From network outputs to boxes: heatmap peaks, duplicate suppression, photo coordinates."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .constants import FINDER_STRIDE
from .preprocess import Letterbox


@dataclass(frozen=True, slots=True)
class Found:
    """Finder output in finder-input pixels: boxes [N, 4] x0y0x1y1, scores [N], kinds [N]
    (0 = glyph, 1 = back)."""

    boxes: np.ndarray
    scores: np.ndarray
    kinds: np.ndarray


def decode_heatmap(heat: np.ndarray, reg: np.ndarray, stride: int = FINDER_STRIDE, threshold: float = 0.3,
                   top_k: int = 120, valid: tuple[int, int] | None = None) -> Found:
    """Peaks of a peak-suppressed heatmap [1, C, h, w] (zeros off-peak) and the regression
    [1, 4, h, w] (log w, log h in stride cells; x, y sub-cell offsets) -> boxes in input pixels.
    ``valid`` (w, h in input pixels) drops peaks in the padding."""
    hm = heat[0]
    _, h, w = hm.shape
    flat = hm.reshape(-1)
    idx = np.flatnonzero(flat >= threshold)
    if len(idx) > top_k:
        idx = idx[np.argsort(-flat[idx])[:top_k]]
    kinds, rem = np.divmod(idx, h * w)
    ys, xs = np.divmod(rem, w)
    r = reg[0]
    bw = np.exp(np.clip(r[0, ys, xs], -4, 6)) * stride
    bh = np.exp(np.clip(r[1, ys, xs], -4, 6)) * stride
    cx = (xs + r[2, ys, xs]) * stride
    cy = (ys + r[3, ys, xs]) * stride
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1).astype(np.float32)
    scores = flat[idx].astype(np.float32)
    if valid is not None:
        keep = (cx < valid[0]) & (cy < valid[1])
        boxes, scores, kinds = boxes[keep], scores[keep], kinds[keep]
    order = np.argsort(-scores, kind="stable")
    return Found(boxes[order].reshape(-1, 4), scores[order], kinds[order].astype(np.int64))


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise IoU of boxes [N, 4] and [M, 4]."""
    a = a.reshape(-1, 4)
    b = b.reshape(-1, 4)
    ix0 = np.maximum(a[:, None, 0], b[None, :, 0])
    iy0 = np.maximum(a[:, None, 1], b[None, :, 1])
    ix1 = np.minimum(a[:, None, 2], b[None, :, 2])
    iy1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(ix1 - ix0, 0, None) * np.clip(iy1 - iy0, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    iou: np.ndarray = inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)
    return iou


def nms(boxes: np.ndarray, scores: np.ndarray, kinds: np.ndarray | None = None, iou: float = 0.45,
        iou_back: float = 0.6) -> np.ndarray:
    """Indices kept by greedy non-maximum suppression within each kind, best first. Two glyph
    boxes where either centre lies inside the other are one glyph found twice (a radical and
    the whole character). Backs of a concealed group overlap a lot, so only IoU counts there."""
    order = np.argsort(-scores, kind="stable")
    boxes = boxes.reshape(-1, 4)
    if kinds is None:
        kinds = np.zeros(len(boxes), np.int64)
    ious = iou_matrix(boxes, boxes)
    cx = (boxes[:, 0] + boxes[:, 2]) / 2
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    keep: list[int] = []
    for i in order:
        dup = False
        for j in keep:
            if kinds[i] != kinds[j]:
                continue
            if ious[i, j] > (iou_back if kinds[i] == 1 else iou):
                dup = True
                break
            if kinds[i] == 0 and (_inside(cx[i], cy[i], boxes[j]) or _inside(cx[j], cy[j], boxes[i])):
                dup = True
                break
        if not dup:
            keep.append(int(i))
    return np.asarray(keep, np.int64)


def _inside(x: float, y: float, b: np.ndarray) -> bool:
    return bool(b[0] <= x <= b[2] and b[1] <= y <= b[3])


def to_image(boxes: np.ndarray, lb: Letterbox) -> np.ndarray:
    """Finder-input pixels -> decoded-image pixels, clipped to the image content."""
    out = boxes.astype(np.float32) / lb.scale
    w, h = lb.content_w / lb.scale, lb.content_h / lb.scale
    out[:, [0, 2]] = np.clip(out[:, [0, 2]], 0, w)
    out[:, [1, 3]] = np.clip(out[:, [1, 3]], 0, h)
    return out


def turned_back(boxes: np.ndarray, angle: float, turned: tuple[int, int], content: tuple[int, int],
                scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Boxes found in a ``preprocess.turned_input`` -> the boxes around them in the unturned
    input's pixels (each box's corners turned back, then the box around those), and which of
    them have their centre on the content (``content`` w, h) and not in the turned corners."""
    b = boxes.reshape(-1, 4).astype(np.float64) / scale
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    xs = b[:, [0, 2, 2, 0]] - turned[0] / 2
    ys = b[:, [1, 1, 3, 3]] - turned[1] / 2
    ox = xs * c - ys * s + content[0] / 2
    oy = xs * s + ys * c + content[1] / 2
    out = np.stack([ox.min(axis=1), oy.min(axis=1), ox.max(axis=1), oy.max(axis=1)], axis=1)
    cx, cy = (out[:, 0] + out[:, 2]) / 2, (out[:, 1] + out[:, 3]) / 2
    on = (cx >= 0) & (cx < content[0]) & (cy >= 0) & (cy < content[1])
    return out.astype(np.float32), on
