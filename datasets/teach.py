"""Teaching photos: one deck's twenty faces in two rows of ten on a table, with their labels.

The layout is the label (issue 50): the top row holds the small cards 一…十 and the row below it
the big cards 壹…拾, left to right, each upright and whole; one back of the deck may lie elsewhere.
A deck is named by a ``DeckRef``, so its teaching photo and its table scenes print the same
``DeckStyle``. The bad variants each break one promise of a good photo, so a learner's refusals
are tested on photos that differ from a good one in that one way.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageFilter

from zipai.engine import ALL_CARDS, CARD_NAMES, Card

from .cards import DeckStyle, random_deck, render_face
from .photo import _jpeg, _lamp
from .scene import (
    Placed,
    _apply,
    _homography,
    _rot,
    category_id,
    compose,
    render_scene_full,
    table_texture,
)

# variant -> what it shows; every variant outside LEARNABLE must be refused
VARIANTS: dict[str, str] = {
    "good": "the twenty faces as they should lie",
    "upside_down": "the good layout photographed from the other side (rows swapped, every glyph turned)",
    "slanted": "the good layout photographed with the phone turned 12 to 25 degrees either way",
    "sideways": "the good photo with its orientation lost: turned a right angle, either way",
    "casual": "the faces laid by hand in a hurry: uneven gaps, wandering rows, each card turned its own way",
    "missing": "19 faces: one card left out",
    "extra": "21 faces: a second copy of one card at the end of its row",
    "duplicate": "20 faces, one card laid twice and another left out",
    "swapped": "the big cards in the top row, the small ones below",
    "blurred": "the good layout, badly out of focus",
    "scene": "a table scene of the deck instead of the layout",
}
LEARNABLE = frozenset({"good", "upside_down", "slanted", "sideways", "casual"})
ROWS = (tuple(c for c in ALL_CARDS if not c.big), tuple(c for c in ALL_CARDS if c.big))
DECK_STYLES = (1, 2, 3)


@dataclass(frozen=True, slots=True)
class DeckRef:
    """One rendered deck: its style depends only on these fields, so a deck's teaching photo
    and its scenes, rendered apart, print the same cards."""

    seed: int
    split: str
    index: int
    style: int = 1
    compose_five: float = 0.0

    def __post_init__(self) -> None:
        if self.style not in DECK_STYLES:
            raise ValueError(f"unknown style {self.style!r} (use 1, 2 or 3)")
        if not 0.0 <= self.compose_five <= 1.0:
            raise ValueError(f"compose_five {self.compose_five!r} is a chance: between 0 and 1")

    @property
    def id(self) -> str:
        """A name for the deck, stable across renders (``heldout-21-003-s2``)."""
        return f"{self.split}-{self.seed}-{self.index:03d}-s{self.style}"

    @classmethod
    def readable(cls, seed: int, split: str, index: int, style: int = 1,
                 compose_five: float = 0.0) -> DeckRef:
        """Deck ``index``, or when its print hides a glyph's ink (an inline decoration on a thin
        一 leaves a pale line no player could read) the first readable of index + 1000, + 2000, …:
        a teaching photo of an unreadable deck teaches nothing."""
        for k in range(20):
            ref = cls(seed, split, index + 1000 * k, style, compose_five)
            if _readable(ref):
                return ref
        raise ValueError(f"no readable deck near {index} of seed {seed}, split {split}, style {style}")

    def deck(self) -> DeckStyle:
        return _deck_style(self)

    def meta(self) -> dict[str, Any]:
        d = self.deck()
        return {"id": self.id, "seed": self.seed, "split": self.split, "index": self.index,
                "style": self.style, "compose_five": self.compose_five, "font": d.face.name,
                "font_style": d.face.style}


@functools.lru_cache(maxsize=64)
def _deck_style(ref: DeckRef) -> DeckStyle:
    rng = random.Random(f"zipai-deck:{ref.seed}:{ref.split}:{ref.index}:{ref.style}:{ref.compose_five}")
    return random_deck(rng, ref.split, ref.style, ref.compose_five)


@functools.lru_cache(maxsize=64)
def _readable(ref: DeckRef) -> bool:
    """Every face, drawn at a teaching photo's size, shows its top glyph's ink."""
    deck, rng = ref.deck(), random.Random(0)
    for card in ALL_CARDS:
        _, flags = render_face(deck, card, 80, rng)
        if int((np.asarray(flags) == 1).sum()) < 20:
            return False
    return True


def _rngs(ref: DeckRef, what: str) -> random.Random:
    return random.Random(f"zipai-teach:{what}:{ref.seed}:{ref.split}:{ref.index}:{ref.style}")


# ---------------------------------------------------------------- the layout on the plane

@dataclass(frozen=True, slots=True)
class _Slot:
    card: Card | None   # None: the back
    x: float            # card widths, on the table plane
    y: float
    angle: float


def _layout(ref: DeckRef, variant: str, ratio: float) -> list[_Slot]:
    """The cards in unit coordinates (card width 1), faces first in laid order, the back last.

    Every variant draws the same random numbers for the good layout, so a variant differs from
    the good photo only where it must."""
    rng = _rngs(ref, "layout")
    pitch = rng.uniform(1.12, 1.45)
    row_pitch = ratio * rng.uniform(1.06, 1.3)
    slant = rng.gauss(0, 0.015)
    jitter = [(rng.gauss(0, 0.05), rng.gauss(0, 0.05), rng.gauss(0, 1.8)) for _ in range(22)]
    back_at = rng.choice(("right", "left", "below", "above")) if rng.random() < 0.6 else None
    back_along, back_turn = rng.uniform(0.15, 0.85), rng.gauss(0, 5)

    if variant == "casual":  # its own draw: every other variant keeps its layout
        crng = _rngs(ref, "casual")
        pitch = crng.uniform(1.15, 1.35)
        row_pitch = ratio * crng.uniform(1.05, 1.2)
        wave, phase = crng.uniform(0.1, 0.3), crng.uniform(0, 2 * math.pi)
        jitter = [(crng.uniform(-0.2, 0.2), wave * math.sin(phase + i % 11 * 0.7) + crng.gauss(0, 0.08),
                   crng.uniform(-9.0, 9.0)) for i in range(22)]
    rows = [list(ROWS[0]), list(ROWS[1])]
    vrng = _rngs(ref, f"variant:{variant}")
    if variant == "swapped":
        rows.reverse()
    elif variant == "missing":
        rows[vrng.randrange(2)].pop(vrng.randrange(10))
    elif variant == "extra":
        r = vrng.randrange(2)
        rows[r].append(rows[r][vrng.randrange(10)])
    elif variant == "duplicate":
        r, k = vrng.randrange(2), vrng.randrange(10)
        rows[r][k] = rows[r][(k + vrng.randrange(1, 10)) % 10]

    slots: list[_Slot] = []
    for r, cards in enumerate(rows):
        for c, card in enumerate(cards):
            jx, jy, ja = jitter[r * 11 + c]
            x = c * pitch + jx
            slots.append(_Slot(card, x, r * row_pitch + x * slant + jy, ja))
    ncol = max(len(r) for r in rows)
    width, height = (ncol - 1) * pitch, row_pitch
    if back_at in ("right", "left"):  # standing beside a row's end
        x = width + pitch * 1.4 if back_at == "right" else -pitch * 1.4
        slots.append(_Slot(None, x, height * back_along, back_turn))
    elif back_at is not None:  # lying across, above or below the rows
        y = height + ratio * 0.5 + 1.0 if back_at == "below" else -ratio * 0.5 - 1.0
        slots.append(_Slot(None, width * back_along, y, 90 + back_turn))
    return slots


def _extent(slots: list[_Slot], ratio: float) -> tuple[float, float, float, float]:
    """The bounding box (x0, y0, x1, y1) of every card's outline, in card widths."""
    xs, ys = [], []
    for s in slots:
        for lx, ly in ((-0.5, -ratio / 2), (0.5, -ratio / 2), (0.5, ratio / 2), (-0.5, ratio / 2)):
            dx, dy = _rot(lx, ly, s.angle)
            xs.append(s.x + dx)
            ys.append(s.y + dy)
    return min(xs), min(ys), max(xs), max(ys)


# ---------------------------------------------------------------- the photo

def render_teach(ref: DeckRef, variant: str = "good", size: tuple[int, int] = (1600, 1200),
                 effects: bool = True) -> tuple[Image.Image, dict[str, Any]]:
    """A teaching photo of ``ref``'s deck and its label (see datasets/LABELS.md, "Teaching photos").

    ``effects=False`` skips the photo effects (light, noise, blur, JPEG) for tests that compare
    labels with clean pixels."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown teaching variant {variant!r} (use {', '.join(VARIANTS)})")
    W, H = int(size[0]), int(size[1])
    if W < 64 or H < 64:
        raise ValueError(f"image size {W}x{H} is too small (at least 64x64)")
    if variant == "scene":
        return _scene_instead(ref, (W, H), effects)
    deck = ref.deck()
    rng = _rngs(ref, "photo")
    nrng = np.random.default_rng(rng.getrandbits(64))
    slots = _layout(ref, variant, deck.ratio)

    PW, PH = int(W * 1.35), int(H * 1.35)
    theta = rng.gauss(0, 3)
    if variant == "slanted":  # its own draw: every other variant keeps its pixels
        srng = _rngs(ref, "slant")
        theta = srng.choice((-1.0, 1.0)) * srng.uniform(12.0, 25.0)
    keystone = rng.choice((1.0, rng.uniform(1.0, 1.12), rng.uniform(1.05, 1.22)))
    fill = rng.uniform(0.72, 0.9)
    ccx, ccy = PW / 2 + rng.gauss(0, 0.02) * PW, PH / 2 + rng.gauss(0, 0.02) * PH
    half = [(-W / 2 * keystone, -H / 2), (W / 2 * keystone, -H / 2), (W / 2 / keystone, H / 2),
            (-W / 2 / keystone, H / 2)]
    quad: list[tuple[float, float]] = []
    z = 1.0
    for _ in range(30):
        quad = [(ccx + qx, ccy + qy) for qx, qy in (_rot(x * z, y * z, -theta) for x, y in half)]
        if all(0 <= qx <= PW - 1 and 0 <= qy <= PH - 1 for qx, qy in quad):
            break
        z *= 0.95
    plane2out = np.linalg.inv(_homography([(0.0, 0.0), (W, 0.0), (W, H), (0.0, H)], quad))
    x0, y0, x1, y1 = _extent(slots, deck.ratio)
    mid_x, mid_y = (x0 + x1) / 2, (y0 + y1) / 2
    # the near edge of a keystoned view sees the least of the table: fit the layout to it, then
    # shrink until every card lies whole inside the photo with a margin
    unit = min(W * fill / keystone / (x1 - x0), H * fill / (y1 - y0)) * z
    margin = 0.02 * min(W, H)
    for _ in range(20):
        corners = [(ccx + (x - mid_x) * unit, ccy + (y - mid_y) * unit)
                   for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
        seen = _apply(plane2out, corners)
        if all(margin <= u <= W - margin and margin <= v <= H - margin for u, v in seen):
            break
        unit *= 0.95

    items = [Placed(s.card, ccx + (s.x - mid_x) * unit, ccy + (s.y - mid_y) * unit, s.angle, -1, None,
                    "loose") for s in slots]
    table, table_kind = table_texture(rng, nrng, PW, PH)
    canvas = Image.fromarray(table.astype(np.uint8))
    crng = _rngs(ref, "cards")  # the cards' own randomness: the same for every variant
    rgb, anns, _ = compose(items, deck, canvas, quad, (W, H), crng, unit)
    lost = [p.card for p, a in zip(items, anns, strict=False) if a["ignore"]]
    if len(anns) != len(items) or lost:
        what = (f"card {CARD_NAMES[lost[0].index]} shows no readable glyph" if lost and lost[0]
                else "a card is lost")
        raise ValueError(f"teaching photo of deck {ref.id} ({variant}): {what} (use DeckRef.readable)")
    turned = variant == "upside_down"
    if turned:
        rgb = rgb.transpose(Image.Transpose.ROTATE_180)
        anns = [_turn_half(a, W, H) for a in anns]
    if variant == "sideways":  # its own draw, after the cards': every other variant keeps its pixels
        quarter = _rngs(ref, "sideways").choice((1, 3))
        rgb = rgb.transpose(Image.Transpose.ROTATE_90 if quarter == 1 else Image.Transpose.ROTATE_270)
        anns = [_turn_quarter(a, W, H, quarter) for a in anns]
        W, H = H, W
        theta += 90.0 if quarter == 1 else -90.0  # the layout's rows now run up or down the photo
    erng = _rngs(ref, "effects")
    photo = _mild_effects(erng, np.random.default_rng(erng.getrandbits(64)), rgb,
                          blurred=variant == "blurred") if effects else rgb
    label = _label(ref, variant, (W, H), items, anns, theta)
    label["table"] = table_kind
    return photo, label


def _label(ref: DeckRef, variant: str, size: tuple[int, int], items: list[Placed],
           anns: list[dict[str, Any]], roll: float = 0.0) -> dict[str, Any]:
    """Faces in photo order (row by row from the top, left to right, along the layout's rows as
    the camera's ``roll``, degrees, turns them), the back, the COCO labels."""
    W, H = size
    entries = []
    back = None
    for p, a in zip(items, anns, strict=True):
        xs = [x for x, _ in a["card_corners"]]
        ys = [y for _, y in a["card_corners"]]
        box = [round(max(0.0, min(xs)), 1), round(max(0.0, min(ys)), 1),
               round(min(float(W), max(xs)), 1), round(min(float(H), max(ys)), 1)]
        if p.card is None:
            back = {"bbox": a["bbox"], "card_box": box, "card_corners": a["card_corners"]}
            continue
        upright = next(g["upright"] for g in a["glyphs"] if g["bbox"] == a["bbox"])
        entries.append({"card": CARD_NAMES[p.card.index], "category_id": category_id(p.card),
                        "bbox": a["bbox"], "card_box": box, "card_corners": a["card_corners"],
                        "upright": upright})
    # rows: split the faces at the widest gap between card centres from top to bottom, in axes
    # turned with the camera so that a slanted photo's rows lie level
    c, s = math.cos(math.radians(roll)), math.sin(math.radians(roll))

    def across(e: dict[str, Any]) -> float:
        x, y = (e["card_box"][0] + e["card_box"][2]) / 2, (e["card_box"][1] + e["card_box"][3]) / 2
        return s * x + c * y

    def along(e: dict[str, Any]) -> float:
        x, y = (e["card_box"][0] + e["card_box"][2]) / 2, (e["card_box"][1] + e["card_box"][3]) / 2
        return c * x - s * y

    entries.sort(key=across)
    mids = [across(e) for e in entries]
    cut = 1 + max(range(len(mids) - 1), key=lambda i: mids[i + 1] - mids[i])
    faces: list[dict[str, Any]] = []
    for r, row in enumerate((entries[:cut], entries[cut:]), start=1):
        row.sort(key=along)
        faces += [{**e, "row": r, "col": c} for c, e in enumerate(row, start=1)]
    return {"deck": ref.meta(), "variant": variant, "expect": "learn" if variant in LEARNABLE else "refuse",
            "upside_down": variant == "upside_down", "width": W, "height": H,
            "faces": faces, "back": back, "annotations": anns}


def _turn_quarter(ann: dict[str, Any], W: int, H: int, quarter: int) -> dict[str, Any]:
    """An annotation of a W x H photo turned a right angle anticlockwise (``quarter`` 1) or
    clockwise (3): every point and box moved with it; each glyph stays as upright on its card."""
    def point(x: float, y: float) -> list[float]:
        return [round(y, 1), round(W - x, 1)] if quarter == 1 else [round(H - y, 1), round(x, 1)]

    def box(b: list[int]) -> list[int]:
        x, y, w, h = b
        return [y, W - x - w, h, w] if quarter == 1 else [H - y - h, x, h, w]

    return {**ann, "card_polygon": [point(x, y) for x, y in ann["card_polygon"]],
            "card_corners": [point(x, y) for x, y in ann["card_corners"]], "bbox": box(ann["bbox"]),
            "glyphs": [{**g, "bbox": box(g["bbox"])} for g in ann["glyphs"]]}


def _turn_half(ann: dict[str, Any], W: int, H: int) -> dict[str, Any]:
    """An annotation of a photo turned 180°: every point mirrored through the centre, each glyph's
    ``upright`` flipped, and the identifying glyph chosen again (datasets/LABELS.md)."""
    def box(b: list[int]) -> list[int]:
        return [W - b[0] - b[2], H - b[1] - b[3], b[2], b[3]]

    out = {**ann, "card_polygon": [[round(W - x, 1), round(H - y, 1)] for x, y in ann["card_polygon"]],
           "card_corners": [[round(W - x, 1), round(H - y, 1)] for x, y in ann["card_corners"]],
           "bbox": box(ann["bbox"])}
    glyphs = [{**g, "bbox": box(g["bbox"]), "upright": not g["upright"]} for g in ann["glyphs"]]
    out["glyphs"] = glyphs
    good = sorted((g for g in glyphs if g["visible"] >= 0.5), key=lambda g: (not g["upright"], -g["visible"]))
    if good:
        out["bbox"] = good[0]["bbox"]
        out["area"] = float(good[0]["bbox"][2] * good[0]["bbox"][3])
    return out


def _mild_effects(rng: random.Random, nrng: np.random.Generator, img: Image.Image,
                  blurred: bool = False) -> Image.Image:
    """The scenes' photo effects, milder: a player takes this photo once, with care, in the light
    they play in. ``blurred`` puts the lens far out of focus."""
    w, h = img.size
    s = max(w, h) / 1600
    a, xx, yy, dist = _lamp(rng, img)
    fall = 1.0 - rng.uniform(0.05, 0.3) * np.clip(dist, 0, 1.5) / 1.5
    expo = rng.uniform(0.78, 1.1)
    tint = rng.choice([(1.06, 1.0, 0.86), (0.95, 0.99, 1.05), (1.0, 1.0, 1.0), (1.0, 1.0, 0.95),
                       (1.1, 1.0, 0.8)])
    a = a * (fall * expo)[..., None] * np.array(tint, np.float32)
    if rng.random() < 0.15:  # a soft highlight from the lamp
        gx, gy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        rx, ry = rng.uniform(0.05, 0.2) * w, rng.uniform(0.03, 0.12) * h
        a = a + (rng.uniform(25, 60) * np.exp(-(((xx - gx) / rx) ** 2 + ((yy - gy) / ry) ** 2)))[..., None]
    a = a + nrng.normal(0, rng.uniform(1, 3.5), a.shape).astype(np.float32)
    out = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if blurred:
        out = out.filter(ImageFilter.GaussianBlur(rng.uniform(5.0, 7.0) * s))
    elif rng.random() < 0.3:
        out = out.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.9) * s))
    return _jpeg(out, rng.randint(70, 92))


def _scene_instead(ref: DeckRef, size: tuple[int, int], effects: bool) -> tuple[Image.Image, dict[str, Any]]:
    """A table scene of the deck, labelled as a teaching photo that must be refused."""
    img, anns, meta = render_scene_full(ref.seed, ref.split, 1_000_000 + ref.index, size, effects=effects,
                                        style=ref.style, deck=ref.deck())
    return img, {"deck": ref.meta(), "variant": "scene", "expect": "refuse", "upside_down": False,
                 "width": size[0], "height": size[1], "faces": [], "back": None, "annotations": anns,
                 "table": meta["table"]}

