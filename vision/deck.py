"""Teaching the scanner one printed deck from a photo of its 20 faces, and reading with it.

A deck is a few glyph crops per card, each kept with the card it shows and where it came from
(the teaching photo, a tap in the app's review, ``zipai deck add``). From them comes one
prototype per card: the mean of the reader's embedding (the pooled feature its last layer
reads) over each crop under small shifts, scalings, turns, light and blur. A find is read by
the reader as always, and then again by its embedding's likeness to the deck's prototypes; the
two opinions are multiplied. Only the split of the face probability among the 20 faces changes:
"back" and "none" keep the reader's value, so the finds kept stay the finds the reader keeps.

Runtime code: numpy, Pillow and onnxruntime only. The file format is in docs/decks.md."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import re
import stat
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from zipai.engine import CARD_NAMES, Card, ZipaiError
from zipai.engine.files import read_file, shown
from zipai.engine.text import bad_char, printable, short

from .config import Config
from .decode import Decoded, decode
from .detection import Finds
from .detector import Detection, Detector
from .errors import VisionError
from .preprocess import cut_crops, normalise
from .selector import SYMMETRIC
from .steps import ClassIndex

FORMAT = 2
READ_FORMATS = (1, 2)  # version 1 (its SHA-256 covered the crops and prototypes only) is still read
MAGIC = b"ZIPAIDECK"
CROP = 64  # stored crops: CROP x CROP RGB, the square CROP_MARGIN times the glyph's long side
CROP_MARGIN = 1.6
SOURCES = ("teach", "review", "cli")
CLASSES = (*CARD_NAMES, "back")  # what an example may show; only faces get prototypes
MAX_NAME = 64
MAX_PER_CARD = 32
"""Examples of one card (the teaching photo gives one; each correction one more): past a few
dozen the prototype no longer moves, and the bound keeps a deck's derive to seconds."""
MAX_EXAMPLES = (len(CARD_NAMES) + 1) * MAX_PER_CARD  # the faces and the back
MAX_HEADER = 1 << 20
MAX_DIM = 1024
EXAMPLE_BYTES = CROP * CROP * 3
MAX_FILE = 64 + MAX_HEADER + MAX_EXAMPLES * EXAMPLE_BYTES + len(CARD_NAMES) * MAX_DIM * 4
AUGMENTS = 8  # views of each crop the prototypes average (the crop itself among them)
WEIGHT = 2.0  # the deck's say against the reader's: probabilities multiplied, the deck's to this power
SHARPNESS = 20.0  # cosine similarities to prototypes, scaled, then softmax over the deck's cards
CONFUSABLE = 0.12  # prototypes closer than this (1 - cosine) stay confusable: the learner warns
ALIKE = 0.95  # two faces' embeddings this alike (cosine) are one card laid twice
# two faces this alike (cosine) are one card laid twice whatever the reader reads them as: on 16
# validation decks the closest two faces of a good, slanted or upside-down photo lie at most 0.76
# apart, a card laid twice at least 0.95 (on the 20 held-out decks: 0.88 and 0.94)
TWINS = 0.92
# places read as other cards of the deck a photo may have before its order counts as broken (17
# of 20 agree); places read as no card do not count: the finder and reader miss faint prints
MAX_UNSURE = 3
MIN_PLACED = 15  # faces the finder must find at the 20 places for the rest to be read by place
VACANT_CROP = 32  # pixels of the square a place's paper and ink are measured on
VACANT_SPREAD = 12.0  # the least distance (RGB units) the farthest found face's paper is counted at
# a missed place the reader reads as no face is bare when its square's colour lies further from the
# found faces' paper than this share of the farthest found face's, or its ink is under this share
# of theirs. ``zipai tune vacant-places`` on 10 validation decks: every one of 90 missed places
# with a card was read as a face, every one of 10 bare places as none; of the settings that call
# every bare place bare, this one calls the fewest cards bare were they read as none (41 of 90:
# the paper of a print and of a table overlap), ink in the middle of its gap (bare 0.01 to 0.09,
# cards 0.36 up)
VACANT_PAPER = 0.4
VACANT_INK = 0.2
# where a missed place's face is looked for: steps along the row (of the spacing) and across it (of
# the glyph's height), the place's own box first among equals
SEARCH = tuple((a, b) for a in (0.0, -0.1, 0.1, -0.2, 0.2) for b in (0.0, -0.25, 0.25))
MAX_STRAY = 2  # faces found off the layout's two rows (a back read as a face, a far end) let be
TILT = np.radians(4.0)  # a teaching photo turned by more than this has its crops turned upright
MIN_SHARPNESS = 1.0  # the glyphs' median sharpness (``sharpness``) a teaching photo needs
LOCK_WAIT = 5.0  # seconds a writer waits for another process's lock on the same deck


class DeckError(VisionError):
    """A deck that cannot be named, found, read or written: the message names it and the problem."""

    def __init__(self, message: str, code: str = "deck") -> None:
        super().__init__(message, code)


class TeachRefused(DeckError):
    """A teaching photo the learner will not learn from; ``str`` is the line shown to the player.
    ``kind`` names the refusal and ``fields`` carry its numbers and cards (card text such as
    ``x3``), so an app can word it in its own language without reading the English line."""

    def __init__(self, message: str, kind: str = "teach", **fields: str | int | float) -> None:
        super().__init__(message, "teach_refused")
        self.kind = kind
        self.fields = fields


def _at(index: int, suffix: str = "") -> dict[str, int]:
    """A face's place as refusal fields: ``row`` and ``col`` (1-based), with ``suffix``."""
    return {f"row{suffix}": index // 10 + 1, f"col{suffix}": index % 10 + 1}


def glyph(card: str) -> str:
    """What a player calls the card: 一…十, 壹…拾; 'back' for a back, 'nothing' for the reader's none."""
    if card in ("back", "none"):
        return "nothing" if card == "none" else card
    return Card.parse(card).chinese(traditional=True)


def place(index: int) -> str:
    """Where the ``index``-th face of the teaching layout lies, in the player's words."""
    return f"row {index // 10 + 1}, place {index % 10 + 1}"


# ----------------------------------------------------------------------------- the deck itself

@dataclass(frozen=True, eq=False)
class Example:
    """One glyph crop (uint8 CROP x CROP x 3) and the card it shows; ``source`` says who said so."""

    card: str
    source: str
    crop: np.ndarray


@dataclass(frozen=True, slots=True)
class Peaks:
    """How strongly the finder found each face of the teaching photo: its peak per card
    (CARD_NAMES order; 0: no face of that card), and the finder network that gave them
    (``finder_fingerprint``). A deck whose 一 the finder barely sees on a clean, whole card will
    find it faint in a table scene too, under the bar set for every deck (``Admit.faint``). A
    peak needs the whole photo, which a deck does not keep, so another finder cannot derive
    them again: a deck it did not find keeps none."""

    finder: str
    values: tuple[float, ...]

    def of(self, card: str) -> float:
        return self.values[CARD_NAMES.index(card)] if card in CARD_NAMES else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"finder": self.finder, "values": list(self.values)}

    @classmethod
    def from_json(cls, d: object) -> Peaks:
        if not isinstance(d, dict) or set(d) != {"finder", "values"} or not isinstance(d["finder"], str) \
                or len(d["finder"]) > 64 or not isinstance(d["values"], list) \
                or len(d["values"]) != len(CARD_NAMES) \
                or not all(isinstance(v, int | float) and not isinstance(v, bool) and 0.0 <= v <= 1.0
                           for v in d["values"]):
            raise ValueError("peaks are a finder and 20 numbers from 0 to 1")
        return cls(d["finder"], tuple(float(v) for v in d["values"]))


@dataclass(frozen=True, eq=False)
class Deck:
    """A taught deck: its examples, and the prototypes derived from them with ``model`` (the
    fingerprint of the reader's embedding network; another model derives them again)."""

    name: str
    model: str
    examples: tuple[Example, ...]
    prototypes: np.ndarray  # [20, D] unit vectors, CARD_NAMES order; a row of zeros: no example
    created: str = ""
    # the back's prototype [D] (unit), from the back's crops; derived, not stored: ``with_back``
    back: np.ndarray | None = field(default=None, repr=False)
    peaks: Peaks | None = None  # the finder's peaks on the teaching photo's faces

    def counts(self) -> dict[str, dict[str, int]]:
        """Card -> source -> number of examples, in CARD_NAMES order (then the back)."""
        out: dict[str, dict[str, int]] = {}
        for c in CLASSES:
            per = {s: sum(1 for e in self.examples if e.card == c and e.source == s) for s in SOURCES}
            if any(per.values()):
                out[c] = {s: n for s, n in per.items() if n}
        return out

    def separations(self) -> dict[str, tuple[str, float]]:
        """Each taught card's nearest other card of this deck and how far (1 - cosine)."""
        return separations(self.prototypes)

    def warnings(self) -> tuple[str, ...]:
        """The pairs of cards that stay confusable in this deck."""
        return confusable(self.separations())


def separations(protos: np.ndarray) -> dict[str, tuple[str, float]]:
    have = np.flatnonzero(np.linalg.norm(protos, axis=1) > 0)
    out: dict[str, tuple[str, float]] = {}
    if len(have) < 2:
        return out
    d = 1.0 - protos[have] @ protos[have].T
    np.fill_diagonal(d, np.inf)
    for row, i in enumerate(have):
        j = int(np.argmin(d[row]))
        out[CARD_NAMES[i]] = (CARD_NAMES[have[j]], round(float(d[row, j]), 4))
    return out


def confusable(seps: dict[str, tuple[str, float]]) -> tuple[str, ...]:
    near = {tuple(sorted((a, b), key=CARD_NAMES.index)) for a, (b, d) in seps.items() if d < CONFUSABLE}
    pairs = sorted(near, key=lambda p: CARD_NAMES.index(p[0]))
    return tuple(f"{glyph(a)} and {glyph(b)} look alike in this deck (distance {seps[a][1]:.3f}): "
                 "check them in the review" for a, b in pairs)


# ----------------------------------------------------------------------------- embedding

def fingerprint(det: Detector) -> str:
    """The embedding network a deck's prototypes were derived with."""
    spec = det.manifest.embed_spec() or {}
    return str(spec.get("sha256", ""))[:16]


def finder_fingerprint(det: Detector) -> str:
    """The finder network a deck's peaks came from."""
    spec = det.manifest.data.get("finder")
    return str(spec.get("sha256", ""))[:16] if isinstance(spec, dict) else ""


def _own_peaks(det: Detector, peaks: Peaks | None) -> Peaks | None:
    """``peaks`` where this detector's finder gave them; another finder's say nothing of it."""
    return peaks if peaks is not None and peaks.finder == finder_fingerprint(det) else None


def embed_dim(det: Detector) -> int:
    """The length of the reader's embedding, from one blank crop embedded (a few milliseconds)."""
    size = det.config.reader.size
    return int(_embed_crops(det, np.zeros((1, size, size, 3), np.uint8)).shape[1])


def _margins(det: Detector) -> tuple[float, ...]:
    r = det.config.reader
    return r.margins or (r.margin,)


def _embed_crops(det: Detector, crops: np.ndarray) -> np.ndarray:
    """Unit embeddings [N, D] of reader crops (uint8 N x size x size x 3)."""
    if not det.embeds:
        raise DeckError("decks need a detector made with embed=True (the reader's embedding twin)")
    cfg = det.config
    out = []
    for i in range(0, len(crops), 256):
        x = normalise(crops[i:i + 256], cfg.mean, cfg.std)
        outs = det.sessions[1].run({cfg.reader.input: x})
        out.append(np.asarray(outs[2], np.float32))
    e = np.concatenate(out) if out else np.zeros((0, 1), np.float32)
    return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-6)


def views(crop: np.ndarray, n: int, size: int, margins: Sequence[float], seed: int) -> np.ndarray:
    """Reader crops [n * len(margins), size, size, 3] of a stored crop: itself, then ``n - 1``
    views shifted, scaled, turned, lit and blurred a little (what the next photo of the same
    card does), at each margin, margin by margin."""
    rng = np.random.default_rng(seed)
    g, c = CROP / CROP_MARGIN, CROP / 2  # the glyph's side and centre in stored-crop pixels
    dx, dy = rng.uniform(-0.08, 0.08, (2, n)) * g
    scale = rng.uniform(0.9, 1.12, n)
    angle = np.radians(rng.uniform(-7.0, 7.0, n))
    light = rng.uniform(0.8, 1.15, n)
    blur = rng.random(n) < 0.4
    dx[0] = dy[0] = angle[0] = 0.0
    scale[0] = light[0] = 1.0
    blur[0] = False
    half = g * scale / 2
    boxes = np.stack([c + dx - half, c + dy - half, c + dx + half, c + dy + half], axis=1)
    k = len(margins)
    out = cut_crops(crop, np.tile(boxes, (k, 1)), size, np.repeat(np.asarray(margins, np.float32), n),
                    np.tile(angle, k).astype(np.float32)).astype(np.float32)
    soft = np.tile(blur, k)
    if soft.any():  # a light blur: each pixel with its four neighbours
        x = out[soft]
        p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="edge")
        out[soft] = (2 * x + p[:, :-2, 1:-1] + p[:, 2:, 1:-1] + p[:, 1:-1, :-2] + p[:, 1:-1, 2:]) / 6
    out *= np.tile(light, k)[:, None, None, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _prototype(det: Detector, crops: Sequence[np.ndarray]) -> np.ndarray | None:
    """The unit mean embedding of stored crops under the views ``derive`` takes (None: no crop)."""
    if not crops:
        return None
    margins = _margins(det)
    views_ = np.concatenate([views(c, AUGMENTS, det.config.reader.size, margins, seed=k)
                             for k, c in enumerate(crops)])
    s = _embed_crops(det, views_).sum(axis=0)
    return s / max(float(np.linalg.norm(s)), 1e-6)


def with_back(det: Detector, deck: Deck) -> Deck:
    """The deck with its back's prototype (``Deck.back``) derived from its back crops: the file
    keeps the crops, and one crop's views cost a few milliseconds to embed at load."""
    return replace(deck, back=_prototype(det, [e.crop for e in deck.examples if e.card == "back"]))


def derive(det: Detector, name: str, examples: Sequence[Example], created: str = "",
           peaks: Peaks | None = None) -> Deck:
    """The deck's prototypes from its examples, with this detector's embedding network; its
    ``peaks`` kept only where this detector's finder gave them."""
    margins = _margins(det)
    protos = np.zeros((len(CARD_NAMES), 0), np.float32)
    sums: dict[int, np.ndarray] = {}
    faces = [(CARD_NAMES.index(e.card), e) for e in examples if e.card in CARD_NAMES]
    if faces:
        crops = np.concatenate([views(e.crop, AUGMENTS, det.config.reader.size, margins, seed=k)
                                for k, (_, e) in enumerate(faces)])
        emb = _embed_crops(det, crops).reshape(len(faces), AUGMENTS * len(margins), -1)
        for (i, _), e in zip(faces, emb, strict=True):
            sums[i] = sums.get(i, 0) + e.sum(axis=0)
        protos = np.zeros((len(CARD_NAMES), emb.shape[-1]), np.float32)
        for i, s in sums.items():
            protos[i] = s / max(float(np.linalg.norm(s)), 1e-6)
    return with_back(det, Deck(name, fingerprint(det), tuple(examples), protos, created or _now(),
                               peaks=_own_peaks(det, peaks)))


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass(frozen=True, slots=True)
class Admit:
    """How near a find's embedding must lie to the deck's prototypes (cosine) for the deck to
    decide whether it is a card (``Lens.admit``); None: that half of the rule is off.
    ``face``/``back``: a face or back find at least this near the prototype it is read as is
    a card (when its finder peak reaches ``peak`` and the selector gives it at least ``least``);
    ``far``: a find under this to every prototype is no card. ``faint``: a face read as a card
    whose face on the teaching photo had a finder peak under ``faint_below`` is a card when its
    own peak reaches ``faint`` times that one (and the selector gives it ``least``): the deck
    prints that card faintly, so its finds come weak. Chosen on decks of the validation split
    (``zipai tune deck-finds``)."""

    face: float | None = None
    back: float | None = None
    far: float | None = None
    peak: float = 0.0
    least: float = 0.0
    faint: float | None = None
    faint_below: float = 1.0

    @property
    def active(self) -> bool:
        return self.near or self.faint is not None

    @property
    def near(self) -> bool:
        """Whether a half of the rule that weighs the embeddings is on."""
        return self.face is not None or self.back is not None or self.far is not None


# the shipped rule, as ``zipai tune deck-finds`` chose it on 16 validation decks (80 scenes): a weak
# find of a card the deck's teaching photo showed under 0.8 is a card from 0.6 of that photo's
# peak (97.32% -> 97.56% per card there, no more extra finds, as many scenes exact). No setting of
# the embedding halves read more scenes exactly without more extra finds: what the finder misses is
# seldom near the deck's prototypes, and its extras (a card's far end, a double) lie as near the
# card's prototype as the card (docs/decks.md, "What a deck cannot find")
ADMIT = Admit(faint=0.6, faint_below=0.8)


def reread(deck: Deck, det: Detector, admit: Admit | None = None) -> Lens:
    """The deck as ``Detector.detect(lens=...)`` takes it, for ``det``'s classes."""
    return Lens(deck, det.config.classes, admit)


class Lens:
    """The deck's second opinion on a look's finds. The faces are ranked by the reader's
    probability times the softmax of the find's likeness to the deck's prototypes (to the power
    WEIGHT), and the reader's own probabilities, largest first, are given to them in that order.
    The thresholds and the selector weigh the finds as the reader reads them, and the deck then
    names the cards of those kept (``steps.relabel``), so the reread keeps the finds kept
    untaught and changes only which card each is (the selector's evidence pairs finds of one
    card, a far end or a second peak, so shown the deck's cards it kept others); which finds are
    cards is the deck's to say only through its rule (``admit``). Letting the deck raise the
    reader's confidence instead kept more finds, and more that were no card (``zipai eval
    decks``). Stateless once made: one lens serves many threads."""

    def __init__(self, deck: Deck, classes: tuple[str, ...], admit: Admit | None = None) -> None:
        self.deck = deck
        self.classes = classes
        self.rule = ADMIT if admit is None else admit
        self.cols = np.asarray(ClassIndex.of(tuple(classes)).faces, np.int64)  # the faces among the classes
        self.rows = np.asarray([CARD_NAMES.index(classes[i]) for i in self.cols], np.int64)
        self.taught = np.linalg.norm(deck.prototypes, axis=1) > 0

    def __call__(self, probs: np.ndarray, emb: np.ndarray) -> np.ndarray:
        """The reader's probabilities [N, classes] with the faces reranked by the embeddings [N, D]."""
        protos, rows, cols = self.deck.prototypes, self.rows, self.cols
        if not len(probs) or not self.taught.any() or emb.shape[1] != protos.shape[1]:
            return probs
        e = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-6)
        sim = SHARPNESS * (e @ protos[rows].T)  # [N, faces]
        missing = ~self.taught[rows]
        if missing.any():  # a card with no example yet: neither likely nor unlikely
            sim[:, missing] = np.median(sim[:, ~missing], axis=1, keepdims=True)
        sim -= sim.max(axis=1, keepdims=True)
        like = np.exp(sim)
        like /= like.sum(axis=1, keepdims=True)
        face = probs[:, cols]
        order = np.argsort(-(face * like ** WEIGHT), axis=1, kind="stable")
        ranked = np.empty_like(face)
        np.put_along_axis(ranked, order, -np.sort(-face, axis=1), axis=1)
        out = probs.copy()
        out[:, cols] = ranked
        return out

    def admit(self, finds: Finds, cards: Sequence[str], prob: np.ndarray) -> np.ndarray | None:
        """Per find, the deck's verdict on whether it is a card at all (``steps.select``): 1 a
        card whatever the selector says, -1 no card whatever it says, 0 the selector decides.
        A find whose embedding lies close to the prototype of the card it is read as (a face's,
        or the back's) is a card of this deck; a find far from every prototype of the deck is
        none of its cards; a weak find of a card this deck prints faintly is one (``Admit.faint``).
        ``prob``: the selector's probability that each find is a card; the deck takes a find in
        only where it reaches ``Admit.least``. None: the deck says nothing (no rule, or none of
        what the rule weighs: embeddings, the teaching photo's peaks)."""
        rule, protos, peaks = self.rule, self.deck.prototypes, self.deck.peaks
        taught = self.taught
        faint = rule.faint is not None and peaks is not None
        near = rule.near and finds.embeds is not None and taught.any() \
            and finds.embeds.shape[1] == protos.shape[1]
        if not len(finds) or not (faint or near):
            return None
        verdict = np.zeros(len(finds), np.int8)
        if faint:
            assert rule.faint is not None and peaks is not None
            taught_peak = np.asarray([peaks.of(c) for c in cards])
            verdict[(taught_peak > 0) & (taught_peak < rule.faint_below)
                    & (finds.scores >= rule.faint * taught_peak) & (prob >= rule.least)] = 1
        if not near:
            return verdict
        assert finds.embeds is not None
        e = finds.embeds / np.maximum(np.linalg.norm(finds.embeds, axis=1, keepdims=True), 1e-6)
        sims = e @ protos[taught].T
        face = sims.max(axis=1)
        back = e @ self.deck.back if self.deck.back is not None else np.full(len(e), np.nan)
        is_back = np.asarray([c == "back" for c in cards], bool)
        weak = (finds.scores >= rule.peak) & (prob >= rule.least)
        if rule.face is not None:
            verdict[~is_back & (face >= rule.face) & weak] = 1
        if rule.back is not None:
            verdict[is_back & (back >= rule.back) & weak] = 1
        if rule.far is not None:
            verdict[np.fmax(face, back) < rule.far] = -1
        return verdict

    def reread(self, finds: Finds, config: Config) -> Finds:
        """The finds with their faces reread (``steps.Lens``); finds without embeddings as they are."""
        if finds.embeds is None or tuple(config.classes) != tuple(self.classes):
            return finds
        return Finds(finds.boxes, finds.scores, finds.kinds, self(finds.probs, finds.embeds), finds.downs,
                     finds.reds, finds.embeds)


# ----------------------------------------------------------------------------- learning

@dataclass(frozen=True)
class Face:
    """One face of the teaching layout: the card its place names, its box (photo pixels), what
    the untaught reader read and how sure it was, and how strongly the finder found it."""

    card: str
    box: tuple[float, float, float, float]
    read_as: str
    confidence: float
    peak: float = 0.0  # the finder's peak on it
    found: bool = True  # whether the finder found it; else it was read at its place

    @property
    def disagrees(self) -> bool:
        """Whether the untaught read named another card (or none) than the place: worth a look."""
        return self.read_as != self.card

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card, "box": [round(v, 1) for v in self.box], "read_as": self.read_as,
                "confidence": round(self.confidence, 4), "peak": round(self.peak, 4), "found": self.found}


@dataclass(frozen=True)
class Taught:
    """What ``learn`` made of a teaching photo (the app shows it for one look and a tap to fix)."""

    deck: Deck
    faces: tuple[Face, ...]
    back: tuple[float, float, float, float] | None
    separations: dict[str, tuple[str, float]]
    warnings: tuple[str, ...]
    upside_down: bool
    seconds: float
    detector: Detector | None = field(default=None, repr=False, compare=False)

    @property
    def disagreed(self) -> list[int]:
        """The faces whose untaught read disagreed with the card their place names."""
        return [i for i, f in enumerate(self.faces) if f.disagrees]

    def disagreements(self) -> tuple[str, ...]:
        """One line per place that disagreed with the order, for a glance: learnt by its place."""
        return tuple(f"{place(i)}: {glyph(f.card)}, {'read as' if f.found else 'not found, read there as'} "
                     f"{glyph(f.read_as)}" for i, f in enumerate(self.faces) if f.disagrees)

    def relabel(self, index: int, card: str) -> Taught:
        """The deck with face ``index`` taken to show ``card`` (a tap to fix), derived again."""
        if not 0 <= index < len(self.faces):
            raise DeckError(f"no face {index} in deck {self.deck.name!r} (0 to {len(self.faces) - 1})")
        card = _card_name(card)
        faces = list(self.faces)
        faces[index] = replace(faces[index], card=card)
        examples = list(self.deck.examples)
        examples[index] = replace(examples[index], card=card)
        det = self.detector or deck_detector()
        deck = derive(det, self.deck.name, examples, self.deck.created, _peaks(det, faces))
        seps = deck.separations()
        dup = _duplicates(faces)
        return replace(self, deck=deck, faces=tuple(faces), separations=seps,
                       warnings=dup + confusable(seps))

    def to_json(self) -> dict[str, Any]:
        return {"deck": self.deck.name, "faces": [f.to_json() for f in self.faces],
                "back": None if self.back is None else [round(v, 1) for v in self.back],
                "separations": {c: {"nearest": n, "distance": d} for c, (n, d) in self.separations.items()},
                "warnings": list(self.warnings), "upside_down": self.upside_down,
                "disagreed": self.disagreed,
                "seconds": round(self.seconds, 3), "counts": self.deck.counts()}


def _peaks(det: Detector, faces: Sequence[Face]) -> Peaks:
    """Each card's peak: its face's (the stronger, should two faces be taken as one card)."""
    values = [0.0] * len(CARD_NAMES)
    for f in faces:
        i = CARD_NAMES.index(f.card)
        values[i] = max(values[i], f.peak)
    return Peaks(finder_fingerprint(det), tuple(values))


def _duplicates(faces: Sequence[Face]) -> tuple[str, ...]:
    seen = [f.card for f in faces]
    missing = [c for c in CARD_NAMES if c not in seen]
    return (f"no face is taken as {', '.join(glyph(c) for c in missing)}",) if missing else ()


def _card_name(card: str) -> str:
    try:
        return str(Card.parse(card))
    except ValueError:
        raise DeckError(f"{card!r} is not a card (x1…x10, d1…d10 or its numeral)") from None


_DECK_DETECTOR: Detector | None = None
_LOADING = threading.Lock()


def deck_detector(threads: int = 2) -> Detector:
    """The shipped model with the reader's embedding twin, loaded once per process."""
    global _DECK_DETECTOR
    with _LOADING:
        if _DECK_DETECTOR is None:
            _DECK_DETECTOR = Detector(threads=threads, embed=True)
    return _DECK_DETECTOR


@dataclass(frozen=True, slots=True)
class _Frame:
    """The teaching layout's own axes: ``down`` the cards' top-to-bottom direction in the photo,
    rows across it. A phone held at a slant turns the whole layout; rows and far ends are found
    along these axes, so a tilted photo reads as a straight one."""

    down: tuple[float, float] = (0.0, 1.0)

    def at(self, d: Detection) -> tuple[float, float]:
        """(along the rows, down the cards) of a find's centre."""
        (x, y), (dx, dy) = d.center, self.down
        return x * dy - y * dx, x * dx + y * dy

    @property
    def angle(self) -> float:
        """The turn (radians, ``cut_crops``' sense) that sets the layout's glyphs upright."""
        return float(np.arctan2(-self.down[0], self.down[1]))


UPRIGHT = _Frame()


def _frame(faces: list[Detection]) -> _Frame:
    """The layout's axes from the down directions the reader gives the faces that show one (not
    一二三十, which read the same turned round); the photo's own axes when too few do, or when
    the layout lies more than 60 degrees round: the reader's downs are unsure that far, and a
    photo on its side is read turned a right angle instead (``learn``)."""
    downs = np.asarray([d.down for d in faces if d.card not in SYMMETRIC], np.float64).reshape(-1, 2)
    if len(downs) < 4:
        return UPRIGHT
    m = np.median(downs, axis=0)
    n = float(np.linalg.norm(m))
    return UPRIGHT if n < 0.5 or m[1] / n < 0.5 else _Frame((float(m[0] / n), float(m[1] / n)))


def _along_rows(frame: _Frame, rows: list[list[Detection]]) -> _Frame:
    """The frame turned to lie along the rows themselves: the reader's down directions are a
    few degrees shy on a slanted photo, and a row of ten cards shows its slope better. The
    slope is the least-squares one of the rows of five or more, each about its own mean."""
    pts = [np.asarray([frame.at(d) for d in r], np.float64) for r in rows if len(r) >= 5]
    if not pts:
        return frame
    centred = np.concatenate([p - p.mean(axis=0) for p in pts])
    spread = float(centred[:, 0] @ centred[:, 0])
    if spread <= 0:
        return frame
    slope = float(centred[:, 0] @ centred[:, 1]) / spread
    (dx, dy) = frame.down
    rx, ry = dy + slope * dx, -dx + slope * dy  # the rows' direction in the photo
    n = float(np.hypot(rx, ry))
    return _Frame((-ry / n, rx / n))


def _rows(faces: list[Detection], frame: _Frame = UPRIGHT) -> list[list[Detection]]:
    """The faces in rows, top to bottom, each left to right: a new row where the next glyph
    down lies more than a glyph size below the last."""
    if not faces:
        return []
    size = float(np.median([_side(d) for d in faces]))
    rows: list[list[Detection]] = []
    for d in sorted(faces, key=lambda d: frame.at(d)[1]):
        if rows and frame.at(d)[1] - frame.at(rows[-1][-1])[1] <= size:
            rows[-1].append(d)
        else:
            rows.append([d])
    return [sorted(r, key=lambda d: frame.at(d)[0]) for r in rows]


def _below(d: Detection, u: Detection, frame: _Frame, size: float) -> bool:
    """Whether ``d`` lies straight below ``u``, further than a glyph and within a card's length."""
    (du, dv), (uu, uv) = frame.at(d), frame.at(u)
    return abs(du - uu) < 0.6 * size and 1.5 * size < dv - uv < 7 * size


def _one_glyph(faces: list[Detection], frame: _Frame = UPRIGHT) -> list[Detection]:
    """The faces with the pieces of one glyph made one: a glyph the finder split in two (the
    two strokes of 二, the 三 under 叁's 厶 and 大) gives a weaker find inside or just below the
    strong one. The teaching layout's cards never overlap, so two faces closer than a glyph
    (the photo's median glyph size: a piece's own box is small) are one card's; the stronger
    keeps its card and takes the union of the boxes."""
    if len(faces) < 2:
        return faces
    size = float(np.median([_side(d) for d in faces]))
    kept: list[Detection] = []
    for d in sorted(faces, key=lambda d: -d.score):
        (du, dv) = frame.at(d)
        for n, u in enumerate(kept):
            uu, uv = frame.at(u)
            if abs(du - uu) < 0.6 * size and abs(dv - uv) < 1.0 * size:
                box = (min(u.box[0], d.box[0]), min(u.box[1], d.box[1]),
                       max(u.box[2], d.box[2]), max(u.box[3], d.box[3]))
                kept[n] = replace(u, box=box)
                break
        else:
            kept.append(d)
    return kept


def _far_ends(faces: list[Detection], frame: _Frame = UPRIGHT) -> list[Detection]:
    """The faces less the far ends the finder kept: 一二三十 read the same turned round, so the
    reader gives them no down, and a card's other end is the same card straight below it,
    within a card's length."""
    def far(d: Detection) -> bool:
        return d.card in SYMMETRIC and any(
            u is not d and u.card == d.card and _below(d, u, frame, _side(u)) for u in faces)

    return [d for d in faces if not far(d)]


def _far_rows(rows: list[list[Detection]], frame: _Frame = UPRIGHT) -> list[list[Detection]]:
    """Rows less a short one (three finds or fewer) between or below full rows whose every find
    lies straight below a find of the row above, within a card's length: far ends the reader
    misread (一's far end read as 三). A find of that short row below a gap of the row above
    is the far end of the card whose near end the finder missed (a faint 一): as 一二三十 read
    the same either way round, it stands in for its card, in the row above."""
    kept: list[list[Detection]] = []
    for r in rows:
        above = kept[-1] if kept else []
        if len(r) <= 3 and len(above) >= 5:
            size = float(np.median([_side(u) for u in above]))
            level = float(np.median([frame.at(u)[1] for u in above]))

            def under(d: Detection, above: list[Detection] = above) -> bool:
                return any(_below(d, u, frame, _side(u)) for u in above)

            def stands_in(d: Detection, above: list[Detection] = above, size: float = size,
                          level: float = level) -> bool:
                (du, dv) = frame.at(d)
                return d.card in SYMMETRIC and len(above) < 10 and 1.5 * size < dv - level < 7 * size \
                    and all(abs(du - frame.at(u)[0]) >= 0.6 * size for u in above)

            if all(under(d) or stands_in(d) for d in r):
                kept[-1] = sorted([*above, *(d for d in r if not under(d))], key=lambda d: frame.at(d)[0])
                continue
        kept.append(r)
    return kept


def _side(d: Detection) -> float:
    return max(d.box[2] - d.box[0], d.box[3] - d.box[1], 1.0)


def _turned(d: Detection) -> bool:
    """A glyph that reads upside down in the photo (a card's far end, or a turned photo)."""
    return d.card not in SYMMETRIC and d.down[1] < -0.5


def _find_faces(det: Detector, decoded: Decoded) -> _Shown:
    dets = det.detect(decoded).detections
    faces = [d for d in dets if d.card != "back" and not _turned(d)]
    backs = sorted((d for d in dets if d.card == "back"), key=lambda d: -d.score)
    frame = _frame(faces)
    rows = _far_rows(_rows(_far_ends(_one_glyph(faces, frame), frame), frame), frame)
    if frame is not UPRIGHT or any(len(r) != 10 for r in rows):
        frame = _along_rows(frame, rows)
        rows = _far_rows(_rows(_far_ends(_one_glyph(faces, frame), frame), frame), frame)
    return rows, backs[0] if backs else None, sum(len(r) for r in rows), frame, _fit_places(rows, frame)


_TURNS = {1: Image.Transpose.ROTATE_90, 2: Image.Transpose.ROTATE_180, 3: Image.Transpose.ROTATE_270}


def _turn(decoded: Decoded, quarters: int = 2) -> Decoded:
    """The decoded photo turned anticlockwise by ``quarters`` right angles."""
    w, h = (decoded.height, decoded.width) if quarters % 2 else (decoded.width, decoded.height)
    return Decoded(decoded.image.transpose(_TURNS[quarters]), w, h)


def _laid_out(rows: list[list[Detection]]) -> bool:
    return [len(r) for r in rows] == [10, 10]


@dataclass(frozen=True, slots=True)
class _Places:
    """The 20 places of the teaching layout in one photo, photo rows top to bottom, each left
    to right: the face the finder found at each (None: it found nothing there), and each place's
    glyph box (photo pixels). A missed place's box lies between its row's found neighbours by
    its column, as wide and tall as its row's glyphs: the layout's order and spacing are known,
    so the faces found show where the others lie."""

    finds: tuple[Detection | None, ...]
    boxes: np.ndarray  # [20, 4] float32
    step: tuple[float, float] = (0.0, 0.0)  # from one place to the next along a row (photo pixels)

    @property
    def found(self) -> int:
        return sum(d is not None for d in self.finds)

    @property
    def missed(self) -> list[int]:
        return [i for i, d in enumerate(self.finds) if d is None]


# what one way of turning a teaching photo shows: rows of faces, the back, the faces' count, the
# layout's axes and its places
_Shown = tuple[list[list[Detection]], Detection | None, int, _Frame, _Places | None]


def _columns(row: list[Detection], frame: _Frame, pitch: float) -> list[int]:
    """Each face's column, the row's first at 0: a gap of about k pitches leaves k - 1 places empty."""
    us = [frame.at(d)[0] for d in row]
    cols = [0]
    for a, b in itertools.pairwise(us):
        cols.append(cols[-1] + max(1, round((b - a) / pitch)))
    return cols


def _agree(at: dict[int, Detection], names: Sequence[str]) -> int:
    return sum(d.card == names[c] for c, d in at.items())


def _fit_places(rows: list[list[Detection]], frame: _Frame) -> _Places | None:
    """The layout's 20 places from the faces found (``_Places``), or None where the rows do not
    show it: fewer than MIN_PLACED faces in the two longest rows, a row of under five, more than
    ten places in a row, or more than MAX_STRAY faces off them. Each row's columns come from its
    gaps (the spacing is the median gap); a row that spans fewer than ten columns is set where
    its columns line up with the other row's, then where its faces read as their places name
    them (upright or turned round)."""
    if len(rows) < 2:
        return None
    order = sorted(range(len(rows)), key=lambda i: -len(rows[i]))
    if sum(len(rows[i]) for i in order[2:]) > MAX_STRAY:
        return None
    pair = [rows[i] for i in sorted(order[:2])]
    if min(len(r) for r in pair) < 5 or sum(len(r) for r in pair) < MIN_PLACED:
        return None
    us = [[frame.at(d)[0] for d in r] for r in pair]
    pitch = float(np.median([b - a for u in us for a, b in itertools.pairwise(u)]))
    if pitch < 0.8 * float(np.median([_side(d) for r in pair for d in r])):
        return None  # glyphs closer than their size: not cards laid side by side
    cols = [_columns(r, frame, pitch) for r in pair]
    if max(c[-1] for c in cols) > 9:
        return None
    upright = (CARD_NAMES[:10], CARD_NAMES[10:])
    flipped = (CARD_NAMES[:9:-1], CARD_NAMES[9::-1])
    best: tuple[tuple[bool, int, float], tuple[dict[int, Detection], ...]] | None = None
    for o0 in range(10 - cols[0][-1]):
        for o1 in range(10 - cols[1][-1]):
            at = ({c + o0: d for c, d in zip(cols[0], pair[0], strict=True)},
                  {c + o1: d for c, d in zip(cols[1], pair[1], strict=True)})
            shared = sorted(at[0].keys() & at[1].keys())
            off = [abs(frame.at(at[0][c])[0] - frame.at(at[1][c])[0]) for c in shared]
            err = float(np.mean(off)) / pitch if off else 0.0
            agree = max(sum(_agree(a, n) for a, n in zip(at, names, strict=True))
                        for names in (upright, flipped))
            key = (err < 0.5, agree, -err)
            if best is None or key > best[0]:
                best = (key, at)
    assert best is not None
    ats = best[1]
    centres = [{c: np.asarray(d.center, np.float64) for c, d in at.items()} for at in ats]
    steps = [np.median([(ct[b] - ct[a]) / (b - a) for a, b in itertools.pairwise(sorted(ct))], axis=0)
             for ct in centres]
    step = np.median(np.stack(steps), axis=0)
    finds: list[Detection | None] = []
    boxes = np.zeros((20, 4), np.float32)
    for r, at in enumerate(ats):
        have, ct, other = sorted(at), centres[r], centres[1 - r]
        shared = [c for c in have if c in other]
        apart = np.median([ct[c] - other[c] for c in shared], axis=0) if shared else None
        w = float(np.median([at[c].box[2] - at[c].box[0] for c in have]))
        h = float(np.median([at[c].box[3] - at[c].box[1] for c in have]))
        for c in range(10):
            d = at.get(c)
            finds.append(d)
            if d is not None:
                boxes[r * 10 + c] = d.box
                continue
            left = [k for k in have if k < c]
            right = [k for k in have if k > c]
            if left and right:  # between its neighbours, by column
                a, b = left[-1], right[0]
                guess = ct[a] + (ct[b] - ct[a]) * (c - a) / (b - a)
            else:  # beyond the row's found end: the nearest carries on by the row's step
                near = left[-1] if left else right[0]
                guess = ct[near] + step * (c - near)
            if apart is not None and c in other:  # and as far from its column's other card as the rows lie
                guess = (guess + other[c] + apart) / 2
            x, y = guess
            boxes[r * 10 + c] = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
    return _Places(tuple(finds), boxes, (float(step[0]), float(step[1])))


def _likeness(quarters: int, rows: list[list[Detection]], places: _Places | None
              ) -> tuple[bool, int, int, float, int]:
    """How much one way of turning the photo shows the layout, to rank the ways: its places
    fitted; then how many faces read as their places name them, small cards on top (each card
    prints its numeral at both ends, so a layout a right angle round one way shows upright far
    ends in the reverse order); then the faces found at places; then the share of faces that
    read upright; then the faces in the two longest rows, where a turned photo must show nearly
    all the layout to be preferred to the photo as taken."""
    two = sum(sorted((len(r) for r in rows), reverse=True)[:2])
    if places is None:
        return False, 0, 0, 0.0, two if quarters == 0 or two >= 18 else -1
    found = [d for d in places.finds if d is not None]
    downs = [d.down[1] for d in found if d.card not in SYMMETRIC]
    upright = sum(v > 0.5 for v in downs) / len(downs) if downs else 0.0
    straight = sum(d is not None and d.card == c for d, c in zip(places.finds, CARD_NAMES, strict=True))
    return True, straight, places.found, upright, two


def _plainly_upright(shown: _Shown) -> bool:
    """Two rows of ten; or the layout's places fitted with most faces upright and reading as
    their places name them, small cards on top (turned round, every face but 一二三十 reads
    upside down and is set aside; on its side, no two rows show)."""
    rows, places = shown[0], shown[4]
    if _laid_out(rows):
        return True
    if places is None:
        return False
    found = [d for d in places.finds if d is not None]
    downs = [d.down[1] for d in found if d.card not in SYMMETRIC]
    straight = sum(d is not None and d.card == c for d, c in zip(places.finds, CARD_NAMES, strict=True))
    return bool(downs) and sum(v > 0.5 for v in downs) >= 0.8 * len(downs) and straight >= MIN_PLACED - 3


def locate(det: Detector, decoded: Decoded, tell: Callable[[float], None] | None = None
           ) -> tuple[int, Decoded, _Shown]:
    """The way the photo is turned that shows the layout best, the photo so turned, and what it
    shows: the rows of faces, the back, the faces' count, the layout's axes and its places. The
    photo as taken; unless it shows two rows of ten, also turned round (taken from the other
    side: every glyph reads upside down) and on either side (its orientation lost): the way most
    like the layout (``_likeness``) is read, and a refusal names its count. A photo as taken
    whose places fit and whose faces read upright is not turned: a turned photo shows no two
    rows of upright faces."""
    tell = tell or (lambda _share: None)
    tries = [(0, _find_faces(det, decoded))]
    tell(0.3)
    if not _plainly_upright(tries[0][1]):
        for k, q in enumerate((2, 1, 3)):
            tries.append((q, _find_faces(det, _turn(decoded, q))))
            tell(0.3 + 0.15 * (k + 1))
    quarters, found = max(tries, key=lambda t: _likeness(t[0], t[1][0], t[1][4]))
    return quarters, _turn(decoded, quarters) if quarters else decoded, found


def learn(photo: bytes, name: str, detector: Detector | None = None,
          progress: Callable[[float], None] | None = None) -> Taught:
    """Learn a deck from a photo of its 20 faces in two rows of ten (small cards on top, each
    row 一 to 十 left to right), by place: the layout's order is the truth learnt from, so a
    face the finder missed is read where its place lies, and a face the reader misreads is
    learnt as the card its place names (the places that disagreed are ``Taught.disagreed``).
    Raises ``TeachRefused`` with the line to show the player. ``progress`` is told the share
    done (0 to 1) as the work goes (an app draws it)."""
    t0 = time.perf_counter()
    tell = progress or (lambda _share: None)
    check_name(name)
    det = detector or deck_detector()
    decoded = decode(photo, "teaching photo")
    tell(0.05)
    quarters, decoded, (rows, back, n, frame, places) = locate(det, decoded, tell)
    turned = quarters == 2  # taken upside down
    _check_sharp(decoded, [d for r in rows for d in r], det)
    if places is None:
        shape = " and ".join(str(len(r)) for r in rows[:4]) + (" and more" if len(rows) > 4 else "")
        where = "" if n != 20 else f" (in rows of {shape})"
        raise TeachRefused(f"found {n} faces{where}, need 20 in two rows of ten",
                           "teach_found_rows" if where else "teach_found", n=n,
                           rows=",".join(str(len(r)) for r in rows[:4]) + (",…" if len(rows) > 4 else ""))
    arr = np.asarray(decoded.image, np.uint8)
    k = decoded.scale
    boxes = places.boxes / k
    found, boxes = read_places(det, arr, boxes, places, k)
    _check_vacant(arr, boxes, places, found)
    upright = list(CARD_NAMES)
    flipped = [*reversed(CARD_NAMES[10:]), *reversed(CARD_NAMES[:10])]
    miss = [sum(d.card != c for d, c in zip(found, want, strict=True)) for want in (upright, flipped)]
    half = miss[1] < miss[0]
    labels = flipped if half else upright
    if half:  # each card reads the same turned round: only the order shows the photo was turned
        turned = not turned
    emb = _embed_crops(det, cut_crops(arr, boxes, det.config.reader.size, det.config.reader.margin))
    _check_order(found, labels, emb)
    tell(0.85)
    # glyphs kept upright, as a straight photo shows them (a photo turned by less is cut as it is)
    angle = frame.angle if abs(frame.angle) > TILT else 0.0
    crops = cut_crops(arr, boxes, CROP, CROP_MARGIN,
                      np.full(len(boxes), angle, np.float32) if angle else None)
    order = np.argsort([CARD_NAMES.index(c) for c in labels])  # the faces in CARD_NAMES order
    faces = [Face(labels[i], _photo_box(found[i].box, decoded, quarters),
                  found[i].card, float(found[i].class_prob), float(found[i].finder_score),
                  places.finds[i] is not None) for i in order]
    examples = [Example(labels[i], "teach", crops[i]) for i in order]
    back_box = None
    if back is not None:
        size = float(np.median(boxes[:, 2:] - boxes[:, :2]))
        cx, cy = back.center
        cx, cy, half_side = cx / k, cy / k, size / 2
        bb = np.asarray([[cx - half_side, cy - half_side, cx + half_side, cy + half_side]], np.float32)
        examples.append(Example("back", "teach", cut_crops(arr, bb, CROP, CROP_MARGIN,
                                                            np.float32([angle]) if angle else None)[0]))
        back_box = _photo_box(back.box, decoded, quarters)
    deck = derive(det, name, examples, peaks=_peaks(det, faces))
    tell(1.0)
    seps = deck.separations()
    return Taught(deck, tuple(faces), back_box, seps, confusable(seps), turned,
                  time.perf_counter() - t0, det)


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


def read_places(det: Detector, arr: np.ndarray, boxes: np.ndarray, places: _Places, scale: float
                 ) -> tuple[list[Detection], np.ndarray]:
    """What each place shows, and its box (decoded pixels): its face as found, or where the
    finder found nothing, the reader's read of the crop at the place, looked for a little along
    the row and across it (SEARCH) where the crop shows a face most surely (a read with no
    finder peak and no measured ink colour; boxes in ``places.boxes`` are photo pixels,
    ``scale`` of them to a decoded one)."""
    out = list(places.finds)
    boxes = boxes.copy()
    missed = places.missed
    if not missed:
        return [d for d in out if d is not None], boxes
    step = np.asarray(places.step, np.float64) / scale
    along = step / max(float(np.linalg.norm(step)), 1e-6)
    across = np.asarray([-along[1], along[0]])
    tries = []
    for i in missed:
        h = float(boxes[i, 3] - boxes[i, 1])
        for a, b in SEARCH:
            dx, dy = step * a + across * h * b
            tries.append(boxes[i] + np.asarray([dx, dy, dx, dy], np.float32))
    reading, _ = det.reader(arr, np.asarray(tries, np.float32))
    classes = det.config.classes
    idx = ClassIndex.of(tuple(classes))
    probs = reading.probs.reshape(len(missed), len(SEARCH), -1)
    off = np.asarray([abs(a) / 0.1 + abs(b) / 0.25 for a, b in SEARCH])  # the place's own box wins ties
    face = probs[:, :, idx.faces].sum(axis=2) - 0.02 * off
    for n, i in enumerate(missed):
        k = int(np.argmax(face[n]))
        p = probs[n, k]
        top = int(np.argmax(p))
        boxes[i] = tries[n * len(SEARCH) + k]
        x0, y0, x1, y1 = (float(v) * scale for v in boxes[i])
        out[i] = Detection(classes[top], (x0, y0, x1, y1), 0.0, None, finder_score=0.0,
                           class_prob=float(p[top]), color_margin=0.0)
    return [d for d in out if d is not None], boxes


def _photo_box(box: tuple[float, float, float, float], decoded: Decoded,
               quarters: int) -> tuple[float, float, float, float]:
    """A box in the photo as the player took it: a box of ``decoded``, the photo turned
    anticlockwise by ``quarters`` right angles, turned back."""
    x0, y0, x1, y1 = box
    w, h = decoded.width, decoded.height  # the turned photo's
    if quarters == 1:  # the photo's (x, y) lies at (y, its width - x)
        return (h - y1, x0, h - y0, x1)
    if quarters == 2:
        return (w - x1, h - y1, w - x0, h - y0)
    if quarters == 3:  # the photo's (x, y) lies at (its height - y, x)
        return (y0, w - x1, y1, w - x0)
    return box


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


# ----------------------------------------------------------------------------- the store

_BAD_NAME = re.compile(r"[/\\\x00-\x1f\x7f:*?\"<>|]")
NAME_BYTES = 255 - len(".lock") - 1
"""A name's bytes in UTF-8 at most: its lock file ``.NAME.lock`` must fit the 255 bytes a file
name takes on every common filesystem (64 astral-plane characters are 256 bytes)."""


def check_name(name: object) -> str:
    """A deck name that is safe as a file name and as a line of text: refused with a DeckError
    naming it otherwise. Characters that hide or reorder text (U+202E, U+200B) are refused as
    the ledger refuses them in player names (``zipai.engine.text.bad_char``)."""
    if not isinstance(name, str) or not name.strip():
        raise DeckError(f"deck name {printable(str(name)[:20])!r} is empty: give a name", "bad_name")
    if len(name) > MAX_NAME:
        raise DeckError(f"deck name {printable(name[:20])!r}… is too long ({len(name)} characters, at most "
                        f"{MAX_NAME})", "bad_name")
    if _BAD_NAME.search(name) or name.startswith(".") or name != name.strip():
        raise DeckError(f"deck name {printable(name)!r} may not hold path separators, control characters, "
                        "a leading dot or surrounding spaces", "bad_name")
    c = bad_char(name)
    if c is not None:
        raise DeckError(f"deck name {printable(name)!r} holds an invisible or text-reordering character "
                        f"(U+{ord(c):04X})", "bad_name")
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate (bad_char finds these first)
        raise DeckError(f"deck name {printable(name)!r} is not valid text", "bad_name") from None
    if size > NAME_BYTES:
        raise DeckError(f"deck name {printable(name[:20])!r}… is {size} bytes in UTF-8, more than the "
                        f"{NAME_BYTES} a file name takes; give a shorter name", "bad_name")
    return name


def default_root() -> Path:
    """$ZIPAI_DECKS, else $XDG_DATA_HOME/zipai/decks, else ~/.local/share/zipai/decks. A value
    that names no folder (an empty ZIPAI_DECKS, ``~nosuchuser``, a relative XDG_DATA_HOME) is
    refused with one line rather than read as another folder."""
    env = os.environ
    if "ZIPAI_DECKS" in env:
        return _folder(env["ZIPAI_DECKS"], "ZIPAI_DECKS")
    xdg = env.get("XDG_DATA_HOME")
    if xdg:
        base = _folder(xdg, "XDG_DATA_HOME")
        if not base.is_absolute():
            raise DeckError(f"XDG_DATA_HOME {printable(xdg)!r} is not an absolute path; set it to one or "
                            "unset it", "bad_root")
        return base / "zipai" / "decks"
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):
        raise DeckError("no home folder to keep decks in; set ZIPAI_DECKS to a folder", "bad_root") from None
    return home / ".local" / "share" / "zipai" / "decks"


def _folder(value: str, var: str) -> Path:
    if not value.strip():
        raise DeckError(f"{var} is set but empty; set it to the decks' folder or unset it", "bad_root")
    if "\x00" in value:
        raise DeckError(f"{var} holds a NUL byte; set it to a folder", "bad_root")
    path = os.path.expanduser(value)
    if path.startswith("~"):
        raise DeckError(f"{var} {printable(value)!r}: no such user's home folder", "bad_root")
    return Path(path)


SUFFIX = ".deck"


def _on_disk(file_name: str) -> str:
    """A deck's file name as the OS takes it: always its UTF-8 bytes, whatever the locale's
    encoding (under ``LC_ALL=C`` a name of 家里 would not encode otherwise)."""
    return os.fsdecode(file_name.encode("utf-8"))


class DeckStore:
    """One file per deck in ``root``: written whole to a temporary file and renamed, under a
    lock file, so a reader never sees half a deck and two writers of one name take turns."""

    def __init__(self, root: Path | None = None, detector: Detector | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()
        self._det = detector

    @property
    def detector(self) -> Detector:
        return self._det or deck_detector()

    def path(self, name: str) -> Path:
        check_name(name)
        try:
            limit = os.pathconf(self.root, "PC_NAME_MAX") if self.root.is_dir() else 255
        except (OSError, ValueError):
            limit = 255
        if len(f".{name}.lock".encode()) > limit:
            raise DeckError(f"deck name {printable(name[:20])!r}… is too long for a file name in "
                            f"{shown(str(self.root))} (at most {limit} bytes)", "bad_name")
        return self.root / _on_disk(name + SUFFIX)

    def names(self) -> list[str]:
        try:
            if not self.root.is_dir():
                return []
            found = list(self.root.iterdir())
        except OSError as exc:
            why = exc.strerror or exc
            raise DeckError(f"{shown(str(self.root))}: cannot list decks ({why})", "io") from None
        out = []
        for p in found:
            with contextlib.suppress(DeckError, OSError, UnicodeError):
                if p.suffix == SUFFIX and stat.S_ISREG(p.lstat().st_mode):
                    out.append(check_name(os.fsencode(p.stem).decode("utf-8")))
        return sorted(out)

    def _stat(self, name: str) -> tuple[Path, os.stat_result | None]:
        """The deck's file and its lstat (None: no such file); never opened here."""
        path = self.path(name)
        try:
            return path, path.lstat()
        except FileNotFoundError:
            return path, None
        except OSError as exc:
            why = exc.strerror or exc
            raise DeckError(f"{shown(str(path))}: cannot read the deck ({why})", "io") from None

    def read(self, name: str) -> Deck:
        """The deck as its file holds it, checked; nothing derived, nothing written."""
        path, st = self._stat(name)
        if st is None:
            known = ", ".join(self.names()) or "none taught yet"
            raise DeckError(f"unknown deck {name!r} (decks: {printable(known)}; teach one with zipai deck "
                            "learn)", "no_deck")
        if not stat.S_ISREG(st.st_mode):
            raise DeckError(f"{shown(str(path))}: not a deck file (a directory, FIFO, device or link); "
                            "remove it or teach the deck again", "bad_deck")
        deck = read_deck(path)
        if deck.name != name:
            raise DeckError(f"{shown(str(path))}: the file holds deck {deck.name!r}, not {name!r}",
                            "bad_deck")
        return deck

    def load(self, name: str) -> Deck:
        """The deck ready to read with: derived again in memory when another model made it (a
        read never writes; the next ``add_examples`` or ``learn`` stores the new prototypes). A
        deck of this model whose prototypes are not this reader's size is refused: read with
        them it would silently read as no deck at all."""
        deck = self.read(name)
        det = self.detector
        if deck.model != fingerprint(det):
            return derive(det, deck.name, deck.examples, deck.created, deck.peaks)
        dim = embed_dim(det)
        if deck.prototypes.shape[1] != dim:
            raise DeckError(f"deck {name!r}: its prototypes have {deck.prototypes.shape[1]} numbers, this "
                            f"model's reader gives {dim}; teach the deck again (zipai deck learn)",
                            "bad_deck")
        return with_back(det, replace(deck, peaks=_own_peaks(det, deck.peaks)))

    def save(self, deck: Deck) -> Path:
        path = self.path(deck.name)
        with self._locked(deck.name):
            self._write(path, deck)
        return path

    def remove(self, name: str) -> None:
        path, st = self._stat(name)
        if st is None:
            raise DeckError(f"unknown deck {name!r}", "no_deck")
        if not stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            raise DeckError(f"{shown(str(path))}: not a deck file (a directory, FIFO, device or link); "
                            "nothing removed", "bad_deck")
        with self._locked(name):
            try:
                path.unlink()
            except FileNotFoundError:
                raise DeckError(f"unknown deck {name!r}", "no_deck") from None
            except OSError as exc:
                raise DeckError(f"{shown(str(path))}: cannot remove ({exc.strerror or exc})", "io") from None

    def add_examples(self, name: str, photo: bytes, fixes: Sequence[tuple[Sequence[float], str]],
                     source: str) -> Deck:
        """The deck with each fix's crop added (a box in photo pixels and the card it shows),
        derived again and saved: a read, change and write under the lock, so nothing is lost."""
        if source not in SOURCES:
            raise DeckError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
        decoded = decode(photo, "photo")
        arr = np.asarray(decoded.image, np.uint8)
        new = []
        for box, card in fixes:
            card = "back" if card == "back" else _card_name(card)
            b = _checked_box(box, decoded)
            new.append(Example(card, source, cut_crops(arr, b[None] / decoded.scale, CROP, CROP_MARGIN)[0]))
        with self._locked(name):
            deck = self.read(name)
            if len(deck.examples) + len(new) > MAX_EXAMPLES:
                raise DeckError(f"deck {name!r} would hold {len(deck.examples) + len(new)} examples, "
                                f"at most {MAX_EXAMPLES}")
            per_card = Counter(e.card for e in (*deck.examples, *new))
            card, count = per_card.most_common(1)[0]
            if count > MAX_PER_CARD:
                raise DeckError(f"deck {name!r} would hold {count} examples of {card}, at most "
                                f"{MAX_PER_CARD} of one card")
            deck = derive(self.detector, name, [*deck.examples, *new], deck.created, deck.peaks)
            self._write(self.path(name), deck)
        return deck

    @contextlib.contextmanager
    def _locked(self, name: str) -> Iterator[None]:
        """An exclusive lock on the deck's lock file; another writer waits up to LOCK_WAIT s."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.root / _on_disk(f".{check_name(name)}.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise DeckError(f"{self.root}: cannot write decks here ({exc.strerror or exc})", "io") from None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: one writer at a time is the user's care
            fcntl = None  # type: ignore[assignment]
        try:
            if fcntl is not None:
                end = time.monotonic() + LOCK_WAIT
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() > end:
                            raise DeckError(f"deck {name!r} is being written by another process; "
                                            "try again", "busy") from None
                        time.sleep(0.05)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _write(self, path: Path, deck: Deck) -> None:
        blob = dumps(deck)
        try:
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=SUFFIX)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(blob)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
                with contextlib.suppress(OSError):  # the rename reaches the disk with its folder
                    dfd = os.open(self.root, os.O_RDONLY)
                    try:
                        os.fsync(dfd)
                    finally:
                        os.close(dfd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as exc:
            raise DeckError(f"{path}: cannot write the deck ({exc.strerror or exc})", "io") from None


def box_numbers(box: object) -> bool:
    """Whether ``box`` is four plain numbers of a photo's size (data may hold a 400-digit one,
    which ``float`` cannot take, a string or true)."""
    return isinstance(box, list | tuple) and len(box) == 4 and all(
        isinstance(v, int | float | np.floating | np.integer) and not isinstance(v, bool)
        and (abs(v) < 10**9 if isinstance(v, int) else bool(np.isfinite(v))) for v in box)


def _checked_box(box: Sequence[float], decoded: Decoded) -> np.ndarray:
    """Four numbers from a scan JSON, lying in the photo."""
    if not box_numbers(box):
        raise DeckError(f"a box is four numbers x0, y0, x1, y1, not {printable(short(box, 60))}") from None
    b = np.asarray([float(v) for v in box], np.float32)
    if b.shape != (4,) or not np.isfinite(b).all() or b[2] <= b[0] or b[3] <= b[1] \
            or b[0] < -1 or b[1] < -1 or b[2] > decoded.width + 1 or b[3] > decoded.height + 1:
        raise DeckError(f"box {[round(float(v), 1) for v in b]} does not lie in the "
                        f"{decoded.width}x{decoded.height} photo")
    return b


# ----------------------------------------------------------------------------- the file format

def dumps(deck: Deck) -> bytes:
    """The deck file's bytes (docs/decks.md): a first line with the format, the header's length
    and the SHA-256 of every byte after that line; a JSON header, the crops, the prototypes."""
    crops = np.stack([e.crop for e in deck.examples]).astype(np.uint8) if deck.examples \
        else np.zeros((0, CROP, CROP, 3), np.uint8)
    protos = np.ascontiguousarray(deck.prototypes, "<f4")
    body = crops.tobytes() + protos.tobytes()
    header = json.dumps({
        "format": FORMAT, "name": deck.name, "model": deck.model, "created": deck.created,
        "crop": {"size": CROP, "margin": CROP_MARGIN},
        "examples": [[e.card, e.source] for e in deck.examples],
        "prototypes": {"classes": list(CARD_NAMES), "dim": int(protos.shape[1]) if protos.ndim == 2 else 0},
        **({} if deck.peaks is None else {"peaks": deck.peaks.to_json()}),
    }, ensure_ascii=False).encode("utf-8")
    digest = hashlib.sha256(header + body).hexdigest()
    return MAGIC + f" {FORMAT} {len(header)} {digest}\n".encode() + header + body


def read_deck(path: Path) -> Deck:
    """A deck file, every field checked: a file cut short, altered or too large, a FIFO or a
    folder in its place is a DeckError naming it, never a crash or a hang (``read_file``
    opens without blocking and refuses what is not a regular file before reading)."""
    try:
        data = read_file(path, MAX_FILE, "deck file")
    except ZipaiError as exc:
        raise DeckError(f"{exc}; remove it or teach the deck again", "bad_deck" if exc.code == "too_large"
                        else "io") from None
    return loads(data, str(path))


_HEADER_KEYS = {"format", "name", "model", "created", "crop", "examples", "prototypes", "peaks", "sha256"}
_HEX = re.compile(r"[0-9a-f]{0,64}")
_CREATED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _number(field: bytes, digits: int) -> int | None:
    """A decimal field of the first line: ASCII digits only, at most ``digits`` of them."""
    return int(field) if 0 < len(field) <= digits and field.isdigit() else None


def loads(data: bytes, where: str = "deck") -> Deck:
    """The deck in a file's bytes. Version 2's first line holds the SHA-256 of everything after
    it, header included; version 1 (read, never written) kept the SHA-256 of the crops and
    prototypes in its header, so its header is checked field by field only."""
    where = shown(where)

    def bad(why: str) -> DeckError:
        return DeckError(f"{where}: {why}; teach the deck again (zipai deck learn)", "bad_deck")

    line, nl, rest = data.partition(b"\n")
    parts = line.split(b" ")
    if not nl or len(parts) not in (3, 4) or parts[0] != MAGIC:
        raise bad("not a deck file" if not data.startswith(MAGIC) else "the file is cut short")
    version = _number(parts[1], 3)
    if version not in READ_FORMATS or len(parts) != (3 if version == 1 else 4):
        shown_v = parts[1][:10].decode("ascii", "replace")
        raise bad(f"deck format {printable(shown_v)} is not one this version reads ({FORMAT})")
    n = _number(parts[2], 7)
    if n is None or n > MAX_HEADER:
        raise bad("the header length is not a number this size")
    if len(rest) < n:
        raise bad("the file is cut short")
    try:
        head = json.loads(rest[:n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise bad("the header is not JSON") from None
    body = rest[n:]
    if not isinstance(head, dict) or set(head) - _HEADER_KEYS or head.get("format") != version \
            or ("sha256" in head) != (version == 1):
        raise bad("the header's fields are not this format's")
    try:
        name = check_name(head["name"])
    except (KeyError, DeckError):
        raise bad("the header lacks or garbles a field (name)") from None
    model, created = head.get("model"), head.get("created", "")
    if not isinstance(model, str) or not _HEX.fullmatch(model):
        raise bad("the header's model is not a fingerprint (up to 64 hex digits)")
    if not isinstance(created, str) or not (created == "" or _CREATED.fullmatch(created)):
        raise bad(f"the header's created is not a UTC time like 2026-12-07T03:00:00Z "
                  f"({printable(str(created)[:30])!r})")
    crop, examples, protos_head = head.get("crop"), head.get("examples"), head.get("prototypes")
    if not isinstance(protos_head, dict) or set(protos_head) != {"classes", "dim"}:
        raise bad("the header lacks or garbles a field (prototypes)")
    dim, classes = protos_head["dim"], protos_head["classes"]
    if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim <= MAX_DIM:
        raise bad(f"the prototypes' dimension is not a whole number from 0 to {MAX_DIM}")
    try:
        peaks = None if head.get("peaks") is None else Peaks.from_json(head["peaks"])
    except ValueError as exc:
        raise bad(f"the header's {exc}") from None
    if crop != {"size": CROP, "margin": CROP_MARGIN} or classes != list(CARD_NAMES):
        raise bad("the header's crop size, classes or dimension are not this format's")
    if not isinstance(examples, list) or len(examples) > MAX_EXAMPLES or not all(
            isinstance(e, list) and len(e) == 2 and e[0] in CLASSES and e[1] in SOURCES for e in examples):
        raise bad(f"the examples are not a list of at most {MAX_EXAMPLES} [card, source] pairs")
    per_card = Counter(c for c, _ in examples)
    if per_card and max(per_card.values()) > MAX_PER_CARD:
        card, count = per_card.most_common(1)[0]
        raise bad(f"{count} examples of {card}, at most {MAX_PER_CARD} of one card")
    want = len(examples) * EXAMPLE_BYTES + len(CARD_NAMES) * dim * 4
    if len(body) < want:
        raise bad(f"the file is cut short ({len(body)} of {want} bytes of crops and prototypes)")
    if len(body) > want:
        raise bad("the file has bytes after its end")
    if version == 1 and hashlib.sha256(body).hexdigest() != head["sha256"]:
        raise bad("its crops or prototypes were altered (SHA-256 differs)")
    if version >= 2 and hashlib.sha256(rest).hexdigest().encode() != parts[3]:
        raise bad("its header, crops or prototypes were altered (SHA-256 differs)")
    crops = np.frombuffer(body, np.uint8, len(examples) * EXAMPLE_BYTES).reshape(-1, CROP, CROP, 3)
    protos = np.frombuffer(body, "<f4", len(CARD_NAMES) * dim, len(examples) * EXAMPLE_BYTES)
    protos = protos.reshape(len(CARD_NAMES), dim).astype(np.float32)
    _check_prototypes(protos, bad)
    exs = tuple(Example(c, s, crops[i].copy()) for i, (c, s) in enumerate(examples))
    return Deck(name, model, exs, protos, created, peaks=peaks)


def _check_prototypes(protos: np.ndarray, bad: Any) -> None:
    """Every number of a unit vector lies from -1 to 1: anything else (NaN, 3e38) was not
    written by ``derive`` and would overflow the likeness with numpy's warnings on stderr."""
    if not np.isfinite(protos).all() or (protos.size and float(np.abs(protos).max()) > 1.0 + 1e-4):
        raise bad("a prototype is not a finite number from -1 to 1")
