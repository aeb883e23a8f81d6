"""Where the cards lie: columns down the photo and rows across it, from the boxes alone.

Pure functions of the detections' boxes, classes and directions; no rule of the game but the
shape of a layout (cards of a group overlap down a column, the claimed groups lie in one row and
the revealed hand in another, a card or two lying apart is no group). The columns are drawn
here, and placed in rows by ``rows``; the rules come later, in the repairs (``repairs``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..detector import SYMMETRIC, Detection
from .column import HAND, LOOSE, TABLE, Column, Params
from .rows import rows_of, tell_rows


def scale(dets: Sequence[Detection]) -> float:
    """The photo's glyph size in pixels: the median face's longer side (a back's shorter side
    when no face was read)."""
    faces = [max(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in dets if d.card != "back"]
    if not faces:
        faces = [min(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in dets]
    faces.sort()
    return max(1.0, faces[len(faces) // 2])


# each detection's box in the layout's frame: (u0, u1, v0, v1), u across columns, v along them
Frame = list[tuple[float, float, float, float]]


def _frame(dets: Sequence[Detection], deg: float) -> Frame:
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
    typical = faces[len(faces) // 2] if faces else scale(dets)
    width = []
    downs = []
    tail = []
    fr = _frame(dets, axis_deg)
    for d in dets:
        g = max(d.box[2] - d.box[0], d.box[3] - d.box[1]) if d.card != "back" else typical
        width.append(p.card_per_glyph * min(max(g, 0.6 * typical), 1.6 * typical))
        reach = p.back_reach * p.card_per_glyph * typical
        dx, dy = d.down if d.card != "back" else _back_down(dets, d, (gx, gy), reach)
        # a glyph turned round against the layout is the far end of the last card in its
        # column (the only card that shows both ends): nothing follows it in that column
        tail.append(d.card != "back" and d.card not in SYMMETRIC
                    and dx * gx + dy * gy < -math.cos(math.radians(40)))
        if dx * gx + dy * gy < 0:  # 一二三十 and backs give only an axis: sign it like the layout
            dx, dy = -dx, -dy
        if dx * gx + dy * gy < math.cos(math.radians(40)):  # off the layout's axis: trust the layout
            dx, dy = gx, gy
        downs.append((dx, dy))
    # between two backs, distances are in the backs' own width: a back's box across the layout
    # is its card's width, in a photo from near far wider than the typical glyph makes it, and
    # the last back of a concealed column shows whole, its box centre far down the card
    back_width = [max(width[k], fr[k][1] - fr[k][0]) for k in range(n)]
    slack = math.tan(math.radians(p.down_slack))
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
            if dets[i].card == "back" and dets[j].card == "back":
                w = (back_width[i] + back_width[j]) / 2
            dv = (rx * dx + ry * dy) / w
            du = abs(rx * dy - ry * dx) / w
            # a card's glyph shows above the card on it, so two glyphs of a column never lie
            # level: two that do lie side by side (a discard beside a column's head, the next
            # column staggered by a step)
            if dets[i].card != "back" and dets[j].card != "back" \
                    and _overlap_along(dets[i].box, dets[j].box, dx, dy) > p.glyph_overlap:
                continue
            # a link to a far end is the longest in its column, and the reader's down direction
            # of a glyph may miss the card's by some degrees (it leans to the photo's edges), so
            # the far end may lie further across the link's line by the step times that angle
            to_far_end = tail[j] and dets[i].card != "back"
            reach = p.max_across + (dv * slack if to_far_end else 0.0)
            if p.min_step < dv < p.max_step and du < reach:
                cands.append((dv + p.across_cost * du, i, j, dv))
    # the usual step from one card to the next (glyph to glyph) in this photo: the gap to the
    # next row is several times longer, so face-to-face links far beyond it are cut
    best: dict[int, float] = {}
    for _, i, j, dv in cands:
        if dets[i].card != "back" and dets[j].card != "back":
            best[i] = min(best.get(i, math.inf), dv)
    # (the lower third of each card's nearest step ahead, not the median: a column's last card has
    # no next card, its nearest is across the gap, and the card before a far end reaches a card's
    # length on; in a layout of short columns those are half the steps)
    steps = sorted(best.values())
    usual = steps[len(steps) // 3] if steps else 1.0
    # (a link from a back is not: a back's box is the part of it that shows, its centre no
    # card's glyph; a link from a face to a back is, or a whole face over a concealed group's
    # backs would join it to the column of the next row lying in line with it)
    # (nor is a link to a glyph turned round, or to one that reads the same turned round: the
    # far end of the column's last card, which shows whole, lies a card's length less a glyph
    # past the usual step, ``Params.far_end``; the column's own steps settle the second below)
    cands = [c for c in cands if dets[c[1]].card == "back" or c[3] < p.step_factor * usual
             or ((tail[c[2]] or dets[c[2]].card in SYMMETRIC) and c[3] < usual + p.far_end)]
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
    # a column ends where a card shows whole and a gap follows. Within a column the cards
    # overlap by about the usual step; a step far beyond it either reaches the far end of the
    # column's last card (a card's length less a glyph on: a glyph turned round, or one that
    # reads the same turned round with no card or only a gap after it) or crosses the gap into
    # the next row's column, and is cut
    for head in [i for i in nxt if i not in prev]:
        chain = [head]
        while chain[-1] in nxt:
            chain.append(nxt[chain[-1]])
        for i in chain[:-1]:
            if i not in nxt:  # cut already, with the far end before it
                continue
            j = nxt[i]
            if dets[i].card == "back" or dets[j].card == "back" or step[i] <= p.column_break * usual:
                continue
            far = step[i] < usual + p.far_end
            if tail[j] and far:
                continue
            after = nxt.get(j)
            if far and dets[j].card in SYMMETRIC and (after is None or dets[after].card == "back"):
                continue
            if far and dets[j].card in SYMMETRIC and after is not None and step[j] > p.far_after * usual \
                    and not heads_column(j, after, nxt, step, p):
                i, j = j, after
            del prev[j]
            del nxt[i]
    for i, j in stacked_cuts(_chains(nxt, prev), [d.card == "back" for d in dets], fr):
        del prev[j]
        del nxt[i]
    for i, j in concealed_cuts(_chains(nxt, prev), [d.card == "back" for d in dets], step):
        del prev[j]
        del nxt[i]
    return list(nxt.items()) + lying_between(dets, nxt, prev, width, p)


def heads_column(j: int, after: int, nxt: dict[int, int], step: dict[int, float], p: Params) -> bool:
    """Whether card ``j``, linked far past a column's last card, heads a column of its own: the
    step from it to the card ``after`` it is the step down that column (within ``Params.far_after``
    of the next one), not the gap to the next row. A far end of the last card (a glyph that reads
    the same turned round) is followed by nothing, or by the gap to the next row; the head of the
    next row's column lying in line (一 of 一二三 under a column) is followed by its own cards, a
    step apart (in a photo from low down, wider than the photo's usual step)."""
    nxt_after = nxt.get(after)
    return nxt_after is not None and step[j] <= p.far_after * step[after]


def stacked_cuts(chains: Sequence[Sequence[int]], back: Sequence[bool],
                 fr: Sequence[tuple[float, float, float, float]]) -> list[tuple[int, int]]:
    """The links to cut where a chain runs from one group's backs into another's: a concealed
    group holds three or four cards (RULINGS section 7), so a chain whose cards from its first
    back to its last number more than four holds two groups, one row's laid in line over the
    next row's (links between backs are never cut for their length: a back's box is the part
    of it that shows). It is cut, again while still too long, at its link between those cards
    whose boxes lie furthest apart along the column (``fr``: each box in the layout's frame,
    ``(u0, u1, v0, v1)``): cards down one column overlap, the rows lie a gap apart."""
    cuts: list[tuple[int, int]] = []
    todo = [list(c) for c in chains]
    while todo:
        chain = todo.pop()
        at = [k for k, i in enumerate(chain) if back[i]]
        if not at or at[-1] - at[0] + 1 <= 4:
            continue
        k = max(range(at[0], at[-1]), key=lambda m: fr[chain[m + 1]][2] - fr[chain[m]][3])
        cuts.append((chain[k], chain[k + 1]))
        todo += [chain[:k + 1], chain[k + 1:]]
    return cuts


def _overlap_along(a: tuple[float, float, float, float], b: tuple[float, float, float, float],
                   dx: float, dy: float) -> float:
    """How much of the shorter of two boxes, along ``(dx, dy)``, the other covers."""
    def span(box: tuple[float, float, float, float]) -> tuple[float, float]:
        vs = [x * dx + y * dy for x in (box[0], box[2]) for y in (box[1], box[3])]
        return min(vs), max(vs)
    (a0, a1), (b0, b1) = span(a), span(b)
    return max(0.0, min(a1, b1) - max(a0, b0)) / max(1e-6, min(a1 - a0, b1 - b0))


def _back_down(dets: Sequence[Detection], back: Detection, layout: tuple[float, float],
               reach: float) -> tuple[float, float]:
    """A back's down direction: the axis of the (up to) three faces nearest it within ``reach``
    pixels, signed like the layout, else the layout's. The reader gives a back no direction worth
    trusting (its pattern reads the same every way), but a concealed group's backs lie as its
    face does, and a column leaning or fanned apart from the rest of the photo leans near them."""
    cx, cy = back.center
    near = sorted((math.hypot(d.center[0] - cx, d.center[1] - cy), k) for k, d in enumerate(dets)
                  if d.card != "back")
    downs = [dets[k].down for dist, k in near[:3] if dist < reach]
    if not downs:
        return layout
    ux, uy = _axial_mean(downs)
    return (-ux, -uy) if ux * layout[0] + uy * layout[1] < 0 else (ux, uy)


def lying_between(dets: Sequence[Detection], nxt: dict[int, int], prev: dict[int, int],
                  width: Sequence[float], p: Params) -> list[tuple[int, int]]:
    """Links that take a face linked to nothing into the column it lies in, between two linked
    cards (``nxt``, ``prev``: the column links; ``width``: each card's width in pixels), close
    across the line between them (``Params.max_across``).

    A card under others may show only part of its glyph, or a box of its visible part: the box
    centre is no glyph centre, so its own steps miss the usual one and it links to nothing; yet
    it lies on its column. A loose card lying on a column would cover it, so a lone face there
    is the column's."""
    out = []
    for f, d in enumerate(dets):
        if d.card == "back" or f in nxt or f in prev:
            continue
        fx, fy = d.center
        best: tuple[float, int] | None = None
        for i, k in nxt.items():
            (ax, ay), (bx, by) = dets[i].center, dets[k].center
            sx, sy = bx - ax, by - ay
            n2 = sx * sx + sy * sy
            if n2 <= 0:
                continue
            t = ((fx - ax) * sx + (fy - ay) * sy) / n2
            if not 0 < t < 1:
                continue
            off = abs((fx - ax) * sy - (fy - ay) * sx) / math.sqrt(n2) / ((width[i] + width[k]) / 2)
            if off < p.max_across and (best is None or off < best[0]):
                best = (off, i)
        if best is not None:
            out.append((best[1], f))
    return out


def _chains(nxt: dict[int, int], prev: dict[int, int]) -> list[list[int]]:
    """The linked cards as chains, head first."""
    out = []
    for head in [i for i in nxt if i not in prev]:
        chain = [head]
        while chain[-1] in nxt:
            chain.append(nxt[chain[-1]])
        out.append(chain)
    return out


def concealed_cuts(chains: Sequence[Sequence[int]], back: Sequence[bool],
                   step: dict[int, float]) -> list[tuple[int, int]]:
    """The links to cut so that a column with backs is one concealed group: backs alone, or one
    face over them (RULINGS section 7; a face at either end, as the photo may be turned round).

    A chain that runs from a group's backs on into faces has crossed into the next column of the
    row beyond (or come from it): a concealed group holds three or four cards, so four backs
    keep no face; of a face at each end, the one that ends its side of the chain stays (a face
    followed by more faces heads a column of its own), the nearer if both do; a lone face past
    three backs stays only if nothing follows it, past two backs it stays (three cards at least).
    ``step`` is each link's length (from a card to the next), ``back`` whether a card is a back."""
    cuts: list[tuple[int, int]] = []
    for chain in chains:
        at = [k for k, i in enumerate(chain) if back[i]]
        if not at or all(back[i] for i in chain):
            continue
        first, last = at[0], at[-1]
        pre, post = chain[:first], chain[last + 1:]
        inner = any(not back[i] for i in chain[first:last + 1])
        if len(pre) + len(post) + inner <= 1:
            continue
        backs = len(at)
        keep: int | None = None
        if not inner and backs < 4:
            sides = [(step[pre[-1]], pre[-1], len(pre))] if pre else []
            sides += [(step[chain[last]], post[0], len(post))] if post else []
            ends = [(dv, i) for dv, i, n in sides if n == 1]
            if ends:
                keep = min(ends)[1]
            elif backs == 2:  # a face over two backs, the next column's cards beyond it
                keep = min((dv, i) for dv, i, _ in sides)[1]
        if pre:
            if keep == pre[-1]:
                if len(pre) > 1:
                    cuts.append((pre[-2], pre[-1]))
            else:
                cuts.append((pre[-1], chain[first]))
        if post:
            if keep == post[0]:
                if len(post) > 1:
                    cuts.append((post[0], post[1]))
            else:
                cuts.append((chain[last], post[0]))
    return cuts


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


def _axial_mean(downs: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The mean of directions taken as axes (a direction and its opposite count alike), as a
    unit vector of either sense: the caller signs it."""
    c2 = sum(math.cos(2 * math.atan2(dy, dx)) for dx, dy in downs)
    s2 = sum(math.sin(2 * math.atan2(dy, dx)) for dx, dy in downs)
    th = 0.5 * math.atan2(s2, c2)
    return math.cos(th), math.sin(th)


def card_axis(dets: Sequence[Detection]) -> float:
    """The direction cards run (top to bottom) in the photo, in degrees for ``_frame``, from the
    reader's per-glyph down directions: an axial mean, signed by the majority of the glyphs
    that show which way is down (一二三十 read the same turned round, and the reader's down for
    them points either way)."""
    downs = [d.down for d in dets if d.card != "back"] or [d.down for d in dets]
    if not downs:
        return 0.0
    ux, uy = _axial_mean(downs)
    signed = [d.down for d in dets if d.card != "back" and d.card not in SYMMETRIC] or downs
    if sum(dx * ux + dy * uy for dx, dy in signed) < 0:
        ux, uy = -ux, -uy
    return math.degrees(math.atan2(-ux, uy))


def columns(dets: Sequence[Detection], p: Params | None = None,
            laid: Sequence[Sequence[int]] = ()) -> list[Column]:
    """Cluster detections into columns and the columns into rows (table row first). ``laid``:
    columns already drawn (indices into ``dets``), kept whole and placed in the rows as they are."""
    p = p or Params()
    if not dets:
        return []
    fixed = {i for c in laid for i in c}
    free = [i for i in range(len(dets)) if i not in fixed]
    axis = card_axis([dets[i] for i in free] or dets)
    # a face card turned well away from the layout's axis was dropped or discarded, not laid;
    # but three or four of them overlapping down a column of their own are a group laid turned
    off = [i for i in free if _off_axis(dets[i], axis, p)]
    if off and len(off) < len(free):
        turned = _turned(dets, off, p)
        taken = {i for c in turned for i in c}
        keep = [i for i in range(len(dets)) if i not in set(off) or i in taken]
        at = {g: k for k, g in enumerate(keep)}
        inner = columns([dets[i] for i in keep], p, [[at[i] for i in c] for c in (*laid, *turned)])
        for col in inner:
            col.detections = [keep[i] for i in col.detections]
        strays = [Column([i], [dets[i].card], LOOSE) for i in off if i not in taken]
        return inner + strays
    fr = _frame(dets, axis)
    links = chain_links([dets[i] for i in free], axis, p)
    comps = [[free[k] for k in comp] for comp in _components(len(free), links)] + [list(c) for c in laid]
    cols = []
    lone_backs: list[Column] = []
    for comp in comps:
        if len(comp) == 1 and dets[comp[0]].card == "back":
            # a concealed group shows two or more backs, or backs and a face, down its column;
            # a single back on its own is the stock pile (or a group too broken to name)
            lone_backs.append(Column(comp, ["back"], LOOSE))
            continue
        comp.sort(key=lambda i: fr[i][2])
        # a column's place across is its head's: a player lays each column from its head, and
        # a leaning or fanned column drifts across further down (its cards' mean with it)
        cols.append((comp, min(fr[i][2] for i in comp), max(fr[i][3] for i in comp),
                     (fr[comp[0]][0] + fr[comp[0]][1]) / 2))
    return rows_of(cols, dets, fr, p) + lone_backs


def _turned(dets: Sequence[Detection], off: Sequence[int], p: Params) -> list[list[int]]:
    """The columns of three or four cards (a group's shape) that the cards ``off`` (indices into
    ``dets``, faces turned away from the layout's axis) make among themselves, along their own
    axis: a group a player laid askew of the rest, not a discard (loose cards lie one by one)."""
    if len(off) < 3:
        return []
    cols = columns([dets[i] for i in off], p)
    return [[off[i] for i in c.detections] for c in cols if c.row != LOOSE and 3 <= len(c.cards) <= 4]


def layout_frame(dets: Sequence[Detection]) -> Frame:
    """Each detection's box in the layout's frame (across, along the cards' axis)."""
    return _frame(dets, card_axis(dets))


def retell_rows(cols: Sequence[Column], dets: Sequence[Detection], fr: Frame | None = None,
                ) -> list[Column] | None:
    """The claimed and the hand row told again from the cards the layout keeps (``tell_rows``),
    when cards that told them apart were since left out (a lone card the rules took for a
    discard); new columns, their rows and ``row_guess`` set (their states are the caller's to
    propose), or None when the rows are told as they were, or were split or swapped by a rule
    the cards do not decide. ``fr``: ``layout_frame(dets)``, where the caller has it."""
    kept = [c for c in cols if c.cards and c.row in (TABLE, HAND)]
    if not kept or any(c.row_guess in ("split", "swapped") for c in kept):
        return None
    by = {TABLE: [c for c in kept if c.row == TABLE], HAND: [c for c in kept if c.row == HAND]}
    if not by[TABLE] or not by[HAND]:
        return None
    fr = fr if fr is not None else layout_frame(dets)

    def along(row: list[Column]) -> float:
        at = [(fr[i][2] + fr[i][3]) / 2 for c in row for i in c.detections if 0 <= i < len(fr)]
        return sum(at) / len(at) if at else 0.0

    order = sorted((TABLE, HAND), key=lambda r: along(by[r]))
    table, guess = tell_rows([[c.cards for c in by[r]] for r in order])
    claimed = order[table]
    if claimed == TABLE and all(c.row_guess == guess for c in kept):
        return None
    swap = claimed != TABLE
    out = []
    for c in cols:
        if c.cards and c.row in (TABLE, HAND):
            c = c.copy(row=(HAND if c.row == TABLE else TABLE) if swap else c.row, row_guess=guess)
        else:
            c = c.copy()
        out.append(c)
    return out


def _off_axis(d: Detection, axis_deg: float, p: Params) -> bool:
    """Whether a face card lies more than ``p.off_axis`` degrees across the layout's axis. Only
    the axis counts, not the sense: the last card of a column shows both ends, and in a photo
    taken from the side either end may be the one that reads upright."""
    if d.card == "back":
        return False
    a = math.radians(axis_deg)
    cos = d.down[0] * -math.sin(a) + d.down[1] * math.cos(a)
    return abs(cos) < math.cos(math.radians(p.off_axis))


