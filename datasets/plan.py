"""The layout plan: which cards a scene shows and where each lies on the table plane, as
players lay them (columns of overlapping cards in ``classic``; rows tight to wide, in line or
staggered, a concealed set as a face over backs in ``players``), before anything is drawn."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from zipai.engine import ALL_CARDS, Card, ZipaiError, score
from zipai.engine.generate import HAND, TABLE, LaidGroup, Layout, random_layout

from .geometry import _rot


@dataclass
class Placed:
    """A card laid on the table plane."""

    card: Card | None          # None: face down
    cx: float
    cy: float
    angle: float               # degrees, counter-clockwise, as Image.rotate
    group: int                 # -1: a loose distractor card
    state: str | None
    row: str
    width: int = 0
    full_ink: dict[int, int] = field(default_factory=dict)
    corners: list[tuple[float, float]] = field(default_factory=list)
    area: int = 0


def _random_loose_layout(rng: random.Random) -> Layout:
    """Cards dealt at random and laid in columns: no structure, for the detector's sake."""
    for _ in range(50):
        deck = [c for c in ALL_CARDS for _ in range(4)]
        rng.shuffle(deck)
        n = rng.randint(12, 21)
        cards = deck[:n]
        groups: list[LaidGroup] = []
        i = 0
        while i < n:
            k = min(n - i, rng.randint(1, 4))
            groups.append(LaidGroup(tuple(cards[i:i + k]), "concealed", HAND))
            i += k
        lay = Layout(groups[:7], "hunan", 3, 0, 1, "self_draw")
        try:
            score(lay.to_input())
        except ZipaiError:
            continue
        return lay
    return random_layout(rng)


def pick_layout(rng: random.Random) -> Layout:
    roll = rng.random()
    if roll < 0.1:
        return _random_loose_layout(rng)
    return random_layout(rng, rules="hunan", winning=roll < 0.85)


def _column_plan(rng: random.Random, lay: Layout, ratio: float) -> tuple[list[Placed], float, float]:
    """Cards in unit coordinates (card width 1); returns placements and the layout's extent.

    The two rows (claimed groups, revealed hand) lie one above the other, or side by side in
    one long row with a wider gap between them; columns are straight, lean, or fan out.
    """
    step = rng.uniform(0.2, 0.4)
    gap = rng.uniform(0.98, 1.1) if rng.random() < 0.6 else rng.uniform(1.1, 1.6)
    mode = rng.choices(["straight", "lean", "fan"], [0.55, 0.3, 0.15])[0]
    sloppy = rng.choice((0.02, 0.02, 0.05, 0.1))   # how carelessly cards are squared in a column
    rows: dict[str, list[int]] = {TABLE: [], HAND: []}
    for n, g in enumerate(lay.groups):
        rows[g.row].append(n)
    order = [TABLE, HAND] if rng.random() < 0.75 else [HAND, TABLE]
    if rng.random() < 0.5:  # groups inside a row need not follow the layout's order
        for r in rows.values():
            rng.shuffle(r)
    one_row = rng.random() < 0.45
    placed: list[Placed] = []
    x0 = y = 0.0
    for row in order:
        idxs = rows[row]
        if not idxs:
            continue
        ncol = len(idxs)
        longest = max(len(lay.groups[n].cards) for n in idxs)
        fan_span = rng.uniform(20, 50) if mode == "fan" else 0.0
        x_start = x0 if one_row else -(ncol - 1) * gap / 2
        for c, n in enumerate(idxs):
            g = lay.groups[n]
            shown = _shown_cards(rng, g)
            if mode == "straight":
                ang = rng.gauss(0, 1.5)
            elif mode == "lean":
                ang = rng.gauss(0, 7)
            else:
                ang = (c - (ncol - 1) / 2) / max(1, ncol - 1) * fan_span + rng.gauss(0, 1.5)
            top_x = x_start + c * gap + rng.gauss(0, 0.05)
            top_y = y + rng.gauss(0, 0.08) + (abs(c - (ncol - 1) / 2) * 0.15 if mode == "fan" else 0)
            for j, card in enumerate(shown):
                along = j * ratio * max(0.12, step + rng.gauss(0, 0.02)) + ratio / 2
                dx, dy = _rot(0.0, along, ang)
                placed.append(Placed(card, top_x + dx + rng.gauss(0, sloppy), top_y + dy,
                                     ang + rng.gauss(0, 1.0 + 20 * sloppy), n, g.state, row))
        if one_row:
            x0 = x_start + ncol * gap + rng.uniform(0.5, 2.0)
            y += rng.gauss(0, 0.3)
        else:
            y += ratio * (1 + (longest - 1) * step) + rng.uniform(0.25, 1.0) * ratio
    return _centred(placed, ratio)


def _centred(placed: list[Placed], ratio: float) -> tuple[list[Placed], float, float]:
    """The layout moved to centre on the origin, and its extent in card widths (a card's own
    width and height past the outermost centres)."""
    xs = [p.cx for p in placed]
    ys = [p.cy for p in placed]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    for p in placed:
        p.cx -= cx
        p.cy -= cy
    return placed, max(xs) - min(xs) + 1.6, max(ys) - min(ys) + ratio * 1.1


LAYOUTS = ("classic", "players")  # how the groups are laid out (``render_scene_full``'s ``layouts``)


def _players_plan(rng: random.Random, lay: Layout, ratio: float) -> tuple[list[Placed], float, float]:
    """The layouts players lay (``layouts="players"``), wider than ``_column_plan``'s where real
    tables showed it narrow: the two rows one above the other with a gap from tight (0.05 card
    heights) to wide (1.0), the claimed row on top or below, the columns of the two rows in line
    or staggered by half a column; a concealed group shown as one face over backs (or backs
    alone) in whichever row it lies; the hand's pairs and lone cards as short columns of their
    own; and in one scene of three a discard or two lying in line with a row, a column apart.
    Cards in unit coordinates (card width 1), as ``_column_plan``."""
    step = rng.uniform(0.2, 0.4)
    gap = rng.uniform(0.98, 1.25)
    rows: dict[str, list[int]] = {TABLE: [], HAND: []}
    for n, g in enumerate(lay.groups):
        rows[g.row].append(n)
    order = [TABLE, HAND] if rng.random() < 0.6 else [HAND, TABLE]
    for r in rows.values():
        if rng.random() < 0.5:
            rng.shuffle(r)
    row_gap = rng.uniform(0.05, 0.3) if rng.random() < 0.5 else rng.uniform(0.3, 1.0)
    stagger = rng.random() < 0.5
    width = max(len(r) for r in rows.values())
    placed: list[Placed] = []
    y = 0.0
    for k, row in enumerate(order):
        idxs = rows[row]
        if not idxs:
            continue
        longest = max(len(lay.groups[n].cards) for n in idxs)
        x_start = -(width - 1) * gap / 2 + (gap / 2 if stagger and k % 2 else 0.0)
        for c, n in enumerate(idxs):
            g = lay.groups[n]
            shown = _shown_face_over_backs(rng, g)
            ang = rng.gauss(0, 2.0)
            top_x = x_start + c * gap + rng.gauss(0, 0.04)
            top_y = y + rng.gauss(0, 0.05)
            for j, card in enumerate(shown):
                along = j * ratio * max(0.12, step + rng.gauss(0, 0.02)) + ratio / 2
                dx, dy = _rot(0.0, along, ang)
                placed.append(Placed(card, top_x + dx + rng.gauss(0, 0.02), top_y + dy,
                                     ang + rng.gauss(0, 1.0), n, g.state, row))
        y += ratio * (1 + (longest - 1) * step) + row_gap * ratio
    if rng.random() < 1 / 3:  # a discard or two in line with a row's end, a column or so apart
        counts = Counter(c.index for c in lay.cards())
        pool = [c for c in ALL_CARDS for _ in range(4 - counts[c.index])]
        rng.shuffle(pool)
        row = rng.choice([r for r in order if rows[r]])
        ys = [p.cy for p in placed if p.row == row]
        xs = [p.cx for p in placed if p.row == row]
        for j, card in enumerate(pool[:rng.choice((1, 1, 2))]):
            at = max(xs) + gap * rng.uniform(1.5, 2.5) + j * 1.1
            placed.append(Placed(card, at, min(ys) + rng.gauss(0, 0.1), rng.gauss(0, 4), -1, None, "loose"))
    return _centred(placed, ratio)


HAND_SET_BACKS = 0.35  # how often players lay a set held in the hand (坎, 提) as one face over backs


def _shown_face_over_backs(rng: random.Random, g: LaidGroup) -> list[Card | None]:
    """A concealed group of the claimed row as players lay it: backs under one face-up card that
    lies whole on top (one group in five, backs alone). A set held in the hand (three or four of
    a card) is laid the same way, one face over its backs, in ``HAND_SET_BACKS`` of them; any
    other group face up, as dealt."""
    cards: list[Card | None] = list(g.cards)
    if g.row == TABLE and g.state == "concealed" and len(cards) >= 3:
        if rng.random() < 0.2:
            return [None] * len(cards)
        return [None] * (len(cards) - 1) + [cards[-1]]
    if g.row == HAND and len(cards) >= 3 and len(set(cards)) == 1 and rng.random() < HAND_SET_BACKS:
        return [None] * (len(cards) - 1) + [cards[-1]]
    if len(cards) > 1 and rng.random() < 0.3:
        rng.shuffle(cards)
    return cards


def _shown_cards(rng: random.Random, g: LaidGroup) -> list[Card | None]:
    """What a column shows: a concealed group on the table is backs with one face-up card or none."""
    cards: list[Card | None] = list(g.cards)
    if g.row == TABLE and g.state == "concealed" and len(cards) >= 3:
        if rng.random() < 0.2:
            return [None] * len(cards)
        face_at = len(cards) - 1 if rng.random() < 0.6 else 0
        return [c if i == face_at else None for i, c in enumerate(cards)]
    if len(cards) > 1 and rng.random() < 0.3:
        rng.shuffle(cards)
    return cards


def _loose_cards(rng: random.Random, lay: Layout) -> list[Card]:
    counts = [0] * 20
    for c in lay.cards():
        counts[c.index] += 1
    pool = [c for c in ALL_CARDS for _ in range(4 - counts[c.index])]
    rng.shuffle(pool)
    return pool[:rng.choice([0, 0, 1, 2, 3, 4, 6, 8])]
