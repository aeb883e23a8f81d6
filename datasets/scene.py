"""One synthetic table photo and its labels, deterministic in (seed, split, index).

The scene is built on a flat "table plane": texture, distractors, then the seven groups as
columns of overlapping cards. Two label maps ride along with the pixels (which card owns each
pixel, and whether it is top-glyph or bottom-glyph ink), through the same perspective warp,
so every glyph box is the box of the ink that is actually visible in the final photo.

The parts live by job: ``plan`` (which cards lie where), ``table`` (the table and what covers
cards), ``compose`` (the cards laid with their label maps, and the annotations), ``photo`` (the
camera's look) and ``geometry``; this module puts a scene together from them, and every name
they define that was here stays importable from here.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

import numpy as np
from PIL import Image

from zipai.engine import ZipaiError
from zipai.vision.constants import BACK_ID  # noqa: F401  (the tests name it from here)

from .cards import DeckStyle, random_deck

# the parts; what this module does not use itself is imported to stay importable from here,
# where the tests, the teaching photos and the training data name it
from .compose import (  # noqa: F401
    CATEGORIES,
    MIN_BACK_VISIBLE,
    MIN_GLYPH_VISIBLE,
    MIN_PIXELS,
    Annotations,
    _paste_occluder,
    _stamp,
    _tilt,
    category_id,
    compose,
)
from .geometry import (  # noqa: F401
    _apply,
    _bbox,
    _homography,
    _main_part,
    _mask_outline,
    _opening,
    _rot,
    _simplify,
    _window_sums,
)
from .photo import _motion_blur, _photo_effects  # noqa: F401
from .plan import (  # noqa: F401
    HAND_SET_BACKS,
    LAYOUTS,
    Placed,
    _centred,
    _column_plan,
    _loose_cards,
    _players_plan,
    _random_loose_layout,
    _shown_cards,
    _shown_face_over_backs,
    pick_layout,
)
from .table import PAPER_TEXT, _chips, _cup, _hand, _lowfreq, _paper, _phone, _shadowed, table_texture  # noqa: F401

STYLES = (1, 2, 3)  # 1: the generator as frozen for the first detector; 2: decorated glyphs;
#                     3: other decorations, never in training (a check on unseen print styles)


def _rng_for(seed: int, split: str, index: int) -> random.Random:
    return random.Random(f"zipai-scene:{seed}:{split}:{index}")


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
        edge = rng.randrange(4)
        if edge in (0, 1):
            reach = ext_h * unit / 2 + unit * rng.uniform(0.5, 2.5)
            cut = int(ccy - reach) if edge == 0 else int(ccy + reach)
        else:
            reach = ext_w * unit / 2 + unit * rng.uniform(0.5, 2.5)
            cut = int(ccx - reach) if edge == 2 else int(ccx + reach)
        floors = [(60, 50, 45), (120, 110, 100), (30, 30, 35), (150, 120, 90)]
        floor = np.array(rng.choice(floors), np.float32)
        floor = floor + _lowfreq(nrng, PW, PH, 5)[..., None] * 10
        lip = max(2, int(unit * rng.uniform(0.1, 0.4)))
        edge_col = table.mean(axis=(0, 1)) * rng.uniform(0.5, 0.8)
        if edge == 0:
            table[:max(0, cut)] = floor[:max(0, cut)]
            table[max(0, cut):max(0, cut + lip)] = edge_col
        elif edge == 1:
            table[max(0, cut):] = floor[max(0, cut):]
            table[max(0, cut - lip):max(0, cut)] = edge_col
        elif edge == 2:
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
    meta: dict[str, Any] = {
        "split": split, "style": style, "font": deck.face.name, "font_style": deck.face.style,
        "layout": lay.to_input(), "groups": groups_meta, "table": table_kind,
        "loose": [str(c) for c in loose], "seed": seed, "index": index}
    if deck is not drawn:
        meta.update(font=deck.face.name, font_style=deck.face.style)
    if layouts != "classic":
        meta["layouts"] = layouts
        meta["loose"] += [str(p.card) for p in placed if p.group == -1 and p.card is not None]
    return photo, anns, meta
