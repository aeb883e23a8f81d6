"""From detections to the engine's input: columns, rows, groups, and what is doubtful.

RULINGS section 7: a column of one face card and two or three backs is a concealed triple or
quad of that card; a column of backs only is a concealed group whose card the user names (always
a doubt); face-up groups in the row of claimed groups are proposed open; the other face cards
go to ``hand`` for the engine to decompose. Deck limits and the seven-group structure are checked
here so that vision mistakes surface as doubts naming a card, not as engine errors.

The app edits the same ``Column`` list (move a card, flip a group, name a back group) and calls
``assemble`` again.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from zipai.engine import Card, Group, ZipaiError, score

from .detector import FACES, SYMMETRIC, Detection

TABLE, HAND, LOOSE = "table", "hand", "loose"
# why the claimed row can be a guess (``Column.row_guess``)
ROW_GUESSES = {"split": "the cards lie in one long row, split at its widest gap",
               "alike": "neither row shows a back, a pair or a lone card",
               "swapped": "with the first row taken as claimed the hand split into no groups, so the "
                          "other row was taken"}
OPEN, CONCEALED, FREE = "open", "concealed", "hand"


@dataclass(slots=True)
class Params:
    """Clustering thresholds, in units of the median glyph size ``s``. ``min_step``,
    ``max_across``, ``row_split``, ``off_axis`` and ``column_break`` were chosen on the labelled
    cards of the validation scenes (``scripts/tune_layout.py``)."""

    max_lateral: float = 0.65  # |across-column offset| of two cards in one column
    max_gap: float = 1.9  # gap along the column between consecutive boxes
    card_per_glyph: float = 1.2  # a card's width in glyph sizes
    min_step: float = 0.15  # the next card down a column, in card widths along the column
    max_step: float = 5.0
    max_across: float = 0.45  # and at most this far across it
    step_factor: float = 4.0  # face-to-face links longer than this many usual steps are cut
    across_cost: float = 3.0
    column_break: float = 2.2  # a step this many times a column's median step ends the column
    stray_max: int = 2  # a row of at most this many cards lies apart from the layout
    row_split: float = 1.1  # a gap this many times the usual column spacing splits one long row
    low_confidence: float = 0.7  # reader probability below this is a doubt
    reread_below: float = 0.9  # a face read less surely than this may take the reader's second choice
    reread_max: int = 6  # the least sure faces that ``reread`` weighs
    low_find: float = 0.35  # finder score below this is a doubt
    low_select: float = 0.5  # the selector's probability below this is a doubt (scripts/tune_doubts.py)
    # which guessed claimed rows are doubts (``ROW_GUESSES``; scripts/tune_doubts.py)
    row_doubts: frozenset[str] = frozenset({"split"})
    color_margin: float = 0.015  # ink colour this close to the red/black threshold is no evidence
    off_axis: float = 30.0  # degrees: a face turned further from the layout's axis lies apart


@dataclass(slots=True)
class Column:
    """Cards laid as one column (a group on the table, or part of the revealed hand)."""

    detections: list[int]  # indices into the detection list, top to bottom
    cards: list[str]
    row: str = HAND
    state: str = FREE  # open / concealed (a group) or hand (free cards for the engine)
    name: str | None = None  # the card an all-back column stands for, once the user names it
    settled: str = ""  # why the engine, not the geometry, put this lone card in or out
    row_guess: str = ""  # why the claimed row was a guess (a key of ``ROW_GUESSES``; "" if it was not)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"cards": list(self.cards), "state": self.state, "row": self.row,
                             "detections": list(self.detections)}
        if self.name:
            d["name"] = self.name
        if self.settled:
            d["settled"] = self.settled
        return d


@dataclass(slots=True)
class Doubt:
    kind: str
    message: str
    detections: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "detections": list(self.detections)}


@dataclass(slots=True)
class Assembled:
    """The engine input (``layout``), whether it is complete enough to score, and the doubts."""

    layout: dict[str, Any]
    complete: bool
    doubts: list[Doubt]


def _scale(dets: Sequence[Detection]) -> float:
    faces = [max(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in dets if d.card != "back"]
    if not faces:
        faces = [min(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in dets]
    faces.sort()
    return max(1.0, faces[len(faces) // 2])


def _frame(dets: Sequence[Detection], deg: float) -> list[tuple[float, float, float, float]]:
    """Boxes as (u0, u1, v0, v1): u across columns, v along them, for columns leaning ``deg``."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    out = []
    for d in dets:
        x0, y0, x1, y1 = d.box
        us = [x * c + y * s for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
        vs = [-x * s + y * c for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
        # a back's visible part is long and thin; its across extent is the card's width
        out.append((min(us), max(us), min(vs), max(vs)))
    return out


def chain_links(dets: Sequence[Detection], axis_deg: float, p: Params) -> list[tuple[int, int]]:
    """Each card links to the next card down its column: the nearest one ahead along the card's
    own axis (columns lean and fan), close across it, each card taken once. Distances are in
    card widths, estimated locally from glyph sizes (perspective makes far cards smaller)."""
    n = len(dets)
    if n < 2:
        return []
    a = math.radians(axis_deg)
    gx, gy = -math.sin(a), math.cos(a)  # the layout's down direction
    faces = sorted(max(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in dets if d.card != "back")
    typical = faces[len(faces) // 2] if faces else _scale(dets)
    width = []
    downs = []
    tail = []
    for d in dets:
        g = max(d.box[2] - d.box[0], d.box[3] - d.box[1]) if d.card != "back" else typical
        width.append(p.card_per_glyph * min(max(g, 0.6 * typical), 1.6 * typical))
        dx, dy = d.down if d.card != "back" else (gx, gy)
        # a glyph turned round against the layout is the far end of the last card in its
        # column (the only card that shows both ends): nothing follows it in that column
        tail.append(d.card != "back" and d.card not in SYMMETRIC
                    and dx * gx + dy * gy < -math.cos(math.radians(40)))
        if dx * gx + dy * gy < 0:  # 一二三十 and backs give only an axis: sign it like the layout
            dx, dy = -dx, -dy
        if dx * gx + dy * gy < math.cos(math.radians(40)):  # off the layout's axis: trust the layout
            dx, dy = gx, gy
        downs.append((dx, dy))
    cands: list[tuple[float, int, int, float]] = []
    for i in range(n):
        ci = dets[i].center
        for j in range(n):
            if i == j or tail[i]:
                continue
            cj = dets[j].center
            dx = (downs[i][0] + downs[j][0]) / 2
            dy = (downs[i][1] + downs[j][1]) / 2
            norm = math.hypot(dx, dy) or 1.0
            dx, dy = dx / norm, dy / norm
            rx, ry = cj[0] - ci[0], cj[1] - ci[1]
            w = (width[i] + width[j]) / 2
            dv = (rx * dx + ry * dy) / w
            du = abs(rx * dy - ry * dx) / w
            if p.min_step < dv < p.max_step and du < p.max_across:
                cands.append((dv + p.across_cost * du, i, j, dv))
    # the usual step from one card to the next (glyph to glyph) in this photo: the gap to the
    # next row is several times longer, so face-to-face links far beyond it are cut
    best: dict[int, float] = {}
    for _, i, j, dv in cands:
        if dets[i].card != "back" and dets[j].card != "back":
            best[i] = min(best.get(i, math.inf), dv)
    steps = sorted(best.values())
    usual = steps[len(steps) // 2] if steps else 1.0
    cands = [c for c in cands if dets[c[1]].card == "back" or dets[c[2]].card == "back"
             or c[3] < p.step_factor * usual]
    cands.sort()
    nxt: dict[int, int] = {}
    prev: dict[int, int] = {}
    step: dict[int, float] = {}
    for _, i, j, dv in cands:
        if i in nxt or j in prev:
            continue
        # no cycles: j must not already lead back to i
        k = j
        while k in nxt:
            k = nxt[k]
        if k == i:
            continue
        nxt[i] = j
        prev[j] = i
        step[i] = dv
    # within one column the cards overlap by the same amount: a face-to-face step far longer
    # than the column's own usual step runs on into the next row
    for head in [i for i in nxt if i not in prev]:
        chain = [head]
        while chain[-1] in nxt:
            chain.append(nxt[chain[-1]])
        faces = [step[i] for i in chain[:-1] if dets[i].card != "back" and dets[nxt[i]].card != "back"]
        if len(faces) < 3:
            continue
        mid = sorted(faces)[len(faces) // 2]
        for i in chain[:-1]:
            if dets[i].card != "back" and dets[nxt[i]].card != "back" and step[i] > p.column_break * mid:
                del prev[nxt[i]]
                del nxt[i]
    return list(nxt.items())


def _links(frame: list[tuple[float, float, float, float]], s: float, p: Params) -> list[tuple[int, int]]:
    links = []
    for i in range(len(frame)):
        ui = (frame[i][0] + frame[i][1]) / 2
        for j in range(i + 1, len(frame)):
            uj = (frame[j][0] + frame[j][1]) / 2
            if abs(ui - uj) > p.max_lateral * s:
                continue
            gap = max(frame[i][2], frame[j][2]) - min(frame[i][3], frame[j][3])
            if gap < p.max_gap * s:
                links.append((i, j))
    return links


def _components(n: int, links: list[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in links:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    comps: dict[int, list[int]] = {}
    for i in range(n):
        comps.setdefault(find(i), []).append(i)
    return list(comps.values())


def card_axis(dets: Sequence[Detection]) -> float:
    """The direction cards run (top to bottom) in the photo, in degrees for ``_frame``, from the
    reader's per-glyph down directions: an axial mean, signed by the majority."""
    downs = [d.down for d in dets if d.card != "back"] or [d.down for d in dets]
    if not downs:
        return 0.0
    c2 = sum(math.cos(2 * math.atan2(dy, dx)) for dx, dy in downs)
    s2 = sum(math.sin(2 * math.atan2(dy, dx)) for dx, dy in downs)
    th = 0.5 * math.atan2(s2, c2)
    ux, uy = math.cos(th), math.sin(th)
    if sum(dx * ux + dy * uy for dx, dy in downs) < 0:
        ux, uy = -ux, -uy
    return math.degrees(math.atan2(-ux, uy))


def columns(dets: Sequence[Detection], p: Params | None = None) -> list[Column]:
    """Cluster detections into columns and the columns into rows (table row first)."""
    p = p or Params()
    if not dets:
        return []
    axis = card_axis(dets)
    # a face card turned well away from the layout's axis was dropped or discarded, not laid
    off = [i for i, d in enumerate(dets) if _off_axis(d, axis, p)]
    if off and len(off) < len(dets):
        keep = [i for i in range(len(dets)) if i not in set(off)]
        inner = columns([dets[i] for i in keep], p)
        for c in inner:
            c.detections = [keep[i] for i in c.detections]
        strays = [Column([i], [dets[i].card], LOOSE) for i in off]
        return inner + strays
    fr = _frame(dets, axis)
    comps = _components(len(dets), chain_links(dets, axis, p))
    cols = []
    lone_backs: list[Column] = []
    for comp in comps:
        if len(comp) == 1 and dets[comp[0]].card == "back":
            # a concealed group shows two or more backs, or backs and a face, down its column;
            # a single back on its own is the stock pile (or a group too broken to name)
            lone_backs.append(Column(comp, ["back"], LOOSE))
            continue
        comp.sort(key=lambda i: fr[i][2])
        cols.append((comp, min(fr[i][2] for i in comp), max(fr[i][3] for i in comp),
                     sum((fr[i][0] + fr[i][1]) / 2 for i in comp) / len(comp)))
    # rows: columns whose extents along v overlap; the claimed row usually comes first
    cols.sort(key=lambda c: c[1])
    rows: list[list[tuple[list[int], float, float, float]]] = []
    end = -math.inf
    for c in cols:
        if rows and c[1] < end:
            rows[-1].append(c)
            end = max(end, c[2])
        else:
            rows.append([c])
            end = c[2]
    split = False
    guess = ""
    # one long row besides strays (rows of a card or two): the two rows may sit side by side
    long = [r for r in range(len(rows)) if _cards(rows[r]) > p.stray_max]
    if len(long) == 1 and len(rows[long[0]]) >= 3:
        pieces, split = _split_long_row(sorted(rows[long[0]], key=lambda c: c[3]), p)
        rows[long[0]:long[0] + 1] = pieces
    # a row of one or two cards away from the layout is a stray (a discard, the stock)
    size = [_cards(row) for row in rows]
    main = [r for r in range(len(rows)) if size[r] > p.stray_max]
    names = {r: LOOSE for r in range(len(rows))}
    if len(main) == 1:
        names[main[0]] = HAND
    elif main:
        first, second = sorted(sorted(main, key=lambda r: -size[r])[:2])
        names.update({r: HAND for r in main})
        # concealed groups on the table show backs and the revealed hand never does; the table
        # holds only triples and quads, while a hand often has a pair or a lone card
        evidence = []
        for r in (first, second):
            backs = any(dets[i].card == "back" for c in rows[r] for i in c[0])
            short = any(len(c[0]) < 3 for c in rows[r])
            evidence.append(2 * backs - short)
        names[second if evidence[1] > evidence[0] else first] = TABLE
        # the first row is taken as claimed when nothing tells the rows apart, and a long row
        # split at its widest gap may be split in the wrong place: either is a doubt (assemble)
        if split:
            guess = "split"
        elif evidence[0] == evidence[1]:
            guess = "alike"
    out = []
    for r, row in enumerate(rows):
        for comp, _, _, _ in sorted(row, key=lambda c: c[3]):
            out.append(Column(list(comp), [dets[i].card for i in comp], names[r],
                              row_guess="" if names[r] == LOOSE else guess))
    return out + lone_backs


_Placed = tuple[list[int], float, float, float]  # a column's cards, its extent along v, its place across


def _cards(row: list[_Placed]) -> int:
    return sum(len(c[0]) for c in row)


def _split_long_row(row: list[_Placed], p: Params) -> tuple[list[list[_Placed]], bool]:
    """One long row (columns in order across) as rows: split at its widest gap when that is
    well over the usual spacing. A piece of one or two cards at an end is a stray (a discard
    beside the layout), not a row of groups, and its gap is often the widest; so it is set apart
    and the rest looked at again, for the gap between the claimed and the revealed groups."""
    apart: list[list[_Placed]] = []
    while len(row) >= 3:
        gaps = [b[3] - a[3] for a, b in itertools.pairwise(row)]
        k = max(range(len(gaps)), key=lambda n: gaps[n])
        if gaps[k] <= p.row_split * sorted(gaps)[len(gaps) // 2]:
            break
        left, right = row[:k + 1], row[k + 1:]
        small = [piece for piece in (left, right) if _cards(piece) <= p.stray_max]
        if not small:
            return [left, right, *apart], True
        apart.append(small[0])
        row = right if small[0] is left else left
    return [row, *apart], False


def _off_axis(d: Detection, axis_deg: float, p: Params) -> bool:
    """Whether a face card lies more than ``p.off_axis`` degrees across the layout's axis. Only
    the axis counts, not the sense: the last card of a column shows both ends, and in a photo
    taken from the side either end may be the one that reads upright."""
    if d.card == "back":
        return False
    a = math.radians(axis_deg)
    cos = d.down[0] * -math.sin(a) + d.down[1] * math.cos(a)
    return abs(cos) < math.cos(math.radians(p.off_axis))


def _spread(fr: list[tuple[float, float, float, float]], comp: list[int]) -> float:
    us = [(fr[i][0] + fr[i][1]) / 2 for i in comp]
    m = sum(us) / len(us)
    return sum(abs(u - m) for u in us)


def propose_states(cols: list[Column]) -> None:
    """Backs make a concealed group; a face-up column in the table row is proposed open; the
    rest is hand (free cards)."""
    for c in cols:
        faces = [x for x in c.cards if x != "back"]
        backs = len(c.cards) - len(faces)
        if c.row == LOOSE:
            c.state = LOOSE
        elif backs:
            c.state = CONCEALED
        elif c.row == TABLE and len(faces) >= 3:
            c.state = OPEN
        else:
            c.state = FREE


MAX_LONE = 8  # lone cards settle_strays weighs (2^8 layouts at most, each under a millisecond)
_GROUPS_ONLY = Params(row_doubts=frozenset())  # trying layouts: no need to score the rows both ways


def _forms_groups(cols: Sequence[Column], dets: Sequence[Detection], base: dict[str, Any]) -> bool:
    """Whether these columns give a complete layout that the engine splits into seven groups
    (whether it then reaches the rule set's minimum does not matter here)."""
    lay = assemble(cols, dets, base, _GROUPS_ONLY)
    if not lay.complete:
        return False
    try:
        return bool(score(lay.layout).get("groups"))
    except ZipaiError:
        return False


def settle_strays(cols: list[Column], dets: Sequence[Detection], base: dict[str, Any]) -> bool:
    """Let the rules decide the lone face cards that the geometry could not.

    A discard or a card dropped beside the layout looks, to the clustering, like a one-card
    column of the hand, and a hand card nudged out of line looks like a stray. Seven groups
    leave no card over, so when the proposed layout does not split into seven groups, the
    fewest lone cards are moved in or out that make it split. Only a unique answer is taken
    (two different answers are a doubt the user settles, as before); the moved columns say why
    (``settled``), and ``assemble`` lists them as doubts. Returns whether the layout splits."""
    if _forms_groups(cols, dets, base):
        return True
    lone = [n for n, c in enumerate(cols) if len(c.cards) == 1 and c.cards[0] != "back"
            and c.state in (FREE, LOOSE)]
    if not lone or len(lone) > MAX_LONE:
        return False
    original = {n: (cols[n].row, cols[n].state) for n in lone}

    def flip(n: int) -> None:
        c = cols[n]
        c.row, c.state = (HAND, FREE) if c.state == LOOSE else (LOOSE, LOOSE)

    for k in range(1, len(lone) + 1):
        found: list[tuple[int, ...]] = []
        for combo in itertools.combinations(lone, k):
            for n in combo:
                flip(n)
            if _forms_groups(cols, dets, base):
                found.append(combo)
            for n in combo:
                cols[n].row, cols[n].state = original[n]
        if found:
            if len(found) == 1:
                for n in found[0]:
                    flip(n)
                    cols[n].settled = ("left out: the layout makes seven groups without it"
                                       if cols[n].state == LOOSE else
                                       "taken in: the layout makes seven groups with it")
            return len(found) == 1
    return False


BACK_REACH = 4.0  # glyph sizes from a lone back's centre to the nearest card of a group it may join
MAX_BACK_MOVES = 10  # (lone back, column) pairs settle_backs weighs: 55 layouts at most


def join_lone_backs(cols: list[Column], dets: Sequence[Detection]) -> None:
    """Put a lone back into the concealed group it lies beside when that group is short.

    A concealed group holds three or four cards (RULINGS section 7), so a concealed column of
    one face and one back, or of two backs, is certainly missing one: laid askew, or with its
    face card lying on top of the backs, its last back was left unchained and taken for the
    stock. Each short concealed column takes the nearest lone back within ``BACK_REACH`` glyph
    sizes, when no other short column is nearer to that back; the column says so (``settled``)."""
    lone = [n for n, c in enumerate(cols) if c.state == LOOSE and c.cards == ["back"]]
    short = [n for n, c in enumerate(cols) if c.state == CONCEALED and len(c.cards) < 3]
    if not lone or not short:
        return
    s = _scale(dets)
    moves = []
    for h in short:
        d, b = min((_reach(cols, dets, b, h), b) for b in lone)
        if d < BACK_REACH * s and min(_reach(cols, dets, b, o) for o in short) >= d:
            moves.append((b, h))
    if moves and len({b for b, _ in moves}) == len(moves):
        cols[:] = _with_backs(cols, moves, "a concealed group shows three or four cards")


def settle_backs(cols: list[Column], dets: Sequence[Detection], base: dict[str, Any]) -> bool:
    """Let the rules put a lone back into the group it lies beside.

    A single back on its own is taken for the stock pile (``columns``). But a concealed group
    laid askew, or with its face card lying on top of its backs (the face's far end then ends
    the column), leaves its backs unchained, and the group comes out a card short: the layout
    then splits into no groups. When it does not split, each lone back is tried in each column of
    the layout within ``BACK_REACH`` glyph sizes of it that could take a card (three at most),
    then two backs at once; exactly one way that makes the layout split is taken, and the
    column says so (``settled``, a doubt in ``assemble``). More than ``MAX_BACK_MOVES`` ways to
    try are left alone. Returns whether the layout splits."""
    if _forms_groups(cols, dets, base):
        return True
    lone = [n for n, c in enumerate(cols) if c.state == LOOSE and c.cards == ["back"]]
    if not lone:
        return False
    s = _scale(dets)
    moves = [(b, h) for b in lone for h, c in enumerate(cols)  # (lone back column, host column)
             if c.state != LOOSE and len(c.cards) <= 3 and _reach(cols, dets, b, h) < BACK_REACH * s]
    if not moves or len(moves) > MAX_BACK_MOVES:  # backs everywhere (a spilt stock): no telling
        return False
    found: list[tuple[tuple[int, int], ...]] = []
    for k in (1, 2):
        for combo in itertools.combinations(moves, k):
            if len({b for b, _ in combo}) < k:
                continue
            if _forms_groups(_with_backs(cols, combo, ""), dets, base):
                found.append(combo)
        if found:
            break
    if len(found) != 1:
        return False
    cols[:] = _with_backs(cols, found[0], "the layout makes seven groups with it")
    return True


def _reach(cols: Sequence[Column], dets: Sequence[Detection], b: int, h: int) -> float:
    """Pixels from lone back column ``b``'s centre to the nearest card of column ``h``."""
    bx, by = dets[cols[b].detections[0]].center
    return min(math.hypot(dets[i].center[0] - bx, dets[i].center[1] - by) for i in cols[h].detections)


def _with_backs(cols: Sequence[Column], moves: Sequence[tuple[int, int]], why: str) -> list[Column]:
    """Copies of the columns with each lone back column ``b`` moved into column ``h``, the host's
    state proposed again and marked ``settled`` with ``why``."""
    out = [replace(c, detections=list(c.detections), cards=list(c.cards)) for c in cols]
    for b, h in moves:
        out[h].detections += out[b].detections
        out[h].cards += out[b].cards
        out[h].settled = f"a back lying apart taken in: {why}"
        out[b].detections, out[b].cards = [], []
    hosts = [out[h] for _, h in moves]
    propose_states(hosts)
    return [c for c in out if c.cards]


def settle_rows(cols: Sequence[Column], dets: Sequence[Detection],
                base: dict[str, Any]) -> list[Column] | None:
    """Let the rules say which row was claimed when the geometry only guessed.

    With nothing to tell the two rows apart (``Column.row_guess``), the first is taken as
    claimed. A triple claimed in play lies open; the same triple in the hand is free cards, so a
    wrong guess can leave a hand that splits into no groups at all (four of a card in it, say)
    where the rows the other way round split. Then the other way is taken, lone cards settled
    again (``settle_strays``), and ``claimed_row`` names it a doubt. Returns the new columns, or
    None (no guess, or the other way splits no better)."""
    if not any(c.row_guess for c in cols if c.row in (TABLE, HAND)):
        return None
    other = _other_way_round(cols, "swapped")
    return other if settle_strays(other, dets, base) else None


def _other_way_round(cols: Sequence[Column], guess: str) -> list[Column]:
    """Copies of the columns with the claimed and the hand row swapped and their states proposed
    again; ``guess`` becomes the rows' ``row_guess``."""
    other = [replace(c, row={TABLE: HAND, HAND: TABLE}.get(c.row, c.row),
                     row_guess=guess if c.row in (TABLE, HAND) else c.row_guess) for c in cols]
    propose_states(other)
    return other


def reread(cols: list[Column], dets: list[Detection], base: dict[str, Any], p: Params | None = None) -> None:
    """Let the rules choose between the reader's readings of an unsure face.

    The reader's commonest slips are between look-alike glyphs (伍 and 陆, 七 and 十), and a
    hand with one card misread rarely splits into seven groups. When the layout does not split,
    the least sure faces (``reread_below``) are tried, one at a time, as their second or third
    choice, never one whose measured ink colour says otherwise; a single change that makes the
    layout split is taken, and the detection keeps the reader's choice (``read_as``), which
    ``assemble`` lists as a doubt. Two changes that each work are left to the user."""
    p = p or Params()
    if _forms_groups(cols, dets, base):
        return
    where = {i: (n, k) for n, c in enumerate(cols) if c.state != LOOSE for k, i in enumerate(c.detections)}
    unsure = sorted((i for i in where if 0 <= i < len(dets) and dets[i].card in FACES
                     and dets[i].class_prob < p.reread_below and dets[i].alternatives),
                    key=lambda i: dets[i].class_prob)[:p.reread_max]
    found: list[tuple[int, str, float]] = []
    for i in unsure:
        d = dets[i]
        n, k = where[i]
        for alt, prob in d.alternatives[:2]:
            if d.color is not None and d.color_margin > p.color_margin and \
                    (d.color == "red") != Card.parse(alt).is_red:
                continue
            cols[n].cards[k] = alt
            if _forms_groups(cols, dets, base):
                found.append((i, alt, prob))
            cols[n].cards[k] = d.card
    if len(found) != 1:
        return
    i, alt, prob = found[0]
    d = dets[i]
    n, k = where[i]
    cols[n].cards[k] = alt
    d.alternatives = [(d.card, d.class_prob)] + [a for a in d.alternatives if a[0] != alt]
    d.read_as, d.card, d.class_prob = d.card, alt, prob
    d.score = d.finder_score * prob


def take_in(cols: list[Column], dets: list[Detection], spare: Sequence[Detection], base: dict[str, Any],
            p: Params | None = None) -> list[Column]:
    """Let the rules take in one weak find that the thresholds turned away (``Detector.spare``).

    On a typeface the finder never saw, a real glyph or back can come out weaker than the
    table's print does, and a hand one card short never splits into seven groups. When the
    layout does not split, each spare find is tried in turn: the photo's columns are drawn again
    with it (``columns``, ``settle_strays``), and if exactly one makes the layout split, it joins
    ``dets`` (marked ``taken_in``, which ``assemble`` lists as a doubt) and its columns are
    returned. Otherwise, or when the layout splits already, ``cols`` comes back unchanged."""
    if not spare or _forms_groups(cols, dets, base):
        return cols
    found: list[tuple[Detection, list[Column]]] = []
    for d in spare:
        trial = [*dets, d]
        tried = columns(trial, p)
        propose_states(tried)
        if settle_strays(tried, trial, base):
            found.append((d, tried))
    if len(found) != 1:
        return cols
    d, tried = found[0]
    d.taken_in = True
    dets.append(d)
    return tried


def _group_cards(c: Column) -> list[str] | None:
    """The cards a group column stands for, backs resolved; None when unknown."""
    faces = [x for x in c.cards if x != "back"]
    backs = len(c.cards) - len(faces)
    if not backs:
        return faces
    known = [c.name] if c.name else []
    if len(set(faces + known)) == 1:
        return [(faces + known)[0]] * len(c.cards)
    return None


def assemble(cols: Sequence[Column], dets: Sequence[Detection] = (), base: dict[str, Any] | None = None,
             p: Params | None = None) -> Assembled:
    """The engine input for these columns, and every doubt (RULINGS sections 2 and 7)."""
    p = p or Params()
    layout: dict[str, Any] = dict(base or {})
    groups: list[dict[str, Any]] = []
    hand: list[str] = []
    doubts: list[Doubt] = []
    complete = True
    short = 0  # cards of concealed columns a card short, which are no group
    for n, c in enumerate(cols):
        if c.state == LOOSE:
            why = c.settled or "lies apart from the layout and is left out"
            doubts.append(Doubt("stray_cards", f"column {n + 1}: {' '.join(c.cards)} {why}",
                                list(c.detections)))
            continue
        if c.settled:
            doubts.append(Doubt("taken_in", f"column {n + 1}: {' '.join(c.cards)} {c.settled}",
                                list(c.detections)))
        if c.state == FREE:
            backs = [i for i, x in zip(c.detections, c.cards, strict=False) if x == "back"]
            if backs:
                doubts.append(Doubt("stray_back", f"column {n + 1}: a card back among free hand cards",
                                    backs))
                complete = False
            hand += [x for x in c.cards if x != "back"]
            continue
        cards = _group_cards(c)
        if cards is not None and len(cards) < 3 and "back" in c.cards:
            # backs show a concealed triple or quad (RULINGS section 7): one of its cards is missing
            doubts.append(Doubt("short_concealed", f"column {n + 1}: {' '.join(c.cards)}: a concealed group "
                                "shows three or four cards; one is missing", list(c.detections)))
            complete = False
            short += len(c.cards)
            continue
        if cards is None:
            faces = sorted({x for x in c.cards if x != "back"})
            if not faces:
                doubts.append(Doubt("unnamed_concealed", f"column {n + 1}: {len(c.cards)} card backs; "
                                    "name the card of this concealed group", list(c.detections)))
            else:
                doubts.append(Doubt("mixed_concealed", f"column {n + 1}: backs with different face cards "
                                    f"({' '.join(faces)})", list(c.detections)))
            complete = False
            continue
        try:
            Group([Card.parse(x) for x in cards], c.state)
        except ZipaiError as exc:
            doubts.append(Doubt("bad_group", f"column {n + 1}: {' '.join(cards)} is not a group ({exc}); "
                                "its cards go to the hand", list(c.detections)))
            hand += [x for x in cards if x != "back"]
            continue
        groups.append({"cards": cards, "state": c.state})
    layout["groups"] = groups
    layout["hand"] = hand
    # deck limits: never five of a card
    counts = Counter([x for g in groups for x in g["cards"]] + hand)
    for card, k in sorted(counts.items()):
        if k > 4:
            idx = [i for i, d in enumerate(dets) if d.card == card]
            doubts.append(Doubt("deck_limit", f"{k} cards read as {card}; a deck has four", idx))
            complete = False
    # structure: seven groups use 21 cards, one more per quad beyond the first
    total = short + sum(counts.values()) + sum(len(c.cards) for c in cols if _group_cards(c) is None
                                               and c.state not in (FREE, LOOSE))
    quads = sum(1 for g in groups if len(g["cards"]) == 4)
    if not dets and not cols:
        doubts.append(Doubt("no_cards", "no cards found in this photo"))
    elif total < 21:
        doubts.append(Doubt("missing_cards", f"{total} cards read; a winning layout has at least 21"))
    elif total > 21 + max(0, quads - 1) + 3:
        doubts.append(Doubt("extra_cards", f"{total} cards read; more than a winning layout holds"))
    # confidence and colour
    for i, d in enumerate(dets):
        if d.taken_in:  # its weak peak is the doubt: no second one for the same finder score
            doubts.append(Doubt("taken_in_find", f"{d.card} at {_where(d)}: a weak find (finder score "
                                f"{d.finder_score:.2f}), taken in because only with it the layout "
                                "makes seven groups", [i]))
        weak = d.finder_score < p.low_find and not d.taken_in
        if d.card == "back":
            unsure = d.selected is not None and d.selected < p.low_select
            if weak or unsure:
                why = f", a card with probability {d.selected:.2f}" if unsure else ""
                doubts.append(Doubt("low_confidence", f"back at {_where(d)}: finder score "
                                    f"{d.finder_score:.2f}{why}", [i]))
            continue
        unsure = d.selected is not None and d.selected < p.low_select
        if d.class_prob < p.low_confidence or weak or unsure:
            alt = f" (or {d.alternatives[0][0]})" if d.alternatives else ""
            why = f", a card with probability {d.selected:.2f}" if unsure else ""
            doubts.append(Doubt("low_confidence", f"{d.card}{alt} at {_where(d)}: read with "
                                f"probability {d.class_prob:.2f}{why}", [i]))
        if d.read_as:
            doubts.append(Doubt("reread", f"{d.card} at {_where(d)}: read as {d.read_as}, but only "
                                f"{d.card} makes seven groups", [i]))
        if d.card in FACES and not d.color_ok and d.color_margin > p.color_margin:
            doubts.append(Doubt("colour", f"{d.card} at {_where(d)} looks {d.color}, but "
                                f"{d.card} is {'red' if Card.parse(d.card).is_red else 'black'}", [i]))
    if not dets:
        complete = False
    complete = complete and bool(groups or hand)
    if complete:
        doubts += claimed_row(cols, dets, layout, p)
    return Assembled(layout, complete, doubts)


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
    if guess not in {*p.row_doubts, "swapped"} or not _as_proposed(rows):
        return []
    faceup = [i for c in rows if "back" not in c.cards and len(c.cards) >= 3 for i in c.detections]
    if guess == "swapped":  # the rules chose the rows: always worth a look
        return [Doubt("claimed_row", f"which face-up groups were claimed in play is told only by "
                      f"their row, and {ROW_GUESSES[guess]}; flip the groups that are wrong", faceup)]
    base = {k: v for k, v in layout.items() if k not in ("groups", "hand")}
    other = assemble(_other_way_round(cols, ""), dets, base, p)
    if not other.complete:
        return []
    try:
        now, then = score(layout), score(other.layout)
    except ZipaiError:
        return []
    if all(now.get(k) == then.get(k) for k in ("winning", "score", "payouts")):
        return []
    return [Doubt("claimed_row", f"which face-up groups were claimed in play is told only by their row, "
                  f"and {ROW_GUESSES.get(guess, guess)}: as proposed, {_outcome(now)}; with the rows "
                  f"the other way round, {_outcome(then)}; flip the groups that are wrong", faceup)]


def _as_proposed(rows: Sequence[Column]) -> bool:
    """Whether every group's state is still the one ``propose_states`` gave its row."""
    probe = [replace(c) for c in rows]
    propose_states(probe)
    return all(a.state == b.state for a, b in zip(rows, probe, strict=True))


def _outcome(result: dict[str, Any]) -> str:
    if not result.get("winning"):
        return "not a win"
    return f"{result.get('points')} points, score {result.get('score')}"


def _where(d: Detection) -> str:
    x, y = d.center
    return f"({x:.0f}, {y:.0f})"
