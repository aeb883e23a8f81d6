"""桂林字牌 (Guilin, 胡): each loser pays (子 + 醒) × 番; a turned card (醒) counts the
winner's cards beside it; 三笼五坎 wins after the deal. RULINGS sections 3, 4 and 6."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from ..groups import Kind, State
from ..options import Options
from ..scoring import SILENT, Context, Outcome, Working, below_minimum, pay_each
from .base import COMMON_OPTIONS, Names, Special, Variant, Win


def zi_of(base: int, minimum: int) -> int:
    """子: 1 at 10 胡, one more every 3 胡 (minimum 10) or every 5 胡 (minimum 15)."""
    step = 5 if minimum >= 15 else 3
    return (base - 10) // step + 1


def xing_count(cards: Sequence[int], ctx: Context, options: Options) -> int:
    """醒: the winner's cards matching each turned card's 上/本/下 neighbours."""
    total = 0
    for t in ctx.xing:
        form, r = t // 10, t % 10
        targets = {"up": form * 10 + (r - 1) % 10, "same": t, "down": form * 10 + (r + 1) % 10}
        for kind in options.xing:
            total += cards.count(targets[kind])
    return total


SPECIALS = (
    Special("zimo", Names("自摸", "自摸", "自摸"), 0, lambda w: 1 if w.ctx.won_by == "self_draw" else None),
    Special("tianhu", Names("天胡", "天胡", "天胡"), 1,
            lambda w: 1 if w.ctx.won_by == "dealt" and w.ctx.winner == w.ctx.dealer else None),
    Special("dihu", Names("地胡", "地胡", "地胡"), 2,
            lambda w: 1 if (w.ctx.won_by == "discard" and w.ctx.first_discard
                            and w.ctx.discarder == w.ctx.dealer) else None),
    Special("sanlong_wukan", Names("三笼五坎", "三籠五坎", "三笼五坎"), 3, lambda w: 1 if w.instant else None,
            instant=True),
)
"""Guilin's 番 factors, each worth one 番 (×2, or +1 子 with ``fan_as_zi``): 自摸, 天胡, 地胡,
三笼五坎."""


class Guilin(Variant):
    name = "guilin"
    aliases = ("桂林",)
    title = "桂林字牌"
    names = Names("桂林字牌（胡）", "桂林字牌（胡）", "Guilin (胡)")
    unit = "胡"
    first_discard = True
    minimums = (10, 15)
    option_keys = COMMON_OPTIONS | {"xing", "fan_as_zi"}
    defaults = Options(minimum=10)
    group_names = MappingProxyType({
        (Kind.RUN, None): "一句话", (Kind.MIXED, None): "搭子", (Kind.PAIR, None): "将",
        (Kind.TRIPLE, State.OPEN): "碰", (Kind.TRIPLE, State.CONCEALED): "扫",
        (Kind.QUAD, State.OPEN): "开舵", (Kind.QUAD, State.CONCEALED): "扫穿",
    })
    specials = SPECIALS
    extra_fields = (("zi", 0), ("xing", 0), ("fan", 1))
    counts_cards = True
    turned_cards = True

    def settle(self, base: int, ctx: Context, options: Options, *, reds: int = 0,
               cards: Sequence[int] = (), xing: int | None = None, working: Working = SILENT) -> Outcome:
        """Each loser's share (子 + 醒) × 番; ``xing`` is a 醒 already counted (a hand entered
        by its total), else it is counted on ``cards`` against the turned cards."""
        return self._settle(base, cards, ctx, options, False, working, xing)

    def settle_instant(self, points: int, quads: int, triples: int, cards: Sequence[int], ctx: Context,
                       options: Options, working: Working = SILENT) -> Outcome:
        """三笼五坎: scores whatever its points, and doubles as a 番."""
        return self._settle(points, cards, ctx, options, True, working, None)

    def score_text(self, score: int, fields: Mapping[str, Any]) -> str:
        return f"({fields['zi']} 子 + {fields['xing']} 醒) × {fields['fan']} 番 = {score} per share"

    def _settle(self, base: int, cards: Sequence[int], ctx: Context, options: Options, instant: bool,
                working: Working, xing: int | None) -> Outcome:
        minimum = self.minimum(ctx.players, options)
        working("points", base)
        working("minimum", minimum, reached=instant or base >= minimum)
        if not instant and base < minimum:
            return below_minimum(base, minimum, self.unit)
        zi = zi_of(base, minimum)
        if instant:
            zi = max(zi, 1)
        if xing is None:
            xing = xing_count(cards, ctx, options)
        items = [s.id for s, _ in self.applied(Win(base, minimum, ctx, options, instant=instant))]
        if options.fan_as_zi:
            fan = 1
            share = zi + xing + len(items)
        else:
            fan = 2 ** len(items)
            share = (zi + xing) * fan
        payer = ctx.discarder if ctx.won_by == "discard" else None
        payouts, transfers = pay_each(ctx, share, payer)
        working("zi", zi, step=5 if minimum >= 15 else 3)
        working("xing", xing)
        if options.fan_as_zi:
            working("fan", len(items), items=items, as_zi=True)
        else:
            working("fan", fan, items=items)
        working("score", share)
        losers = [s for s in range(ctx.players) if s != ctx.winner]
        if payer is not None:
            working("pay", share * len(losers), seats=[payer], times=len(losers))
        else:
            working("pay", share, seats=losers, times=1)
        return Outcome(True, share, items, payouts, transfers, extra={"zi": zi, "xing": xing, "fan": fan})
