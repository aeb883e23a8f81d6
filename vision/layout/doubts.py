"""What a scan leaves in doubt: one kind per reason, each named by the detections it is about.

The kinds are the ``kind`` strings of ``zipai scan --json`` and the app's ``doubt_<kind>``
texts, so a new kind is added here first. The checks below only read the cards; assembly
(``assemble``) adds the doubts that come from building the engine's input.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from zipai.engine import Card

from ..detector import FACES, Detection
from .chance import Alternative, Evidence, Outcome, alternatives, describe, money
from .column import Params


class DoubtKind(StrEnum):
    """Why the user should look; the values are the JSON's ``kind`` strings."""

    STRAY_CARDS = "stray_cards"  # a column lying apart, left out
    TAKEN_IN = "taken_in"  # a column the rules moved in or out, or a back they joined to a group
    STRAY_BACK = "stray_back"  # a back among free hand cards
    SHORT_CONCEALED = "short_concealed"  # backs with too few cards for a concealed triple or quad
    UNNAMED_CONCEALED = "unnamed_concealed"  # a column of backs only: the user names its card
    MIXED_CONCEALED = "mixed_concealed"  # backs with different face cards
    BAD_GROUP = "bad_group"  # a column that is no group; its cards go to the hand
    DECK_LIMIT = "deck_limit"  # five or more of one card
    NO_CARDS = "no_cards"
    MISSING_CARDS = "missing_cards"  # fewer cards than seven groups need
    EXTRA_CARDS = "extra_cards"  # more cards than a winning layout holds
    TAKEN_IN_FIND = "taken_in_find"  # a weak find the rules took in (``take_in``)
    LOW_CONFIDENCE = "low_confidence"  # the finder, the reader or the selector was unsure
    REREAD = "reread"  # the rules chose the reader's second reading (``reread``)
    COLOUR = "colour"  # the ink's colour disagrees with the card read
    CLAIMED_ROW = "claimed_row"  # which row was claimed was a guess that changes the score
    RESCUED = "rescued"  # a card read otherwise, or left out, so that the hand wins (``readings.rescue``)
    NO_WIN = "no_win"  # a layout with a winning hand's cards that scores as no win (``assemble.no_win``)
    WINNING_CARD = "winning_card"  # which card won changes the score (``scan.rescore``)
    ENGINE = "engine"  # the engine refused the layout (``zipai scan --winning-card``)


@dataclass(slots=True)
class Doubt:
    """``chance`` is set on a card doubt only (``card_doubts``): the chance its card is wrong,
    the card as read and what the hand makes of it (``now``), the other readings scored
    (``alternatives``) and whether any of them changes what anyone pays."""

    kind: DoubtKind
    message: str
    detections: list[int] = field(default_factory=list)
    chance: float | None = None
    card: str | None = None
    now: Outcome | None = None
    alternatives: list[Alternative] = field(default_factory=list)
    changes_pay: bool | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, DoubtKind):  # a plain string names a kind too; an unknown one is refused
            self.kind = DoubtKind(self.kind)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "message": self.message,
                               "detections": list(self.detections)}
        if self.chance is not None:
            now = self.now.to_json() if self.now is not None else {}
            out.update({"chance": round(self.chance, 4), "card": self.card, "total": now.get("total"),
                        "points": now.get("points"), "payouts": now.get("payouts"),
                        "alternatives": [a.to_json() for a in self.alternatives],
                        "changes_pay": bool(self.changes_pay)})
        return out


def deck_doubts(counts: Counter[str], dets: Sequence[Detection]) -> list[Doubt]:
    """Never five of a card: each card counted more than four times, with every box read as it."""
    return [Doubt(DoubtKind.DECK_LIMIT, f"{k} cards read as {card}; a deck has four",
                  [i for i, d in enumerate(dets) if d.card == card])
            for card, k in sorted(counts.items()) if k > 4]


def count_doubts(total: int, quads: int, any_cards: bool) -> list[Doubt]:
    """Seven groups use 21 cards, one more per quad beyond the first, and a pair or two more."""
    if not any_cards:
        return [Doubt(DoubtKind.NO_CARDS, "no cards found in this photo")]
    if total < 21:
        return [Doubt(DoubtKind.MISSING_CARDS, f"{total} cards read; a winning layout has at least 21")]
    if total > 21 + max(0, quads - 1) + 3:
        return [Doubt(DoubtKind.EXTRA_CARDS, f"{total} cards read; more than a winning layout holds")]
    return []


def detection_doubts(dets: Sequence[Detection], p: Params) -> list[Doubt]:
    """Each find the networks or the rules were unsure of, in detection order: a weak find taken
    in, low scores, a second reading the rules chose, and ink of the wrong colour."""
    doubts: list[Doubt] = []
    for i, d in enumerate(dets):
        if d.taken_in:  # its weak peak is the doubt: no second one for the same finder score
            doubts.append(Doubt(DoubtKind.TAKEN_IN_FIND, f"{d.card} at {where(d)}: a weak find (finder "
                                f"score {d.finder_score:.2f}), taken in because only with it the layout "
                                "makes seven groups", [i]))
        weak = d.finder_score < p.low_find and not d.taken_in
        unsure = d.selected is not None and d.selected < p.low_select
        why = f", a card with probability {d.selected:.2f}" if unsure else ""
        if d.card == "back":
            if weak or unsure:
                doubts.append(Doubt(DoubtKind.LOW_CONFIDENCE, f"back at {where(d)}: finder score "
                                    f"{d.finder_score:.2f}{why}", [i]))
            continue
        if d.class_prob < p.low_confidence or weak or unsure:
            alt = f" (or {d.alternatives[0][0]})" if d.alternatives else ""
            doubts.append(Doubt(DoubtKind.LOW_CONFIDENCE, f"{d.card}{alt} at {where(d)}: read with "
                                f"probability {d.class_prob:.2f}{why}", [i]))
        if d.read_as:
            doubts.append(Doubt(DoubtKind.REREAD, f"{d.card} at {where(d)}: read as {d.read_as}, but "
                                f"only {d.card} makes seven groups", [i]))
        if d.card in FACES and not d.color_ok and d.color_margin > p.color_margin:
            doubts.append(Doubt(DoubtKind.COLOUR, f"{d.card} at {where(d)} looks {d.color}, but "
                                f"{d.card} is {'red' if Card.parse(d.card).is_red else 'black'}", [i]))
    return doubts


def reason(d: Detection, p: Params) -> DoubtKind:
    """The kind a card doubt goes by: the rules' own reason where there is one (the app's words
    for it), else the reader's unsureness."""
    if d.read_as:
        return DoubtKind.REREAD
    if d.card in FACES and not d.color_ok and d.color_margin > p.color_margin:
        return DoubtKind.COLOUR
    if d.taken_in:
        return DoubtKind.TAKEN_IN_FIND
    return DoubtKind.LOW_CONFIDENCE


def card_doubts(cols: Sequence[Any], dets: Sequence[Detection], base: Any, ev: Evidence, bar: float,
                p: Params) -> list[Doubt]:
    """One doubt for each card of the layout whose chance of being wrong passes ``bar``, with
    its other readings scored; those that can change what anyone pays first, the most money
    first, then by chance; a doubt no reading can change the pay of says so and comes last."""
    ranked: list[tuple[bool, float, float, int, Doubt]] = []
    for i, d in enumerate(dets):
        if not ev.in_layout[i] or d.chance < bar:
            continue
        alts = alternatives(cols, d, i, base, ev.now, ev.tried, ev.memo)
        changes = any(a.changes_pay for a in alts)
        ors = "; ".join(f"as {a.card or 'no card'}, {describe(a.outcome)}" for a in alts)
        tail = "" if changes else "; no other reading changes what anyone pays"
        msg = (f"{d.card} at {where(d)}: wrong with chance {d.chance:.1%}; as read, {describe(ev.now)}; "
               f"{ors}{tail}")
        doubt = Doubt(reason(d, p), msg, [i], d.chance, d.card, ev.now, alts, changes)
        ranked.append((not changes, -money(ev.now, alts), -d.chance, i, doubt))
    ranked.sort(key=lambda r: r[:4])
    return [r[4] for r in ranked]


def where(d: Detection) -> str:
    x, y = d.center
    return f"({x:.0f}, {y:.0f})"
