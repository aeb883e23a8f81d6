"""The table and what lies on it besides the cards: a textured cloth or wood, the hands, chips,
phones and cups that cover cards, and scraps of printed paper whose characters are not cards.
They are what a detector must learn to leave out."""

from __future__ import annotations

import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from zipai.engine.cards import BIG_SIMPLIFIED, BIG_TRADITIONAL, SMALL_CHARS

from .cards import DeckStyle
from .fonts import font


def _lowfreq(nrng: np.random.Generator, w: int, h: int, cells: int) -> np.ndarray:
    small = nrng.normal(0, 1, (max(2, cells * h // max(w, h) + 1), max(2, cells * w // max(w, h) + 1)))
    return np.asarray(Image.fromarray(small.astype(np.float32), "F").resize((w, h), Image.Resampling.BICUBIC))


def table_texture(rng: random.Random, nrng: np.random.Generator, w: int, h: int) -> tuple[np.ndarray, str]:
    """A table surface as float32 HxWx3 and its kind."""
    kind = rng.choice(["felt", "felt", "wood", "wood", "cloth", "plastic", "pattern", "stone"])
    if kind in ("felt", "plastic"):
        base = np.array(rng.choice([(30, 100, 60), (20, 70, 120), (120, 30, 35), (70, 70, 75),
                                    (40, 120, 110), (90, 60, 110), (160, 150, 130), (20, 20, 25),
                                    (200, 200, 195), (60, 90, 40)]), np.float32)
        base = base + np.array([rng.uniform(-20, 20) for _ in range(3)], np.float32)
        img = base + _lowfreq(nrng, w, h, 6)[..., None] * (8 if kind == "felt" else 4)
    elif kind == "wood":
        c1 = np.array(rng.choice([(150, 100, 60), (110, 70, 40), (190, 150, 100), (80, 50, 30)]), np.float32)
        c2 = c1 * rng.uniform(0.6, 0.85)
        vert = rng.random() < 0.5
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        along, across = (xx, yy) if vert else (yy, xx)
        warp = _lowfreq(nrng, w, h, 3) * rng.uniform(4, 15) * max(w, h) / 1600
        period = rng.uniform(6, 25) * max(w, h) / 1600
        t = 0.5 + 0.5 * np.sin((along + warp + 0.02 * across) / period)
        img = c1 * (1 - t[..., None]) + c2 * t[..., None]
        plank = rng.uniform(150, 400) * max(w, h) / 1600
        seams = (np.mod(along, plank) < 2.0)
        img[seams] *= 0.55
    elif kind == "cloth":
        c1 = np.array(rng.choice([(200, 40, 40), (40, 60, 160), (40, 130, 70), (230, 190, 60)]), np.float32)
        c2 = np.array(rng.choice([(240, 240, 235), (30, 30, 30), (250, 230, 200)]), np.float32)
        period = int(rng.uniform(20, 80) * max(w, h) / 1600) + 2
        yy, xx = np.mgrid[0:h, 0:w]
        a = ((xx // period) % 2).astype(np.float32)
        b = ((yy // period) % 2).astype(np.float32)
        t = (a + b)[..., None] / 2
        img = c2 * (1 - t) + c1 * t
    elif kind == "stone":  # marble or a tiled top: veins or grout lines
        base = np.array(rng.choice([(225, 225, 220), (200, 195, 185), (60, 60, 65), (180, 190, 200)]),
                        np.float32)
        v = np.abs(_lowfreq(nrng, w, h, 8) + 0.5 * _lowfreq(nrng, w, h, 20))
        vein = np.clip(0.06 - v, 0, 0.06) / 0.06 * rng.uniform(10, 35)
        img = base - vein[..., None] + _lowfreq(nrng, w, h, 3)[..., None] * 6
        if rng.random() < 0.5:
            tile = int(rng.uniform(150, 400) * max(w, h) / 1600)
            yy, xx = np.mgrid[0:h, 0:w]
            img[(xx % tile < 3) | (yy % tile < 3)] *= 0.7
    else:
        bg = np.array(rng.choice([(235, 225, 200), (200, 220, 235), (240, 240, 240), (60, 40, 60)]),
                      np.float32)
        pil = Image.new("RGB", (w, h), tuple(int(v) for v in bg))
        d = ImageDraw.Draw(pil)
        cols = [tuple(rng.randint(40, 230) for _ in range(3)) for _ in range(3)]
        for _ in range(int(w * h / 9000)):
            x, y, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(4, 30) * max(w, h) / 1600
            d.ellipse((x - r, y - r, x + r, y + r), fill=rng.choice(cols))
        img = np.asarray(pil, np.float32)
    img = img + nrng.normal(0, rng.uniform(1.5, 6), (h, w, 1)).astype(np.float32)
    return np.clip(img, 0, 255), kind


def _shadowed(img: Image.Image, blur: float, offset: tuple[int, int], opacity: float) -> Image.Image:
    """An RGBA shadow image for ``img`` (same size plus margin)."""
    m = int(blur * 2 + max(abs(offset[0]), abs(offset[1]))) + 2
    a = img.getchannel("A")
    big = Image.new("L", (img.width + 2 * m, img.height + 2 * m), 0)
    big.paste(a, (m + offset[0], m + offset[1]))
    if blur > 0:
        big = big.filter(ImageFilter.GaussianBlur(blur))
    sh = Image.new("RGBA", big.size, (0, 0, 0, 0))
    sh.putalpha(big.point(lambda v: int(v * opacity)))
    return sh


def _hand(rng: random.Random, scale: float) -> Image.Image:
    tone = rng.choice([(224, 172, 140), (198, 140, 105), (150, 100, 70), (240, 200, 170), (110, 75, 55)])
    s = scale
    w, h = int(4.5 * s), int(6 * s)
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.ellipse((0.4 * s, 2.8 * s, 4.0 * s, 6.4 * s), fill=(*tone, 255))
    for k in range(4):
        fx = 0.5 * s + k * 0.85 * s
        top = 0.3 * s + abs(k - 1.5) * 0.4 * s
        d.rounded_rectangle((fx, top, fx + 0.75 * s, 4.0 * s), radius=0.37 * s, fill=(*tone, 255))
    d.rounded_rectangle((3.4 * s, 2.6 * s, 4.4 * s, 4.4 * s), radius=0.45 * s, fill=(*tone, 255))
    # skin is not flat: shade towards the edges, soften the outline
    a = np.asarray(im.getchannel("A"))
    soft = im.getchannel("A").filter(ImageFilter.GaussianBlur(max(1.0, 0.35 * s)))
    inner = np.asarray(soft, np.float32) / 255
    rgb = np.asarray(im.convert("RGB"), np.float32) * (0.6 + 0.4 * inner[..., None])
    out = Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).convert("RGBA")
    out.putalpha(Image.fromarray(a).filter(ImageFilter.GaussianBlur(max(0.5, 0.04 * s))))
    return out.rotate(rng.uniform(0, 360), expand=True, resample=Image.Resampling.BICUBIC)


def _chips(rng: random.Random, scale: float) -> Image.Image:
    """A few counters or coins, used to keep score at many tables."""
    w = int(scale * 4)
    im = Image.new("RGBA", (w, w), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    col = rng.choice([(200, 40, 40), (40, 80, 180), (230, 200, 60), (30, 30, 30), (190, 160, 90)])
    for _ in range(rng.randint(2, 7)):
        r = scale * rng.uniform(0.35, 0.6)
        x, y = rng.uniform(r, w - r), rng.uniform(r, w - r)
        d.ellipse((x - r, y - r, x + r, y + r), fill=(*col, 255), outline=(240, 240, 240, 255),
                  width=max(1, int(r * 0.15)))
    return im


def _phone(rng: random.Random, scale: float) -> Image.Image:
    w, h = int(2.2 * scale), int(4.6 * scale)
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    body = rng.choice([(20, 20, 22), (200, 200, 205), (60, 70, 90), (180, 150, 120)])
    d.rounded_rectangle((0, 0, w - 1, h - 1), radius=int(0.3 * scale), fill=(*body, 255))
    m = int(0.12 * scale)
    scr = rng.choice([(10, 10, 15), (60, 90, 140), (30, 30, 40)])
    d.rounded_rectangle((m, m, w - 1 - m, h - 1 - m), radius=int(0.2 * scale), fill=(*scr, 255))
    return im.rotate(rng.uniform(0, 360), expand=True, resample=Image.Resampling.BICUBIC)


def _cup(rng: random.Random, scale: float) -> Image.Image:
    r = int(1.6 * scale)
    im = Image.new("RGBA", (2 * r + 2, 2 * r + 2), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    rim = rng.choice([(240, 240, 235), (200, 60, 40), (40, 80, 150), (230, 220, 180)])
    d.ellipse((0, 0, 2 * r, 2 * r), fill=(*rim, 255))
    inner = int(r * 0.82)
    tea = rng.choice([(120, 80, 30), (60, 35, 20), (170, 140, 60), (200, 190, 150)])
    d.ellipse((r - inner, r - inner, r + inner, r + inner), fill=(*tea, 255))
    return im


# Common characters for printed-paper distractors; numerals are removed so that no unlabelled
# rank glyph appears in a scene.
PAPER_TEXT = "".join(ch for ch in (
    "的是不了人我在有他这中来上国个到说们为和你地出道也时年得就那要下以生会自着去之过家学对可里后么心"
    "多天而能好都然没日于起还发成事只作当想看文无开手用主行方又如前所本见经头面公同已老从动两长知民样"
    "现分将外但身些与高意进把法此实回理美点月明茶牌胡红黑钱赢输")
    if ch not in set(SMALL_CHARS + BIG_SIMPLIFIED + BIG_TRADITIONAL + "叄大小"))


def _paper(rng: random.Random, deck: DeckStyle, scale: float) -> Image.Image:
    """A scrap of printed paper (a score sheet, a wrapper): CJK text that is not a card."""
    w, h = int(scale * rng.uniform(3, 6)), int(scale * rng.uniform(2, 5))
    im = Image.new("RGBA", (w, h), (*rng.choice([(245, 242, 235), (230, 225, 200), (250, 250, 250)]), 255))
    d = ImageDraw.Draw(im)
    size = max(6, int(scale * rng.uniform(0.25, 0.6)))
    f = font(deck.face, size)
    ink = rng.choice([(30, 30, 30), (60, 60, 120), (160, 40, 40)])
    for y in range(size // 2, h - size, int(size * 1.4)):
        line = "".join(rng.choice(PAPER_TEXT) for _ in range(max(1, (w - size) // size)))
        d.text((size // 2, y), line, font=f, fill=ink)
    return im.rotate(rng.uniform(0, 360), expand=True, resample=Image.Resampling.BICUBIC)
