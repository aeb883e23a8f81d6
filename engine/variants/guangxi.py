"""广西大字牌 (Guangxi, 油): a fixed minimum the house picks, 天胡 multiplied, a discarder who
pays double, instant wins after the deal (起手胡) and the 下夥 penalty. RULINGS sections 3, 4, 6."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..groups import Group, Kind, State
from ..options import Options
from ..scoring import Context, Outcome, below_minimum, pay_each, step
from .base import COMMON_OPTIONS, Variant
from .registry import register

if TYPE_CHECKING:
    from ..rules import Rules


@register
class Guangxi(Variant):
    name = "guangxi"
    aliases = ("广西", "廣西")
    title = "广西大字牌"
    unit = "油"
    minimums = (15, 20, 25, 30)
    option_keys = COMMON_OPTIONS | {"tianhu_multiplier"}
    defaults = Options(minimum=15)
    group_names = MappingProxyType({
        (Kind.RUN, None): "顺子", (Kind.MIXED, None): "绞", (Kind.PAIR, None): "眼睛",
        (Kind.TRIPLE, State.OPEN): "碰", (Kind.TRIPLE, State.CONCEALED): "罩",
        (Kind.QUAD, State.OPEN): "开招", (Kind.QUAD, State.CONCEALED): "龙",
    })
    specials = MappingProxyType({"tianhu": "天胡", "sanlong": "三龙", "wukan": "五坎"})
    instant_specials = ("sanlong", "wukan")
    simultaneous_instant = True
    misdeal_penalty = True
    hand_minimum = True

    def group_points(self, group: Group) -> int:
        """An open triple of red cards scores as a concealed one."""
        if group.kind is Kind.TRIPLE and group.state is State.OPEN and group.cards[0].is_red:
            return 6 if group.cards[0].big else 3
        return Variant.group_points(self, group)  # not super(): this is the search's hot path

    def settle(self, base: int, ctx: Context, rules: Rules, *, reds: int = 0, cards: Sequence[int] = (),
               explain: bool = False, xing: int | None = None) -> Outcome:
        minimum = self.minimum(ctx.players, rules.options)
        steps = [step("points", base), step("minimum", minimum, reached=base >= minimum)] if explain else []
        if base < minimum:
            return below_minimum(base, minimum, self.unit, steps)
        losers = [s for s in range(ctx.players) if s != ctx.winner]
        if ctx.won_by == "dealt" and ctx.winner == ctx.dealer:
            times = rules.options.tianhu_multiplier
            score = base * times
            payouts, transfers = pay_each(ctx, score)
            if explain:
                steps += [step("special", score, id="tianhu", times=times),
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
        payouts, transfers = pay_each(ctx, base)
        if explain:
            steps += [step("score", base), step("pay", base, seats=losers, times=1)]
        return Outcome(True, base, [], payouts, transfers, steps=steps)

    def settle_instant(self, points: int, quads: int, triples: int, cards: Sequence[int], ctx: Context,
                       rules: Rules) -> Outcome:
        """起手胡: three quads (三龙) or five triples (五坎); every other seat pays the points."""
        specials = (["sanlong"] if quads >= 3 else []) + (["wukan"] if triples >= 5 else [])
        payouts, transfers = pay_each(ctx, points)
        losers = [s for s in range(ctx.players) if s != ctx.winner]
        steps = [step("points", points), *(step("special", points, id=sp) for sp in specials),
                 step("score", points), step("pay", points, seats=losers, times=1)]
        return Outcome(True, points, specials, payouts, transfers, steps=steps)
