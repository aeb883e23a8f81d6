"""Points, specials and payouts per rule set (RULINGS sections 3, 4 and 6).

Each special is one small function named for it; each rule set's ``settle`` picks
the hand score and the payouts. Everything works on a ``Layout``: seven groups plus
the facts of how the hand was won.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .groups import Group, Kind, State
from .rules import Rules

_GUANGXI, _HUNAN = Rules("guangxi"), Rules("hunan")  # the points tables of section 3

SPECIAL_NAMES = {
    "tianfu": "天福", "difu": "地福", "wufu": "乌福", "hongfu": "红福", "piaofu": "飘福",
    "thirty": "三十福", "tianhu": "天胡", "dihu": "地胡", "zimo": "自摸",
    "sanlong": "三龙", "wukan": "五坎", "sanlong_wukan": "三笼五坎",
}


@dataclass(frozen=True, slots=True)
class Context:
    """How the hand was won: seats and the manner of the win (RULINGS section 5)."""

    players: int
    dealer: int
    winner: int
    won_by: str
    discarder: int | None = None
    first_discard: bool = False
    xing: tuple[int, ...] = ()  # turned cards (Guilin 醒), as indices

    @property
    def idle(self) -> int | None:
        """数审: with four Hunan players the dealer's opposite sits the hand out."""
        return (self.dealer + 2) % 4 if self.players == 4 else None


@dataclass(slots=True)
class Outcome:
    winning: bool
    score: int = 0
    specials: list[str] = field(default_factory=list)
    payouts: list[int] = field(default_factory=list)
    transfers: list[list[int]] = field(default_factory=list)
    reason: tuple[str, str] | None = None
    extra: dict[str, int] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)  # the working, as the contract gives it


def step(code: str, value: int, **extra: Any) -> dict[str, Any]:
    """One line of a score's working: ``code`` names it, ``value`` is its number."""
    return {"code": code, "value": value, **extra}


def group_points(group: Group, rules: Rules) -> int:
    """胡息/福/油 of one group, RULINGS section 3."""
    kind = group.kind
    big = group.cards[0].big
    if kind is Kind.TRIPLE:
        if group.state is State.CONCEALED:
            return 6 if big else 3
        if rules.name == "guangxi" and group.cards[0].is_red:
            return 6 if big else 3
        return 3 if big else 1
    if kind is Kind.QUAD:
        if group.state is State.CONCEALED:
            return 12 if big else 9
        return 9 if big else 6
    if kind is Kind.ONE_TWO_THREE or kind is Kind.TWO_SEVEN_TEN:
        return 6 if big else 3
    return 0


def piece_points(piece: tuple[int, ...], open_: bool, rules: Rules) -> int:
    """Points of a group given as count-vector indices: a lookup for the search's hot loop."""
    return _piece_points(piece, open_, rules.name == "guangxi")


@lru_cache(maxsize=4096)
def _piece_points(piece: tuple[int, ...], open_: bool, guangxi: bool) -> int:
    group = Group.of(piece, State.OPEN if open_ else State.CONCEALED)
    return group_points(group, _GUANGXI if guangxi else _HUNAN)


def _pay_each(ctx: Context, amount: int, payer: int | None = None) -> tuple[list[int], list[list[int]]]:
    """Every other seat pays ``amount`` to the winner; or ``payer`` pays all the shares."""
    payouts = [0] * ctx.players
    transfers: list[list[int]] = []
    losers = [s for s in range(ctx.players) if s != ctx.winner]
    if payer is not None:
        total = amount * len(losers)
        transfers.append([payer, ctx.winner, total])
        payouts[payer] -= total
        payouts[ctx.winner] += total
        return payouts, transfers
    for s in losers:
        transfers.append([s, ctx.winner, amount])
        payouts[s] -= amount
        payouts[ctx.winner] += amount
    return payouts, transfers


# ---------------------------------------------------------------- Hunan 福

def tianfu(ctx: Context) -> int | None:
    """天福: the dealer's dealt hand is complete and reaches the minimum: 100 + 10."""
    return 110 if ctx.won_by == "dealt" and ctx.winner == ctx.dealer else None


def wufu(reds: int) -> int | None:
    """乌福: no red card anywhere in the seven groups: 100."""
    return 100 if reds == 0 else None


def hongfu(reds: int, base: int) -> int | None:
    """红福: 13 or more red cards score 100; 10 to 12 score twice the base, at most 100."""
    if reds >= 13:
        return 100
    return min(2 * base, 100) if reds >= 10 else None


def piaofu(base: int, rules: Rules) -> int | None:
    """飘福 (飘胡): a winning layout with no 福 at all: 30 (house option 100)."""
    return rules.options.piao if base == 0 else None


def thirty(base: int) -> int | None:
    """三十福: a base of 30 or more scores twice the base, at most 100."""
    return min(2 * base, 100) if base >= 30 else None


def difu(ctx: Context) -> bool:
    """地福: the dealer's first discard completes another player's hand."""
    return (ctx.won_by == "discard" and ctx.first_discard and ctx.discarder == ctx.dealer
            and ctx.winner != ctx.dealer)


def idle_share(score: int, version: int = 2) -> int:
    """数审's half of the score, 四舍五入 to tens with halves up (the seed's 地福: 110 → 60).

    >>> [idle_share(s) for s in (26, 30, 110)]
    [10, 20, 60]
    """
    if version < 2:
        return (score + 1) // 2
    return (score + 10) // 20 * 10


def hunan_normal(base: int, won_by: str, rules: Rules) -> tuple[int, str]:
    """The normal score and how it was reached (RULINGS section 6)."""
    if won_by == "self_draw":
        if rules.options.self_draw == "plus_ten":
            return base + 10, "plus_ten"
        if rules.options.rules_version >= 2 and base >= 30:
            return min(2 * base, 100), "double_capped"  # the capped doubling of the 30 rule
        return 2 * base, "double"
    if won_by == "discard":
        return base + 10, "discard"
    return base, "held"


def settle_hunan(base: int, reds: int, ctx: Context, rules: Rules, explain: bool = False) -> Outcome:
    """The hand score and round-total changes; ``explain`` also writes the working (the search
    settles every candidate, but only the claimed one is explained)."""
    minimum = rules.minimum(ctx.players)
    version = rules.options.rules_version
    reached = base >= minimum
    bonus = 10 if ctx.won_by in ("self_draw", "discard") else 0
    steps = [step("points", base), step("minimum", minimum, reached=reached)] if explain else []
    specials: dict[str, tuple[int, int]] = {}  # id: (its own value, the +10 on top)
    if reached and tianfu(ctx) is not None:
        specials["tianfu"] = (100, 10)
    for name, v, below_ok in (
        ("wufu", wufu(reds), True),
        ("hongfu", hongfu(reds, base), reds >= 13),
        ("piaofu", piaofu(base, rules), True),
        ("thirty", thirty(base), False),
    ):
        if v is not None and (reached or below_ok):
            specials[name] = (v, bonus)
    if reached and difu(ctx):
        specials = {"difu": (100, 10), **specials}
    if explain:
        steps += [step("special", v, id=name) for name, (v, _) in specials.items()]
    if not reached and not specials:
        return Outcome(False, reason=("below_minimum",
                                      f"{base} 福 is below the minimum of {minimum}"), steps=steps)
    payouts = [0] * ctx.players
    if "difu" in specials:  # the seed's own numbers: dealer −100, winner +110, 数审 +60
        payouts[ctx.dealer] -= 100
        payouts[ctx.winner] += 110
        if explain:
            steps += [step("bonus", 10, on="difu"), step("score", 110, **{"from": "difu"}),
                      step("discarder", -100, seat=ctx.dealer)]
        if ctx.idle is not None:
            payouts[ctx.idle] += 60
            if explain:
                steps.append(step("idle", 60, seat=ctx.idle, of=110))
        return Outcome(True, 110, list(specials), payouts, steps=steps)
    normal, how = hunan_normal(base, ctx.won_by, rules)
    score, source, extra = normal, "normal", 0
    for name, (v, plus) in specials.items():
        if v + plus > score:
            score, source, extra = v + plus, name, plus
    payouts[ctx.winner] += score
    loss = half = 0
    if ctx.won_by == "discard" and ctx.discarder is not None:
        # the discarder loses the hand's 福, not the winner's +10 ("扣除放炮的福头数")
        loss = score - 10 if version >= 2 else score
        payouts[ctx.discarder] -= loss
    if ctx.idle is not None:
        half = idle_share(score, version)
        payouts[ctx.idle] += half
    if explain:
        steps.append(step("normal", normal, how=how))
        if extra:
            steps.append(step("bonus", extra, on=source))
        steps.append(step("score", score, **{"from": source}))
        if loss:
            steps.append(step("discarder", -loss, seat=ctx.discarder))
        if ctx.idle is not None:
            steps.append(step("idle", half, seat=ctx.idle, of=score))
    return Outcome(True, score, list(specials), payouts, steps=steps)


# ---------------------------------------------------------------- Guangxi 油

def settle_guangxi(base: int, ctx: Context, rules: Rules, explain: bool = False) -> Outcome:
    minimum = rules.minimum(ctx.players)
    steps = [step("points", base), step("minimum", minimum, reached=base >= minimum)] if explain else []
    if base < minimum:
        return Outcome(False, reason=("below_minimum",
                                      f"{base} 油 is below the minimum of {minimum}"), steps=steps)
    losers = [s for s in range(ctx.players) if s != ctx.winner]
    if ctx.won_by == "dealt" and ctx.winner == ctx.dealer:
        score = base * rules.options.tianhu_multiplier
        payouts, transfers = _pay_each(ctx, score)
        if explain:
            steps += [step("special", score, id="tianhu", times=rules.options.tianhu_multiplier),
                      step("score", score), step("pay", score, seats=losers, times=1)]
        return Outcome(True, score, ["tianhu"], payouts, transfers, steps=steps)
    if ctx.won_by == "discard":
        payouts = [0] * ctx.players
        payouts[ctx.winner] += 2 * base
        assert ctx.discarder is not None
        payouts[ctx.discarder] -= 2 * base
        if explain:
            steps += [step("score", base), step("pay", 2 * base, seats=[ctx.discarder], times=2)]
        return Outcome(True, base, [], payouts, [[ctx.discarder, ctx.winner, 2 * base]], steps=steps)
    payouts, transfers = _pay_each(ctx, base)
    if explain:
        steps += [step("score", base), step("pay", base, seats=losers, times=1)]
    return Outcome(True, base, [], payouts, transfers, steps=steps)


def settle_guangxi_instant(points: int, specials: list[str], ctx: Context) -> Outcome:
    """起手胡: three quads or five triples after the deal; every other seat pays the points."""
    payouts, transfers = _pay_each(ctx, points)
    losers = [s for s in range(ctx.players) if s != ctx.winner]
    steps = [step("points", points), *(step("special", points, id=sp) for sp in specials),
             step("score", points), step("pay", points, seats=losers, times=1)]
    return Outcome(True, points, specials, payouts, transfers, steps=steps)


# ---------------------------------------------------------------- Guilin 胡

def zi_of(base: int, minimum: int) -> int:
    """子: 1 at 10 胡, one more every 3 胡 (minimum 10) or every 5 胡 (minimum 15)."""
    step = 5 if minimum >= 15 else 3
    return (base - 10) // step + 1


def xing_count(cards: list[int], ctx: Context, rules: Rules) -> int:
    """醒: the winner's cards matching each turned card's 上/本/下 neighbours."""
    total = 0
    for t in ctx.xing:
        form, r = t // 10, t % 10
        targets = {"up": form * 10 + (r - 1) % 10, "same": t, "down": form * 10 + (r + 1) % 10}
        for kind in rules.options.xing:
            total += cards.count(targets[kind])
    return total


def fan_items(ctx: Context, instant: bool) -> list[str]:
    """番 factors: 自摸, 天胡, 地胡, 三笼五坎."""
    items = []
    if ctx.won_by == "self_draw":
        items.append("zimo")
    if ctx.won_by == "dealt" and ctx.winner == ctx.dealer:
        items.append("tianhu")
    if ctx.won_by == "discard" and ctx.first_discard and ctx.discarder == ctx.dealer:
        items.append("dihu")
    if instant:
        items.append("sanlong_wukan")
    return items


def settle_guilin(base: int, cards: list[int], ctx: Context, rules: Rules,
                  instant: bool = False, explain: bool = False, xing: int | None = None) -> Outcome:
    """Each loser's share (子 + 醒) × 番; ``xing`` is a 醒 already counted (a hand entered by
    its total), else it is counted on ``cards`` against the turned cards."""
    minimum = rules.minimum(ctx.players)
    steps = [step("points", base), step("minimum", minimum, reached=instant or base >= minimum)
             ] if explain else []
    if not instant and base < minimum:
        return Outcome(False, reason=("below_minimum",
                                      f"{base} 胡 is below the minimum of {minimum}"), steps=steps)
    zi = zi_of(base, minimum)
    if instant:
        zi = max(zi, 1)
    if xing is None:
        xing = xing_count(cards, ctx, rules)
    items = fan_items(ctx, instant)
    if rules.options.fan_as_zi:
        fan = 1
        share = zi + xing + len(items)
    else:
        fan = 2 ** len(items)
        share = (zi + xing) * fan
    payer = ctx.discarder if ctx.won_by == "discard" else None
    payouts, transfers = _pay_each(ctx, share, payer)
    if explain:
        steps += [step("zi", zi, step=5 if minimum >= 15 else 3), step("xing", xing),
                  step("fan", len(items), items=items, as_zi=True) if rules.options.fan_as_zi
                  else step("fan", fan, items=items), step("score", share)]
        losers = [s for s in range(ctx.players) if s != ctx.winner]
        if payer is not None:
            steps.append(step("pay", share * len(losers), seats=[payer], times=len(losers)))
        else:
            steps.append(step("pay", share, seats=losers, times=1))
    return Outcome(True, share, items, payouts, transfers, extra={"zi": zi, "xing": xing, "fan": fan},
                   steps=steps)
