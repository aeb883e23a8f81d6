"""The public call: an input object (the JSON contract) in, a result object out.

>>> r = score({"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock",
...            "groups": [{"cards": ["d5", "d5", "d5"], "state": "open"},
...                       {"cards": ["x10", "x10", "x10"], "state": "concealed"},
...                       {"cards": ["x1", "x2", "x3"], "state": "open"}],
...            "hand": "x4 x5 x6 d2 d7 d10 x9 x9 x9 d8 d8 x8".split()})
>>> r["winning"], r["points"], r["score"], r["payouts"]
(True, 18, 18, [0, 18, 0])
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import ALL_CARDS, Card, check_deck_limits
from .decompose import Split, TableTriple, fourth_card_moves, hand_splits
from .errors import CardError, GroupError, InputError, ZipaiError
from .groups import Group, Kind, State
from .result import Candidate, Reason, Result, Simultaneous
from .rules import Rules, get_rules
from .scoring import SILENT, Context, Outcome, Working
from .variants import variant_names

WON_BY = ("self_draw", "stock", "discard", "dealt")
_KEYS = {"rules", "options", "players", "dealer", "winner", "won_by", "from", "first_discard",
         "winning_card", "xing", "groups", "hand"}
_CARD_BY_TEXT: dict[str, Card] = {str(c): c for c in ALL_CARDS}


@dataclass(frozen=True, slots=True)
class Hand:
    """A validated input: rules, seats, table groups and free hand cards."""

    rules: Rules
    ctx: Context
    groups: tuple[Group, ...]
    hand: tuple[Card, ...]
    winning_card: Card | None = None


def _card(value: Any, where: str, n: int | None = None) -> Card:
    c = _CARD_BY_TEXT.get(value) if isinstance(value, str) else None
    if c is not None:
        return c
    if isinstance(value, str):
        try:
            return Card.parse(value)
        except CardError:
            pass
    place = where if n is None else f"{where}[{n}]"
    raise CardError(f"{place}: unknown card {value!r} (use x1…x10, d1…d10 or a Chinese numeral)")


def _cards(raw: list[Any], where: str) -> list[Card]:
    """Cards from their texts: a lookup each in the common case, else each parsed or refused."""
    try:
        return list(map(_CARD_BY_TEXT.__getitem__, raw))
    except (KeyError, TypeError):  # a Chinese numeral, another spelling, or not a card at all
        return [_CARD_BY_TEXT[c] if isinstance(c, str) and c in _CARD_BY_TEXT else _card(c, where, n)
                for n, c in enumerate(raw)]


def _int(obj: Mapping[str, Any], key: str, default: int | None = None) -> int:
    v = obj.get(key, default)
    if v is None:
        raise InputError(f"missing field {key!r}", code="missing_field")
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"field {key!r} must be a whole number, got {v!r}")
    return v


def parse_input(obj: Any, rules: str | Rules | None = None) -> Hand:
    """Check an input object and build a ``Hand``; ``rules`` (a CLI flag) wins over the object's."""
    if not isinstance(obj, Mapping):
        raise InputError(f"a hand must be a JSON object, got {type(obj).__name__}")
    unknown = [k for k in obj if k not in _KEYS]
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})",
                         code="unknown_field")
    rule_name = rules if rules is not None else obj.get("rules")
    if rule_name is None:
        *most, last = variant_names()
        raise InputError(f"missing field 'rules' ({', '.join(most)} or {last})", code="missing_field")
    r = get_rules(rule_name, obj.get("options") or {})
    variant = r.variant
    players = _int(obj, "players", 3)
    lo, hi = variant.seats
    if not lo <= players <= hi:
        raise InputError(f"{r.name} is played by {lo} to {hi} players, not {players}",
                         code="bad_seat")
    dealer = _int(obj, "dealer", 0)
    winner = _int(obj, "winner")
    for key, seat in (("dealer", dealer), ("winner", winner)):
        if not 0 <= seat < players:
            raise InputError(f"{key} seat {seat} is out of range 0–{players - 1}", code="bad_seat")
    won_by = obj.get("won_by")
    if won_by not in WON_BY:
        raise InputError(f"field 'won_by' must be one of {', '.join(WON_BY)}, got {won_by!r}")
    discarder = None
    if won_by == "discard":
        if obj.get("from") is None:
            raise InputError("a win by discard needs 'from', the seat that discarded",
                             code="missing_field")
        discarder = _int(obj, "from")
        if not 0 <= discarder < players:
            raise InputError(f"from seat {discarder} is out of range 0–{players - 1}",
                             code="bad_seat")
        if discarder == winner:
            raise InputError("the discarding seat cannot be the winner", code="bad_seat")
    first_discard = obj.get("first_discard", False)
    if not isinstance(first_discard, bool):
        raise InputError(f"field 'first_discard' must be true or false, got {first_discard!r}")
    idle = variant.idle(players, dealer)
    if idle is not None and idle in (winner, discarder):
        raise InputError(f"seat {idle} is 数审 (sits out this hand) and cannot win or discard",
                         code="bad_seat")
    raw_groups = obj.get("groups") or []
    if not isinstance(raw_groups, list):
        raise InputError("field 'groups' must be a list of {cards, state} objects")
    groups = []
    for n, g in enumerate(raw_groups):
        if not isinstance(g, Mapping) or not isinstance(g.get("cards"), list):
            raise InputError(f"groups[{n}] must be an object with a 'cards' list")
        cards = _cards(g["cards"], f"groups[{n}].cards")
        try:
            groups.append(Group(cards, g.get("state", "open")))
        except GroupError as exc:
            raise GroupError(f"groups[{n}]: {exc}") from None
    raw_hand = obj.get("hand") or []
    if not isinstance(raw_hand, list):
        raise InputError("field 'hand' must be a list of cards")
    hand = tuple(_cards(raw_hand, "hand"))
    check_deck_limits([c for g in groups for c in g.cards] + list(hand))
    winning = None
    if obj.get("winning_card") is not None:
        winning = _card(obj["winning_card"], "winning_card")
        if winning not in hand:
            raise InputError(f"winning_card {winning} is not among the hand cards",
                             code="bad_winning_card")
    raw_xing = obj.get("xing") or []
    if isinstance(raw_xing, str):
        raw_xing = [raw_xing]
    if not isinstance(raw_xing, list):
        raise InputError("field 'xing' must be a list of cards")
    xing = tuple(_card(c, "xing").index for c in raw_xing)
    ctx = Context(players, dealer, winner, won_by, discarder, first_discard, xing, idle)
    return Hand(r, ctx, tuple(groups), hand, winning)


DEALT_SEEDS = "seed 000 「當牌抓完之後，還沒有清牌之前」, seed 001 「庄家起手的牌」"


def check_dealt(hand: Hand) -> None:
    """A ``dealt`` win (rules version 3, RULINGS section 5): nothing open lies on the table
    yet, and only the dealer wins so, bar the instant wins where the rule set has them."""
    ctx = hand.ctx
    if ctx.won_by != "dealt" or hand.rules.options.rules_version < 3:
        return
    for n, g in enumerate(hand.groups):
        if g.state is State.OPEN:
            name = hand.rules.variant.group_name(g)
            raise InputError(f"groups[{n}] {name} {g} lies open on the table, but a dealt win (天胡/天福) "
                             f"has nothing open on the table ({DEALT_SEEDS})", code="dealt_open_group")
    if ctx.winner != ctx.dealer and _instant(hand) is None:
        variant = hand.rules.variant
        allowed = (f"; another seat wins dealt only by an instant win "
                   f"({'/'.join(variant.special_name(s) for s in variant.instant_specials)})"
                   if variant.instant_specials else "")
        raise InputError(f"seat {ctx.winner} is not the dealer (seat {ctx.dealer}): only the dealer wins "
                         f"dealt in {hand.rules.name}{allowed}", code="dealt_not_dealer")


def check_drawn_fourth(hand: Hand) -> None:
    """A ``self_draw`` hand holding the fourth copy of a table triple's card (rules version 3):
    that copy is the card just drawn, so a winning card marked elsewhere contradicts it."""
    w = hand.winning_card
    if w is None or hand.ctx.won_by != "self_draw" or hand.rules.options.rules_version < 3:
        return
    fourths = [g for g in hand.groups if g.kind is Kind.TRIPLE and hand.hand.count(g.cards[0]) == 1]
    if fourths and all(g.cards[0] != w for g in fourths):
        g = fourths[0]
        raise InputError(f"the hand holds {g.cards[0]}, the fourth of the table's "
                         f"{hand.rules.variant.group_name(g)} {g}: self-drawn, only it can be the card "
                         f"just drawn, not {w}", code="drawn_fourth")


# ------------------------------------------------------------------ evaluation

def _build(hand: Hand, split: Split) -> tuple[list[Group], int]:
    """Groups of one split: table first, then sets, then free pieces; and the winning group."""
    groups = list(hand.groups)
    win_at = -1
    if split.upgrade >= 0:
        t = groups[split.upgrade]
        groups[split.upgrade] = Group([*t.cards, t.cards[0]],
                                      State.OPEN if split.upgrade_open else State.CONCEALED)
        win_at = split.upgrade
    for n, s in enumerate(split.sets):
        g = Group.of(s, State.OPEN if n == split.open_set else State.CONCEALED)
        if n == split.open_set:
            win_at = len(groups)
        groups.append(g)
    w = hand.winning_card.index if hand.winning_card is not None else -1
    for p in split.pieces:
        if win_at < 0 and w in p:
            win_at = len(groups)
        groups.append(Group.of(p, State.CONCEALED))
    if win_at < 0 and w >= 0:
        win_at = next((i for i in range(len(hand.groups), len(groups)) if hand.winning_card in
                       groups[i].cards), -1)
    return groups, win_at


def _settle(hand: Hand, groups: list[Group], points: list[int], working: Working = SILENT) -> Outcome:
    v = hand.rules.variant
    reds = sum(1 for g in groups for c in g.cards if c.is_red) if v.counts_reds else 0
    cards = [c.index for g in groups for c in g.cards] if v.counts_cards else []
    return v.settle(sum(points), hand.ctx, hand.rules.options, reds=reds, cards=cards, working=working)


def settle_base(hand: Hand, base: int, reds: int, cards: list[int], working: Working = SILENT,
                xing: int | None = None) -> Outcome:
    """The rule set's settlement of a base; ``xing`` is a 醒 already counted."""
    return hand.rules.variant.settle(base, hand.ctx, hand.rules.options, reds=reds, cards=cards,
                                     working=working, xing=xing)


def layout_text(groups: Sequence[Group], table: int = 0) -> str:
    """Groups in text notation; ``table`` groups come before the ``|``."""
    left = " ".join([str(g) for g in groups[:table]])
    right = " ".join([g.text() for g in groups[table:]])
    return f"{left} | {right}".strip() if table else right


def _instant(hand: Hand) -> Candidate | None:
    """An instant win (Guangxi 起手胡 / Guilin 三笼五坎): at least three quads or five triples
    after the deal, where the rule set has them."""
    variant = hand.rules.variant
    if hand.ctx.won_by != "dealt" or not variant.instant_specials:
        return None
    dealt = [c.index for c in hand.hand]
    dealt += [c.index for g in hand.groups if g.state is State.CONCEALED for c in g.cards]
    counts = [dealt.count(i) for i in range(20)]
    quads = [i for i in range(20) if counts[i] == 4]
    triples = [i for i in range(20) if counts[i] >= 3]
    if len(quads) < 3 and len(triples) < 5:
        return None
    groups = [Group.of((i,) * counts[i], State.CONCEALED) for i in triples]
    rest = [0 if counts[i] >= 3 else counts[i] for i in range(20)]
    runs = _best_scoring_runs(rest)
    for g in runs:
        for c in g.cards:
            rest[c.index] -= 1
    groups += runs
    groups += [g for g in hand.groups if g.state is State.OPEN]
    leftover = tuple(ALL_CARDS[i] for i in range(20) for _ in range(rest[i]))
    points = [variant.group_points(g) for g in groups]
    cards = [c.index for c in hand.hand] + [c.index for g in hand.groups for c in g.cards]
    working = Working()
    outcome = variant.settle_instant(sum(points), len(quads), len(triples), cards, hand.ctx,
                                     hand.rules.options, working)
    text = layout_text(groups) + (" + " + " ".join(c.text for c in leftover) if leftover else "")
    return Candidate(groups, points, outcome, -1, text, leftover, tuple(working.steps))


def _best_scoring_runs(counts: list[int]) -> list[Group]:
    """The 一二三 / 二七十 groups that score most among leftover cards (leftovers allowed)."""
    out: list[Group] = []
    for base in (0, 10):  # small then big
        best: tuple[int, int] = (0, 0)
        for a in range(3):
            for b in range(3):
                c = counts
                if (c[base] >= a and c[base + 2] >= a and c[base + 1] >= a + b
                        and c[base + 6] >= b and c[base + 9] >= b and a + b > sum(best)):
                    best = (a, b)
        out += [Group.of((base, base + 1, base + 2))] * best[0]
        out += [Group.of((base + 1, base + 6, base + 9))] * best[1]
    return out


@dataclass(frozen=True, slots=True)
class _Search:
    """What the search needs of a hand, counted once (a hand is searched once per placement
    of the winning card when ``winning_card_matters`` asks)."""

    counts: list[int]
    table_quads: int
    table_triples: tuple[TableTriple | None, ...]
    table_pairs: int

    @classmethod
    def of(cls, hand: Hand) -> _Search:
        counts = [0] * 20
        for c in hand.hand:
            counts[c.index] += 1
        return cls(counts, sum(1 for g in hand.groups if g.kind is Kind.QUAD),
                   tuple(TableTriple(g.cards[0].index, g.state is State.OPEN)
                         if g.kind is Kind.TRIPLE else None for g in hand.groups),
                   sum(1 for g in hand.groups if g.kind is Kind.PAIR))

    def splits(self, hand: Hand, w: int, beyond_held: bool = False) -> list[Split]:
        """Every split with ``w`` (an index, or -1) as the winning card."""
        return hand_splits(self.counts, len(hand.groups), self.table_quads, w, hand.ctx.won_by,
                           self.table_triples, self.table_pairs, hand.rules.options.rules_version,
                           beyond_held)


def evaluate(hand: Hand, search: _Search | None = None) -> tuple[Candidate | None, list[Candidate]]:
    """The claimed decomposition (RULINGS section 3) and every distinct one."""
    cands: list[Candidate] = []
    seen: set[tuple[Any, ...]] = set()
    w = hand.winning_card.index if hand.winning_card is not None else -1
    variant = hand.rules.variant
    splits = (search or _Search.of(hand)).splits(hand, w)
    alone = len(splits) == 1  # the claim already: settled once, with its working
    for split in splits:
        if not alone:
            # the same groups reached twice (a pair taken before or after a run of its card):
            # sets and pieces never look alike, so their sorted indices name the groups
            sig = (tuple(sorted((s, n == split.open_set) for n, s in enumerate(split.sets))),
                   tuple(sorted(split.pieces)), split.upgrade, split.upgrade_open)
            if sig in seen:
                continue
            seen.add(sig)
        groups, win_at = _build(hand, split)
        points = [variant.group_points(g) for g in groups]
        working = Working() if alone else SILENT
        cands.append(Candidate(groups, points, _settle(hand, groups, points, working), win_at,
                               layout_text(groups, len(hand.groups)), working=tuple(working.steps)))
    inst = _instant(hand)
    if inst is not None:
        cands.append(inst)
    if not cands:
        return None, []
    if len(cands) > 1:
        winner = hand.ctx.winner
        cands.sort(key=lambda c: (c.key(winner), c.text))
    return cands[0], cands


def _split_bases(hand: Hand, splits: list[Split]) -> set[int]:
    """The points of each split, without building its groups."""
    piece_points = hand.rules.variant.piece_points
    table = [piece_points(tuple(c.index for c in g.cards), g.state is State.OPEN) for g in hand.groups]
    bases = set()
    for split in splits:
        base = sum(table)
        if split.upgrade >= 0:
            t = hand.groups[split.upgrade].cards[0].index
            base += piece_points((t,) * 4, split.upgrade_open) - table[split.upgrade]
        base += sum(piece_points(p, n == split.open_set) for n, p in enumerate(split.sets))
        base += sum(piece_points(p, False) for p in split.pieces)
        bases.add(base)
    return bases


def _best_pays(hand: Hand, bases: set[int]) -> Pays:
    """What the claimed decomposition among splits of these points pays: every split uses
    every card, so the red cards and the card list are the same for all and only the points
    differ (candidates that tie on the claim's key pay the same)."""
    if not bases:
        return NO_PAY
    cards = [c.index for g in hand.groups for c in g.cards] + [c.index for c in hand.hand]
    reds = sum(1 for c in cards if ALL_CARDS[c].is_red)
    winner = hand.ctx.winner
    best: tuple[tuple[int, int, int], Pays] | None = None
    for base in bases:
        o = settle_base(hand, base, reds, cards)
        key = (-int(o.winning), -(o.payouts[winner] if o.payouts else 0), -base)
        if best is None or key < best[0]:
            best = (key, (True, o.score, tuple(o.payouts)) if o.winning else NO_PAY)
    assert best is not None
    return best[1]


def _result(hand: Hand, best: Candidate | None, cands: list[Candidate], matters: Sequence[Card]) -> Result:
    """The result of a hand laid out card by card."""
    n = hand.ctx.players
    shown = tuple([c.text for c in matters])
    if best is None:
        total = len(hand.hand) + sum(len(g.cards) for g in hand.groups)
        return Result(hand.rules, n, unlaid=Reason(
            "not_seven_groups", f"the {total} cards do not form seven groups "
                                "(one pair exactly when there is a quad)"), winning_card_matters=shown)
    # the search settles every candidate without its working; the claimed one is worked out
    steps = best.working
    if not steps:
        working = Working()
        _settle(hand, best.groups, best.points, working)
        steps = tuple(working.steps)
    return Result(hand.rules, n, best.outcome, tuple(cands), steps, shown)


Pays = tuple[bool, int, tuple[int, ...]]  # whether a layout wins, its score and its payouts
NO_PAY: Pays = (False, 0, ())


def winning_card_matters(hand: Hand, cands: list[Candidate], search: _Search | None = None) -> list[Card]:
    """Hand cards whose placement as the winning card would change what the hand pays.

    Only a card taken from another player can change its group (RULINGS section 5): one
    held three or four times (碰/跑 on the win, or 搶招和), or the fourth of a table triple.
    ``cands`` are the hand's decompositions as held, the claimed one first: the placements
    that split the hand as held are worked out from their points, the rest are searched.
    """
    if hand.winning_card is not None:
        return []
    if hand.ctx.won_by == "self_draw":
        return _fourths_that_matter(hand, cands, search or _Search.of(hand))
    if hand.ctx.won_by not in ("stock", "discard"):
        return []
    search = search or _Search.of(hand)
    counts = search.counts
    on_table = {t.card: t for t in search.table_triples if t is not None}
    places = [i for i in range(20) if counts[i] >= 3 or (counts[i] == 1 and i in on_table)]
    if not places:
        return []
    o = cands[0].outcome if cands else None
    held = (True, o.score, tuple(o.payouts)) if o is not None and o.winning else NO_PAY
    held_bases = {sum(c.points) for c in cands}
    rules = hand.rules
    piece_points = rules.variant.piece_points
    out = []
    for i in places:
        n = counts[i]
        if n >= 3:  # the held set opened by the card: every held split, its set worth less
            delta = piece_points((i,) * n, False) - piece_points((i,) * n, True)
            bases = {b - delta for b in held_bases}
        elif "free" in fourth_card_moves(hand.ctx.won_by, on_table[i], rules.options.rules_version):
            bases = set(held_bases)  # the card left free splits the hand as held
        else:
            bases = set()
        bases |= _split_bases(hand, search.splits(hand, i, beyond_held=True))
        if _best_pays(hand, bases) != held:
            out.append(ALL_CARDS[i])
    return out


def _fourths_that_matter(hand: Hand, cands: list[Candidate], search: _Search) -> list[Card]:
    """A self-drawn win: the unmarked fourth copy of a table triple's card is the card just
    drawn (rules version 3), so it needs no mark; only when the hand holds the fourth of two
    table triples, one of which must be it, can its place change the score."""
    if hand.rules.options.rules_version < 3:
        return []
    counts = search.counts
    places = sorted({t.card for t in search.table_triples if t is not None and counts[t.card] == 1})
    if len(places) < 2:
        return []
    o = cands[0].outcome if cands else None
    held = (True, o.score, tuple(o.payouts)) if o is not None and o.winning else NO_PAY
    return [ALL_CARDS[i] for i in places
            if _best_pays(hand, _split_bases(hand, search.splits(hand, i))) != held]


def score_hand(obj: Any, rules: str | Rules | None = None) -> Result:
    """Score one input object into a typed ``Result``; raises a ``ZipaiError`` (a ValueError)
    on bad input."""
    if isinstance(obj, Mapping) and "total" in obj:  # entered by total: no cards to lay out
        from .total import total_result

        return total_result(obj, rules)
    hand = parse_input(obj, rules)
    check_dealt(hand)
    check_drawn_fourth(hand)
    search = _Search.of(hand)
    best, cands = evaluate(hand, search)
    return _result(hand, best, cands, winning_card_matters(hand, cands, search))


def score(obj: Any, rules: str | Rules | None = None) -> dict[str, Any]:
    """Score one input object into the JSON contract's object (``score_hand(...).to_json()``)."""
    return score_hand(obj, rules).to_json()


def score_json(text: str | bytes, rules: str | None = None) -> dict[str, Any]:
    """Parse JSON text then score it; a JSON error becomes a ``ZipaiError``."""
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ZipaiError(f"not valid JSON: {exc}", code="bad_json") from None
    except (ValueError, RecursionError):  # a 4,300-digit integer; arrays nested 100,000 deep
        raise ZipaiError("not valid JSON: a number too long or nesting too deep", code="bad_json") from None
    return score(obj, rules)


def simultaneous_result(objs: Sequence[Any], rules: str | Rules | None = None) -> Simultaneous:
    """Guangxi: two instant wins at once (RULINGS section 6), one event with two layouts.

    The higher points win alone; equal points both win, the third player pays each,
    and the two winners owe each other nothing.
    """
    if len(objs) != 2:
        raise InputError("a simultaneous instant win has exactly two layouts")
    first, second = (score_hand(o, rules) for o in objs)
    hands = [parse_input(o, rules) for o in objs]
    variant = hands[0].rules.variant
    if not variant.simultaneous_instant:
        raise InputError("simultaneous instant wins are a Guangxi rule")
    if hands[0].ctx.winner == hands[1].ctx.winner:
        raise InputError("the two instant wins must be by different seats")
    results = (first, second)
    for r, h in zip(results, hands, strict=True):
        if not (r.winning and h.ctx.won_by == "dealt" and any(
                s.id in variant.instant_specials for s in r.specials)):
            raise InputError(f"seat {h.ctx.winner}'s layout is not an instant win")
    n = hands[0].ctx.players
    a, b = first.score, second.score
    if a != b:
        win = 0 if a > b else 1
        return Simultaneous((hands[win].ctx.winner,), results, results[win].payouts, results[win].transfers)
    winners = {hands[0].ctx.winner, hands[1].ctx.winner}
    payouts = [0] * n
    transfers: list[tuple[int, int, int]] = []
    for h, r in zip(hands, results, strict=True):
        for s in range(n):
            if s not in winners:
                transfers.append((s, h.ctx.winner, r.score))
                payouts[s] -= r.score
                payouts[h.ctx.winner] += r.score
    return Simultaneous(tuple(sorted(winners)), results, tuple(payouts), tuple(transfers))


def score_simultaneous(objs: Sequence[Any], rules: str | Rules | None = None) -> dict[str, Any]:
    """The JSON of ``simultaneous_result`` (the contract's object, for the CLI and the wire)."""
    return simultaneous_result(objs, rules).to_json()
