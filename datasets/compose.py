"""The cards laid on the table plane, later on top, each drawn, tilted and shadowed, with two
label maps riding along with the pixels (which card owns each pixel, and whether it is top- or
bottom-glyph ink), through the same perspective warp; and from them the COCO annotations, so
that every glyph box is the box of the ink actually visible in the photo."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from zipai.engine import Card
from zipai.vision.constants import BACK_ID, CATEGORY_NAMES

from .cards import DeckStyle, render_back, render_face
from .geometry import _apply, _bbox, _homography, _main_part, _mask_outline, _rot
from .plan import Placed
from .table import _shadowed

CATEGORIES: list[dict[str, Any]] = [
    {"id": i, "name": name, "supercategory": "card"} for i, name in enumerate(CATEGORY_NAMES, 1)]
MIN_GLYPH_VISIBLE = 0.5    # below this fraction of its ink a glyph is too hidden to tell
MIN_BACK_VISIBLE = 0.15    # fraction of a back's area
MIN_PIXELS = 12


def category_id(card: Card | None) -> int:
    """1..10 small, 11..20 big, 21 back."""
    return BACK_ID if card is None else card.index + 1


Annotations = list[dict[str, Any]]


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
            glyphs: list[dict[str, Any]] = []
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
