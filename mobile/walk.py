"""The review's walk through a photo's doubts: one flagged card at a time, most money first.

A step is a card some doubt points at (the reader was unsure, the ink's colour disagrees, the
rules reread it, a fifth copy) or a doubt about the scene (cards lying apart, a missing card).
A card step offers the card as read and its likely alternatives; each is scored by handing the
draft, with that card swapped, to the engine, so the walk ranks the cards by how much the
hand's payout would change were the card its most likely alternative, and a card that changes
nothing says so and comes last. No Kivy, no rule of its own: vision's doubts, the engine's score.

>>> other_case("d3"), other_case("x10"), other_case("back")
('x3', 'd10', None)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zipai.engine import Rules, ZipaiError, score_hand

from .draft import FACES, KEYS, Draft

# doubts about one card's face: settled by saying which card it is
CARD_KINDS = frozenset({"low_confidence", "colour", "reread", "taken_in_find", "deck_limit"})
MAX_FACES = 3  # the card as read and two alternatives: big buttons on a 360 dp phone


@dataclass(frozen=True, slots=True)
class Option:
    """One answer to a card step: a face, and the hand's score and payouts with it (None when
    the layout cannot be scored that way)."""

    face: str
    score: int | None
    payouts: tuple[int, ...] | None

    @property
    def take(self) -> int | None:
        """What the winner collects: the money this hand moves."""
        return None if self.payouts is None else sum(p for p in self.payouts if p > 0)


@dataclass(frozen=True, slots=True)
class Step:
    """One stop of the walk: a card (``det``) or a scene doubt (``det`` None, settled by ``key``)."""

    key: str
    det: int | None
    kind: str  # the first doubt's kind, for its words
    doubt: Any  # vision's Doubt the words come from
    options: tuple[Option, ...]  # card steps: the card as read first
    change: int | None  # how much the winner's take moves with the likeliest alternative
    settled: bool

    @property
    def boxes(self) -> list[int]:
        return [self.det] if self.det is not None else list(self.doubt.detections)

    @property
    def matters(self) -> bool | None:
        """Whether this card can change what anyone pays (None: it cannot be told yet)."""
        if self.det is None:
            return None
        return None if self.change is None else self.change > 0


def other_case(face: str) -> str | None:
    """The same number in the other script (叁 ↔ 三), the misread a reader makes most."""
    if face not in FACES:
        return None
    return ("d" if face[0] == "x" else "x") + face[1:]


def faces_for(det: Any, shown: str | None = None) -> list[str]:
    """The card as the draft shows it, then the reader's own reads and runner-ups, then the same
    number in the other script."""
    first = shown or det.card
    out: list[str] = [first]
    if first == "back":
        return out
    cands = [det.card, det.read_as, *(a[0] for a in sorted(det.alternatives, key=lambda a: -float(a[1]))),
             other_case(first)]
    for face in cands:
        if face in KEYS and face != "back" and face not in out:
            out.append(face)
        if len(out) >= MAX_FACES:
            break
    return out


def _shown(draft: Draft, det: int) -> str | None:
    where = draft.locate(det)
    return None if where is None else draft.columns[where[0]].cards[where[1]]


def scene_key(doubt: Any, draft: Draft) -> str:
    """A scene doubt named by its kind and its cards' faces, so it stays the same doubt while
    cards elsewhere are deleted or added (their indices move)."""
    dets = draft.detections
    faces = sorted(dets[i].card for i in doubt.detections if 0 <= i < len(dets))
    return f"{doubt.kind}:{','.join(faces)}"


class Scorer:
    """The engine's score of a draft's layout, each layout asked once."""

    def __init__(self, base: Mapping[str, Any], rules: Rules | None) -> None:
        self.base = dict(base)
        self.rules = rules
        self._seen: dict[str, tuple[int, tuple[int, ...]] | None] = {}

    def __call__(self, draft: Draft) -> tuple[int, tuple[int, ...]] | None:
        if self.rules is None:
            return None
        chk = draft.check(self.base, weigh=False)  # only the layout is scored here
        if not chk.ready:
            return None
        key = json.dumps(chk.layout, sort_keys=True)
        if key not in self._seen:
            try:
                r = score_hand(dict(chk.layout), self.rules)
                self._seen[key] = (r.score, r.payouts)
            except (ZipaiError, TypeError, ValueError):
                self._seen[key] = None
        return self._seen[key]


def swapped(draft: Draft, det: int, face: str | None) -> Draft:
    """A copy of the draft with one card read as ``face`` (None: taken out, not a card)."""
    d = draft.copy()
    where = d.locate(det)
    if where is None:
        return d
    if face is None:
        d.delete(*where)
    else:
        d.set_card(*where, face)
    return d


def steps(draft: Draft, doubts: Sequence[Any], scorer: Callable[[Draft], Any],
          seen: Sequence[str] = ()) -> list[Step]:
    """Every stop of the walk, ranked: cards that move money most first, then cards whose
    effect cannot be told (the layout only scores one way), then scene doubts, then cards that
    change nothing; settled ones keep their place (the walk shows the first unsettled)."""
    dets = draft.detections
    settled_cards = draft.settled_list()
    card_doubt: dict[int, Any] = {}
    scene: list[Step] = []
    for d in doubts:
        kind = str(getattr(d.kind, "value", d.kind))
        if kind in CARD_KINDS:
            for i in d.detections:
                if 0 <= i < len(dets) and draft.locate(i) is not None:
                    card_doubt.setdefault(i, d)
        else:
            key = scene_key(d, draft)
            if all(s.key != key for s in scene):
                scene.append(Step(key, None, kind, d, (), None, key in seen))
    cards: list[Step] = []
    for i, d in card_doubt.items():
        options = tuple(Option(f, *(scorer(swapped(draft, i, f)) or (None, None)))
                        for f in faces_for(dets[i], _shown(draft, i)))
        read, alts = options[0], options[1:]
        # the likeliest other answer: the first runner-up, or for a back no card at all
        alt = alts[0].take if alts else Option("", *(scorer(swapped(draft, i, None)) or (None, None))).take
        change = None if read.take is None or alt is None else abs(alt - read.take)
        cards.append(Step(f"card:{i}", i, str(getattr(d.kind, "value", d.kind)), d, options, change,
                          settled_cards[i]))

    def rank(s: Step) -> tuple[int, int, int]:
        if s.change is None:
            return (1, 0, s.det or 0)
        if s.change == 0:
            return (3, 0, s.det or 0)
        return (0, -s.change, s.det or 0)
    cards.sort(key=rank)
    money = [s for s in cards if s.change is None or s.change > 0]
    return [*money, *scene, *(s for s in cards if s.change == 0)]
