"""Which finds are cards: the named steps from one look's finds to detections.

Two ways, chosen by the config: ``rules`` (thresholds, a second chance for weak peaks, the
reader's floor, then the filters: ``drop_weak_far_ends``, ``drop_far_ends``,
``drop_back_doubles``) or ``select`` (a learnt selector over all the evidence, then
``drop_far_ends`` again among the finds it kept). Both also give the weak finds worth offering
the layout (``filters.spares``). Pure functions of a look and a config."""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from zipai.engine import CARD_NAMES

from .config import Config
from .detection import Detection, Finds, Look, Timing, Weighed, back, face, photo_box
from .errors import ModelError
from .filters import body_between, drop_back_doubles, drop_far_ends, drop_weak_far_ends, spares
from .selector import features as selector_features


@dataclass(frozen=True, slots=True)
class Chosen:
    """A step's detections (top to bottom, then left to right) and the weak finds it offers the
    layout (strongest first)."""

    detections: list[Detection]
    spare: list[Detection]


@dataclass(frozen=True, slots=True)
class ClassIndex:
    """Where the faces, "none" and "back" sit among the reader's classes (-1: not read)."""

    faces: list[int]
    none: int
    back: int

    @staticmethod
    @functools.cache
    def of(classes: tuple[str, ...]) -> ClassIndex:
        return ClassIndex([i for i, c in enumerate(classes) if c in CARD_NAMES],
                          classes.index("none") if "none" in classes else -1,
                          classes.index("back") if "back" in classes else -1)


class Lens(Protocol):
    """A taught deck's part in choosing the cards (``zipai.vision.deck.Lens``), passed per call:
    ``reread`` gives the finds back with the deck's opinion of their cards, which name the
    cards of the finds the steps chose on the reader's (``relabel``); ``admit`` may overrule
    the selector on whether a find is a card (``select``; the rules do not ask it)."""

    def reread(self, finds: Finds, config: Config) -> Finds: ...

    def admit(self, finds: Finds, cards: Sequence[str], prob: np.ndarray) -> np.ndarray | None: ...


def choose(look: Look, config: Config, timing: Timing | None = None, lens: Lens | None = None) -> Chosen:
    """The config's way: its selector where it has one, else the rules. A deck's ``lens`` then
    names the chosen faces' cards (``relabel``; a look without the reader's embedding keeps the
    reader's): which finds are cards is not the deck's to change through the cards it reads,
    since the selector's evidence and the far-end filters pair finds by their cards."""
    chosen = select(look, config, timing, lens) if config.postprocess.selector is not None \
        else rules(look, config, timing)
    if lens is None or look.finds.embeds is None:
        return chosen
    t0 = time.perf_counter()
    chosen = relabel(chosen, Look(look.arr, look.scale, lens.reread(look.finds, config)), config)
    if timing is not None:
        timing.reader += time.perf_counter() - t0
    return chosen


def relabel(chosen: Chosen, read: Look, config: Config) -> Chosen:
    """``chosen`` (finds of ``read``'s look) with each face's card, confidence and alternatives
    as ``read``'s probabilities give them; backs, boxes and the selector's verdict unchanged."""
    at = {photo_box(b, read.scale): i for i, b in enumerate(read.boxes)}
    idx = ClassIndex.of(config.classes)

    def again(d: Detection) -> Detection:
        i = at.get(d.box)
        if d.card == "back" or i is None:
            return d
        out = face(config.classes, config.red_threshold, d.redness, d.box, d.finder_score,
                   read.probs[i][idx.faces], idx.faces, d.down)  # the ink measured once, for ``d``
        return replace(out, selected=d.selected)

    return Chosen([again(d) for d in chosen.detections], [again(d) for d in chosen.spare])


def _face(look: Look, config: Config, idx: ClassIndex, i: int, box: tuple[float, float, float, float],
          s: float, face_p: np.ndarray, down: tuple[float, float]) -> Detection:
    return face(config.classes, config.red_threshold, look.redness_of(i), box, s, face_p, idx.faces, down)


def _reads_a_face(p: np.ndarray, idx: ClassIndex) -> bool:
    """Whether a back find is a face after all: the reader sees a face in it surely."""
    best = max(idx.faces, key=lambda i: p[i])
    return bool(p[best] > 0.9 and idx.back >= 0 and p[idx.back] < 0.05)


def rules(look: Look, config: Config, timing: Timing | None = None) -> Chosen:
    """Detections by the hand-set rules.

    A find under its threshold still counts when its peak reaches the rescue threshold and the
    reader gives its best face the rescue probability: on a typeface the finder never saw, a
    glyph's peak is often weak while the reader, which saw more faces, still reads it. A back
    has its own pair (the reader's ``back`` probability): weak back peaks are mostly card edges
    and slivers that the reader also calls backs, so the two are tuned apart. A face counts only
    when the reader gives its best face at least ``face_floor``: most finds the reader is that
    unsure of are a tablecloth's print, a pattern or a far end, not a card. Finds turned away
    with a peak of at least ``finder.spare_threshold`` are offered the layout (``spares``)."""
    t0 = time.perf_counter()
    f, r, post = config.finder, config.reader, config.postprocess
    thr, back_thr, none_thr = f.threshold, f.back_threshold, r.none_threshold
    floor, sure = f.rescue_threshold, r.rescue_sure
    back_floor, back_sure = f.back_rescue_threshold, r.back_rescue_sure
    least, spare_floor = r.face_floor, f.spare_floor
    idx = ClassIndex.of(config.classes)
    k = look.scale
    out: list[Detection] = []
    weak: list[Detection] = []  # finds the thresholds turned away, for ``spare``
    for i, (b, s, kind, p, dn) in enumerate(zip(look.boxes, look.scores, look.kinds, look.probs, look.downs,
                                                strict=True)):
        box = photo_box(b, k)
        down = (float(dn[0]), float(dn[1]))
        if kind == 1 and s < back_thr:
            if s < back_floor or idx.back < 0 or p[idx.back] < back_sure:
                if s >= spare_floor:
                    weak.append(back(box, float(s), down))
                continue
        elif kind != 1 and s < thr:
            if s < floor or p[idx.faces].max() < sure:
                if s >= spare_floor:
                    weak.append(_face(look, config, idx, i, box, float(s), p[idx.faces], down))
                continue
        if kind == 1 and not _reads_a_face(p, idx):
            out.append(back(box, float(s), down))
            continue
        face_p = p[idx.faces]
        if (idx.none >= 0 and p[idx.none] >= none_thr) or face_p.max() < least:
            if s >= spare_floor:
                weak.append(_face(look, config, idx, i, box, float(s), face_p, down))
            continue
        out.append(_face(look, config, idx, i, box, float(s), face_p, down))
    out = drop_weak_far_ends(out, thr)  # before the pairs below, which may keep the weak end
    if post.drop_far_ends:
        out = drop_far_ends(out, post.far_ends, image=look.arr, scale=k)
    if post.back_doubles:
        out = drop_back_doubles(out, post.back_doubles)
    spare = spares(weak, out, thr, f.max_spare)
    if timing is not None:
        timing.postprocess += time.perf_counter() - t0
    out.sort(key=lambda d: (d.box[1], d.box[0]))
    return Chosen(out, spare)


def candidates(look: Look, config: Config) -> tuple[list[str], np.ndarray]:
    """Each find's class (the reader's best face, or ``back``: a back find that the reader
    sees a face in surely is a face) and the selector's evidence for it."""
    idx = ClassIndex.of(config.classes)
    cards: list[str] = []
    for kind, p in zip(look.kinds, look.probs, strict=True):
        best = idx.faces[int(np.argmax(p[idx.faces]))]
        cards.append("back" if kind == 1 and not _reads_a_face(p, idx) else config.classes[best])
    red = np.asarray([look.redness_of(i) if c != "back" else 0.0 for i, c in enumerate(cards)], np.float64)
    k = look.scale
    finder_scale = config.finder.long_side / max(look.arr.shape[:2]) / k  # finder pixels per photo pixel
    across = config.postprocess.far_ends.across

    def body(a: tuple[float, float], b: tuple[float, float], size: float) -> tuple[float, float]:
        return body_between(look.arr, (a[0] / k, a[1] / k), (b[0] / k, b[1] / k), size / k, across)

    kept = {tuple(d.box) for d in rules(look, config.rules_only()).detections}
    chosen = np.asarray([photo_box(b, k) in kept for b in look.boxes])
    x = selector_features(cards, look.boxes * k, look.scores, look.probs, look.downs, list(config.classes),
                          red, config.red_threshold, finder_scale, body, chosen)
    return cards, x


def weigh(look: Look, config: Config) -> tuple[Look, list[str], np.ndarray]:
    """The finds the selector looks at (peak at least its floor), their classes and the
    probability it gives each of being a card. Kept on the look: it does not depend on the
    selector's threshold, so a tuner replaying one look at many thresholds weighs it once."""
    sel = config.postprocess.selector
    assert sel is not None
    rules_config = config.rules_only()
    w = look.weighed
    if w is None or not w.fits(sel, rules_config):
        sub = look.subset(look.scores >= sel.floor)
        cards, x = candidates(sub, config)
        w = look.weighed = Weighed(sel, rules_config, sub.finds, cards, sel.probability(x))
    return Look(look.arr, look.scale, w.finds), w.cards, w.probs


def select(look: Look, config: Config, timing: Timing | None = None, lens: Lens | None = None) -> Chosen:
    """Detections chosen by the config's selector: every find whose evidence gives it at least
    the selector's probability of being a card, less the far ends found among them
    (``selected_far_ends``). Finds turned away with a peak of at least
    ``finder.spare_threshold`` are offered the layout, as with the rules. A taught deck's
    ``lens`` may overrule the selector on a find (``Lens.admit``)."""
    sel = config.postprocess.selector
    if sel is None:
        raise ModelError("the manifest has no postprocess.selector", code="bad_model")
    t0 = time.perf_counter()
    sub, cards, prob = weigh(look, config)
    verdict = lens.admit(sub.finds, cards, prob) if lens is not None else None
    if verdict is not None:
        prob = np.where(verdict > 0, np.maximum(prob, sel.threshold), np.where(verdict < 0, -1.0, prob))
    idx = ClassIndex.of(config.classes)
    k = look.scale
    spare_floor = config.finder.spare_floor
    out: list[Detection] = []
    weak: list[Detection] = []
    for i, (c, b, s, p, dn, q) in enumerate(zip(cards, sub.boxes, sub.scores, sub.probs, sub.downs, prob,
                                                strict=True)):
        box = photo_box(b, k)
        down = (float(dn[0]), float(dn[1]))
        d = back(box, float(s), down) if c == "back" \
            else _face(sub, config, idx, i, box, float(s), p[idx.faces], down)
        if q >= sel.threshold:
            out.append(replace(d, selected=float(q)))
        elif s >= spare_floor and q >= 0:  # a find the deck turned away (-1) is offered no more
            weak.append(d)
    after = config.postprocess.selected_far_ends
    if after is not None:
        out = drop_far_ends(out, after.limits(config.postprocess.far_ends), image=look.arr, scale=k,
                            prefer=after.prefer, protect=after.protect)
    spare = spares(weak, out, config.finder.threshold, config.finder.max_spare)
    if timing is not None:
        timing.postprocess += time.perf_counter() - t0
    out.sort(key=lambda d: (d.box[1], d.box[0]))
    return Chosen(out, spare)
