"""Card faces and backs drawn from a random deck style, each with a glyph mask for labels.

A face returns an RGBA image plus an ``L`` mask whose value is 1 on the top glyph's ink and
2 on the bottom (upside-down) glyph's ink, so labels can follow the ink through every transform.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from zipai.engine.cards import BIG_VARIANTS, SMALL_CHARS, Card

from .fonts import FALLBACK, Face, faces, has_glyph, render_char

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class DeckStyle:
    """Everything that makes one printed deck look like itself."""

    face: Face
    split: str
    ratio: float            # height / width
    paper: RGB
    black: RGB
    red: RGB
    glyph_w: float          # glyph box width / card width
    glyph_top: float        # glyph top offset / card height
    squash: float           # glyph height / width factor
    stroke: float           # dilation as a fraction of glyph width (0 = font weight)
    frame: int              # 0 none, 1 single, 2 double
    frame_color: RGB
    corner_marks: bool
    picture: int            # 0 none, 1 dots, 2 rings, 3 diamond
    big_variant: dict[int, str]
    compose_big3: bool      # 大三 drawn as 三 between the legs of 大
    back_color: RGB
    back_pattern: int       # 0 plain, 1 grid, 2 diagonal, 3 dots, 4 border+plain
    back_color2: RGB
    wear: float
    radius: float
    shear: float = 0.0      # italic slant of the glyph (x shift per unit of height)
    dry: float = 0.0        # dry-brush streaks in the ink, 0..1
    soft: float = 0.0       # blur radius of the ink edges, px at render size
    decor: int = 0          # style 2: 1 misregistered second print, 2 hollow outline, 3 cartouche;
    #                         style 3: 4 inline stroke, 5 halftone ink, 6 ribbon behind, 7 soft shadow
    decor_color: RGB = (0, 0, 0)
    decor_shift: float = 0.0  # offset of the second print, fraction of the card width
    # 伍 drawn from the face's own 亻 and 五 (``compose_five`` decks only): the 亻's share of the
    # width, 五's share of the height, and where 五 sits in the height left over (0 top, 1 bottom)
    big5_parts: tuple[float, float, float] | None = None


def _jit(rng: random.Random, c: RGB, d: int) -> RGB:
    return tuple(max(0, min(255, v + rng.randint(-d, d))) for v in c)  # type: ignore[return-value]


def random_deck(rng: random.Random, split: str, style: int = 1, compose_five: float = 0.0) -> DeckStyle:
    """A deck style; the face comes from ``split``'s font list only. ``style`` 2 adds decorated
    glyphs (drawn after every style-1 choice, so style 1 decks stay exactly as they were); style 3
    adds other decorations that no training data shows, to measure unseen print styles.

    ``compose_five`` is the share of decks that draw 伍 from the face's own 亻 and 五 in proportions
    of their own (``big5_parts``). A brush hand writes 伍 as it writes 五, so a face with a
    cursive 五 gives a cursive 伍 that no font draws; and fonts draw 伍 in one set of
    proportions where printed decks vary. It is drawn last, and only when asked for, so every
    deck drawn without it is the deck it always was."""
    face = rng.choice(faces(split))
    variants: dict[int, str] = {}
    for rank, forms in BIG_VARIANTS.items():
        ok = [f for f in forms if has_glyph(face, f)]
        variants[rank] = rng.choice(ok) if ok else forms[-1]
    paper = rng.choice([(250, 250, 246), (246, 240, 222), (240, 232, 205), (252, 252, 252),
                        (236, 228, 210), (245, 236, 215)])
    black = rng.choice([(20, 20, 22), (40, 38, 36), (25, 30, 50), (10, 10, 10), (55, 50, 45)])
    red = rng.choice([(200, 30, 35), (220, 40, 40), (180, 20, 30), (205, 55, 45), (230, 30, 60),
                      (225, 80, 40), (150, 25, 35), (215, 45, 90)])
    backs = [(30, 90, 60), (40, 60, 140), (150, 30, 35), (90, 60, 40), (20, 110, 110),
             (60, 60, 60), (200, 160, 60), (110, 40, 110)]
    heavy = face.style in ("brush", "kai") and rng.random() < 0.7
    deck = DeckStyle(
        face=face, split=split,
        ratio=rng.uniform(3.1, 3.9),
        paper=_jit(rng, paper, 6), black=_jit(rng, black, 8), red=_jit(rng, red, 12),
        glyph_w=rng.uniform(0.62, 0.9), glyph_top=rng.uniform(0.025, 0.07),
        squash=rng.uniform(0.85, 1.25),
        stroke=rng.uniform(0.03, 0.08) if heavy or rng.random() < 0.5 else rng.uniform(0.0, 0.03),
        frame=rng.choice((0, 0, 1, 1, 2)), frame_color=rng.choice([black, red, (40, 110, 60)]),
        corner_marks=rng.random() < 0.4, picture=rng.choice((0, 0, 0, 1, 2, 3)),
        big_variant=variants,
        compose_big3=(face.style == "brush" and rng.random() < 0.5) or rng.random() < 0.1,
        back_color=_jit(rng, rng.choice(backs), 15), back_pattern=rng.randrange(5),
        back_color2=_jit(rng, rng.choice([(230, 225, 210), (20, 20, 20), (200, 170, 60)]), 10),
        wear=rng.uniform(0, 1) ** 2, radius=rng.uniform(0.02, 0.12),
        shear=rng.gauss(0, 0.06) if rng.random() < 0.4 else 0.0,
        dry=rng.uniform(0.2, 1.0) if face.style == "brush" and rng.random() < 0.5 else 0.0,
        soft=rng.uniform(0.4, 1.0) if rng.random() < 0.3 else 0.0,
    )
    # bold sans and kai faces are sometimes printed lighter (serif hairlines would vanish)
    if "Bold" in face.path and face.style != "ming" and rng.random() < 0.3:
        deck = dataclasses.replace(deck, stroke=-rng.uniform(0.005, 0.02))
    if style == 3:
        decor = rng.choice((4, 5, 6, 7))
        color = rng.choice([(235, 210, 120), (240, 190, 180), (200, 225, 200), (215, 215, 215)])
        if decor == 7:  # a shadow is grey
            color = rng.choice([(110, 110, 110), (150, 140, 130)])
        deck = dataclasses.replace(deck, decor=decor, decor_color=color, decor_shift=rng.uniform(0.015, 0.04))
    elif style >= 2:
        decor = rng.choices((0, 1, 2, 3), (0.4, 0.25, 0.15, 0.2))[0]
        if decor == 2:  # the pale fill of a hollow glyph
            color = rng.choice([(250, 250, 250), (235, 210, 120), (240, 170, 160), (200, 200, 200)])
        else:  # the out-of-register second print
            color = rng.choice([(120, 120, 120), (200, 160, 40), (210, 60, 50), (40, 60, 140)])
        deck = dataclasses.replace(deck, decor=decor, decor_color=color, decor_shift=rng.uniform(0.02, 0.05))
    if compose_five > 0 and rng.random() < compose_five:
        deck = dataclasses.replace(deck, big5_parts=(rng.uniform(0.28, 0.42), rng.uniform(0.6, 0.92),
                                                     rng.uniform(0.2, 0.9)))
    return deck


def glyph_text(deck: DeckStyle, card: Card) -> str:
    return deck.big_variant[card.rank] if card.big else SMALL_CHARS[card.rank - 1]


@functools.lru_cache(maxsize=2048)
def _char_mask(face: Face, split: str, ch: str, size: int) -> np.ndarray:
    m = render_char(face, ch, size) if has_glyph(face, ch) else np.zeros((0, 0), np.uint8)
    if m.size == 0:
        m = render_char(FALLBACK[split], ch, size)
    if m.size == 0:
        raise ValueError(f"no font of split {split!r} draws {ch!r}")
    return m


# Characters whose left part is 亻 standing apart from the rest in most faces: where a face
# draws 伍 from 亻 and 五, its 亻 comes from the first of these it draws so.
PERSON_DONORS = "仁什化仕付代他件任休伏似伯住位作何"


@functools.lru_cache(maxsize=256)
def person_radical(face: Face, size: int) -> np.ndarray | None:
    """The face's own 亻 as an ink mask: the left part of a donor character, up to the first
    empty column between 15% and 55% of its width. None when no donor's 亻 stands apart (the
    face's strokes join): such a deck keeps the face's 伍."""
    for ch in PERSON_DONORS:
        if not has_glyph(face, ch):
            continue
        m = render_char(face, ch, size)
        cols = (m > 64).sum(axis=0)
        w = m.shape[1]
        empty = [x for x in range(int(w * 0.15), int(w * 0.55)) if cols[x] == 0]
        if empty:
            part = m[:, :empty[0]]
            rows = np.flatnonzero((part > 64).any(axis=1))
            return part[rows[0]:rows[-1] + 1].copy()
    return None


def _composed_big5(deck: DeckStyle, box_w: int, size: int) -> Image.Image | None:
    """伍 as 亻 beside a smaller 五, both the deck face's own (``big5_parts``)."""
    if deck.big5_parts is None or not has_glyph(deck.face, "五"):
        return None
    person = person_radical(deck.face, size)
    if person is None:
        return None
    five = render_char(deck.face, "五", size)
    left, height, place = deck.big5_parts
    bw, bh = box_w, max(8, int(box_w * deck.squash * 1.1))
    lw, gap = max(2, int(bw * left)), max(1, int(bw * 0.03))
    fw, fh = max(2, bw - lw - gap), max(2, int(bh * height))
    y = int((bh - fh) * place)
    canvas = np.zeros((bh, bw), np.uint8)
    canvas[:, :lw] = np.asarray(_fit(person, lw, bh))
    canvas[y:y + fh, lw + gap:lw + gap + fw] = np.asarray(_fit(five, fw, fh))
    return Image.fromarray(canvas)


def _fit(mask: np.ndarray, w: int, h: int) -> Image.Image:
    return Image.fromarray(mask).resize((max(1, w), max(1, h)), Image.Resampling.BILINEAR)


def glyph_mask(deck: DeckStyle, card: Card, box_w: int) -> Image.Image:
    """The glyph's ink as an ``L`` image about ``box_w`` wide, stroke weight applied."""
    size = max(16, int(box_w * 1.2))
    ch = glyph_text(deck, card)
    if card.big and card.rank == 3 and deck.compose_big3:
        da = _char_mask(deck.face, deck.split, "大", size)
        san = _char_mask(deck.face, deck.split, "三", size)
        bw, bh = box_w, int(box_w * deck.squash * 1.1)
        base = _fit(da, bw, bh)
        sw, sh = int(bw * 0.42), int(bh * 0.3)
        small = _fit(san, sw, sh)
        canvas = Image.new("L", (bw, bh), 0)
        canvas.paste(base, (0, 0))
        inner = Image.new("L", (bw, bh), 0)
        inner.paste(small, ((bw - sw) // 2, int(bh * 0.62)))
        im = Image.fromarray(np.maximum(np.asarray(canvas), np.asarray(inner)))
    elif card.big and card.rank == 5 and (five := _composed_big5(deck, box_w, size)) is not None:
        im = five
    else:
        m = _char_mask(deck.face, deck.split, ch, size)
        aspect = m.shape[0] / max(1, m.shape[1])
        gw = box_w if aspect < 1.6 else int(box_w * 0.8)
        gh = int(min(gw * aspect * deck.squash, box_w * 1.35)) if aspect > 0.35 else max(3, int(gw * aspect))
        if ch in "一二三":  # flat glyphs keep their aspect: no box-filling stretch
            gh = max(3, int(gw * aspect * deck.squash))
        im = _fit(m, gw, gh)
    # Printed strokes are heavier than font strokes: dilate at twice the size, then shrink
    # (a negative weight erodes instead, for bold faces printed light).
    k = round(abs(deck.stroke) * box_w)
    if k >= 1:
        w2, h2 = im.size
        big = im.resize((w2 * 2, h2 * 2), Image.Resampling.BILINEAR)
        filt = ImageFilter.MaxFilter if deck.stroke > 0 else ImageFilter.MinFilter
        big = big.filter(filt(2 * min(k, 4) + 1))
        im = big.resize((w2, h2), Image.Resampling.BILINEAR)
    if deck.shear:
        w2, h2 = im.size
        pad = int(abs(deck.shear) * h2) + 1
        wide = Image.new("L", (w2 + 2 * pad, h2), 0)
        wide.paste(im, (pad, 0))
        im = wide.transform(wide.size, Image.Transform.AFFINE, (1, deck.shear, -deck.shear * h2 / 2, 0, 1, 0),
                            resample=Image.Resampling.BILINEAR)
        bbox = im.getbbox()
        if bbox:
            im = im.crop(bbox)
    return im


def _rounded(w: int, h: int, r: int) -> Image.Image:
    a = Image.new("L", (w, h), 0)
    ImageDraw.Draw(a).rounded_rectangle((0, 0, w - 1, h - 1), radius=max(0, r), fill=255)
    return a


def card_size(deck: DeckStyle, width: int) -> tuple[int, int]:
    return width, max(8, round(width * deck.ratio))


def render_face(deck: DeckStyle, card: Card, width: int,
                rng: random.Random) -> tuple[Image.Image, Image.Image]:
    """(RGBA card, L glyph-flag mask: 1 top glyph ink, 2 bottom glyph ink)."""
    w, h = card_size(deck, width)
    ink = deck.red if card.is_red else deck.black
    img = Image.new("RGB", (w, h), deck.paper)
    d = ImageDraw.Draw(img)
    if deck.frame and w >= 16:
        m = max(2, int(w * 0.06))
        lw = max(1, int(w * 0.02))
        d.rectangle((m, m, w - 1 - m, h - 1 - m), outline=deck.frame_color, width=lw)
        if deck.frame == 2 and w >= 30:
            m2 = m + lw + max(1, int(w * 0.03))
            d.rectangle((m2, m2, w - 1 - m2, h - 1 - m2), outline=deck.frame_color, width=max(1, lw // 2))
    gbox = max(6, int(w * deck.glyph_w))
    g = glyph_mask(deck, card, gbox)
    gw, gh = g.size
    fit = min(1.0, h * 0.36 / gh, (w * 0.96) / gw)  # a slanted or tall glyph still fits the card
    if fit < 1.0:
        g = g.resize((max(1, int(gw * fit)), max(1, int(gh * fit))), Image.Resampling.BILINEAR)
        gw, gh = g.size
    gx, gy = (w - gw) // 2, int(h * deck.glyph_top) + 1
    ga = np.asarray(g, np.float32) / 255.0
    by, bx = h - gy - gh, w - gx - gw
    second = np.zeros((h, w), np.float32)      # a second ink layer (style 2 decorations)
    if deck.decor == 2:  # hollow glyph: a dark outline around a pale fill
        k = max(1, round(0.035 * w))
        grown = np.asarray(g.filter(ImageFilter.MaxFilter(2 * k + 1)), np.float32) / 255.0
        ring = np.clip(grown - ga, 0, 1)
        second = _both_glyphs(ga * 0.45, h, w, gx, gy, bx, by)
        ga = ring
    elif deck.decor == 1:  # printed twice, the second pass out of register
        sx = round(deck.decor_shift * w)
        second = _both_glyphs(ga, h, w, gx + sx, gy + sx, bx - sx, by - sx)
    elif deck.decor == 4:  # inline: a pale line runs inside each stroke
        k = max(1, round(0.02 * w))
        core = np.asarray(g.filter(ImageFilter.MinFilter(2 * k + 1)), np.float32) / 255.0
        ga = ga * (1 - 0.85 * core)
    elif deck.decor == 5:  # halftone: the ink printed as a screen of dots
        period = max(3, round(0.05 * w))
        yy, xx = np.mgrid[0:gh, 0:gw]
        dist = np.hypot((xx % period) - period / 2, (yy % period) - period / 2)
        ga = ga * np.where(dist < period * 0.45, 1.0, 0.3)
    elif deck.decor == 6:  # a pale ribbon behind the glyph
        pad = max(2, int(w * 0.03))
        for x0, y0 in ((gx, gy), (bx, by)):
            d.rounded_rectangle((x0 - pad, y0 + gh // 4, x0 + gw + pad, y0 + gh - gh // 4), radius=pad,
                                fill=deck.decor_color)
    elif deck.decor == 7:  # a soft shadow below and right of the ink
        sx = max(1, round(deck.decor_shift * w))
        blur = np.asarray(g.filter(ImageFilter.GaussianBlur(max(1, sx // 2))), np.float32) / 255.0
        second = _both_glyphs(blur * 0.6, h, w, gx + sx, gy + sx, bx - sx, by - sx)
    elif deck.decor == 3:  # the glyph sits in a cartouche
        pad = max(2, int(w * 0.04))
        lw = max(1, int(w * 0.025))
        for x0, y0 in ((gx, gy), (bx, by)):
            d.rounded_rectangle((x0 - pad, y0 - pad, x0 + gw + pad, y0 + gh + pad), radius=pad * 2,
                                outline=deck.frame_color, width=lw)
    ink_alpha = _both_glyphs(ga, h, w, gx, gy, bx, by)
    # which glyph owns each pixel: the upper half of the card holds the top glyph
    which = np.full((h, w), 2, np.uint8)
    which[: h // 2] = 1
    if deck.corner_marks:
        r = max(1, int(w * 0.035))
        for cx, cy in ((w * 0.15, h * 0.5 - h * 0.08), (w * 0.85, h * 0.5 + h * 0.08)):
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=ink)
    if deck.picture:
        cx, cy = w / 2, h / 2
        s = w * 0.22
        col = deck.frame_color if deck.frame else ink
        if deck.picture == 1:
            for k in range(-1, 2):
                d.ellipse((cx - s * 0.3, cy + k * s - s * 0.3, cx + s * 0.3, cy + k * s + s * 0.3), fill=col)
        elif deck.picture == 2:
            d.ellipse((cx - s, cy - s, cx + s, cy + s), outline=col, width=max(1, int(w * 0.02)))
            d.ellipse((cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2), fill=col)
        else:
            d.polygon([(cx, cy - 1.5 * s), (cx + s, cy), (cx, cy + 1.5 * s), (cx - s, cy)], outline=col)
    arr = np.asarray(img, np.float32)
    if deck.wear > 0.05:
        # faded ink: speckles where the ink did not take
        nrng = np.random.default_rng(rng.getrandbits(32))
        small = nrng.normal(0, 1, (max(2, h // 3), max(2, w // 3))).astype(np.float32)
        big = np.asarray(Image.fromarray(small, "F").resize((w, h), Image.Resampling.BILINEAR))
        holes = big > 2.6 - deck.wear
        ink_alpha = ink_alpha * np.where(holes, 0.35, 1.0)
        second = second * np.where(holes, 0.35, 1.0)
    if deck.soft > 0:  # ink that spread into the paper: soft edges
        ink_alpha, second = _soften(ink_alpha, deck.soft), _soften(second, deck.soft)
    if deck.dry > 0:  # dry brush: streaks along the stroke direction where the ink ran thin
        nrng2 = np.random.default_rng(rng.getrandbits(32))
        streak = nrng2.normal(0, 1, (max(2, h // 6), max(2, w // 2))).astype(np.float32)
        streak = np.asarray(Image.fromarray(streak, "F").resize((w, h), Image.Resampling.BILINEAR))
        thin = np.where(streak > 1.6 - deck.dry, 0.55, 1.0)
        ink_alpha, second = ink_alpha * thin, second * thin
    # labels follow the final ink, decorations included
    flags = np.where((ink_alpha > 0.3) | (second > 0.3), which, 0).astype(np.uint8)
    if deck.decor:
        sa = second[..., None]
        arr = arr * (1 - sa) + np.asarray(deck.decor_color, np.float32) * sa
    ia = ink_alpha[..., None]
    arr = arr * (1 - ia) + np.asarray(ink, np.float32) * ia
    if deck.wear > 0.3:  # dirty, yellowed edges
        yy, xx = np.mgrid[0:h, 0:w]
        edge = np.minimum(np.minimum(xx, w - 1 - xx), np.minimum(yy, h - 1 - yy)).astype(np.float32)
        dirt = np.clip(1 - edge / max(2.0, w * 0.08), 0, 1)[..., None] * 0.25 * deck.wear
        arr = arr * (1 - dirt) + np.array([150, 130, 90], np.float32) * dirt
    arr = _paper_light(arr, rng)
    out = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)).convert("RGBA")
    out.putalpha(_rounded(w, h, int(w * deck.radius)))
    return out, Image.fromarray(flags)


def _both_glyphs(ga: np.ndarray, h: int, w: int, gx: int, gy: int, bx: int, by: int) -> np.ndarray:
    """A card-sized alpha holding ``ga`` at (gx, gy) and, turned half round, at (bx, by)."""
    out = np.zeros((h, w), np.float32)
    for a, x0, y0 in ((ga, gx, gy), (ga[::-1, ::-1], bx, by)):
        gh, gw = a.shape
        xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + gw), min(h, y0 + gh)
        if xa < xb and ya < yb:
            part = a[ya - y0:yb - y0, xa - x0:xb - x0]
            out[ya:yb, xa:xb] = np.maximum(out[ya:yb, xa:xb], part)
    return out


def _soften(alpha: np.ndarray, radius: float) -> np.ndarray:
    a8 = Image.fromarray(np.clip(alpha * 255, 0, 255).astype(np.uint8))
    return np.asarray(a8.filter(ImageFilter.GaussianBlur(radius)), np.float32) / 255


def _paper_light(arr: np.ndarray, rng: random.Random) -> np.ndarray:
    """A card is never flat: a slight bend across it and a brightness slope along it."""
    h, w = arr.shape[:2]
    x = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    y = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    bend = 1 - rng.uniform(0, 0.12) * (x - rng.uniform(-0.5, 0.5)) ** 2
    slope = 1 + rng.uniform(-0.06, 0.06) * y + rng.uniform(-0.04, 0.04) * x
    lit: np.ndarray = arr * (bend * slope)[..., None]
    return lit


def render_back(deck: DeckStyle, width: int, rng: random.Random | None = None) -> Image.Image:
    """An RGBA card back."""
    w, h = card_size(deck, width)
    img = Image.new("RGB", (w, h), deck.back_color)
    d = ImageDraw.Draw(img)
    c2 = deck.back_color2
    step = max(3, int(w * 0.12))
    p = deck.back_pattern
    if p == 1:
        for x in range(0, w, step):
            d.line((x, 0, x, h), fill=c2, width=1)
        for y in range(0, h, step):
            d.line((0, y, w, y), fill=c2, width=1)
    elif p == 2:
        for k in range(-h, w + h, step):
            d.line((k, 0, k + h, h), fill=c2, width=1)
            d.line((k + h, 0, k, h), fill=c2, width=1)
    elif p == 3:
        r = max(1, step // 4)
        for y in range(step // 2, h, step):
            for x in range(step // 2, w, step):
                d.ellipse((x - r, y - r, x + r, y + r), fill=c2)
    if p in (3, 4) or (p == 0 and w > 20):
        m = max(2, int(w * 0.08))
        d.rectangle((m, m, w - 1 - m, h - 1 - m), outline=c2, width=max(1, int(w * 0.03)))
    if rng is not None:
        lit = _paper_light(np.asarray(img, np.float32), rng)
        img = Image.fromarray(np.clip(lit, 0, 255).astype(np.uint8))
    out = img.convert("RGBA")
    out.putalpha(_rounded(w, h, int(w * deck.radius)))
    return out
