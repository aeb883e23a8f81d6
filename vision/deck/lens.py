"""Reading a scan's finds with a taught deck: the reader's opinion and the deck's multiplied
(``Lens``), and which finds the deck admits as cards (``Admit``, the faint-card rule).

Runtime code: numpy, Pillow and onnxruntime only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from zipai.engine import CARD_NAMES

from ..config import Config
from ..detection import Finds
from ..detector import Detector
from ..steps import ClassIndex
from .model import SHARPNESS, WEIGHT, Deck


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
