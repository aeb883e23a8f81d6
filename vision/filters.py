"""The rules' filters after the networks, each a named step over a list of detections: one
card's far end, one back found twice, a weak find that is a strong one's far end, and the weak
finds worth offering the layout (``spares``)."""

from __future__ import annotations

import math

import numpy as np

from .config import BODY_SUMMARIES, FAR_ENDS, BackDoubles, FarEnds
from .constants import SYMMETRIC
from .detection import Detection, card_axis, glyph_size
from .selector import covers

# of the smaller size, how near a kept find's centre a weak back's lies on that card, so that
# ``spares`` offers it no more (chosen on the validation scenes end to end; docs/lab/layout.md)
BACK_ON = 0.5
HALF_TURN = frozenset({"x1", "x2", "x3"})  # of those, the same only turned half round: an axis


def body_between(image: np.ndarray, a: tuple[float, float], b: tuple[float, float],
                 size: float, across: str = FAR_ENDS.across) -> tuple[float, float]:
    """Whether the stretch between two glyph centres (image pixels) looks like one card's plain
    body: ``(edge, dark)``. ``edge`` is the strongest brightness step across the path that runs
    straight over its whole width (the edge of a card lying over another), relative to the
    stretch's contrast; ``dark`` is its darkest line over its median brightness (a shadow under
    an overlapping card). The glyphs' own ink, a glyph size at each end, is left out.

    ``across`` is how each line across the path is summed up, "mean" or "median": a card's
    middle ornament (dots, a diamond) darkens part of a line, a card edge or its shadow all of
    it, and the median sees only the second."""
    pa, pb = np.asarray(a, np.float64), np.asarray(b, np.float64)
    dist = float(np.hypot(*(pb - pa)))
    u = (pb - pa) / max(dist, 1e-6)
    v = np.asarray([-u[1], u[0]])
    n_l, n_w = 64, 12
    m = min(0.3, 0.6 * size / max(dist, 1e-6))
    ts = np.linspace(m, 1.0 - m, n_l)
    ws = np.linspace(-0.45, 0.45, n_w) * size
    pts = pa + ts[:, None, None] * (pb - pa) + ws[None, :, None] * v
    h, w = image.shape[:2]
    xs = np.clip(np.rint(pts[..., 0]), 0, w - 1).astype(np.intp)
    ys = np.clip(np.rint(pts[..., 1]), 0, h - 1).astype(np.intp)
    strip = image[ys, xs].astype(np.float32)
    strip = strip.mean(axis=-1) if strip.ndim == 3 else strip  # [n_l, n_w] grey
    if across not in BODY_SUMMARIES:
        raise ValueError(f"body_between: across must be mean or median, not {across!r}")
    line = np.median if across == "median" else np.mean
    step = np.abs(line(np.diff(strip, axis=0), axis=1)).max()
    rows = line(strip, axis=1)
    return float(step / (strip.std() + 5.0)), float(rows.min() / (np.median(strip) + 1.0))


def drop_far_ends(dets: list[Detection], far: FarEnds = FAR_ENDS, *, lo: float = 2.0, hi: float = 5.5,
                  lateral: float = 0.6, symmetric: bool = True, image: np.ndarray | None = None,
                  scale: float = 1.0, prefer: str = "upright", protect: float = math.inf) -> list[Detection]:
    """A card lying fully in view shows its rank at both ends, the far one turned round; keep one.

    Two detections are the two ends of one card when they read the same, lie 2–5.5 glyph sizes
    apart along the glyph's axis (the reader's down direction), nothing lies between them, and
    they face opposite ways (unless the glyph reads the same turned round, 一二三十; ``symmetric``
    False leaves those alone). Two cards of one rank laid head to toe in a column fit all that
    too, so with the photo (``image``, decoded pixels; boxes are ``scale`` times those) the
    stretch between them must also look like one card's plain body (``body_between``): no
    card edge across it (``far.max_edge``), no shadow line (``far.min_dark``). The one that reads more
    upright in the photo stays (that is the one the labels name).

    一二三 give no down of their own but still give their card's axis (they read the same turned
    half round, not a quarter, unlike 十); with ``far.own_axis`` the pair may follow that axis as
    well as the photo's, so that a loose card lying across the layout loses its far end too.

    After the selector (``prefer`` "selected") the one it is surer of stays, and a find it is
    at least ``protect`` sure of is never dropped."""
    faces = [i for i, d in enumerate(dets) if d.card != "back"]
    centres = np.asarray([d.center for d in dets], np.float64).reshape(-1, 2)
    axis = card_axis([dets[i] for i in faces if dets[i].card not in SYMMETRIC])
    drop: set[int] = set()
    for a_i, i in enumerate(faces):
        for j in faces[a_i + 1:]:
            di, dj = dets[i], dets[j]
            if di.card != dj.card or i in drop or j in drop:
                continue
            if di.card in SYMMETRIC:
                if not symmetric:
                    continue
            elif di.down[0] * dj.down[0] + di.down[1] * dj.down[1] > -0.5:
                continue
            s = max(glyph_size(di), glyph_size(dj))
            vec = centres[j] - centres[i]
            dist = float(np.hypot(*vec))
            if not lo * s <= dist <= hi * s:
                continue
            u = vec / dist
            # a glyph that reads the same turned round gives no trustworthy down of its own
            downs = [axis] if di.card in SYMMETRIC else [di.down, dj.down]
            if far.own_axis and di.card in HALF_TURN:
                downs += [di.down, dj.down]
            aligned = any(d is not None and abs(u[0] * d[1] - u[1] * d[0]) < far.max_sin for d in downs)
            if not aligned:
                continue
            rel = centres - centres[i]
            t = rel @ u
            off = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
            between = (t > 0.1 * dist) & (t < 0.9 * dist) & (off < lateral * s)
            between[[i, j]] = False
            if between.any():
                continue
            if image is not None:
                a, b = centres[i] / scale, centres[j] / scale
                edge, dark = body_between(image, (a[0], a[1]), (b[0], b[1]), s / scale, far.across)
                if edge > far.max_edge or dark < far.min_dark:
                    continue
            if prefer == "selected":
                k = i if (di.selected or 0.0) < (dj.selected or 0.0) else j
            else:
                k = i if di.down[1] < dj.down[1] else j
            if (dets[k].selected or 0.0) < protect:
                drop.add(k)
    return [d for k, d in enumerate(dets) if k not in drop]


def drop_back_doubles(dets: list[Detection], limits: BackDoubles) -> list[Detection]:
    """One card back found twice: keep the stronger find.

    The finder's target for a back is the bulk of its visible part, and the last back of a
    concealed column shows the whole card, three card widths long, where it sometimes makes two
    peaks. Their boxes mostly cover each other, and their centres lie closer than the next back
    of the column usually does (a step of the column, a glyph size or more), so duplicate
    removal's limit for backs (which must keep a column's heavily overlapping backs apart) lets
    both through. Glyph sizes are the photo's median face; a photo with no face is left alone."""
    faces = sorted(glyph_size(d) for d in dets if d.card != "back")
    backs = sorted((i for i, d in enumerate(dets) if d.card == "back"), key=lambda i: -dets[i].finder_score)
    if not faces or len(backs) < 2:
        return dets
    reach = limits.reach * faces[len(faces) // 2]
    kept: list[Detection] = []
    drop: set[int] = set()
    for i in backs:
        d = dets[i]
        x, y = d.center
        if any(covers(np.asarray(d.box), np.asarray(e.box)) >= limits.overlap
               and float(np.hypot(x - e.center[0], y - e.center[1])) <= reach for e in kept):
            drop.add(i)
        else:
            kept.append(d)
    return [d for i, d in enumerate(dets) if i not in drop]


def drop_weak_far_ends(dets: list[Detection], threshold: float, lo: float = 1.5, hi: float = 5.5,
                       max_sin: float = 0.3, lo_symmetric: float = 2.2) -> list[Detection]:
    """A weak find (a face under the finder's threshold, let in by the second chance) that reads
    the same rank as a face found above the threshold, 1.5–5.5 glyph sizes away along either
    one's axis and turned round against it, is that card's far end: the finder learnt to give
    far ends no peak, so a weak peak there is the far end showing through. 一二三十 read the same
    turned round, so for them the pair follows the photo's main card axis and must lie at least
    2.2 glyph sizes apart, further than the next card of a column of one rank usually lies.
    Unlike ``drop_far_ends`` this needs no look at the card body: the weak one is always the one
    to drop."""
    weak = [d.card != "back" and d.finder_score < threshold for d in dets]
    if not any(weak):
        return dets  # most photos
    strong = [d for d, w in zip(dets, weak, strict=True) if d.card != "back" and not w]
    axis = card_axis([d for d in strong if d.card not in SYMMETRIC])
    return [d for d, w in zip(dets, weak, strict=True)
            if not w or not _weak_far_end(d, strong, axis, lo_symmetric if d.card in SYMMETRIC else lo, hi,
                                          max_sin)]


def spares(weak: list[Detection], kept: list[Detection], threshold: float, most: int) -> list[Detection]:
    """The weak finds worth offering the layout (``scan``'s ``take_in``), strongest first.

    A find the thresholds turned away is most often a far end, a second peak on a card already
    read, or the table's print; but on a typeface the finder never saw, a real glyph's peak can
    be as weak. The rules can tell: a hand that splits into seven groups only with one of them
    took it in. Left out here: finds on a kept card (their centre within a glyph size of a kept
    find's) and far ends of kept faces (``drop_weak_far_ends``). A weak back reaches only
    ``BACK_ON`` of the smaller of the two sizes: a back's box can spread over a concealed
    group's other backs, and the larger size would reach the next back of the group, the one
    the finder missed."""
    if not weak:
        return []
    def on(w: Detection, d: Detection) -> bool:
        sizes = glyph_size(w), glyph_size(d)
        reach = BACK_ON * min(sizes) if w.card == "back" else 0.8 * max(sizes)
        return abs(w.center[0] - d.center[0]) < reach and abs(w.center[1] - d.center[1]) < reach

    near = [w for w in weak if not any(on(w, d) for d in kept)]
    ids = {id(w) for w in near}
    alive = [d for d in drop_weak_far_ends(kept + near, threshold) if id(d) in ids]
    return sorted(alive, key=lambda d: -d.finder_score)[:most]


def _weak_far_end(d: Detection, strong: list[Detection], axis: tuple[float, float] | None, lo: float,
                  hi: float, max_sin: float) -> bool:
    x, y = d.center
    for e in strong:
        if e.card != d.card:
            continue
        ex, ey = e.center
        dist = float(np.hypot(ex - x, ey - y))
        s = max(glyph_size(d), glyph_size(e))
        if not lo * s <= dist <= hi * s:
            continue
        if d.card in SYMMETRIC:
            downs = [axis] if axis is not None else [d.down, e.down]
        elif d.down[0] * e.down[0] + d.down[1] * e.down[1] > -0.5:
            continue
        else:
            downs = [d.down, e.down]
        ux, uy = (ex - x) / dist, (ey - y) / dist
        if any(abs(ux * v[1] - uy * v[0]) < max_sin for v in downs):
            return True
    return False
