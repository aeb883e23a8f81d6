"""The camera's look over the finished table: a lamp's falloff, tint and exposure, a soft
shadow, glare on the glossy cards, noise, focus and motion blur, JPEG; applied to the pixels
only, after the label maps are fixed."""

from __future__ import annotations

import io
import math
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter


def _photo_effects(rng: random.Random, nrng: np.random.Generator, img: Image.Image,
                   cards: np.ndarray | None = None) -> Image.Image:
    """Light, shadow, glare (strongest on the glossy cards, given as a mask), noise, blur, JPEG."""
    w, h = img.size
    s = max(w, h) / 1600
    # lamp: brightness falloff from a light position, warm/cool tint, overall exposure
    a, xx, yy, dist = _lamp(rng, img)
    fall = 1.0 - rng.uniform(0.1, 0.55) * np.clip(dist, 0, 1.5) / 1.5
    expo = rng.choice([rng.uniform(0.85, 1.12), rng.uniform(0.45, 0.85)])
    tint = rng.choice([(1.08, 1.0, 0.82), (1.12, 1.0, 0.75), (0.92, 0.98, 1.08), (1.0, 1.0, 1.0),
                       (1.0, 1.0, 0.95), (0.95, 1.04, 0.95), (1.15, 0.97, 0.7)])
    a = a * (fall * expo)[..., None] * np.array(tint, np.float32)
    # a soft shadow across part of the scene (a hand, a head, the phone)
    if rng.random() < 0.35:
        sh = Image.new("L", (w, h), 0)
        d = ImageDraw.Draw(sh)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.15, 0.45) * max(w, h)
        pts = [(cx + r * math.cos(t) * rng.uniform(0.6, 1.3), cy + r * math.sin(t) * rng.uniform(0.6, 1.3))
               for t in np.linspace(0, 2 * math.pi, 9)[:-1]]
        d.polygon(pts, fill=255)
        sh = sh.resize((w // 8 + 1, h // 8 + 1)).filter(ImageFilter.GaussianBlur(rng.uniform(2, 8)))
        m = np.asarray(sh.resize((w, h), Image.Resampling.BILINEAR), np.float32) / 255
        a = a * (1 - rng.uniform(0.25, 0.55) * m)[..., None]
    # glare on glossy cards
    if rng.random() < 0.3:
        gx, gy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        rx, ry = rng.uniform(0.05, 0.25) * w, rng.uniform(0.03, 0.15) * h
        g = np.exp(-(((xx - gx) / rx) ** 2 + ((yy - gy) / ry) ** 2))
        if cards is not None and rng.random() < 0.7:  # matte table, glossy cards
            gloss = Image.fromarray((cards * 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(1.0))
            g = g * (0.25 + 0.75 * np.asarray(gloss, np.float32) / 255)
        a = a + (rng.uniform(60, 160) * g)[..., None]
    # sensor noise, stronger in low light
    sigma = rng.uniform(1, 5) + (10 * (1 - expo) if expo < 0.85 else 0)
    a = a + nrng.normal(0, sigma, a.shape).astype(np.float32)
    if expo < 0.85 and rng.random() < 0.6:  # blotchy colour noise of a small sensor in low light
        cn = nrng.normal(0, sigma * 0.8, (h // 4 + 1, w // 4 + 1, 3)).astype(np.float32)
        cn = np.stack([np.asarray(Image.fromarray(cn[..., c], "F").resize((w, h), Image.Resampling.BILINEAR))
                       for c in range(3)], axis=-1)
        a = a + cn
    out = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < 0.2:  # a cheap sensor, digital zoom: detail lost, then scaled back up
        f = rng.uniform(1.4, 2.6)
        out = out.resize((max(8, int(w / f)), max(8, int(h / f))), Image.Resampling.BILINEAR)
        out = out.resize((w, h), Image.Resampling.BILINEAR)
    roll = rng.random()
    if roll < 0.35:
        out = out.filter(ImageFilter.GaussianBlur(rng.uniform(0.4, 2.0) * s))
    elif roll < 0.5:
        out = _motion_blur(out, rng.uniform(2, 10) * s, rng.uniform(0, 180))
    elif roll < 0.7:  # shallow depth of field: sharp in one band, softer away from it
        blurred = np.asarray(out.filter(ImageFilter.GaussianBlur(rng.uniform(1.5, 4.0) * s)), np.float32)
        t = math.radians(rng.uniform(0, 360))
        along = ((xx - w / 2) * math.cos(t) + (yy - h / 2) * math.sin(t)) / max(w, h)
        m = np.clip(np.abs(along - rng.uniform(-0.3, 0.3)) * rng.uniform(1.5, 3.0), 0, 1)[..., None]
        sharp = np.asarray(out, np.float32)
        out = Image.fromarray(np.clip(sharp * (1 - m) + blurred * m, 0, 255).astype(np.uint8))
    return _jpeg(out, rng.randint(35, 92))


def _lamp(rng: random.Random, img: Image.Image) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pixels as floats, their coordinates, and each one's distance from a lamp placed at
    random (in the image's longer side): the scenes and the teaching photos share the light."""
    w, h = img.size
    a = np.asarray(img, np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    lx, ly = rng.uniform(-0.3, 1.3) * w, rng.uniform(-0.3, 1.3) * h
    return a, xx, yy, np.sqrt((xx - lx) ** 2 + (yy - ly) ** 2) / max(w, h)


def _jpeg(img: Image.Image, quality: int) -> Image.Image:
    """The image after a round trip through JPEG at ``quality``, as a phone saves it."""
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    buf.seek(0)
    return Image.open(buf).convert("RGB")


def _motion_blur(img: Image.Image, length: float, angle: float) -> Image.Image:
    """The phone moved during the exposure: the mean of shifted copies (edges repeated)."""
    a = np.asarray(img, np.float32)
    h, w = a.shape[:2]
    n = max(2, int(length))
    dx, dy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    p = n // 2 + 1
    padded = np.pad(a, ((p, p), (p, p), (0, 0)), mode="edge")
    acc = np.zeros_like(a)
    for k in range(n):
        t = k - (n - 1) / 2
        oy, ox = p + round(t * dy), p + round(t * dx)
        acc += padded[oy:oy + h, ox:ox + w]
    return Image.fromarray(np.clip(acc / n, 0, 255).astype(np.uint8))
