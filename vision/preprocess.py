"""Model inputs in numpy: the finder's resized, padded, normalised photo, and the reader's
square crops cut around each glyph box. Training uses these same functions, so what the
networks learn from is exactly what they get at run time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image

from .constants import FINDER_LONG_SIDE, FINDER_MULTIPLE, READER_CROP, READER_MARGIN

MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How finder-input pixels map to decoded-image pixels: x_img = x_in / scale."""

    scale: float
    width: int  # finder input size (padded)
    height: int
    content_w: int  # the resized image inside it (top-left)
    content_h: int


def input_size(w: int, h: int, long_side: int, multiple: int = 32) -> tuple[float, int, int, int, int]:
    """Scale, padded input size and content size for an image of w x h."""
    s = long_side / max(w, h)
    cw, ch = max(1, round(w * s)), max(1, round(h * s))
    pw = -(-cw // multiple) * multiple
    ph = -(-ch // multiple) * multiple
    return s, pw, ph, cw, ch


def normalise(arr: np.ndarray, mean: tuple[float, ...] = MEAN, std: tuple[float, ...] = STD) -> np.ndarray:
    """uint8 HxWx3 (or NxHxWx3) -> float32 channels-first, (x/255 - mean) / std."""
    x = arr.astype(np.float32) * (1.0 / 255.0)
    x -= np.asarray(mean, np.float32)
    x *= 1.0 / np.asarray(std, np.float32)
    return np.ascontiguousarray(np.moveaxis(x, -1, -3))


def letterbox(img: Image.Image, long_side: int = FINDER_LONG_SIDE, multiple: int = FINDER_MULTIPLE,
              mean: tuple[float, ...] = MEAN, std: tuple[float, ...] = STD) -> tuple[np.ndarray, Letterbox]:
    """The finder input [1, 3, H, W]: the image resized so its long side is ``long_side``,
    placed top-left and padded to a multiple of ``multiple`` with the mean colour (zeros)."""
    _, pw, ph, cw, ch = input_size(img.width, img.height, long_side, multiple)
    small = img.resize((cw, ch), Image.Resampling.BILINEAR, reducing_gap=2.0) \
        if (cw, ch) != img.size else img
    arr = np.asarray(small.convert("RGB"), dtype=np.uint8)
    out = np.zeros((1, 3, ph, pw), np.float32)
    out[0, :, :ch, :cw] = normalise(arr, mean, std)
    return out, Letterbox(cw / img.width, pw, ph, cw, ch)


def crop_square(box: np.ndarray | tuple[float, ...], margin: float) -> tuple[float, float, float]:
    """Centre and side of the square crop around a glyph box [x0, y0, x1, y1]."""
    x0, y0, x1, y1 = (float(v) for v in box)
    side = margin * max(x1 - x0, y1 - y0, 1.0)
    return (x0 + x1) / 2, (y0 + y1) / 2, side


def cut_crops(arr: np.ndarray, boxes: np.ndarray, size: int = READER_CROP,
              margin: float | np.ndarray = READER_MARGIN,
              angles: np.ndarray | None = None) -> np.ndarray:
    """uint8 crops [N, size, size, 3] of the square around each box, bilinear, with a box
    pre-filter when shrinking (so thin strokes do not alias away); outside the image is
    edge-replicated. ``margin`` is one factor or one per box; ``angles`` (radians, optional)
    rotates each crop about its centre."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    n = len(boxes)
    out = np.zeros((n, size, size, 3), np.uint8)
    if n == 0:
        return out
    margins = np.broadcast_to(np.asarray(margin, np.float32), (n,))
    h, w = arr.shape[:2]
    flat = np.ascontiguousarray(arr).reshape(-1, arr.shape[2])
    for i, b in enumerate(boxes):
        cx, cy, side = crop_square(b, float(margins[i]))
        k = int(min(3, max(1, np.ceil(side / size - 0.25))))  # samples per output pixel, per axis
        if angles is None or angles[i] == 0.0:
            out[i] = _upright_crop(arr, cx, cy, side, size, k)
            continue
        m = size * k
        t = (np.arange(m, dtype=np.float32) + 0.5) / m - 0.5
        gx, gy = np.meshgrid(t * side, t * side)
        c, s = np.cos(angles[i]), np.sin(angles[i])
        gx, gy = c * gx - s * gy, s * gx + c * gy
        v = _bilinear(flat, w, h, gx + cx - 0.5, gy + cy - 0.5)
        if k > 1:
            v = v.reshape(size, k, size, k, 3).mean(axis=(1, 3))
        out[i] = np.clip(v + 0.5, 0, 255).astype(np.uint8)
    return out


def turned_crops(arr: np.ndarray, boxes: np.ndarray, size: int, margin: float | np.ndarray,
                 angles: np.ndarray) -> np.ndarray:
    """Crops turned by ``angles`` as ``cut_crops`` turns them, for a second read at run time:
    one bilinear sample per output pixel, all crops in one gather from the flattened photo,
    without ``cut_crops``' supersampling. On glyphs two or three photo pixels to a crop pixel it
    stays within about two grey levels of that on average, in a fraction of its time (a
    supersampled gather per crop cost more than the reader network's read of it)."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    n = len(boxes)
    if n == 0:
        return np.zeros((0, size, size, 3), np.uint8)
    h, w = arr.shape[:2]
    flat = np.ascontiguousarray(arr).reshape(-1, arr.shape[2])
    margins = np.broadcast_to(np.asarray(margin, np.float32), (n,))
    side = margins * np.maximum(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]), 1.0)
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    t = (np.arange(size, dtype=np.float32) + 0.5) / size - 0.5
    gx, gy = np.meshgrid(t, t)
    a = np.asarray(angles, np.float32)
    c, s, sd = np.cos(a)[:, None, None], np.sin(a)[:, None, None], side[:, None, None]
    v = _bilinear(flat, w, h, (c * gx - s * gy) * sd + cx[:, None, None] - 0.5,
                  (s * gx + c * gy) * sd + cy[:, None, None] - 0.5)
    return np.clip(v + 0.5, 0, 255).astype(np.uint8)


def _bilinear(flat: np.ndarray, w: int, h: int, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Bilinear samples (float32, one row of channels per point) of a photo flattened to
    [h * w, channels] at pixel positions ``xs``, ``ys`` (clamped to the photo: its edge repeats).
    One ``np.take`` per corner from the flat photo is several times faster than indexing the
    photo with two index arrays."""
    xs = np.clip(xs, 0, w - 1)
    ys = np.clip(ys, 0, h - 1)
    x0 = np.floor(xs).astype(np.int32)
    y0 = np.floor(ys).astype(np.int32)
    x1 = np.minimum(x0 + 1, w - 1)
    y1 = np.minimum(y0 + 1, h - 1)
    fx = (xs - x0)[..., None]
    fy = (ys - y0)[..., None]

    def at(y: np.ndarray, x: np.ndarray) -> np.ndarray:
        taken: np.ndarray = np.take(flat, y * w + x, axis=0).astype(np.float32)
        return taken

    top = at(y0, x0) * (1 - fx) + at(y0, x1) * fx
    bot = at(y1, x0) * (1 - fx) + at(y1, x1) * fx
    mixed: np.ndarray = top * (1 - fy) + bot * fy
    return mixed


def _axis_samples(c: float, side: float, size: int, k: int, limit: int) -> tuple[np.ndarray, ...]:
    """One axis of the crop's sampling: ``k`` bilinear samples per output pixel (positions
    clamped to the image): the two pixel indices and the weight of the second."""
    m = size * k
    t = (np.arange(m, dtype=np.float32) + 0.5) / m - 0.5
    pos = np.clip(t * side + c - 0.5, 0, limit - 1)
    i0 = np.floor(pos).astype(np.int32)
    i1 = np.minimum(i0 + 1, limit - 1)
    return i0, i1, (pos - i0)[:, None, None]


def _resample_rows(a: np.ndarray, i0: np.ndarray, i1: np.ndarray, f: np.ndarray, k: int) -> np.ndarray:
    v: np.ndarray = a[i0] * (1 - f) + a[i1] * f
    return v.reshape(len(i0) // k, k, *a.shape[1:]).mean(axis=1) if k > 1 else v


def _upright_crop(arr: np.ndarray, cx: float, cy: float, side: float, size: int, k: int) -> np.ndarray:
    """An unturned crop is separable: resample the rows it covers, then the columns. The same
    samples and sums as the gather in ``cut_crops`` (bit for bit: the reader sees what it learnt
    from) at a fifth of the time; a reader's worth of crops per photo cost more than the
    networks."""
    h, w = arr.shape[:2]
    y0, y1, fy = _axis_samples(cy, side, size, k, h)
    x0, x1, fx = _axis_samples(cx, side, size, k, w)
    xlo, xhi = int(x0.min()), int(x1.max()) + 1
    rows = _resample_rows(arr[:, xlo:xhi], y0, y1, fy, k)  # uint8 rows in, float32 out
    v = _resample_rows(rows.transpose(1, 0, 2), x0 - xlo, x1 - xlo, fx, k).transpose(1, 0, 2)
    return np.clip(v + 0.5, 0, 255).astype(np.uint8)


def turned_input(x: np.ndarray, content_w: int, content_h: int, angle: float, scale: float = 1.0,
                 multiple: int = 32) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    """The finder input's content turned ``angle`` degrees counter-clockwise (the whole of it:
    the turned image grows to hold the corners), scaled by ``scale`` and padded to a multiple of
    ``multiple`` with the mean colour (zeros): a card lying on the diagonal, which the finder
    finds worst, lies square to this input. Returns the input [1, 3, H, W], the turned size
    before scaling (w, h) and the content's size in the input (w, h)."""
    chans = [Image.fromarray(np.ascontiguousarray(c)).rotate(angle, Image.Resampling.BILINEAR, expand=True)
             for c in x[0, :, :content_h, :content_w]]
    size = chans[0].size
    if scale != 1.0:
        scaled = (max(1, round(size[0] * scale)), max(1, round(size[1] * scale)))
        chans = [c.resize(scaled, Image.Resampling.BILINEAR) for c in chans]
    w, h = chans[0].size
    out = np.zeros((1, 3, -(-h // multiple) * multiple, -(-w // multiple) * multiple), np.float32)
    out[0, :, :h, :w] = np.stack([np.asarray(c, np.float32) for c in chans])
    return out, size, (w, h)
