"""湖南字牌 (Hunan, 福): specials on red cards and the 30 rule, 数审 with four players, and
round totals played to 100 (冲百福). RULINGS sections 3, 4 and 6."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from ..groups import Kind, State
from ..options import Options
from ..scoring import SILENT, Context, Outcome, Working, below_minimum
from .base import COMMON_OPTIONS, Names, Special, Variant, Win


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


def piaofu(base: int, options: Options) -> int | None:
    """飘福 (飘胡): a winning layout with no 福 at all: 30 (house option 100)."""
    return options.piao if base == 0 else None


def thirty(base: int) -> int | None:
    """三十福: a base of 30 or more scores twice the base, at most 100."""
    return min(2 * base, 100) if base >= 30 else None


def difu(ctx: Context) -> bool:
    """地福: the dealer's first discard completes another player's hand."""
    return (ctx.won_by == "discard" and ctx.first_discard and ctx.discarder == ctx.dealer
            and ctx.winner != ctx.dealer)


def idle_share(score: int, version: int = 2, rounding: str = "tens") -> int:
    """数审's half of the score, 四舍五入 to tens with halves up (the seed's 地福: 110 → 60);
    the house option ``idle_rounding = "units"`` (and rules version 1) rounds to a point.

    >>> [idle_share(s) for s in (26, 30, 110)]
    [10, 20, 60]
    >>> [idle_share(s, rounding="units") for s in (26, 27, 110)]
    [13, 14, 55]
    """
    if version < 2 or rounding == "units":
        return (score + 1) // 2
    return (score + 10) // 20 * 10


def hunan_normal(base: int, won_by: str, options: Options) -> tuple[int, str]:
    """The normal score and how it was reached (RULINGS section 6)."""
    if won_by == "self_draw":
        if options.self_draw == "plus_ten":
            return base + 10, "plus_ten"
        if options.rules_version >= 2 and base >= 30:
            return min(2 * base, 100), "double_capped"  # the capped doubling of the 30 rule
        return 2 * base, "double"
    if won_by == "discard":
        return base + 10, "discard"
    return base, "held"


def _plus_ten(win: Win) -> int:
    """The +10 of a win by self-draw or by discard, on top of a special."""
    return 10 if win.ctx.won_by in ("self_draw", "discard") else 0


def _thirty_plus(win: Win) -> int:
    """The 30 rule's +10: on a self-draw only with the house option ``thirty_plus_ten``."""
    if win.ctx.won_by == "self_draw" and not win.options.thirty_plus_ten:
        return 0
    return _plus_ten(win)


def _ten(win: Win) -> int:
    return 10


def _below(win: Win) -> bool:
    """乌福 and 红福 below the minimum: the project's reading, a house option."""
    return win.options.specials_below_minimum


SPECIALS = (
    Special("difu", Names("地福", "地福", "地福 (first discard)"), 0,
            lambda w: 100 if w.reached and difu(w.ctx) else None, _ten),
    Special("tianfu", Names("天福", "天福", "天福 (dealt win)"), 1,
            lambda w: 100 if w.reached and tianfu(w.ctx) is not None else None, _ten),
    Special("wufu", Names("乌福", "烏福", "乌福 (no red)"), 2,
            lambda w: wufu(w.reds) if w.reached or _below(w) else None, _plus_ten),
    Special("hongfu", Names("红福", "紅福", "红福 (many red)"), 3,
            lambda w: hongfu(w.reds, w.base) if w.reached or (_below(w) and w.reds >= 13) else None,
            _plus_ten),
    Special("piaofu", Names("飘福", "飄福", "飘福 (no points)"), 4,
            lambda w: piaofu(w.base, w.options), _plus_ten),
    Special("thirty", Names("三十福", "三十福", "三十福 (30+)"), 5,
            lambda w: thirty(w.base) if w.reached else None, _thirty_plus),
)
"""Hunan's specials in the order they are applied: the first of the highest pays."""


class Hunan(Variant):
    name = "hunan"
    aliases = ("湖南",)
    title = "湖南字牌"
    names = Names("湖南字牌（福）", "湖南字牌（福）", "Hunan (福)")
    unit = "福"
    first_discard = True
    seats = (2, 4)
    minimums = (15, 20)
    any_minimum = True
    option_keys = COMMON_OPTIONS | {"self_draw", "piao", "specials_below_minimum", "thirty_plus_ten",
                                      "idle_rounding"}
    defaults = Options()  # the minimum follows the seat count
    group_names = MappingProxyType({
        (Kind.RUN, None): "顺子", (Kind.MIXED, None): "半边", (Kind.PAIR, None): "对子",
        (Kind.TRIPLE, State.OPEN): "碰", (Kind.TRIPLE, State.CONCEALED): "坎",
        (Kind.QUAD, State.OPEN): "跑", (Kind.QUAD, State.CONCEALED): "提",
    })
    specials = SPECIALS
    lists_transfers = False
    plays_rounds = True
    counts_reds = True
    forfeit_penalty = True

    def default_minimum(self, players: int) -> int:
        return 20 if players == 2 else 15  # 15 福, 20 with two players

    def minimum(self, players: int, options: Options) -> int:
        m = options.minimum  # one call fewer: every candidate of the search is settled
        return m if m is not None else (20 if players == 2 else 15)

    def idle(self, players: int, dealer: int) -> int | None:
        """数审: with four players the dealer's opposite sits the hand out."""
        return (dealer + 2) % 4 if players == 4 else None

    def settle(self, base: int, ctx: Context, options: Options, *, reds: int = 0,
               cards: Sequence[int] = (), xing: int | None = None, working: Working = SILENT) -> Outcome:
        """The hand score and round-total changes (the search settles every candidate, but
        only the claimed one is worked out)."""
        minimum = self.minimum(ctx.players, options)
        version = options.rules_version
        win = Win(base, minimum, ctx, options, reds)
        reached = win.reached
        working("points", base)
        working("minimum", minimum, reached=reached)
        specials = {s.id: (v, s.bonus(win)) for s, v in self.applied(win)}  # id: (value, the +10 on top)
        for name, (v, _) in specials.items():
            working("special", v, id=name)
        if not reached and not specials:
            return below_minimum(base, minimum, self.unit)
        payouts = [0] * ctx.players
        if "difu" in specials:  # the seed's own numbers: dealer −100, winner +110, 数审 +60
            payouts[ctx.dealer] -= 100
            payouts[ctx.winner] += 110
            working("bonus", 10, on="difu")
            working("score", 110, **{"from": "difu"})
            working("discarder", -100, seat=ctx.dealer)
            if ctx.idle is not None:
                payouts[ctx.idle] += 60
                working("idle", 60, seat=ctx.idle, of=110)
            return Outcome(True, 110, list(specials), payouts)
        normal, how = hunan_normal(base, ctx.won_by, options)
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
            half = idle_share(score, version, options.idle_rounding)
            payouts[ctx.idle] += half
        working("normal", normal, how=how)
        if extra:
            working("bonus", extra, on=source)
        working("score", score, **{"from": source})
        if loss:
            working("discarder", -loss, seat=ctx.discarder)
        if ctx.idle is not None:
            working("idle", half, seat=ctx.idle, of=score)
        return Outcome(True, score, list(specials), payouts)
