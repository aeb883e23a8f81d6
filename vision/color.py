"""Ink colour measured from the photo, independent of the reader: red ranks are 2, 7 and 10,
so a colour that disagrees with the class read is a cheap, strong doubt signal."""

from __future__ import annotations

import numpy as np

RED_THRESHOLD = 0.05


def redness(arr: np.ndarray, box: np.ndarray | tuple[float, ...]) -> float:
    """How much redder the ink inside ``box`` is than the paper around it.

    Ink pixels are the darkest eighth of the box's middle (at least a few), paper the brightest
    eighth. Only the middle counts (the box shrunk by a tenth on each side): at its edges lie the
    red frame printed round many ranks and, past a card's corner, a dark red table, both of which
    would pass for red ink. Chroma is R - max(G, B), measured relative to the paper's and divided
    by the paper's brightness rather than the ink's own (dark ink has too little light for a
    ratio of its own to mean anything), so a warm lamp that tints paper and ink alike cancels."""
    h, w = arr.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    dx, dy = 0.1 * (x1 - x0), 0.1 * (y1 - y0)
    ix0, iy0 = max(0, int(x0 + dx)), max(0, int(y0 + dy))
    ix1, iy1 = min(w, int(np.ceil(x1 - dx))), min(h, int(np.ceil(y1 - dy)))
    if ix1 - ix0 < 2 or iy1 - iy0 < 2:
        return 0.0
    px = arr[iy0:iy1, ix0:ix1].reshape(-1, 3).astype(np.float32)
    lum = px @ np.asarray([0.299, 0.587, 0.114], np.float32)
    order = np.argsort(lum)
    q = max(3, len(order) // 8)
    ink, paper = px[order[:q]], px[order[-q:]]
    bright = float(paper.sum(axis=1).mean()) + 1e-3

    def chroma(p: np.ndarray) -> float:
        return float(np.median(p[:, 0] - np.maximum(p[:, 1], p[:, 2]))) / bright

    return chroma(ink) - chroma(paper)


def ink_color(arr: np.ndarray, box: np.ndarray | tuple[float, ...], threshold: float = RED_THRESHOLD) -> str:
    """``red`` or ``black`` for the glyph in ``box``."""
    return "red" if redness(arr, box) > threshold else "black"
