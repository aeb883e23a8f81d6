"""From columns to the engine's input, with every doubt (RULINGS sections 2 and 7).

A column of one face card and two or three backs is a concealed triple or quad of that card; a
column of backs only is a concealed group whose card the user names (always a doubt); open and
concealed columns are the table's groups, free columns go to ``hand`` for the engine to
decompose, and loose columns are left out. Deck limits and the card count are checked here so
that vision mistakes surface as doubts naming a card, not as engine errors.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zipai.engine import Card, Group, Result, ZipaiError, score_hand

from ..detector import Detection
from .chance import judge
from .column import FREE, HAND, LOOSE, ROW_GUESSES, TABLE, Column, Params, proposed_state
from .doubts import Doubt, DoubtKind, card_doubts, count_doubts, deck_doubts, detection_doubts


@dataclass(slots=True)
class Assembled:
    """The engine input (``layout``), whether it is complete enough to score, and the doubts."""

    layout: dict[str, Any]
    complete: bool
    doubts: list[Doubt]
    # the detections assembled, each with its ``chance`` once weighed (``layout.chance``)
    detections: tuple[Detection, ...] = ()


def group_cards(c: Column) -> list[str] | None:
    """The cards a group column stands for, backs resolved (an all-back column by the user's
    name, else by the rules' reading); None when unknown."""
    faces = [x for x in c.cards if x != "back"]
    backs = len(c.cards) - len(faces)
    if not backs:
        return faces
    named = c.name or (None if faces else c.reading)
    known = [named] if named else []
    if len(set(faces + known)) == 1:
        return [(faces + known)[0]] * len(c.cards)
    return None


@dataclass(slots=True)
class EngineInput:
    """The columns as the engine's input, before the cards are counted and the finds weighed:
    whether every column made a group or free cards, and the doubts of those that did not."""

    layout: dict[str, Any]
    complete: bool
    doubts: list[Doubt]
    short: int  # cards of concealed columns a card short, which are no group


def engine_input(cols: Sequence[Column], base: Mapping[str, Any] | None = None) -> EngineInput:
    """Groups from the open and concealed columns, free cards from the hand's, nothing from
    loose ones (each a doubt), with the seat and win fields of ``base``."""
    layout: dict[str, Any] = dict(base or {})
    groups: list[dict[str, Any]] = []
    hand: list[str] = []
    doubts: list[Doubt] = []
    complete = True
    short = 0
    for n, c in enumerate(cols):
        if c.state == LOOSE:
            why = c.settled or "lies apart from the layout and is left out"
            # a face over a back is how a concealed group is laid: the rules setting one apart
            # is a move the player checks, not a discard left lying
            moved = bool(c.settled) and "back" in c.cards and any(x != "back" for x in c.cards)
            doubts.append(Doubt(DoubtKind.TAKEN_IN if moved else DoubtKind.STRAY_CARDS,
                                f"column {n + 1}: {' '.join(c.cards)} {why}", list(c.detections)))
            continue
        if c.settled:
            doubts.append(Doubt(DoubtKind.TAKEN_IN, f"column {n + 1}: {' '.join(c.cards)} {c.settled}",
                                [i for i in c.detections if i >= 0]))
        if c.state == FREE:
            backs = [i for i, x in zip(c.detections, c.cards, strict=False) if x == "back"]
            if backs:
                doubts.append(Doubt(DoubtKind.STRAY_BACK, f"column {n + 1}: a card back among free hand "
                                    "cards", backs))
                complete = False
            hand += [x for x in c.cards if x != "back"]
            continue
        cards = group_cards(c)
        if cards is not None and len(cards) < 3 and "back" in c.cards:
            # backs show a concealed triple or quad (RULINGS section 7): one of its cards is missing
            doubts.append(Doubt(DoubtKind.SHORT_CONCEALED, f"column {n + 1}: {' '.join(c.cards)}: a "
                                "concealed group shows three or four cards; one is missing",
                                list(c.detections)))
            complete = False
            short += len(c.cards)
            continue
        if cards is None:
            faces = sorted({x for x in c.cards if x != "back"})
            if not faces:
                doubts.append(Doubt(DoubtKind.UNNAMED_CONCEALED, f"column {n + 1}: {len(c.cards)} card "
                                    "backs; name the card of this concealed group", list(c.detections)))
            else:
                doubts.append(Doubt(DoubtKind.MIXED_CONCEALED, f"column {n + 1}: backs with different face "
                                    f"cards ({' '.join(faces)})", list(c.detections)))
            complete = False
            continue
        if not c.name and c.reading and not any(x != "back" for x in c.cards):
            # backs only: the user names the card (RULINGS section 7), so the rules' reading is
            # always a doubt, but it scores meanwhile
            doubts.append(Doubt(DoubtKind.UNNAMED_CONCEALED, f"column {n + 1}: {len(c.cards)} card backs, "
                                f"read as {c.reading}, {c.reading_why}; name the card of this concealed "
                                "group", list(c.detections)))
        try:
            Group([Card.parse(x) for x in cards], c.state)
        except ZipaiError as exc:
            doubts.append(Doubt(DoubtKind.BAD_GROUP, f"column {n + 1}: {' '.join(cards)} is not a group "
                                f"({exc}); its cards go to the hand", list(c.detections)))
            hand += [x for x in cards if x != "back"]
            continue
        groups.append({"cards": cards, "state": c.state})
    layout["groups"] = groups
    layout["hand"] = hand
    return EngineInput(layout, complete, doubts, short)


def assemble(cols: Sequence[Column], dets: Sequence[Detection] = (), base: Mapping[str, Any] | None = None,
             p: Params | None = None) -> Assembled:
    """The engine input for these columns, whether it is complete enough to score, and every
    doubt; the detections come back in it with their ``chance`` of being wrong weighed
    (``layout.chance``), the ones given are left as they were."""
    return _assemble(cols, dets, base, p or Params(), True)


def _assemble(cols: Sequence[Column], dets: Sequence[Detection], base: Mapping[str, Any] | None,
              p: Params, judged: bool) -> Assembled:
    """``judged``: weigh the cards' chances and name the card doubts (a trial assembly of
    the rows the other way round only asks whether it scores)."""
    built = engine_input(cols, base)
    layout, doubts = built.layout, built.doubts
    groups, hand = layout["groups"], layout["hand"]
    counts = Counter([x for g in groups for x in g["cards"]] + hand)
    limits = deck_doubts(counts, dets)
    doubts += limits
    # every card read counts, also those of concealed columns that are no group yet
    total = built.short + sum(counts.values()) + sum(len(c.cards) for c in cols if group_cards(c) is None
                                                     and c.state not in (FREE, LOOSE))
    doubts += count_doubts(total, sum(1 for g in groups if len(g["cards"]) == 4), bool(dets or cols))
    dets = tuple(dets)
    if judged:  # the rules' rescue of a winning hand is always asked (``readings.rescue``)
        doubts += [Doubt(DoubtKind.RESCUED, d.rescued, [i]) for i, d in enumerate(dets) if d.rescued]
    if judged and p.doubt_rule == "chance":
        if dets:
            ev, dets = judge(cols, dets, base, p.chance_model)
            bar = p.chance_bar if p.chance_bar is not None else (p.chance_model or _shipped()).bar
            doubts += card_doubts(cols, dets, base, ev, bar, p)
    elif judged:
        doubts += detection_doubts(dets, p)
    complete = built.complete and not limits and bool(dets) and bool(groups or hand)
    if complete:
        doubts += claimed_row(cols, dets, layout, p)
    return Assembled(layout, complete, unpaid_last(doubts), dets)


def unpaid_last(doubts: Sequence[Doubt]) -> list[Doubt]:
    """The card doubts that no reading can change the pay of after every other doubt."""
    return [d for d in doubts if d.changes_pay is not False] + [d for d in doubts if d.changes_pay is False]


def claimed_row(cols: Sequence[Column], dets: Sequence[Detection], layout: dict[str, Any],
                p: Params) -> list[Doubt]:
    """A doubt when the rows did not show which one was claimed and it changes the score.

    A face-up triple scores differently claimed (open, on the table) and revealed from the hand
    (RULINGS section 7), and a photo tells them apart only by the row they lie in. When neither
    row shows a back, a pair or a lone card, or the cards lay in one long row split at its widest
    gap, the proposal is a guess: if the rows the other way round also score and score otherwise,
    the user must look. Once the user has flipped a group, the states are theirs, not a guess."""
    rows = [c for c in cols if c.row in (TABLE, HAND)]
    guess = next((c.row_guess for c in rows if c.row_guess), "")
    if guess not in {*p.row_doubts, "swapped"} or not all(c.state == proposed_state(c) for c in rows):
        return []
    faceup = [i for c in rows if "back" not in c.cards and len(c.cards) >= 3 for i in c.detections]
    if guess == "swapped":  # the rules chose the rows: always worth a look
        return [Doubt(DoubtKind.CLAIMED_ROW, f"which face-up groups were claimed in play is told only by "
                      f"their row, and {ROW_GUESSES[guess]}; flip the groups that are wrong", faceup)]
    base = {k: v for k, v in layout.items() if k not in ("groups", "hand")}
    other = _assemble(other_way_round(cols, ""), dets, base, p, False)
    if not other.complete:
        return []
    try:
        now, then = score_hand(layout), score_hand(other.layout)
    except ZipaiError:
        return []
    if _pays(now) == _pays(then):
        return []
    return [Doubt(DoubtKind.CLAIMED_ROW, f"which face-up groups were claimed in play is told only by their "
                  f"row, and {ROW_GUESSES.get(guess, guess)}: as proposed, {_outcome(now)}; with the rows "
                  f"the other way round, {_outcome(then)}; flip the groups that are wrong", faceup)]


COUNTED = frozenset({DoubtKind.NO_CARDS, DoubtKind.MISSING_CARDS, DoubtKind.EXTRA_CARDS})


def no_win(result: Result, assembled: Assembled) -> list[Doubt]:
    """A doubt when a complete layout with as many cards as a winning hand holds scores as no win.

    A player photographs a winning hand, so a photo read as no win was most likely read wrong:
    a card misread or missed, a group split or claimed in the wrong row. Without this doubt a
    layout the rules could not mend would be scored "not a win" with nothing asked."""
    if result.winning or not assembled.complete or any(d.kind in COUNTED for d in assembled.doubts):
        return []
    why = (result.reason.message if result.reason else "") or f"{result.points} points"
    return [Doubt(DoubtKind.NO_WIN, f"the layout holds a winning hand's cards but scores as no win ({why}): "
                  "a card misread or missed, or a group split or in the wrong row, does that; check the "
                  "groups")]


def _shipped() -> Any:
    """The shipped chance model, looked up in ``layout.chance`` at each call, so that a model put
    in its place there (a test's hand-set one) sets the bar as it sets the chances."""
    from .chance import shipped_chance

    return shipped_chance()


def other_way_round(cols: Sequence[Column], guess: str) -> list[Column]:
    """New columns with the claimed and the hand row swapped and their states proposed again;
    ``guess`` becomes the rows' ``row_guess``."""
    out = []
    for c in cols:
        if c.row in (TABLE, HAND):
            c = c.copy(row=HAND if c.row == TABLE else TABLE, row_guess=guess)
            c.state = proposed_state(c)
        else:
            c = c.copy()
            c.state = proposed_state(c)
        out.append(c)
    return out


def _pays(result: Result) -> tuple[bool, int, int, tuple[int, ...]]:
    return result.winning, result.points, result.score, result.payouts


def _outcome(result: Result) -> str:
    if not result.winning:
        return "not a win"
    return f"{result.points} points, score {result.score}"
