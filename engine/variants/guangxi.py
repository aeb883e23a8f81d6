"""广西大字牌 (Guangxi, 油): a fixed minimum the house picks, 天胡 multiplied, a discarder who
pays double, instant wins after the deal (起手胡) and the 下夥 penalty. RULINGS sections 3, 4, 6."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from ..groups import Group, Kind, State
from ..options import Options
from ..scoring import SILENT, Context, Outcome, Working, below_minimum, pay_each
from .base import COMMON_OPTIONS, Names, Special, Variant, Win

SPECIALS = (
    Special("tianhu", Names("天胡", "天胡", "天胡"), 0,
            lambda w: w.options.tianhu_multiplier
            if not w.instant and w.ctx.won_by == "dealt" and w.ctx.winner == w.ctx.dealer else None),
    Special("sanlong", Names("三龙", "三龍", "三龙 (3 quads)"), 1,
            lambda w: w.base if w.instant and w.quads >= 3 else None, instant=True),
    Special("wukan", Names("五坎", "五坎", "五坎 (5 triples)"), 2,
            lambda w: w.base if w.instant and w.triples >= 5 else None, instant=True),
)
"""Guangxi's specials: 天胡 multiplies the points (its value is the multiplier); an instant
win's 三龙 and 五坎 score the points (their value)."""


class Guangxi(Variant):
    name = "guangxi"
    aliases = ("广西", "廣西")
    title = "广西大字牌"
    names = Names("广西大字牌（油）", "廣西大字牌（油）", "Guangxi (油)")
    unit = "油"
    minimums = (15, 20, 25, 30)
    option_keys = COMMON_OPTIONS | {"tianhu_multiplier"}
    defaults = Options(minimum=15)
    group_names = MappingProxyType({
        (Kind.RUN, None): "顺子", (Kind.MIXED, None): "绞", (Kind.PAIR, None): "眼睛",
        (Kind.TRIPLE, State.OPEN): "碰", (Kind.TRIPLE, State.CONCEALED): "罩",
        (Kind.QUAD, State.OPEN): "开招", (Kind.QUAD, State.CONCEALED): "龙",
    })
    specials = SPECIALS
    simultaneous_instant = True
    misdeal_penalty = True
    hand_minimum = True

    def group_points(self, group: Group) -> int:
        """An open triple of red cards scores as a concealed one."""
        if group.kind is Kind.TRIPLE and group.state is State.OPEN and group.cards[0].is_red:
            return 6 if group.cards[0].big else 3
        return Variant.group_points(self, group)  # not super(): this is the search's hot path

    def settle(self, base: int, ctx: Context, options: Options, *, reds: int = 0,
               cards: Sequence[int] = (), xing: int | None = None, working: Working = SILENT) -> Outcome:
        minimum = self.minimum(ctx.players, options)
        working("points", base)
        working("minimum", minimum, reached=base >= minimum)
        if base < minimum:
            return below_minimum(base, minimum, self.unit)
        losers = [s for s in range(ctx.players) if s != ctx.winner]
        applied = self.applied(Win(base, minimum, ctx, options))
        if applied:  # 天胡, the one special of a hand played out
            special, times = applied[0]
            score = base * times
            payouts, transfers = pay_each(ctx, score)
            working("special", score, id=special.id, times=times)
            working("score", score)
            working("pay", score, seats=losers, times=1)
            return Outcome(True, score, [special.id], payouts, transfers)
        if ctx.won_by == "discard":
            payouts = [0] * ctx.players
            payouts[ctx.winner] += 2 * base
            assert ctx.discarder is not None
            payouts[ctx.discarder] -= 2 * base
            working("score", base)
            working("pay", 2 * base, seats=[ctx.discarder], times=2)
            return Outcome(True, base, [], payouts, [[ctx.discarder, ctx.winner, 2 * base]])
        payouts, transfers = pay_each(ctx, base)
        working("score", base)
        working("pay", base, seats=losers, times=1)
        return Outcome(True, base, [], payouts, transfers)

    def settle_instant(self, points: int, quads: int, triples: int, cards: Sequence[int], ctx: Context,
                       options: Options, working: Working = SILENT) -> Outcome:
        """起手胡: three quads (三龙) or five triples (五坎); every other seat pays the points."""
        win = Win(points, self.minimum(ctx.players, options), ctx, options, instant=True, quads=quads,
                  triples=triples)
        specials = [s.id for s, _ in self.applied(win)]
        payouts, transfers = pay_each(ctx, points)
        losers = [s for s in range(ctx.players) if s != ctx.winner]
        working("points", points)
        for sp in specials:
            working("special", points, id=sp)
        working("score", points)
        working("pay", points, seats=losers, times=1)
        return Outcome(True, points, specials, payouts, transfers)
