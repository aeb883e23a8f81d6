"""The checks that refuse a teaching photo, each with the line that names what is wrong for the
player (``TeachRefused``): a place with no card on it, a blurred photo, and faces that are not
the twenty cards in their order."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from zipai.engine import CARD_NAMES, Card

from ..decode import Decoded
from ..detector import Detection, Detector
from ..preprocess import cut_crops
from .model import (
    ALIKE,
    MAX_UNSURE,
    MIN_SHARPNESS,
    TWINS,
    VACANT_CROP,
    VACANT_INK,
    VACANT_PAPER,
    VACANT_SPREAD,
    TeachRefused,
    _at,
    glyph,
    place,
)
from .places import _Places


def vacancy(arr: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Per glyph box (decoded pixels), what the square round it shows [N, 4]: its median colour
    (RGB; on a card the paper, as ink covers less than half a glyph's square) and the ink's depth
    (the deepest channel's drop from that median to the square's darkest tenth, over 255)."""
    crops = cut_crops(arr, boxes, VACANT_CROP, 1.0).astype(np.float32)
    flat = crops.reshape(len(crops), -1, 3)
    paper = np.median(flat, axis=1)
    ink = (paper - np.percentile(flat, 10, axis=1)).max(axis=1) / 255.0
    return np.concatenate([paper, ink[:, None]], axis=1)


def vacant_scores(arr: np.ndarray, boxes: np.ndarray, places: _Places) -> dict[int, tuple[float, float]]:
    """Per place the finder missed: how far its square's colour lies from the found faces'
    median, as a share of the farthest found face's distance; and its ink as a share of the
    found faces' median ink."""
    missed = places.missed
    if not missed:
        return {}
    f = vacancy(arr, boxes)
    have = [i for i in range(len(boxes)) if i not in missed]
    paper = np.median(f[have, :3], axis=0)
    far = max(float(np.linalg.norm(f[have, :3] - paper, axis=1).max()), VACANT_SPREAD)
    ink = max(float(np.median(f[have, 3])), 1e-3)
    return {i: (float(np.linalg.norm(f[i, :3] - paper)) / far, float(f[i, 3]) / ink) for i in missed}


def _check_vacant(arr: np.ndarray, boxes: np.ndarray, places: _Places, found: Sequence[Detection]) -> None:
    """Refuse a place where no card lies, naming the places: a place the finder missed where the
    reader reads no face (none, or a back) and the square there shows neither the found faces'
    paper nor their ink (VACANT_PAPER, VACANT_INK; chosen on validation teaching photos, ``zipai
    tune vacant-places``). A face the reader cannot name but whose paper and ink are there is a
    card: it is learnt by its place."""
    scores = vacant_scores(arr, boxes, places)
    empty = [i for i, (paper, ink) in scores.items()
             if found[i].card not in CARD_NAMES and (paper > VACANT_PAPER or ink < VACANT_INK)]
    if empty:
        names = "; ".join(f"{place(i)}: no card there" for i in empty)
        raise TeachRefused(f"{names} (lay all 20 faces, small 一…十 on top, big 壹…拾 below)", "teach_empty",
                           n=len(empty), **_at(empty[0]), places=",".join(f"{i // 10 + 1}-{i % 10 + 1}"
                                                                            for i in empty))


def sharpness(crops: np.ndarray) -> float:
    """How sharp glyph crops are: the median over crops of the strongest Laplacian over the
    crop's contrast. Rendered teaching photos in focus give 2.6 to 4.9, badly out of focus 0.25
    to 0.45."""
    g = crops.astype(np.float32).mean(axis=-1)
    lap = np.abs(4 * g[:, 1:-1, 1:-1] - g[:, :-2, 1:-1] - g[:, 2:, 1:-1] - g[:, 1:-1, :-2] - g[:, 1:-1, 2:])
    flat = g.reshape(len(g), -1)
    return float(np.median(lap.reshape(len(g), -1).max(axis=1) / (flat.std(axis=1) + 5.0)))


def _check_sharp(decoded: Decoded, faces: list[Detection], det: Detector) -> None:
    if len(faces) < 5:
        return
    boxes = np.asarray([d.box for d in faces], np.float32) / decoded.scale
    r = det.config.reader
    sharp = sharpness(cut_crops(np.asarray(decoded.image, np.uint8), boxes, r.size, r.margin))
    if sharp < MIN_SHARPNESS:
        raise TeachRefused(f"the photo is too blurred to learn from (sharpness {sharp:.2f}, need "
                           f"{MIN_SHARPNESS}): hold the phone steady and take it again", "teach_blurred",
                           s=f"{sharp:.2f}", need=f"{MIN_SHARPNESS}")


def _check_order(found: list[Detection], labels: list[str], emb: np.ndarray) -> None:
    """Refuse a broken order, naming the places: the rows swapped; a card laid twice (two faces
    with embeddings alike past ALIKE where one reads as the other's card, or past TWINS however
    they read); two cards laid in each other's places (each read as the other); or more than
    MAX_UNSURE places read as other cards of the deck (shuffled). A place read as no card, or a
    few misread, is learnt by its place: the order is the truth, and the player is shown them."""
    wrong = [(i, d) for i, (d, c) in enumerate(zip(found, labels, strict=True)) if d.card != c]
    other = [(i, d) for i, d in wrong if d.card in CARD_NAMES]
    big = [d.card in CARD_NAMES and Card.parse(d.card).big for d in found]
    small = [d.card in CARD_NAMES and not Card.parse(d.card).big for d in found]
    if len(other) > MAX_UNSURE and sum(big[:10]) >= 7 and sum(small[10:]) >= 7:
        raise TeachRefused("the rows are swapped: the small cards 一…十 go in the top row, the big ones "
                           "壹…拾 below", "teach_swapped")
    for i, d in other:
        twin = next((j for j, e in enumerate(found) if j != i and e.card == d.card == labels[j]), None)
        if twin is not None and float(emb[i] @ emb[twin]) >= ALIKE:
            raise TeachRefused(f"{place(i)} reads as {glyph(d.card)}, as {place(twin)} does: is a card laid "
                               f"twice? ({glyph(labels[i])} belongs there)", "teach_twice", **_at(i),
                               **_at(twin, "2"), read=d.card, want=labels[i])
    if len(emb) > 1:  # a card the reader misreads where it belongs as well as where it was laid again
        alike = emb @ emb.T
        np.fill_diagonal(alike, -1.0)
        i, j = sorted(int(k) for k in np.unravel_index(int(np.argmax(alike)), alike.shape))
        if alike[i, j] >= TWINS:
            raise TeachRefused(f"{place(i)} and {place(j)} look like one card: is a card laid twice? "
                               f"({glyph(labels[i])} and {glyph(labels[j])} belong there)", "teach_alike",
                               **_at(i), **_at(j, "2"), want=labels[i], want2=labels[j])
    for i, d in other:
        j = labels.index(d.card)
        if found[j].card == labels[i]:
            raise TeachRefused(f"{place(i)} and {place(j)} read as each other's cards ({glyph(d.card)} and "
                               f"{glyph(labels[i])}): are they laid in each other's places?", "teach_crossed",
                               **_at(i), **_at(j, "2"), want=labels[i], want2=labels[j])
    if len(other) > MAX_UNSURE:
        where = "; ".join(f"{place(i)} reads as {glyph(d.card)}" for i, d in other[:4])
        raise TeachRefused(f"{len(other)} places read as other cards than the order names ({where}"
                           f"{'; …' if len(other) > 4 else ''}): is the order right, is the photo sharp?",
                           "teach_misreads", n=len(other), **_at(other[0][0]), read=other[0][1].card,
                           want=labels[other[0][0]])
