"""One synthetic table photo and its labels, deterministic in (seed, split, index).

The scene is built on a flat "table plane": texture, distractors, then the seven groups as
columns of overlapping cards. Two label maps ride along with the pixels (which card owns each
pixel, and whether it is top-glyph or bottom-glyph ink), through the same perspective warp,
so every glyph box is the box of the ink that is actually visible in the final photo.
"""

from __future__ import annotations

import io
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from zipai.engine import ALL_CARDS, Card, ZipaiError, score
from zipai.engine.cards import BIG_SIMPLIFIED, BIG_TRADITIONAL, SMALL_CHARS
from zipai.engine.generate import HAND, TABLE, LaidGroup, Layout, random_layout
from zipai.vision.constants import BACK_ID, CATEGORY_NAMES

from .cards import DeckStyle, random_deck, render_back, render_face
from .fonts import font

CATEGORIES: list[dict[str, Any]] = [
    {"id": i, "name": name, "supercategory": "card"} for i, name in enumerate(CATEGORY_NAMES, 1)]
MIN_GLYPH_VISIBLE = 0.5    # below this fraction of its ink a glyph is too hidden to tell
MIN_BACK_VISIBLE = 0.15    # fraction of a back's area
MIN_PIXELS = 12
STYLES = (1, 2, 3)  # 1: the generator as frozen for the first detector; 2: decorated glyphs;
#                     3: other decorations, never in training (a check on unseen print styles)


def category_id(card: Card | None) -> int:
    """1..10 small, 11..20 big, 21 back."""
    return BACK_ID if card is None else card.index + 1


@dataclass
class Placed:
    """A card laid on the table plane."""

    card: Card | None          # None: face down
    cx: float
    cy: float
    angle: float               # degrees, counter-clockwise, as Image.rotate
    group: int                 # -1: a loose distractor card
    state: str | None
    row: str
    width: int = 0
    full_ink: dict[int, int] = field(default_factory=dict)
    corners: list[tuple[float, float]] = field(default_factory=list)
    area: int = 0


def _rng_for(seed: int, split: str, index: int) -> random.Random:
    return random.Random(f"zipai-scene:{seed}:{split}:{index}")


# ---------------------------------------------------------------- layouts

def _random_loose_layout(rng: random.Random) -> Layout:
    """Cards dealt at random and laid in columns: no structure, for the detector's sake."""
    for _ in range(50):
        deck = [c for c in ALL_CARDS for _ in range(4)]
        rng.shuffle(deck)
        n = rng.randint(12, 21)
        cards = deck[:n]
        groups: list[LaidGroup] = []
        i = 0
        while i < n:
            k = min(n - i, rng.randint(1, 4))
            groups.append(LaidGroup(tuple(cards[i:i + k]), "concealed", HAND))
            i += k
        lay = Layout(groups[:7], "hunan", 3, 0, 1, "self_draw")
        try:
            score(lay.to_input())
        except ZipaiError:
            continue
        return lay
    return random_layout(rng)


def pick_layout(rng: random.Random) -> Layout:
    roll = rng.random()
    if roll < 0.1:
        return _random_loose_layout(rng)
    return random_layout(rng, rules="hunan", winning=roll < 0.85)


# ---------------------------------------------------------------- table and distractors

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


def _paste_occluder(canvas: Image.Image, owner: np.ndarray, img: Image.Image, x: int, y: int) -> None:
    """Paste an RGBA occluder; it hides whatever card lies under it."""
    canvas.paste(img, (x, y), img)
    a = np.asarray(img.getchannel("A")) > 128
    _stamp(owner, a, x, y, 0)


def _stamp(arr: np.ndarray, mask: np.ndarray, x: int, y: int, value: int | np.ndarray) -> None:
    h, w = mask.shape
    H, W = arr.shape
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x0 >= x1 or y0 >= y1:
        return
    m = mask[y0 - y:y1 - y, x0 - x:x1 - x]
    if isinstance(value, np.ndarray):
        arr[y0:y1, x0:x1][m] = value[y0 - y:y1 - y, x0 - x:x1 - x][m]
    else:
        arr[y0:y1, x0:x1][m] = value


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


# ---------------------------------------------------------------- geometry

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
    return c[:, k - 1:] - np.concatenate([np.zeros((c.shape[0], 1), np.int32), c[:, :-k]], axis=1)


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
    chain_l = list(zip(np.repeat(left, 2).tolist(), ys, strict=True))
    chain_r = list(zip(np.repeat(right, 2).tolist(), ys, strict=True))
    poly = np.asarray(_simplify(chain_l, 0.75) + _simplify(chain_r[::-1], 0.75), np.int64)
    # drop the corners that change the area least until few remain
    while len(poly) > max_points:
        a, c = np.roll(poly, 1, axis=0) - poly, np.roll(poly, -1, axis=0) - poly
        areas = np.abs(a[:, 0] * c[:, 1] - c[:, 0] * a[:, 1])
        poly = np.delete(poly, int(np.argmin(areas)), axis=0)
    return [[round(float(x) + ox, 1), round(float(y) + oy, 1)] for x, y in poly.tolist()]


# ---------------------------------------------------------------- the layout on the plane

def _column_plan(rng: random.Random, lay: Layout, ratio: float) -> tuple[list[Placed], float, float]:
    """Cards in unit coordinates (card width 1); returns placements and the layout's extent.

    The two rows (claimed groups, revealed hand) lie one above the other, or side by side in
    one long row with a wider gap between them; columns are straight, lean, or fan out.
    """
    step = rng.uniform(0.2, 0.4)
    gap = rng.uniform(0.98, 1.1) if rng.random() < 0.6 else rng.uniform(1.1, 1.6)
    mode = rng.choices(["straight", "lean", "fan"], [0.55, 0.3, 0.15])[0]
    sloppy = rng.choice((0.02, 0.02, 0.05, 0.1))   # how carelessly cards are squared in a column
    rows: dict[str, list[int]] = {TABLE: [], HAND: []}
    for n, g in enumerate(lay.groups):
        rows[g.row].append(n)
    order = [TABLE, HAND] if rng.random() < 0.75 else [HAND, TABLE]
    if rng.random() < 0.5:  # groups inside a row need not follow the layout's order
        for r in rows.values():
            rng.shuffle(r)
    one_row = rng.random() < 0.45
    placed: list[Placed] = []
    x0 = y = 0.0
    for row in order:
        idxs = rows[row]
        if not idxs:
            continue
        ncol = len(idxs)
        longest = max(len(lay.groups[n].cards) for n in idxs)
        fan_span = rng.uniform(20, 50) if mode == "fan" else 0.0
        x_start = x0 if one_row else -(ncol - 1) * gap / 2
        for c, n in enumerate(idxs):
            g = lay.groups[n]
            shown = _shown_cards(rng, g)
            if mode == "straight":
                ang = rng.gauss(0, 1.5)
            elif mode == "lean":
                ang = rng.gauss(0, 7)
            else:
                ang = (c - (ncol - 1) / 2) / max(1, ncol - 1) * fan_span + rng.gauss(0, 1.5)
            top_x = x_start + c * gap + rng.gauss(0, 0.05)
            top_y = y + rng.gauss(0, 0.08) + (abs(c - (ncol - 1) / 2) * 0.15 if mode == "fan" else 0)
            for j, card in enumerate(shown):
                along = j * ratio * max(0.12, step + rng.gauss(0, 0.02)) + ratio / 2
                dx, dy = _rot(0.0, along, ang)
                placed.append(Placed(card, top_x + dx + rng.gauss(0, sloppy), top_y + dy,
                                     ang + rng.gauss(0, 1.0 + 20 * sloppy), n, g.state, row))
        if one_row:
            x0 = x_start + ncol * gap + rng.uniform(0.5, 2.0)
            y += rng.gauss(0, 0.3)
        else:
            y += ratio * (1 + (longest - 1) * step) + rng.uniform(0.25, 1.0) * ratio
    return _centred(placed, ratio)


def _centred(placed: list[Placed], ratio: float) -> tuple[list[Placed], float, float]:
    """The layout moved to centre on the origin, and its extent in card widths (a card's own
    width and height past the outermost centres)."""
    xs = [p.cx for p in placed]
    ys = [p.cy for p in placed]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    for p in placed:
        p.cx -= cx
        p.cy -= cy
    return placed, max(xs) - min(xs) + 1.6, max(ys) - min(ys) + ratio * 1.1


LAYOUTS = ("classic", "players")  # how the groups are laid out (``render_scene_full``'s ``layouts``)


def _players_plan(rng: random.Random, lay: Layout, ratio: float) -> tuple[list[Placed], float, float]:
    """The layouts players lay (``layouts="players"``), wider than ``_column_plan``'s where real
    tables showed it narrow: the two rows one above the other with a gap from tight (0.05 card
    heights) to wide (1.0), the claimed row on top or below, the columns of the two rows in line
    or staggered by half a column; a concealed group shown as one face over backs (or backs
    alone) in whichever row it lies; the hand's pairs and lone cards as short columns of their
    own; and in one scene of three a discard or two lying in line with a row, a column apart.
    Cards in unit coordinates (card width 1), as ``_column_plan``."""
    step = rng.uniform(0.2, 0.4)
    gap = rng.uniform(0.98, 1.25)
    rows: dict[str, list[int]] = {TABLE: [], HAND: []}
    for n, g in enumerate(lay.groups):
        rows[g.row].append(n)
    order = [TABLE, HAND] if rng.random() < 0.6 else [HAND, TABLE]
    for r in rows.values():
        if rng.random() < 0.5:
            rng.shuffle(r)
    row_gap = rng.uniform(0.05, 0.3) if rng.random() < 0.5 else rng.uniform(0.3, 1.0)
    stagger = rng.random() < 0.5
    width = max(len(r) for r in rows.values())
    placed: list[Placed] = []
    y = 0.0
    for k, row in enumerate(order):
        idxs = rows[row]
        if not idxs:
            continue
        longest = max(len(lay.groups[n].cards) for n in idxs)
        x_start = -(width - 1) * gap / 2 + (gap / 2 if stagger and k % 2 else 0.0)
        for c, n in enumerate(idxs):
            g = lay.groups[n]
            shown = _shown_face_over_backs(rng, g)
            ang = rng.gauss(0, 2.0)
            top_x = x_start + c * gap + rng.gauss(0, 0.04)
            top_y = y + rng.gauss(0, 0.05)
            for j, card in enumerate(shown):
                along = j * ratio * max(0.12, step + rng.gauss(0, 0.02)) + ratio / 2
                dx, dy = _rot(0.0, along, ang)
                placed.append(Placed(card, top_x + dx + rng.gauss(0, 0.02), top_y + dy,
                                     ang + rng.gauss(0, 1.0), n, g.state, row))
        y += ratio * (1 + (longest - 1) * step) + row_gap * ratio
    if rng.random() < 1 / 3:  # a discard or two in line with a row's end, a column or so apart
        counts = Counter(c.index for c in lay.cards())
        pool = [c for c in ALL_CARDS for _ in range(4 - counts[c.index])]
        rng.shuffle(pool)
        row = rng.choice([r for r in order if rows[r]])
        ys = [p.cy for p in placed if p.row == row]
        xs = [p.cx for p in placed if p.row == row]
        for j, card in enumerate(pool[:rng.choice((1, 1, 2))]):
            at = max(xs) + gap * rng.uniform(1.5, 2.5) + j * 1.1
            placed.append(Placed(card, at, min(ys) + rng.gauss(0, 0.1), rng.gauss(0, 4), -1, None, "loose"))
    return _centred(placed, ratio)


HAND_SET_BACKS = 0.35  # how often players lay a set held in the hand (坎, 提) as one face over backs


def _shown_face_over_backs(rng: random.Random, g: LaidGroup) -> list[Card | None]:
    """A concealed group of the claimed row as players lay it: backs under one face-up card that
    lies whole on top (one group in five, backs alone). A set held in the hand (three or four of
    a card) is laid the same way, one face over its backs, in ``HAND_SET_BACKS`` of them; any
    other group face up, as dealt."""
    cards: list[Card | None] = list(g.cards)
    if g.row == TABLE and g.state == "concealed" and len(cards) >= 3:
        if rng.random() < 0.2:
            return [None] * len(cards)
        return [None] * (len(cards) - 1) + [cards[-1]]
    if g.row == HAND and len(cards) >= 3 and len(set(cards)) == 1 and rng.random() < HAND_SET_BACKS:
        return [None] * (len(cards) - 1) + [cards[-1]]
    if len(cards) > 1 and rng.random() < 0.3:
        rng.shuffle(cards)
    return cards


def _shown_cards(rng: random.Random, g: LaidGroup) -> list[Card | None]:
    """What a column shows: a concealed group on the table is backs with one face-up card or none."""
    cards: list[Card | None] = list(g.cards)
    if g.row == TABLE and g.state == "concealed" and len(cards) >= 3:
        if rng.random() < 0.2:
            return [None] * len(cards)
        face_at = len(cards) - 1 if rng.random() < 0.6 else 0
        return [c if i == face_at else None for i, c in enumerate(cards)]
    if len(cards) > 1 and rng.random() < 0.3:
        rng.shuffle(cards)
    return cards


def _loose_cards(rng: random.Random, lay: Layout) -> list[Card]:
    counts = [0] * 20
    for c in lay.cards():
        counts[c.index] += 1
    pool = [c for c in ALL_CARDS for _ in range(4 - counts[c.index])]
    rng.shuffle(pool)
    return pool[:rng.choice([0, 0, 1, 2, 3, 4, 6, 8])]


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


# ---------------------------------------------------------------- photo effects

def _photo_effects(rng: random.Random, nrng: np.random.Generator, img: Image.Image,
                   cards: np.ndarray | None = None) -> Image.Image:
    """Light, shadow, glare (strongest on the glossy cards, given as a mask), noise, blur, JPEG."""
    w, h = img.size
    s = max(w, h) / 1600
    a = np.asarray(img, np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # lamp: brightness falloff from a light position, warm/cool tint, overall exposure
    lx, ly = rng.uniform(-0.3, 1.3) * w, rng.uniform(-0.3, 1.3) * h
    dist = np.sqrt((xx - lx) ** 2 + (yy - ly) ** 2) / max(w, h)
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
    buf = io.BytesIO()
    out.save(buf, "JPEG", quality=rng.randint(35, 92))
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


# ---------------------------------------------------------------- the scene

Annotations = list[dict[str, Any]]


def _tilt(face: Image.Image, flags: Image.Image, rng: random.Random, amount: float
          ) -> tuple[Image.Image, Image.Image, list[tuple[float, float]]]:
    """Warp a card into a slightly irregular quadrilateral (a card lifted or bent at one end);
    returns the warped face, the warped flags and its four corners relative to the image centre."""
    w0, h0 = face.size
    m = int(amount * w0 * 2) + 2
    jit = amount * w0
    dst = [(m + dx * w0 + rng.uniform(-jit, jit), m + dy * h0 + rng.uniform(-jit, jit))
           for dx, dy in ((0, 0), (1, 0), (1, 1), (0, 1))]
    src = [(0.0, 0.0), (float(w0), 0.0), (float(w0), float(h0)), (0.0, float(h0))]
    hm = _homography(dst, src)
    coeffs = tuple((hm / hm[2, 2]).flatten()[:8])
    size = (w0 + 2 * m, h0 + 2 * m)
    f2 = face.transform(size, Image.Transform.PERSPECTIVE, coeffs, resample=Image.Resampling.BICUBIC)
    g2 = flags.transform(size, Image.Transform.PERSPECTIVE, coeffs, resample=Image.Resampling.NEAREST)
    cx, cy = size[0] / 2, size[1] / 2
    return f2, g2, [(x - cx, y - cy) for x, y in dst]


def compose(items: list[Placed], deck: DeckStyle, canvas: Image.Image, quad: list[tuple[float, float]],
            size: tuple[int, int], rng: random.Random, unit: float,
            occluders: Sequence[tuple[Image.Image, int, int]] = (),
            ) -> tuple[Image.Image, Annotations, dict[str, np.ndarray]]:
    """Lay ``items`` (in order, later on top) on the table plane ``canvas``, put occluders over
    them, and photograph ``quad`` of the plane into an image of ``size``; returns the clean image,
    the annotations and the label maps (owner: item number + 1 per pixel, flags: glyph ink 1/2)."""
    W, H = size
    PW, PH = canvas.size
    owner = np.zeros((PH, PW), np.uint8)
    flags = np.zeros((PH, PW), np.uint8)
    card_w = max(6, round(unit))
    shadow_off = (int(rng.uniform(-0.04, 0.06) * unit) or 1, int(rng.uniform(0.02, 0.08) * unit) or 1)
    for k, p in enumerate(items, start=1):
        p.width = card_w
        if p.card is None:
            face = render_back(deck, card_w, rng)
            fl = Image.new("L", face.size, 0)
        else:
            face, fl = render_face(deck, p.card, card_w, rng)
        w0, h0 = face.size
        local = [(-w0 / 2, -h0 / 2), (w0 / 2, -h0 / 2), (w0 / 2, h0 / 2), (-w0 / 2, h0 / 2)]
        if w0 >= 12 and rng.random() < 0.4:  # the card does not lie quite flat
            face, fl, local = _tilt(face, fl, rng, rng.uniform(0.01, 0.05))
        rot = face.rotate(p.angle, expand=True, resample=Image.Resampling.BICUBIC)
        rfl = fl.rotate(p.angle, expand=True, resample=Image.Resampling.NEAREST)
        x = round(p.cx - rot.width / 2)
        y = round(p.cy - rot.height / 2)
        sh = _shadowed(rot, max(1.0, unit * 0.05), shadow_off, rng.uniform(0.25, 0.5))
        m = (sh.width - rot.width) // 2
        canvas.paste(sh, (x - m, y - m), sh)
        canvas.paste(rot, (x, y), rot)
        alpha = np.asarray(rot.getchannel("A")) > 128
        _stamp(owner, alpha, x, y, k)
        flag_arr = np.asarray(rfl)
        _stamp(flags, alpha, x, y, flag_arr)
        p.full_ink = {1: int((flag_arr[alpha] == 1).sum()), 2: int((flag_arr[alpha] == 2).sum())}
        p.area = int(alpha.sum())
        p.corners = [(p.cx + dx, p.cy + dy) for dx, dy in (_rot(lx, ly, p.angle) for lx, ly in local)]

    for img, ox, oy in occluders:
        sh = _shadowed(img, unit * 0.3, (int(unit * 0.3), int(unit * 0.4)), 0.4)
        mx, my = (sh.width - img.width) // 2, (sh.height - img.height) // 2
        canvas.paste(sh, (ox - mx, oy - my), sh)
        _paste_occluder(canvas, owner, img, ox, oy)

    out_corners = [(0.0, 0.0), (W, 0.0), (W, H), (0.0, H)]
    h_out2plane = _homography(out_corners, quad)
    h_plane2out = np.linalg.inv(h_out2plane)
    coeffs = tuple((h_out2plane / h_out2plane[2, 2]).flatten()[:8])
    rgb = canvas.transform((W, H), Image.Transform.PERSPECTIVE, coeffs,
                                          resample=Image.Resampling.BICUBIC)
    own_o = np.asarray(Image.fromarray(owner).transform((W, H), Image.Transform.PERSPECTIVE, coeffs,
                                                        resample=Image.Resampling.NEAREST))
    flg_o = np.asarray(Image.fromarray(flags).transform((W, H), Image.Transform.PERSPECTIVE, coeffs,
                                                        resample=Image.Resampling.NEAREST))
    # visible counts measured on the plane (occlusion and the view's crop), so fractions
    # do not depend on the warp's pixel area
    view = Image.new("L", (PW, PH), 0)
    ImageDraw.Draw(view).polygon(quad, fill=1)
    inview = np.asarray(view).astype(bool)
    codes = owner.astype(np.int64) * 3 + flags
    counts = np.bincount(codes[inview], minlength=3 * (len(items) + 1))

    anns: list[dict[str, Any]] = []
    for k, p in enumerate(items, start=1):
        oc = _apply(h_plane2out, p.corners)
        x0 = max(0, math.floor(min(x for x, _ in oc)) - 2)
        y0 = max(0, math.floor(min(y for _, y in oc)) - 2)
        x1 = min(W, math.ceil(max(x for x, _ in oc)) + 2)
        y1 = min(H, math.ceil(max(y for _, y in oc)) + 2)
        if x0 >= x1 or y0 >= y1:
            continue
        sub_own = own_o[y0:y1, x0:x1] == k
        n_vis = int(sub_own.sum())
        if n_vis < MIN_PIXELS:
            continue
        sub_flg = flg_o[y0:y1, x0:x1]
        main = _main_part(sub_own, math.dist(oc[0], oc[1]))
        ann: dict[str, Any] = {
            "category_id": category_id(p.card), "iscrowd": 0,
            "card_polygon": _mask_outline(main, x0, y0),
            "card_corners": [[round(x, 1), round(y, 1)] for x, y in oc],
            "group": p.group, "group_state": p.state, "row": p.row,
            "color": None if p.card is None else p.card.color,
        }
        if p.card is None:
            vis_frac = counts[3 * k] / max(1, p.area)
            ann["bbox"] = _bbox(main if main.any() else sub_own, x0, y0)  # slivers left out
            ann["ignore"] = bool(vis_frac < MIN_BACK_VISIBLE)
            ann["glyphs"] = []
        else:
            # which glyph reads upright in the photo: the top one when the card's "up" points up
            (_ux, uy), (_dx, dy_) = _apply(h_plane2out, [(p.cx, p.cy), (p.cx + _rot(0, -1, p.angle)[0],
                                                                      p.cy + _rot(0, -1, p.angle)[1])])
            top_up = (dy_ - uy) < 0
            glyphs = []
            for f in (1, 2):
                frac = counts[3 * k + f] / max(1, p.full_ink[f])
                m = sub_own & (sub_flg == f)
                if m.sum() < 3:
                    continue
                glyphs.append({"which": "top" if f == 1 else "bottom", "bbox": _bbox(m, x0, y0),
                               "visible": round(float(min(1.0, frac)), 3),
                               "upright": bool(top_up == (f == 1))})
            ann["glyphs"] = glyphs
            good = [g for g in glyphs if g["visible"] >= MIN_GLYPH_VISIBLE]
            if good:
                good.sort(key=lambda g: (not g["upright"], -g["visible"]))
                ann["bbox"] = good[0]["bbox"]
                ann["ignore"] = False
            elif glyphs:
                ann["bbox"] = max(glyphs, key=lambda g: g["visible"])["bbox"]
                ann["ignore"] = True
            else:
                ann["bbox"] = _bbox(sub_own, x0, y0)
                ann["ignore"] = True
        bw, bh = ann["bbox"][2], ann["bbox"][3]
        ann["area"] = float(bw * bh)
        anns.append(ann)
    return rgb, anns, {"owner": own_o, "flags": flg_o}



def render_scene(seed: int, split: str, index: int, size: tuple[int, int] = (1600, 1200),
                 style: int = 1) -> tuple[Image.Image, list[dict[str, Any]]]:
    """A table photo and its annotations (no "id"/"image_id" yet); see datasets/LABELS.md.
    ``style`` 2 adds decorated glyphs; style 1 is the generator the first detector was trained on."""
    img, anns, _ = render_scene_full(seed, split, index, size, style=style)
    return img, anns


def render_scene_full(seed: int, split: str, index: int, size: tuple[int, int] = (1600, 1200),
                      effects: bool = True, debug: dict[str, Any] | None = None, style: int = 1,
                      compose_five: float = 0.0, deck: DeckStyle | None = None, layouts: str = "classic",
                      ) -> tuple[Image.Image, list[dict[str, Any]], dict[str, Any]]:
    """Like ``render_scene``, plus the image-level metadata (font, layout, groups, table).

    ``effects=False`` skips the photo effects (light, noise, blur, JPEG) so tests can compare
    labels with clean pixels; a ``debug`` dict receives the label maps and the placed items.
    ``compose_five`` is the chance that the deck draws 伍 from its face's 亻 and 五 (``random_deck``;
    0, the default, draws the scene every earlier render drew). A ``deck`` (``decks.deck_style``)
    replaces the scene's own deck after it was drawn, so the rest of the scene is the one the same
    (seed, split, index) always draws: one deck's table scenes, as a real evening plays one deck.
    ``layouts`` "players" lays the groups as ``_players_plan`` does (the default, "classic", draws
    the scene every earlier render drew, byte for byte)."""
    W, H = int(size[0]), int(size[1])
    if W < 64 or H < 64:
        raise ValueError(f"image size {W}x{H} is too small (at least 64x64)")
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r} (use {', '.join(map(str, STYLES))})")
    if not 0.0 <= compose_five <= 1.0:
        raise ValueError(f"compose_five {compose_five!r} is a chance: between 0 and 1")
    if layouts not in LAYOUTS:
        raise ValueError(f"unknown layouts {layouts!r} (use {', '.join(LAYOUTS)})")
    rng = _rng_for(seed, split, index)
    nrng = np.random.default_rng(rng.getrandbits(64))
    drawn = random_deck(rng, split, style, compose_five)
    if deck is None:
        deck = drawn
    lay = pick_layout(rng)
    PW, PH = int(W * 1.35), int(H * 1.35)

    # the view: which quad of the table plane becomes the photo
    r = rng.random()
    if r < 0.83:
        theta = rng.gauss(0, 12)
    elif r < 0.93:
        theta = 180 + rng.gauss(0, 10)
    else:
        theta = rng.choice((90, -90)) + rng.gauss(0, 8)
    keystone = rng.choice([1.0, rng.uniform(1.0, 1.3), rng.uniform(1.1, 1.5), rng.uniform(1.3, 1.65)])
    zoom = rng.uniform(0.8, 1.15)
    side = abs(math.sin(math.radians(theta))) > 0.7

    plan = _players_plan if layouts == "players" else _column_plan
    placed, ext_w, ext_h = plan(rng, lay, deck.ratio)
    roll = rng.random()  # how much of the frame the layout fills: far, usual, close and cropped
    if roll < 0.1:
        fill = rng.uniform(0.35, 0.68)
    elif roll < 0.92:
        fill = rng.uniform(0.68, 1.0)
    else:
        fill = rng.uniform(1.0, 1.15)
    box_w, box_h = (H, W) if side else (W, H)
    if not side and ext_h / ext_w > 1.3 * H / W and rng.random() < 0.2:
        # a tall layout: the phone is turned to portrait
        theta = rng.choice((90, -90)) + rng.gauss(0, 6)
        side = True
        box_w, box_h = H, W
    ccx, ccy = PW / 2 + rng.gauss(0, 0.03) * PW, PH / 2 + rng.gauss(0, 0.03) * PH
    # the camera: output rect -> quad on the plane
    half = [(-W / 2 * keystone, -H / 2), (W / 2 * keystone, -H / 2), (W / 2 / keystone, H / 2),
            (-W / 2 / keystone, H / 2)]
    quad = []
    z = 1.0
    for _ in range(30):
        quad = [(ccx + qx, ccy + qy) for qx, qy in (_rot(x * z, y * z, -theta) for x, y in half)]
        if all(0 <= qx <= PW - 1 and 0 <= qy <= PH - 1 for qx, qy in quad):
            break
        z *= 0.95
    # the view's scale at its centre (keystone widens the far edge, narrows the near one)
    view_scale = z * (keystone + 1 / keystone) / 2
    unit = min(box_w * fill / ext_w, box_h * fill / ext_h) * zoom * view_scale
    unit = max(unit, 6.0)

    table, table_kind = table_texture(rng, nrng, PW, PH)
    if rng.random() < 0.2:  # the table ends: its edge, then the floor or a lap beyond it
        side = rng.randrange(4)
        if side in (0, 1):
            reach = ext_h * unit / 2 + unit * rng.uniform(0.5, 2.5)
            cut = int(ccy - reach) if side == 0 else int(ccy + reach)
        else:
            reach = ext_w * unit / 2 + unit * rng.uniform(0.5, 2.5)
            cut = int(ccx - reach) if side == 2 else int(ccx + reach)
        floors = [(60, 50, 45), (120, 110, 100), (30, 30, 35), (150, 120, 90)]
        floor = np.array(rng.choice(floors), np.float32)
        floor = floor + _lowfreq(nrng, PW, PH, 5)[..., None] * 10
        lip = max(2, int(unit * rng.uniform(0.1, 0.4)))
        edge_col = table.mean(axis=(0, 1)) * rng.uniform(0.5, 0.8)
        if side == 0:
            table[:max(0, cut)] = floor[:max(0, cut)]
            table[max(0, cut):max(0, cut + lip)] = edge_col
        elif side == 1:
            table[max(0, cut):] = floor[max(0, cut):]
            table[max(0, cut - lip):max(0, cut)] = edge_col
        elif side == 2:
            table[:, :max(0, cut)] = floor[:, :max(0, cut)]
            table[:, max(0, cut):max(0, cut + lip)] = edge_col
        else:
            table[:, max(0, cut):] = floor[:, max(0, cut):]
            table[:, max(0, cut - lip):max(0, cut)] = edge_col

    # distractors under the layout: a stock pile of backs and loose face-up cards
    items: list[Placed] = []
    if rng.random() < 0.45:
        px, py = rng.choice([(-1, -1), (1, -1), (-1, 1), (1, 1)])
        bx = ccx + px * (ext_w * unit / 2 + unit * rng.uniform(1.5, 3))
        by = ccy + py * rng.uniform(0, ext_h * unit / 2)
        a0 = rng.uniform(0, 360)
        for k in range(rng.randint(3, 8)):
            items.append(Placed(None, bx + k * rng.uniform(0, 1.5), by - k * rng.uniform(0, 2),
                                a0 + rng.gauss(0, 3), -1, None, "loose"))
    loose = _loose_cards(rng, lay)
    if layouts != "classic":  # the plan's own discards count against the deck's four too
        held = Counter(p.card.index for p in placed if p.card is not None)
        keep = []
        for c in loose:
            if held[c.index] < 4:
                held[c.index] += 1
                keep.append(c)
        loose = keep
    n_row = len(loose) if len(loose) >= 3 and rng.random() < 0.5 else 0
    if n_row:  # a discard row in front of another player: cards side by side
        ang = rng.choice((0, 90, 180, 270)) + rng.gauss(0, 4)
        side_x, side_y = rng.choice(((0, -1), (0, 1), (-1, 0), (1, 0)))
        rx = ccx + side_x * (ext_w * unit / 2 + unit * rng.uniform(1.5, 3)) + rng.gauss(0, unit)
        ry = ccy + side_y * (ext_h * unit / 2 + unit * rng.uniform(1.5, 3)) + rng.gauss(0, unit)
        spacing = unit * rng.uniform(1.05, 1.4)
        dx, dy = _rot(spacing, 0, ang)
        for j, c in enumerate(loose[:n_row]):
            off = j - (n_row - 1) / 2
            items.append(Placed(c, rx + off * dx, ry + off * dy, ang + rng.gauss(0, 2), -1, None, "loose"))
    for c in loose[n_row:]:
        ang = rng.uniform(0, 360)
        lx = ccx + rng.choice((-1, 1)) * (ext_w * unit / 2 + unit * rng.uniform(1, 4))
        ly = ccy + rng.uniform(-0.5, 0.5) * ext_h * unit
        items.append(Placed(c, lx, ly, ang, -1, None, "loose"))
    for p in placed:
        p.cx = ccx + p.cx * unit
        p.cy = ccy + p.cy * unit
        items.append(p)
    if len(items) > 250:
        items = items[-250:]

    # distractors over the layout: a hand reaching in, a phone, a cup
    occluders: list[tuple[Image.Image, int, int]] = []
    scale = unit * rng.uniform(0.8, 1.3)
    for maker, prob in ((_hand, 0.15), (_phone, 0.12), (_cup, 0.12), (_chips, 0.15)):
        if rng.random() < prob:
            occ = maker(rng, scale)
            edge = rng.random() < 0.7
            ox = rng.uniform(0, PW) if not edge else rng.choice((ccx - ext_w * unit / 2 - occ.width * 0.6,
                                                                 ccx + ext_w * unit / 2 - occ.width * 0.4))
            oy = rng.uniform(0.1, 0.9) * PH
            occluders.append((occ, int(ox), int(oy)))
    canvas = Image.fromarray(table.astype(np.uint8))
    if rng.random() < 0.25:  # printed paper lying on the table, under the cards
        paper = _paper(rng, deck, unit)
        off = rng.choice((-1, 1)) * (ext_w * unit / 2 + unit * rng.uniform(0.5, 2))
        px = int(ccx + off - paper.width / 2)
        py = int(ccy + rng.uniform(-0.6, 0.6) * ext_h * unit - paper.height / 2)
        canvas.paste(paper, (px, py), paper)
    rgb, anns, maps = compose(items, deck, canvas, quad, (W, H), rng, unit, occluders)
    if debug is not None:
        debug.update(maps, items=items)
    photo = _photo_effects(rng, nrng, rgb, maps["owner"] > 0) if effects else rgb

    groups_meta = []
    for g in lay.groups:
        try:
            kind: str | None = str(getattr(g.kind, "value", g.kind))
        except ZipaiError:  # a random or spoiled column need not be a group
            kind = None
        groups_meta.append({"cards": [str(c) for c in g.cards], "state": g.state, "row": g.row,
                            "kind": kind})
    meta = {"split": split, "style": style, "font": deck.face.name, "font_style": deck.face.style,
            "layout": lay.to_input(), "groups": groups_meta, "table": table_kind,
            "loose": [str(c) for c in loose], "seed": seed, "index": index}
    if deck is not drawn:
        meta.update(font=deck.face.name, font_style=deck.face.style)
    if layouts != "classic":
        meta["layouts"] = layouts
        meta["loose"] += [str(p.card) for p in placed if p.group == -1 and p.card is not None]
    return photo, anns, meta


def _bbox(mask: np.ndarray, ox: int, oy: int) -> list[int]:
    ys = np.nonzero(mask.any(axis=1))[0]
    xs = np.nonzero(mask.any(axis=0))[0]
    return [int(xs[0] + ox), int(ys[0] + oy), int(xs[-1] - xs[0] + 1), int(ys[-1] - ys[0] + 1)]
