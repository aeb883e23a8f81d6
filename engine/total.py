"""A hand entered by its total: the 福/油/胡 of the seven groups, typed, in place of the cards.

Scorekeepers who only want the ledger type the total a table has already counted. The rule set
turns it into the hand score and the payouts with the same functions the card path uses, and
the result keeps the card path's contract (``groups`` empty) with ``"entered_by": "total"``.
A total tells only what needs no card: the minimum, 飘福 (a total of 0), the 30 rule, and the
specials told by how the hand was won (天福, 地福, 天胡, Guilin's 番). 乌福 and 红福 need the
cards, and so do instant wins (三龙/五坎): those hands are entered card by card.

>>> r = score_total({"rules": "hunan", "players": 3, "winner": 1, "won_by": "discard",
...                  "from": 2, "total": 18})
>>> r["score"], r["payouts"], r["entered_by"]
(28, [0, 28, -18], 'total')
>>> r = score_total({"rules": "guilin", "players": 3, "winner": 1, "won_by": "self_draw", "total": 18})
>>> r["zi"], r["fan"], r["score"], r["payouts"]
(3, 2, 6, [-6, 12, -6])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .api import parse_input
from .errors import InputError
from .rules import Rules
from .scoring import (
    SPECIAL_NAMES,
    Context,
    Outcome,
    _pay_each,
    difu,
    fan_items,
    piaofu,
    settle_guangxi,
    thirty,
    tianfu,
    zi_of,
)

# No seven groups score more: six concealed big quads (72) and their pair, or seven big
# concealed triples (42); a typed total above this is a typing slip.
MAX_TOTAL = 84
MAX_XING = 21
CARD_FIELDS = ("groups", "hand", "winning_card")


def _whole(value: Any, key: str, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"field {key!r} must be a whole number, got {value!r}")
    if not 0 <= value <= hi:
        raise InputError(f"field {key!r} must be 0 to {hi}, got {value}", code="bad_total")
    return value


def idle_share(score: int) -> int:
    """数审's gain: half the score, 四舍五入 to tens, halves up (110 → 60, 26 → 10, 30 → 20)."""
    return (score + 10) // 20 * 10


def _hunan(base: int, ctx: Context, rules: Rules) -> tuple[Outcome, list[dict[str, Any]]]:
    """Hunan 福 from the base alone (RULINGS section 6, the 点炮 rule in force)."""
    minimum = rules.minimum(ctx.players)
    reached = base >= minimum
    steps: list[dict[str, Any]] = [{"code": "points", "value": base},
                                   {"code": "minimum", "value": minimum, "reached": reached}]
    bonus = 10 if ctx.won_by in ("self_draw", "discard") else 0
    specials: dict[str, int] = {}
    if reached and (v := tianfu(ctx)) is not None:
        specials["tianfu"] = v
    if (v := piaofu(base, rules)) is not None:
        specials["piaofu"] = v
    if reached and (v := thirty(base)) is not None:
        specials["thirty"] = v
    if not reached and not specials:
        return Outcome(False, reason=("below_minimum", f"{base} 福 is below the minimum of {minimum}")), steps
    payouts = [0] * ctx.players
    if reached and difu(ctx):
        assert ctx.discarder is not None
        payouts[ctx.dealer] -= 100
        payouts[ctx.winner] += 110
        steps += [{"code": "special", "id": "difu", "value": 110},
                  {"code": "score", "value": 110, "from": "difu"},
                  {"code": "discarder", "seat": ctx.dealer, "value": -100}]
        if ctx.idle is not None:
            payouts[ctx.idle] += idle_share(110)
            steps.append({"code": "idle", "seat": ctx.idle, "value": idle_share(110), "of": 110})
        return Outcome(True, 110, ["difu", *specials], payouts), steps
    if ctx.won_by == "self_draw" and rules.options.self_draw == "double":
        normal, how = (2 * base, "double") if base < 30 else (min(2 * base, 100), "double_capped")
    elif ctx.won_by == "self_draw":
        normal, how = base + 10, "plus_ten"
    elif ctx.won_by == "discard":
        normal, how = base + 10, "discard"
    else:
        normal, how = base, "held"
    for sid, value in specials.items():
        steps.append({"code": "special", "id": sid, "value": value})
        if bonus:
            steps.append({"code": "bonus", "value": bonus, "on": sid})
    with_bonus = {sid: v + bonus for sid, v in specials.items()}
    if reached:
        steps.append({"code": "normal", "value": normal, "how": how})
    best = max(with_bonus, key=lambda k: with_bonus[k], default=None)
    if best is not None and (not reached or with_bonus[best] > normal):
        score, source = with_bonus[best], best
    else:
        score, source = normal, "normal"
    steps.append({"code": "score", "value": score, "from": source})
    payouts[ctx.winner] += score
    if ctx.won_by == "discard" and ctx.discarder is not None:
        payouts[ctx.discarder] -= score - 10
        steps.append({"code": "discarder", "seat": ctx.discarder, "value": -(score - 10)})
    if ctx.idle is not None:
        payouts[ctx.idle] += idle_share(score)
        steps.append({"code": "idle", "seat": ctx.idle, "value": idle_share(score), "of": score})
    return Outcome(True, score, list(specials), payouts), steps


def _pay_step(out: Outcome, ctx: Context, times: int) -> dict[str, Any]:
    seats = [s for s, v in enumerate(out.payouts) if v < 0]
    value = -out.payouts[seats[0]] if seats else 0
    return {"code": "pay", "value": value, "seats": seats, "times": times}


def _guangxi(base: int, ctx: Context, rules: Rules) -> tuple[Outcome, list[dict[str, Any]]]:
    minimum = rules.minimum(ctx.players)
    steps: list[dict[str, Any]] = [{"code": "points", "value": base},
                                   {"code": "minimum", "value": minimum, "reached": base >= minimum}]
    out = settle_guangxi(base, ctx, rules)
    if not out.winning:
        return out, steps
    steps += [{"code": "special", "id": s, "value": out.score} for s in out.specials]
    steps.append({"code": "score", "value": out.score})
    steps.append(_pay_step(out, ctx, 2 if ctx.won_by == "discard" else 1))
    return out, steps


def _guilin(base: int, xing: int, ctx: Context, rules: Rules) -> tuple[Outcome, list[dict[str, Any]]]:
    """子 from 胡, the typed 醒, 番 by how the hand was won; the discarder pays every share."""
    minimum = rules.minimum(ctx.players)
    steps: list[dict[str, Any]] = [{"code": "points", "value": base},
                                   {"code": "minimum", "value": minimum, "reached": base >= minimum}]
    if base < minimum:
        return Outcome(False, reason=("below_minimum", f"{base} 胡 is below the minimum of {minimum}")), steps
    zi = zi_of(base, minimum)
    items = fan_items(ctx, instant=False)
    steps += [{"code": "zi", "value": zi, "step": 5 if minimum >= 15 else 3},
              {"code": "xing", "value": xing}]
    if rules.options.fan_as_zi:
        fan, share = 1, zi + xing + len(items)
        steps.append({"code": "fan", "value": len(items), "items": items, "as_zi": True})
    else:
        fan = 2 ** len(items)
        share = (zi + xing) * fan
        steps.append({"code": "fan", "value": fan, "items": items})
    payer = ctx.discarder if ctx.won_by == "discard" else None
    payouts, transfers = _pay_each(ctx, share, payer)
    out = Outcome(True, share, items, payouts, transfers, extra={"zi": zi, "xing": xing, "fan": fan})
    steps.append({"code": "score", "value": share})
    steps.append(_pay_step(out, ctx, ctx.players - 1 if payer is not None else 1))
    return out, steps


def score_total(obj: Any, rules: str | Rules | None = None) -> dict[str, Any]:
    """Score an input object whose ``total`` stands for the seven groups' points."""
    if not isinstance(obj, Mapping):
        raise InputError(f"a hand must be a JSON object, got {type(obj).__name__}")
    given = [k for k in CARD_FIELDS if obj.get(k)]
    if given:
        raise InputError(f"a hand entered by total takes no cards: drop {given[0]!r} or 'total'",
                         code="total_with_cards")
    base = _whole(obj.get("total"), "total", MAX_TOTAL)
    raw_xing = obj.get("xing")
    xing = 0
    seats = {k: v for k, v in obj.items() if k not in ("total", *CARD_FIELDS)}
    if isinstance(raw_xing, int):  # a typed 醒 count (the card path takes turned cards instead)
        xing = _whole(raw_xing, "xing", MAX_XING)
        seats.pop("xing")
    elif raw_xing:
        raise InputError("a hand entered by total takes 醒 as a count: 'xing' must be a whole number")
    hand = parse_input(seats, rules)
    r, ctx = hand.rules, hand.ctx
    if xing and r.name != "guilin":
        raise InputError(f"醒 is a Guilin count; {r.name} has none", code="bad_total")
    if r.name == "hunan":
        out, steps = _hunan(base, ctx, r)
    elif r.name == "guangxi":
        out, steps = _guangxi(base, ctx, r)
    else:
        out, steps = _guilin(base, xing, ctx, r)
    n = ctx.players
    res: dict[str, Any] = {"rules": r.to_dict(), "winning": out.winning}
    if not out.winning and out.reason:
        res["reason"] = {"code": out.reason[0], "message": out.reason[1]}
    res.update(groups=[], points=base, text="",
               specials=[{"id": s, "name": SPECIAL_NAMES[s]} for s in out.specials] if out.winning else [],
               score=out.score if out.winning else 0)
    if r.name == "guilin":
        res.update(zi=out.extra.get("zi", 0), xing=out.extra.get("xing", 0), fan=out.extra.get("fan", 1))
    res["payouts"] = out.payouts if out.winning else [0] * n
    res["transfers"] = out.transfers if out.winning and r.name != "hunan" else []
    res.update(alternatives=[], steps=steps, entered_by="total", total=base)
    return res
