"""The rules read a card the photo does not settle, as named steps over a ``Draft``.

The card of a concealed group laid as backs only (``read_backs``: the pay most readings that win
give, always a doubt), a look-alike glyph misread (``reread``), a card no find shows
(``read_hidden``), a concealed group's backs the finder missed (``fill_concealed``), and last the
rescue of a winning hand (``rescue``: a player's photo is of one, so when the layout makes none,
the card the chances doubt most is read otherwise, or left out, when only so the hand wins,
always a doubt). Each acts only when the moves of ``repairs`` left a draft that does not split or
does not win.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from zipai.engine import Card, Result, ZipaiError, score_hand

from ..detector import FACES, Detection
from .assemble import engine_input, group_cards, other_way_round
from .chance import NO_SCORE, Evidence, Outcome, describe, judge, outcome, pays_same
from .column import CONCEALED, FREE, HAND, LOOSE, TABLE, Column, Params
from .repairs import (
    Draft,
    Repair,
    _swappable,
    join_lone_backs,
    join_split_groups,
    run,
    settle_backs,
    settle_rows,
    settle_strays,
)


def read_backs(draft: Draft) -> Draft | None:
    """Let the rules read the card of a concealed column of backs only.

    Only the player can name it (RULINGS section 7: always a doubt), but a photo still narrows
    it: the deck has four of each card, so a column of three backs is a card with at most one
    in view elsewhere, and four backs one with none; and the hand is a winning one. Each card
    the deck leaves is tried (every pair of cards for two such columns); of the readings that
    make the layout split into seven groups (lone cards settled as ``settle_strays`` settles
    them, which it cannot do before the group has a card), those that win are kept if any. They
    are sorted by what they pay (``_pays``): the pay the most readings give, each weighed by the
    deck (the most ways to hold that many of the copies left unseen), is the likeliest, and the
    lesser pay breaks a tie; of its readings the likeliest card is taken. ``assemble`` scores it
    and lists it as a doubt that says whether the other readings pay the same (``reading_why``)."""
    cols = draft.columns
    blind = [n for n, c in enumerate(cols) if c.state == CONCEALED and not c.name and not c.reading
             and len(c.cards) >= 3 and all(x == "back" for x in c.cards)]
    if not blind or len(blind) > MAX_BLIND:
        return None
    seen: Counter[str] = Counter()
    for n, c in enumerate(cols):
        if n not in blind:
            seen.update(group_cards(c) or [] if c.state == CONCEALED else [x for x in c.cards if x != "back"])
    found = _readings(draft, blind, seen)
    if not found and len(blind) == 1 and _swappable(cols):
        # the rows were a guess, and as guessed no reading splits: the other way round, as
        # ``settle_rows`` takes it once the group has a card (for one such column only: two
        # are 400 readings a way, each with its lone cards settled, seconds in the worst case)
        found = _readings(draft.with_columns(other_way_round(cols, "swapped")), blind, seen)
    if not found:
        return None
    wins = [r for r in found if r.pays[0]] or found
    best = likeliest(wins)
    return best.draft.with_columns([c.copy(reading_why=_why(best, wins, bool(best.pays[0])))
                                    if c.reading and not c.reading_why else c for c in best.draft.columns])


def _readings(draft: Draft, blind: Sequence[int], seen: Counter[str]) -> list[Reading]:
    """Each reading of the all-back columns ``blind`` that the deck leaves and that makes the
    layout split into seven groups (lone cards settled), with what it pays."""
    cols = draft.columns
    choices = [[(card, math.comb(4 - seen[card], len(cols[n].cards))) for card in FACES
                if 4 - seen[card] >= len(cols[n].cards)] for n in blind]
    found: list[Reading] = []
    for k, combo in enumerate(itertools.product(*choices)):
        names = tuple(card for card, _ in combo)
        if len(blind) > 1 and any(seen[x] + sum(len(cols[n].cards) for n, y in zip(blind, names, strict=True)
                                                if y == x) > 4 for x in names):
            continue
        tried = draft.with_columns(_named(cols, blind, names, ""))
        if not tried.splits:
            # a discard in line with a row, or a hand card lying apart, is settled as it is in
            # a layout with no all-back group (``settle_strays``)
            settled = settle_strays(tried)
            if settled is None:
                continue
            tried = settled
        result = _result(tried)
        if result is not None:
            found.append(Reading(names, math.prod(w for _, w in combo), k, _pays(result), tried))
    return found


Pays = tuple[bool, int, float, str]  # winning, points, score, payouts: what a reading pays


@dataclass(frozen=True)
class Reading:
    """One way to read the all-back columns: their cards, its weight by the deck, its place in
    the order tried (``k``), what it pays and the draft it gives."""

    cards: tuple[str, ...]
    weight: int
    k: int
    pays: Pays
    draft: Draft


def _pays(result: Result) -> Pays:
    """What a result pays, as ``models.evaluate.same_score`` compares two: two readings that
    differ only in the card of a group (and how the hand splits) but pay the same are one."""
    return result.winning, result.points, float(result.score), repr(list(result.payouts))


def likeliest(readings: Sequence[Reading]) -> Reading:
    """The likeliest reading of those given: the pay with the most weight of readings behind it
    (the lesser pay on a tie), and of its readings the heaviest, then the first tried."""
    weight: Counter[Pays] = Counter()
    for r in readings:
        weight[r.pays] += r.weight
    pays = max(weight, key=lambda x: (weight[x], -x[2], -x[1]))
    return max((r for r in readings if r.pays == pays), key=lambda r: (r.weight, -r.k))


def _why(best: Reading, readings: Sequence[Reading], won: bool) -> str:
    """How ``read_backs`` chose: whether every reading kept pays alike, or which others pay
    otherwise (at most three pays named, with at most four cards each)."""
    what = "make a winning hand" if won else "make seven groups (none wins)"
    n = len(readings)
    if n == 1:
        return f"the only card the deck leaves that makes {'a winning hand' if won else 'seven groups'}"
    same = [r for r in readings if r.pays == best.pays]
    if len(same) == n:
        return f"one of {n} readings the deck leaves that {what}, and all of them pay the same"
    others: dict[Pays, list[str]] = {}
    for r in readings:
        if r.pays != best.pays:
            others.setdefault(r.pays, []).append("+".join(r.cards))
    told = "; ".join(f"{' '.join(cards[:4])}{' ...' if len(cards) > 4 else ''}: {_paid(pays)}"
                     for pays, cards in list(others.items())[:3])
    return (f"the likeliest of {n} readings the deck leaves that {what} ({len(same)} pay "
            f"{_paid(best.pays)}); others pay otherwise ({told})")


def _paid(pays: Pays) -> str:
    return f"{pays[1]} points, score {pays[2]:g}" if pays[0] else f"not a win, {pays[1]} points"


MAX_BLIND = 2  # all-back columns read_backs weighs together (20 x 20 readings at most)


def _named(cols: Sequence[Column], blind: Sequence[int], names: Sequence[str], why: str) -> list[Column]:
    out = list(cols)
    for n, card in zip(blind, names, strict=True):
        out[n] = cols[n].copy(reading=card, reading_why=why)
    return out


def _result(draft: Draft) -> Result | None:
    """The engine's result for a draft that splits; None when it refuses."""
    try:
        return score_hand(engine_input(draft.columns, draft.base).layout)
    except ZipaiError:
        return None


def reread(draft: Draft) -> Draft | None:
    """Let the rules choose between the reader's readings of an unsure face.

    The reader's commonest slips are between look-alike glyphs (伍 and 陆, 七 and 十), and a
    hand with one card misread rarely splits into seven groups. When the layout does not split,
    the least sure faces (``Params.reread_below``, at most ``reread_max``) are tried, one at a
    time, as their second or third choice, never one whose measured ink colour says otherwise;
    a single change that makes the layout split is taken, and the detection keeps the reader's
    choice (``read_as``), which ``assemble`` lists as a doubt. Two changes that each work are
    left to the user."""
    if draft.splits:
        return None
    cols, dets, p = draft.columns, draft.detections, draft.params
    where = {i: (n, k) for n, c in enumerate(cols) if c.state != LOOSE for k, i in enumerate(c.detections)}
    unsure = sorted((i for i in where if 0 <= i < len(dets) and dets[i].card in FACES
                     and dets[i].class_prob < p.reread_below and dets[i].alternatives),
                    key=lambda i: dets[i].class_prob)[:p.reread_max]
    found: list[tuple[int, str, float]] = []
    for i in unsure:
        d = dets[i]
        for alt, prob in d.alternatives[:2]:
            if d.color is not None and d.color_margin > p.color_margin and \
                    (d.color == "red") != Card.parse(alt).is_red:
                continue
            if draft.with_columns(_read(cols, where[i], alt)).splits:
                found.append((i, alt, prob))
    if len(found) != 1:
        return None
    i, alt, prob = found[0]
    d = dets[i]
    again = replace(d, card=alt, class_prob=prob, read_as=d.card, score=d.finder_score * prob,
                    alternatives=((d.card, d.class_prob), *(a for a in d.alternatives if a[0] != alt)))
    return replace(draft, columns=tuple(_read(cols, where[i], alt)),
                   detections=(*dets[:i], again, *dets[i + 1:]))


def _read(cols: Sequence[Column], at: tuple[int, int], card: str) -> list[Column]:
    """The columns with the card at (column, position) ``at`` read as ``card``."""
    n, k = at
    out = list(cols)
    out[n] = cols[n].copy(cards=[card if j == k else x for j, x in enumerate(cols[n].cards)])
    return out


NO_BOX = -1  # the detection index of a card no find shows (the app's typed cards use it too)
HIDDEN = "a card no find shows (under another card), read as the likeliest the deck leaves that makes {}"


def read_hidden(draft: Draft) -> Draft | None:
    """Let the rules read a card of the layout that no find shows.

    A card lying under others can show too little of its glyph to read, or nothing: the layout
    is then a card short and splits into no seven groups. When it is short (fewer cards than
    seven groups hold, a quad counted as such in the hand too) and does not split, each card the
    deck leaves (fewer than four in view) is tried as one more free card of the hand; of those
    that make it split, those that win are kept if any, the likeliest by the deck (the most
    copies unseen), then the one that scores least. It joins the hand as a column of its own
    with no detection (``NO_BOX``), and says so (``settled``: a doubt in ``assemble``). A
    concealed group laid as backs only (one, unread: ``read_backs`` found no reading that splits
    while the card was missing) stands in as a card with no copy in view while the card is
    sought, and is read by ``read_backs`` once it is in; then only a winning hand is taken."""
    if draft.splits:
        return None
    blind = [n for n, c in enumerate(draft.columns) if c.state == CONCEALED and not c.name and not c.reading
             and len(c.cards) >= 3 and all(x == "back" for x in c.cards)]
    if len(blind) > 1:
        return None
    cols = list(draft.columns)
    # the cards in view (a concealed group's face counts as its three or four)
    seen = Counter(x for c in cols for x in (group_cards(c) or c.cards) if x != "back")
    if blind:
        # the all-back group stands in as a card with no copy in view while the hidden card is
        # sought (another than the card tried, which a concealed triple of it would refuse)
        spare = [card for card in FACES if not seen[card]][:2]
        if len(spare) < 2:
            return None
        cols[blind[0]] = cols[blind[0]].copy(reading=spare[0])
    built = engine_input(cols, draft.base)
    groups, hand = built.layout["groups"], built.layout["hand"]
    total = sum(len(g["cards"]) for g in groups) + len(hand)
    quads = sum(len(g["cards"]) == 4 for g in groups) + sum(k == 4 for k in Counter(hand).values())
    if not built.complete or not draft.detections or total >= 21 + max(0, quads - 1):
        return None
    found: list[tuple[bool, int, float, int, Draft]] = []
    for k, card in enumerate(FACES):
        if seen[card] >= 4:
            continue
        tried = draft.with_columns([*cols, Column([NO_BOX], [card], HAND, FREE)])
        if blind and card == spare[0]:
            tried = draft.with_columns([*cols[:blind[0]], cols[blind[0]].copy(reading=spare[1]),
                                        *cols[blind[0] + 1:], Column([NO_BOX], [card], HAND, FREE)])
        if not tried.splits:
            continue
        if blind:
            again = read_backs(draft.with_columns([*draft.columns, Column([NO_BOX], [card], HAND, FREE)]))
            if again is None:
                continue
            tried = again
        result = _result(tried)
        if result is not None:
            found.append((result.winning, 4 - seen[card], -float(result.score), -k,
                          tried))
    if blind:  # two readings at once, the hidden card's and the group's: only a winning hand
        found = [f for f in found if f[0]]
    if not found:
        return None
    wins = [f for f in found if f[0]] or found
    best = max(wins, key=lambda f: f[1:4])[4]
    why = HIDDEN.format("a winning hand" if wins[0][0] else "seven groups")
    if len(wins) > 1:
        why += f" (of {len(wins)})"
    at = next(n for n, c in enumerate(best.columns) if c.detections == [NO_BOX] and c.state == FREE
              and n >= len(draft.columns))
    return best.with_columns([c.copy(settled=why) if n == at else c for n, c in enumerate(best.columns)])


MISSED_BACK = ("a back assumed missing under its face (none found): a concealed group shows three or four "
               "cards, and only so the hand makes seven groups and wins")
MISSED_BACK_ALONE = ("a back assumed missing (none found): two backs alone are no concealed group, which "
                     "shows three or four cards, and only so the hand makes seven groups and wins")
MISSED_BACKS = ("both backs assumed missing under its face (none found): a lone face of the claimed row read "
                "as a concealed triple, as only so the hand makes seven groups and wins")


def fill_concealed(draft: Draft) -> Draft | None:
    """Let the rules give a concealed group the backs the finder missed under its face.

    A concealed triple is laid as one face over two backs, and a back half covered by the face
    or by the next column is the finder's commonest miss. With one back missed, the column shows
    its face over one back, a card short of any concealed group, and the scan gives no result;
    with both missed, its face lies alone in the claimed row. When the layout does not split
    (``Params.fill_concealed``), every column of one face and one back is read as the concealed
    triple of its face, with a back that no find shows (``NO_BOX``); a layout's one column of two
    backs only, as three backs whose card ``read_backs`` reads (it reads three or four); if that
    does not make seven groups, each lone face of the claimed row is tried as a triple with both
    backs missed (``Params.fill_lone_face``), and exactly one that does is taken. Only a hand that then makes
    seven groups and wins is kept, a player's photo being of one, and each column so filled says
    what was assumed (``settled``: a doubt in ``assemble``)."""
    p = draft.params
    if not p.fill_concealed or draft.splits:
        return None
    cols = list(draft.columns)
    short = [n for n, c in enumerate(cols) if c.state == CONCEALED and len(c.cards) == 2
             and c.cards.count("back") == 1]
    for n in short:
        c = cols[n]
        cols[n] = c.copy(detections=[*c.detections, NO_BOX], cards=[*c.cards, "back"], settled=MISSED_BACK)
    if short and (filled := draft.with_columns(cols)).splits:
        return filled if _wins(filled) else None
    # two backs alone are a concealed group with a back missed too, its card unread: read once filled
    two = [n for n, c in enumerate(draft.columns) if c.state == CONCEALED and c.cards == ["back", "back"]
           and not c.name]
    if len(two) == 1 and not short:
        c = draft.columns[two[0]]
        backs = list(draft.columns)
        backs[two[0]] = c.copy(detections=[*c.detections, NO_BOX], cards=["back"] * 3,
                               settled=MISSED_BACK_ALONE)
        read = read_backs(draft.with_columns(backs))
        if read is not None and _wins(read):  # a winning hand is seven groups
            return read
    if not p.fill_lone_face:
        return None
    found: list[Draft] = []
    for n, c in enumerate(cols):
        if c.row == TABLE and c.state == FREE and len(c.cards) == 1 and c.cards[0] != "back":
            more = list(cols)
            more[n] = c.copy(detections=[*c.detections, NO_BOX, NO_BOX], cards=[*c.cards, "back", "back"],
                             state=CONCEALED, settled=MISSED_BACKS)
            tried = draft.with_columns(more)
            if tried.splits and _wins(tried):
                found.append(tried)
    return found[0] if len(found) == 1 else None


MISSED_FOURTH = ("a back assumed missing (none found): a concealed group of four (a 提) shows its face over "
                 "three backs, and only so the hand makes seven groups and wins")
MAX_FOURTH = 4  # concealed columns of three that ``fill_fourth`` weighs (ten ways of one or two at most)


def fill_fourth(draft: Draft) -> Draft | None:
    """Let the rules give a concealed group of four the back the finder missed.

    A 提 is laid as its face over three backs, and a back is the card the finder misses most (on
    the 800 validation scenes 104 backs, the next card 一 53): with one missed, the 提 shows as a
    偎 of three, the hand's pair (which only a group of four allows) has no place, and the
    layout is a card short. ``read_hidden`` would read a hidden card of the hand, a 坎 of the
    pair. When the layout does not split (``Params.fill_fourth``), each concealed column of three
    (two backs at least, unnamed) is tried with a fourth back (``NO_BOX``), then each two of them
    (two 提 each missing a back); an all-back column so filled is read again by ``read_backs``.
    Taken when exactly one way makes seven groups and a winning hand with every face of the
    claimed row in a group (the pair a 提 allows is the hand's), a player's photo being of one;
    the column says what was assumed (``settled``: a doubt in ``assemble``)."""
    if not draft.params.fill_fourth or draft.splits:
        return None
    cols = draft.columns
    threes = [n for n, c in enumerate(cols) if c.state == CONCEALED and len(c.cards) == 3
              and c.cards.count("back") >= 2 and not c.name and not c.reading]
    if not threes or len(threes) > MAX_FOURTH:
        return None
    for k in (1, 2):
        found = []
        for combo in itertools.combinations(threes, k):
            more = [c.copy(detections=[*c.detections, NO_BOX], cards=[*c.cards, "back"],
                           settled=MISSED_FOURTH) if n in combo else c for n, c in enumerate(cols)]
            tried = draft.with_columns(more)
            if any(all(x == "back" for x in more[n].cards) for n in combo):
                tried = read_backs(tried) or tried
            # the pair a 提 allows is the hand's: never faces lying in the claimed row
            if tried.splits and not _claimed_free(tried.columns) and _wins(tried):
                found.append(tried)
        if found:
            return found[0] if len(found) == 1 else None
    return None


def _claimed_free(cols: Sequence[Column]) -> bool:
    """Whether faces of the claimed row are no group where they lie (the engine takes them as
    free cards of the hand)."""
    return any(c.row == TABLE and c.state == FREE and c.cards for c in cols)


def _wins(draft: Draft) -> bool:
    result = _result(draft)
    return result is not None and result.winning


@dataclass(frozen=True)
class Rescue:
    """One other reading of a doubted card (``card`` None: no card there, an extra find), how
    likely the chances make it, what the hand then pays, and the draft it gives."""

    i: int
    card: str | None
    likelihood: float
    outcome: Outcome
    draft: Draft


def rescue(draft: Draft) -> Draft | None:
    """Read otherwise the card the chances doubt most, when only so the hand wins.

    A player photographs a winning hand, so a layout that, after every repair before, still
    makes no winning hand (no seven groups, too few points, a card too many, a concealed group
    that shows two faces) most likely holds a card read wrong. The ``Params.rescue_cards`` cards
    of the layout likeliest wrong (``layout.chance``), each at least ``Params.rescue_chance``,
    are tried one at a time as the reader's next two readings (not one the ink's colour rules
    out) and as no card at all, each through the repairs that read no card otherwise
    (``AROUND_RESCUE``; without the card, the columns are drawn again, an all-back group keeping
    the card it was read as): a dozen trial layouts at most, whatever the photo. Of the readings
    that make a winning hand, the likeliest is taken: the card's chance of being wrong times the
    share of it the reading has (no card: the reader's own probability, as a card read surely
    but wrongly is most often a find where no card lies; another card: the rest, split by the
    reader's probabilities). Never silent: the detection keeps why (``Detection.rescued``, a
    doubt in ``assemble``), naming what was read and whether other winning readings pay
    otherwise. Unlike the steps before, it also acts on a layout that splits into seven groups
    but does not win."""
    p = draft.params
    cols, dets = draft.columns, draft.detections
    if not p.rescue or not dets or p.rescue_cards <= 0 or outcome(cols, draft.base).winning:
        return None  # a winning hand asks the engine once, and weighs no card
    ev, judged = judge(cols, dets, draft.base, p.chance_model)
    where = {i: (n, k) for n, c in enumerate(cols) if c.state != LOOSE
             for k, i in enumerate(c.detections) if 0 <= i < len(dets)}
    doubted = sorted((i for i in where if judged[i].chance >= p.rescue_chance and not dets[i].rescued),
                     key=lambda i: -judged[i].chance)[:p.rescue_cards]
    found: list[Rescue] = []
    for i in doubted:
        d, chance = dets[i], judged[i].chance
        shares: list[tuple[str | None, float]] = [(None, d.class_prob if d.card != "back" else 1.0)]
        if d.card != "back":
            alts = [(a, q) for a, q in d.alternatives[:2] if a != d.card and not _ink_against(d, a, p)]
            total = sum(q for _, q in alts) or 1.0
            shares += [(a, (1.0 - d.class_prob) * q / total) for a, q in alts]
        for card, share in shares:
            tried = _read_otherwise(draft, i, where[i], card, ev)
            got = outcome(tried.columns, tried.base, memo=ev.memo)
            if got.winning:
                found.append(Rescue(i, card, chance * share, got, tried))
    if not found:
        return None
    best = max(found, key=lambda r: r.likelihood)  # the first tried on a tie: the doubted most
    why = _rescue_why(best, found, ev.now, dets, judged[best.i].chance)
    out = best.draft
    return replace(out, detections=_put(out.detections, best.i, replace(out.detections[best.i], rescued=why)))


def _read_otherwise(draft: Draft, i: int, at: tuple[int, int], card: str | None, ev: Evidence) -> Draft:
    """The draft with detection ``i`` (at column, position ``at``) read as ``card``, or left out
    as no card (in a loose column of its own, the others drawn again without it), and repaired
    by ``AROUND_RESCUE``."""
    cols, dets = draft.columns, draft.detections
    d = dets[i]
    if card is not None:
        prob = dict(d.alternatives).get(card, 0.0)
        again = replace(d, card=card, class_prob=prob, read_as=d.read_as or d.card,
                        score=d.finder_score * prob,
                        alternatives=((d.card, d.class_prob), *(a for a in d.alternatives if a[0] != card)))
        tried = replace(draft, columns=tuple(_read(cols, at, card)), detections=_put(dets, i, again))
        # a reading that already splits needs no repair (each acts only on a draft that does not)
        return tried if ev.tried.get((i, card), NO_SCORE).splits else run(tried, AROUND_RESCUE)
    rest = (*dets[:i], *dets[i + 1:])

    def back(j: int) -> int:  # an index of ``rest`` (or a find taken in after it) in ``dets``
        return j + 1 if j >= i else j

    drawn = Draft.propose(rest, draft.base, draft.params, draft.spare)
    # an all-back group drawn again keeps the card the rules read it as (``AROUND_RESCUE``)
    read = {tuple(c.detections): c for c in cols if c.reading}
    drawn = drawn.with_columns([c.copy(reading=read[key].reading, reading_why=read[key].reading_why)
                                if (key := tuple(back(j) for j in c.detections)) in read else c
                                for c in drawn.columns])
    drawn = run(drawn, AROUND_RESCUE)

    out = list(dets)
    for j, e in enumerate(drawn.detections):
        if j < len(rest):
            out[back(j)] = e
        else:
            out.append(e)
    moved = [c.copy(detections=[back(j) if j >= 0 else j for j in c.detections]) for c in drawn.columns]
    left = Column([i], [d.card], LOOSE, LOOSE,
                  settled="left out: a find where no card lies, as only so the hand wins")
    return replace(drawn, columns=(*moved, left), detections=tuple(out))


def _ink_against(d: Detection, card: str, p: Params) -> bool:
    """The measured ink's colour surely says ``card`` is not this detection's (as ``reread``)."""
    return d.color is not None and d.color_margin > p.color_margin and \
        (d.color == "red") != Card.parse(card).is_red


def _put(dets: Sequence[Detection], i: int, d: Detection) -> tuple[Detection, ...]:
    return (*dets[:i], d, *dets[i + 1:])


def _rescue_why(best: Rescue, found: Sequence[Rescue], now: Outcome, dets: Sequence[Detection],
                chance: float) -> str:
    """The rescue's doubt: the card as read and as changed, what each scores, how it was chosen,
    and the other winning readings that pay otherwise (three at most)."""
    def told(r: Rescue) -> str:
        x, y = dets[r.i].center
        return f"{dets[r.i].card} at ({x:.0f}, {y:.0f})"

    change = "left out" if best.card is None else f"read as {best.card}"
    head = (f"{told(best)}: as read, {describe(now)}; {change}, {describe(best.outcome)}: the hand wins "
            f"(chance {chance:.1%} the card is wrong)")
    if len(found) == 1:
        return head + "; the only reading of the doubted cards that wins"
    differ = [r for r in found if not pays_same(r.outcome, best.outcome)]
    if not differ:
        return head + f"; the likeliest of {len(found)} readings that win, and all of them pay the same"
    others = "; ".join(f"{told(r)} as {r.card or 'no card'}, {describe(r.outcome)}" for r in differ[:3])
    return head + f"; the likeliest of {len(found)} readings that win, others pay otherwise: {others}"


AROUND_RESCUE: tuple[Repair, ...] = (join_lone_backs, join_split_groups, settle_strays, settle_backs,
                                     settle_rows)
"""The repairs ``rescue`` runs on each of its trial readings: those that move lone cards and
backs in or out and swap the rows, not those that read or add a card (``reread``,
``read_hidden``, ``read_backs``, ``take_in``): one card changed a trial, and a trial's work
bounded as each of these steps bounds its own (an all-back group keeps the card it was read
as; reading it again in each trial scored two validation scenes more and took up to half a
second on one photo)."""
