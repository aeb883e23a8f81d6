"""One card read from the photo, and the columns of finds it is made from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .color import redness
from .constants import RED
from .selector import Selector, main_axis

if TYPE_CHECKING:  # the config names the selector; the detection module is below it
    from .config import Config

Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Detection:
    """One card read from the photo. ``box`` is in photo pixels (after EXIF orientation).

    A value: a step that changes a card (a rereading, a take-in, its chance, the player's
    correction) makes a new one with ``dataclasses.replace``, so no caller's list changes
    under it and a tuner may replay the same finds at many settings without copying them."""

    card: str  # x1..x10, d1..d10 or back
    box: Box
    score: float
    color: str | None  # measured ink colour; None for a back
    finder_score: float = 1.0
    class_prob: float = 1.0
    redness: float = 0.0
    alternatives: tuple[tuple[str, float], ...] = ()
    down: tuple[float, float] = (0.0, 1.0)  # the card's top-to-bottom direction in the photo
    color_margin: float = 1.0  # how far the ink's redness lies from the red/black threshold
    read_as: str | None = None  # the reader's first choice, when the rules chose another (reread)
    taken_in: bool = False  # a weak find the rules took in (layout.take_in)
    selected: float | None = None  # the selector's probability that this find is a card, if it chose
    chance: float = 0.0  # the chance this card is wrong, set when the layout is assembled (layout.chance)
    # why the rules read this card otherwise, or left it out, so that the hand wins (layout.rescue)
    rescued: str = ""

    @property
    def center(self) -> tuple[float, float]:
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2

    @property
    def color_ok(self) -> bool:
        """Whether the measured ink colour agrees with the class."""
        return self.card == "back" or (self.color == "red") == (self.card in RED)

    def to_json(self) -> dict[str, Any]:
        out = {"card": self.card, "color": self.color, "box": [round(float(v), 1) for v in self.box],
               "score": round(float(self.score), 4), "chance": round(float(self.chance), 4)}
        if self.read_as:
            out["read_as"] = self.read_as
        if self.taken_in:
            out["taken_in"] = True
        if self.rescued:
            out["rescued"] = self.rescued
        return out


@dataclass(slots=True)
class Finds:
    """One look's finds as columns, before any threshold: boxes [N, 4] in decoded pixels, finder
    peaks and kinds (0 glyph, 1 back), reader probabilities [N, classes] and down directions
    [N, 2]. Indexed by a boolean or integer mask it gives those finds (``finds[finds.scores >= t]``).
    ``reds`` holds each find's ink redness once measured (NaN: not yet; ``redness_of``).
    ``embeds`` [N, D]: the reader's pooled feature, where the reader gives it (a deck reads it)."""

    boxes: np.ndarray
    scores: np.ndarray
    kinds: np.ndarray
    probs: np.ndarray
    downs: np.ndarray
    reds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    embeds: np.ndarray | None = None

    def __post_init__(self) -> None:
        if len(self.reds) != len(self.boxes):
            self.reds = np.full(len(self.boxes), np.nan)

    def __len__(self) -> int:
        return len(self.boxes)

    def __getitem__(self, index: np.ndarray | slice) -> Finds:
        return Finds(self.boxes[index], self.scores[index], self.kinds[index], self.probs[index],
                     self.downs[index], self.reds[index], None if self.embeds is None else self.embeds[index])


@dataclass(frozen=True, slots=True)
class Weighed:
    """The selector's weighing of one look's finds (``steps.weigh``): the finds at its floor,
    their classes and the probability it gives each of being a card. It holds for the same
    selector weights and the rules' config it compared with, whatever the threshold."""

    selector: Selector
    rules: Config
    finds: Finds
    cards: list[str]
    probs: np.ndarray

    def fits(self, selector: Selector, rules: Config) -> bool:
        return self.selector.same_weights(selector) and self.rules == rules


@dataclass(slots=True)
class Look:
    """One look at a photo: its decoded pixels, their photo scale, and the finds there. The
    ink redness and the selector's weighing are measured once per look and kept (a tuner
    replaying one look at many settings pays for them once); a look belongs to one call."""

    arr: np.ndarray
    scale: float
    finds: Finds
    weighed: Weighed | None = None  # the selector's weighing, once made

    @property
    def boxes(self) -> np.ndarray:
        return self.finds.boxes

    @property
    def scores(self) -> np.ndarray:
        return self.finds.scores

    @property
    def kinds(self) -> np.ndarray:
        return self.finds.kinds

    @property
    def probs(self) -> np.ndarray:
        return self.finds.probs

    @property
    def downs(self) -> np.ndarray:
        return self.finds.downs

    def redness_of(self, i: int) -> float:
        """The ink redness of find ``i``, measured once: the rules and the selector both ask."""
        reds = self.finds.reds
        if np.isnan(reds[i]):
            reds[i] = redness(self.arr, self.finds.boxes[i])
        return float(reds[i])

    def subset(self, index: np.ndarray) -> Look:
        return Look(self.arr, self.scale, self.finds[index])


def photo_box(b: np.ndarray, k: float) -> Box:
    """A find's box in photo pixels (decoded pixels times the photo scale ``k``): the rules and
    the selector build the same tuple, and the selector looks the rules' choice up by it."""
    return (float(b[0]) * k, float(b[1]) * k, float(b[2]) * k, float(b[3]) * k)


def back(box: Box, s: float, down: tuple[float, float]) -> Detection:
    """A back detection: no colour, no reader probability (the finder's peak is its score)."""
    return Detection("back", box, s, None, s, 1.0, down=down)


def face(classes: tuple[str, ...], red_threshold: float, red: float, box: Box, s: float,
         face_p: np.ndarray, face_idx: list[int], down: tuple[float, float]) -> Detection:
    """A face detection: the reader's best face, its next two, and the measured ink colour."""
    order = np.argsort(-face_p)
    total = float(face_p.sum()) or 1.0
    cls_prob = float(face_p[order[0]]) / total
    card = classes[face_idx[order[0]]]
    alts = tuple((classes[face_idx[j]], round(float(face_p[j]) / total, 4)) for j in order[1:3])
    color = "red" if red > red_threshold else "black"
    return Detection(card, box, s * cls_prob, color, s, cls_prob, red, alts, down, abs(red - red_threshold))


def glyph_size(d: Detection) -> float:
    return max(d.box[2] - d.box[0], d.box[3] - d.box[1], 1.0)


def card_axis(dets: list[Detection]) -> tuple[float, float] | None:
    """The photo's main card axis (a direction up to sign) from the glyphs' down directions."""
    axis = main_axis(np.asarray([d.down for d in dets], np.float64).reshape(-1, 2))
    return None if axis is None else (float(axis[0]), float(axis[1]))


@dataclass(slots=True)
class Timing:
    """Seconds one call spent in each part (the turned finder passes count as the finder's)."""

    preprocess: float = 0.0
    finder: float = 0.0
    reader: float = 0.0
    postprocess: float = 0.0

    @property
    def inference(self) -> float:
        return self.finder + self.reader

    def add(self, other: Timing) -> None:
        self.preprocess += other.preprocess
        self.finder += other.finder
        self.reader += other.reader
        self.postprocess += other.postprocess

    def to_json(self) -> dict[str, float]:
        return {"preprocess": self.preprocess, "finder": self.finder, "reader": self.reader,
                "postprocess": self.postprocess}
