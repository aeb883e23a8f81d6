"""Training data from rendered scenes (COCO, see datasets/): the finder's downscaled images and
heatmap targets, and the reader's bank of glyph crops cut with the run-time crop function."""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from zipai.vision.constants import BACK_ID, N_FACES
from zipai.vision.preprocess import cut_crops, input_size

from .evaluate import card_down

FINDER_SET_VERSION = 2  # 2: backs boxed by back_box
PEAK_TAUGHT = 0.05  # the part of a labelled peak that keeps its loss weight inside ignored boxes


@dataclass(slots=True)
class Ann:
    """One labelled card: class index (0..19 faces, 20 back), glyph box x0y0x1y1, ignore flag."""

    cls: int
    box: tuple[float, float, float, float]
    ignore: bool
    polygon: list[tuple[float, float]] = field(default_factory=list)
    color: str | None = None
    down: tuple[float, float] = (0.0, 1.0)  # the card's top-to-bottom direction in the photo
    # every glyph with ink showing: (box, visible fraction, the glyph's own down direction)
    glyphs: list[tuple[tuple[float, float, float, float], float, tuple[float, float]]] = field(
        default_factory=list)
    corners: list[tuple[float, float]] = field(default_factory=list)  # the whole card's outline

    def shown_glyphs(self, min_visible: float = 0.5) -> list[tuple[tuple[float, float, float, float],
                                                                 tuple[float, float]]]:
        """Glyphs a reader can read: the identifying one and, on a fully shown card, the other end."""
        out = [(b, d) for b, v, d in self.glyphs if v >= min_visible]
        return out or [(self.box, self.down)]


@dataclass(slots=True)
class Scene:
    path: Path
    width: int
    height: int
    anns: list[Ann]
    info: dict[str, Any] = field(default_factory=dict)


def load_coco(root: str | Path) -> list[Scene]:
    """The scenes of a rendered split directory (``annotations.json`` + ``images/``)."""
    root = Path(root)
    coco = json.loads((root / "annotations.json").read_text(encoding="utf-8"))
    by_img: dict[int, list[Ann]] = {}
    for a in coco["annotations"]:
        x, y, w, h = a["bbox"]
        poly = a.get("card_polygon") or []
        if poly and isinstance(poly[0], (int, float)):
            poly = list(zip(poly[0::2], poly[1::2], strict=False))
        elif poly and isinstance(poly[0], list) and poly[0] and isinstance(poly[0][0], list):
            poly = poly[0]
        down = card_down(a.get("card_corners"))
        glyphs = []
        for g in a.get("glyphs") or []:
            gx, gy, gw, gh = g["bbox"]
            gd = down if g.get("which", "top") == "top" else (-down[0], -down[1])
            glyphs.append(((gx, gy, gx + gw, gy + gh), float(g.get("visible", 1.0)), gd))
        corners = [(float(c[0]), float(c[1])) for c in a.get("card_corners") or []]
        ann = Ann(int(a["category_id"]) - 1, (x, y, x + w, y + h), bool(a.get("ignore", False)),
                  [tuple(p) for p in poly], a.get("color"), down, glyphs, corners)
        by_img.setdefault(int(a["image_id"]), []).append(ann)
    scenes = []
    for im in coco["images"]:
        info = {k: v for k, v in im.items() if k not in ("file_name", "width", "height", "id")}
        path = root / im["file_name"]
        if not path.exists():
            path = root / "images" / Path(im["file_name"]).name
        scenes.append(Scene(path, int(im["width"]), int(im["height"]), by_img.get(int(im["id"]), []), info))
    return scenes


def progress(label: str, i: int, n: int, t0: float, extra: str = "") -> None:
    """A one-line progress bar on stderr."""
    frac = i / max(1, n)
    bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
    el = time.time() - t0
    eta = el / frac - el if frac > 0 else 0.0
    sys.stderr.write(f"\r{label} [{bar}] {i}/{n} {el:5.0f}s eta {eta:4.0f}s {extra}   ")
    if i >= n:
        sys.stderr.write("\n")
    sys.stderr.flush()


# ---------------------------------------------------------------- finder


def back_box(anns: list[Ann], i: int, scale: float = 0.5,
             opening: float = 0.45) -> tuple[float, float, float, float]:
    """The finder's target for a back: the box of the bulk of its visible part. That is its card
    outline inside its labelled box, less the outlines of the cards annotated after it (they lie
    on top), opened by ``opening`` card widths. Renders before the sliver-free back boxes counted
    every visible pixel, so a back peeking out beside the card on top of it had its box centre
    on that card, and even a sliver-free box of an L-shaped part can centre off it; the opened
    part's centre lies on the back itself (98% of the 446 backs of the held-out render, against
    48% for its labelled boxes), and the figures count a back where its box centre falls."""
    a = anns[i]
    if len(a.corners) != 4:
        return a.box
    x0, y0, x1, y1 = a.box
    w, h = max(2, int((x1 - x0) * scale) + 2), max(2, int((y1 - y0) * scale) + 2)

    def local(c: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [((px - x0) * scale, (py - y0) * scale) for px, py in c]

    im = Image.new("L", (w, h), 0)
    d = ImageDraw.Draw(im)
    d.polygon(local(a.corners), fill=255)
    for b in anns[i + 1:]:
        if len(b.corners) == 4:
            d.polygon(local(b.corners), fill=0)
    card_w = math.dist(a.corners[0], a.corners[1]) * scale
    k = int(card_w * opening) // 2 * 2 + 1
    if k >= 3:
        im = im.filter(ImageFilter.MinFilter(k)).filter(ImageFilter.MaxFilter(k))
    m = np.asarray(im) > 0
    if not m.any():
        return a.box
    ys, xs = np.nonzero(m.any(axis=1))[0], np.nonzero(m.any(axis=0))[0]
    return (x0 + xs[0] / scale, y0 + ys[0] / scale, x0 + (xs[-1] + 1) / scale, y0 + (ys[-1] + 1) / scale)


@dataclass(slots=True)
class FinderSet:
    """Images resized to the finder's scale, top-left on a fixed canvas, and their boxes."""

    images: np.ndarray  # [N, C, C, 3] uint8
    sizes: np.ndarray  # [N, 2] content w, h
    boxes: list[np.ndarray]  # per image [K, 4] in canvas pixels
    kinds: list[np.ndarray]  # per image [K] 0 glyph, 1 back
    ignore: list[np.ndarray]  # per image [K] bool


def join_finder_sets(*sets: FinderSet) -> FinderSet:
    """One finder set from several (the full-size training renders and the small finder-only
    ones), in order, so that image i of the first set keeps index i (mining relies on it)."""
    if len(sets) == 1:
        return sets[0]
    return FinderSet(np.concatenate([s.images for s in sets]), np.concatenate([s.sizes for s in sets]),
                     [b for s in sets for b in s.boxes], [k for s in sets for k in s.kinds],
                     [g for s in sets for g in s.ignore])


def build_finder_set(scenes: list[Scene], long_side: int, cache: Path | None = None,
                     label: str = "finder data") -> FinderSet:
    canvas = -(-long_side // 32) * 32
    n = len(scenes)
    if cache is not None and cache.exists():
        z = np.load(cache, allow_pickle=True)
        if len(z["sizes"]) == n and int(z.get("version", 1)) == FINDER_SET_VERSION:
            return FinderSet(z["images"], z["sizes"], list(z["boxes"]), list(z["kinds"]), list(z["ignore"]))
    images = np.zeros((n, canvas, canvas, 3), np.uint8)
    sizes = np.zeros((n, 2), np.int32)
    boxes, kinds, ignore = [], [], []
    t0 = time.time()
    for i, sc in enumerate(scenes):
        with Image.open(sc.path) as im:
            im = im.convert("RGB")
            _s, _, _, cw, ch = input_size(im.width, im.height, long_side)
            im.draft("RGB", (cw * 2, ch * 2))
            small = im.resize((cw, ch), Image.Resampling.BILINEAR, reducing_gap=2.0)
        images[i, :ch, :cw] = np.asarray(small)
        sizes[i] = (cw, ch)
        k = cw / sc.width
        bl, kl, il = [], [], []
        for j, a in enumerate(sc.anns):
            if a.cls == BACK_ID - 1:
                bl.append(back_box(sc.anns, j) if not a.ignore else a.box)
                kl.append(1)
                il.append(a.ignore)
                continue
            # only the identifying glyph is a find: the far end of a fully shown card (turned
            # round) is a negative, told apart by whether the card runs on uncovered
            bl.append(a.box)
            kl.append(0)
            il.append(a.ignore)
        boxes.append(np.asarray(bl, np.float32).reshape(-1, 4) * k)
        kinds.append(np.asarray(kl, np.int64))
        ignore.append(np.asarray(il, bool))
        if i % 20 == 0 or i == n - 1:
            progress(label, i + 1, n, t0)
    fs = FinderSet(images, sizes, boxes, kinds, ignore)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, images=images, sizes=sizes, boxes=_objs(boxes), kinds=_objs(kinds),
                 ignore=_objs(ignore), version=FINDER_SET_VERSION)
    return fs


def _objs(items: list[np.ndarray]) -> np.ndarray:
    out = np.empty(len(items), object)
    for i, it in enumerate(items):
        out[i] = it
    return out


def finder_targets(boxes: np.ndarray, kinds: np.ndarray, ignore: np.ndarray, out_w: int, out_h: int,
                   stride: int, n_kinds: int = 2) -> tuple[np.ndarray, ...]:
    """Heatmap [K, h, w] (elliptical Gaussians at box centres), loss weight [K, h, w] (0 on
    ignored cards, but never on a labelled card's own peak), regression [4, h, w] (log w, log h,
    dx, dy) and its mask [h, w].

    Why the peaks win over the ignored boxes: the cards under a stock pile's top card are
    ignored slivers whose boxes span the whole pile, so zeroing them blanked the top card's
    centre too, and the finder was never taught that a pile's top back is a find (746 of the
    3,493 labelled training backs had their centre inside an ignored back's box)."""
    heat = np.zeros((n_kinds, out_h, out_w), np.float32)
    weight = np.ones((n_kinds, out_h, out_w), np.float32)
    reg = np.zeros((4, out_h, out_w), np.float32)
    mask = np.zeros((out_h, out_w), np.float32)
    ys = np.arange(out_h, dtype=np.float32)[:, None]
    xs = np.arange(out_w, dtype=np.float32)[None, :]
    for b, k, ig in zip(boxes, kinds, ignore, strict=True):
        x0, y0, x1, y1 = (float(v) / stride for v in b)
        if ig:
            weight[k, max(0, int(y0)):math.ceil(y1) + 1, max(0, int(x0)):math.ceil(x1) + 1] = 0.0
            continue
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        ix, iy = int(cx), int(cy)
        if not (0 <= ix < out_w and 0 <= iy < out_h):
            continue
        w, h = max(x1 - x0, 0.25), max(y1 - y0, 0.25)
        sx = max(0.6, w / 5.0) if k == 0 else max(0.6, w / 4.0)
        sy = max(0.6, h / 5.0) if k == 0 else max(0.6, min(h, 2 * w) / 4.0)
        g = np.exp(-((xs - ix) ** 2) / (2 * sx * sx) - ((ys - iy) ** 2) / (2 * sy * sy))
        np.maximum(heat[k], g, out=heat[k])
        heat[k, iy, ix] = 1.0
        reg[:, iy, ix] = (math.log(w), math.log(h), cx - ix, cy - iy)
        mask[iy, ix] = 1.0
    weight[heat > PEAK_TAUGHT] = 1.0
    return heat, weight, reg, mask


# ---------------------------------------------------------------- reader


def jitter_boxes(boxes: np.ndarray, rng: np.random.Generator, shift: float = 0.08,
                 scale: tuple[float, float] = (0.88, 1.18)) -> np.ndarray:
    """Boxes moved and resized like the finder's errors."""
    b = boxes.astype(np.float32).copy()
    w = b[:, 2] - b[:, 0]
    h = b[:, 3] - b[:, 1]
    side = np.maximum(w, h)
    cx = (b[:, 0] + b[:, 2]) / 2 + rng.uniform(-shift, shift, len(b)) * side
    cy = (b[:, 1] + b[:, 3]) / 2 + rng.uniform(-shift, shift, len(b)) * side
    sw = w * rng.uniform(*scale, len(b))
    sh = h * rng.uniform(*scale, len(b))
    return np.stack([cx - sw / 2, cy - sh / 2, cx + sw / 2, cy + sh / 2], axis=1)


def _inside(px: float, py: float, box: tuple[float, float, float, float]) -> bool:
    return box[0] <= px <= box[2] and box[1] <= py <= box[3]


def scene_crops(sc: Scene, size: int, margin: float, rng: np.random.Generator, copies: int = 2,
                negatives: int = 6, extra_boxes: np.ndarray | None = None,
                extra_labels: np.ndarray | None = None, turned: bool = True,
                extra_downs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops [M, size, size, 3], labels (0..19 faces, 20 back, 21 none) and the card's down
    direction [M, 2] (NaN for none) from one scene."""
    with Image.open(sc.path) as im:
        arr = np.asarray(im.convert("RGB"))
    keep = [a for a in sc.anns if not a.ignore]
    shown = [(b, d, a.cls) for a in keep
             for b, d in (a.shown_glyphs() if a.cls < N_FACES else [(a.box, a.down)])]
    gt = np.asarray([s[0] for s in shown], np.float32).reshape(-1, 4)
    labels = np.asarray([s[2] for s in shown], np.int64)
    downs = np.asarray([s[1] for s in shown], np.float32).reshape(-1, 2)
    boxes_l, labels_l, angles_l, downs_l = [], [], [], []
    for _ in range(copies):
        boxes_l.append(jitter_boxes(gt, rng))
        labels_l.append(labels)
        angles_l.append(np.zeros(len(gt), np.float32))
        downs_l.append(downs)
    # glyphs turned a quarter and half round: the same class at every orientation
    faces_i = np.asarray([i for i, s in enumerate(shown) if s[2] < N_FACES], np.int64)
    if len(faces_i) and turned:
        pick = rng.choice(faces_i, size=min(len(faces_i), max(1, negatives // 2)), replace=False)
        ang = rng.choice(np.asarray([0.5, 1.0, 1.5], np.float32) * np.pi, size=len(pick)).astype(np.float32)
        boxes_l.append(jitter_boxes(gt[pick], rng))
        labels_l.append(labels[pick])
        angles_l.append(ang)
        # sampling rotated by +a shows the content rotated by -a: the down vector turns by -a
        c, s = np.cos(-ang), np.sin(-ang)
        d = downs[pick]
        downs_l.append(np.stack([c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1]], 1).astype(np.float32))
    # random places of glyph size that hold no glyph centre
    faces = [a for a in keep if a.cls < N_FACES]
    side = float(np.median([max(a.box[2] - a.box[0], a.box[3] - a.box[1]) for a in faces])) if faces else 60.0
    neg = []
    tries = 0
    while len(neg) < negatives and tries < negatives * 10:
        tries += 1
        s = side * rng.uniform(0.6, 1.4)
        cx, cy = rng.uniform(0, sc.width), rng.uniform(0, sc.height)
        b = (cx - s / 2, cy - s * rng.uniform(0.3, 0.6), cx + s / 2, cy + s * rng.uniform(0.3, 0.6))
        if any(_inside(cx, cy, (b[0] - 0.35 * s, b[1] - 0.35 * s, b[2] + 0.35 * s, b[3] + 0.35 * s))
               for a in sc.anns for b in [a.box] + [g[0] for g in a.glyphs]):
            continue
        neg.append(b)
    if neg:
        boxes_l.append(np.asarray(neg, np.float32))
        labels_l.append(np.full(len(neg), 21, np.int64))
        angles_l.append(np.zeros(len(neg), np.float32))
        downs_l.append(np.full((len(neg), 2), np.nan, np.float32))
    if extra_boxes is not None and len(extra_boxes):
        boxes_l.append(extra_boxes.astype(np.float32))
        labels_l.append(np.asarray(extra_labels, np.int64))
        angles_l.append(np.zeros(len(extra_boxes), np.float32))
        downs_l.append(np.asarray(extra_downs, np.float32).reshape(-1, 2) if extra_downs is not None
                       else np.full((len(extra_boxes), 2), np.nan, np.float32))
    boxes = np.concatenate(boxes_l).reshape(-1, 4)
    crops = cut_crops(arr, boxes, size, margin, np.concatenate(angles_l))
    return crops, np.concatenate(labels_l), np.concatenate(downs_l).reshape(-1, 2)


# ---------------------------------------------------------------- printed paper


def paper_crops(count: int, size: int, margin: float, rng: np.random.Generator,
                split: str = "train") -> np.ndarray:
    """Reader crops [count, size, size, 3] of printed text that is not a card rank.

    Score sheets, wrappers and newspapers on the table are full of CJK glyphs that the finder
    takes for ranks, and each is an extra card unless the reader calls it ``none``. Scenes show
    such paper in a quarter of photos and only a few glyphs each, so the reader sees far more of
    it here: dense lines of common characters, in the split's faces, cut with the run-time crop
    function at any angle."""
    from zipai.datasets.fonts import faces, font
    from zipai.datasets.scene import PAPER_TEXT

    pool = faces(split)
    out = np.zeros((count, size, size, 3), np.uint8)
    for n in range(count):
        face = pool[int(rng.integers(len(pool)))]
        px = int(rng.integers(20, 80))
        f = font(face, px)
        tint = rng.integers(-12, 13, 3) if rng.random() < 0.5 else np.zeros(3, np.int64)
        paper = tuple(int(v) for v in np.clip(int(rng.integers(200, 256)) + tint, 0, 255))
        ink = tuple(int(v) for v in ((rng.integers(0, 90, 3)) if rng.random() < 0.7
                                     else (int(rng.integers(120, 200)), 30, 30)))
        pitch = px * float(rng.uniform(1.0, 1.2))
        lead = px * float(rng.uniform(1.15, 1.8))
        w, h = int(pitch * 5 + px), int(lead * 3 + px)
        im = Image.new("RGB", (w, h), paper)
        d = ImageDraw.Draw(im)
        target = (0.0, 0.0, 1.0, 1.0)
        for row in range(3):
            for col in range(5):
                ch = PAPER_TEXT[int(rng.integers(len(PAPER_TEXT)))]
                xy = (px / 2 + col * pitch, px / 2 + row * lead)
                d.text(xy, ch, font=f, fill=ink)
                if row == 1 and col == 2:
                    target = d.textbbox(xy, ch, font=f)
        box = jitter_boxes(np.asarray([target], np.float32), rng)
        ang = np.asarray([rng.uniform(0, 2 * np.pi) if rng.random() < 0.6 else 0.0], np.float32)
        out[n] = cut_crops(np.asarray(im), box, size, margin, ang)[0]
    return out
