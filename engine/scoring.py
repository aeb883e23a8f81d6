"""Points, specials and payouts per rule set (RULINGS sections 3, 4 and 6).

Each special is one small function named for it; each rule set's ``settle`` picks
the hand score and the payouts. Everything works on a ``Layout``: seven groups plus
the facts of how the hand was won.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .groups import Group, Kind, State
from .rules import Rules

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


def settle_hunan(base: int, reds: int, ctx: Context, rules: Rules) -> Outcome:
    minimum = rules.minimum(ctx.players)
    reached = base >= minimum
    bonus = 10 if ctx.won_by in ("self_draw", "discard") else 0
    specials: dict[str, int] = {}
    if reached and (v := tianfu(ctx)) is not None:
        specials["tianfu"] = v
    for name, v, below_ok in (
        ("wufu", wufu(reds), True),
        ("hongfu", hongfu(reds, base), reds >= 13),
        ("piaofu", piaofu(base, rules), True),
        ("thirty", thirty(base), False),
    ):
        if v is not None and (reached or below_ok):
            specials[name] = v + bonus
    if not reached and not specials:
        return Outcome(False, reason=("below_minimum",
                                      f"{base} 福 is below the minimum of {minimum}"))
    if ctx.won_by == "self_draw":
        normal = 2 * base if rules.options.self_draw == "double" else base + 10
    elif ctx.won_by == "discard":
        normal = base + 10
    else:
        normal = base
    payouts = [0] * ctx.players
    if reached and difu(ctx):
        specials = {"difu": 110, **specials}
        payouts[ctx.dealer] -= 100
        payouts[ctx.winner] += 110
        if ctx.idle is not None:
            payouts[ctx.idle] += 60
        return Outcome(True, 110, list(specials), payouts)
    score = max([normal, *specials.values()])
    payouts[ctx.winner] += score
    if ctx.won_by == "discard" and ctx.discarder is not None:
        payouts[ctx.discarder] -= score
    if ctx.idle is not None:
        payouts[ctx.idle] += (score + 1) // 2
    return Outcome(True, score, list(specials), payouts)


# ---------------------------------------------------------------- Guangxi 油

def settle_guangxi(base: int, ctx: Context, rules: Rules) -> Outcome:
    minimum = rules.minimum(ctx.players)
    if base < minimum:
        return Outcome(False, reason=("below_minimum",
                                      f"{base} 油 is below the minimum of {minimum}"))
    if ctx.won_by == "dealt" and ctx.winner == ctx.dealer:
        score = base * rules.options.tianhu_multiplier
        payouts, transfers = _pay_each(ctx, score)
        return Outcome(True, score, ["tianhu"], payouts, transfers)
    if ctx.won_by == "discard":
        payouts = [0] * ctx.players
        payouts[ctx.winner] += 2 * base
        assert ctx.discarder is not None
        payouts[ctx.discarder] -= 2 * base
        return Outcome(True, base, [], payouts, [[ctx.discarder, ctx.winner, 2 * base]])
    payouts, transfers = _pay_each(ctx, base)
    return Outcome(True, base, [], payouts, transfers)


def settle_guangxi_instant(points: int, specials: list[str], ctx: Context) -> Outcome:
    """起手胡: three quads or five triples after the deal; every other seat pays the points."""
    payouts, transfers = _pay_each(ctx, points)
    return Outcome(True, points, specials, payouts, transfers)


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
                  instant: bool = False) -> Outcome:
    minimum = rules.minimum(ctx.players)
    if not instant and base < minimum:
        return Outcome(False, reason=("below_minimum",
                                      f"{base} 胡 is below the minimum of {minimum}"))
    zi = zi_of(base, minimum)
    if instant:
        zi = max(zi, 1)
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
    return Outcome(True, share, items, payouts, transfers, extra={"zi": zi, "xing": xing, "fan": fan})
