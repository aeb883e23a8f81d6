"""A hand entered by its total: the 福/油/胡 of the seven groups, typed, in place of the cards.

Scorekeepers who only want the ledger type the total a table has already counted. The rule set
turns it into the hand score and the payouts with the same functions the card path uses, and
the result keeps the card path's contract (``groups`` empty) with ``"entered_by": "total"``.
A total tells only what needs no card: the minimum, 飘福 (a total of 0), the 30 rule, and the
specials told by how the hand was won (天福, 地福, 天胡, Guilin's 番). 乌福 and 红福 need the
cards, and so do instant wins (三龙/五坎): those hands are entered card by card. A total is
at most what seven groups can make in the rule set (``most_points``: 72 in all three).

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
from functools import lru_cache
from typing import Any

from .api import parse_input, settle_base
from .cards import ALL_CARDS
from .errors import InputError
from .groups import Group, State
from .result import Result
from .rules import Rules
from .scoring import Working
from .variants import Variant

MAX_TOTAL = 72
"""The most seven groups score in every built-in rule set: six concealed big quads (12 each)
and the pair they allow (0); seven groups without a quad make at most 7 × 6 = 42. A rule set's
own bound is ``most_points``; a typed total above it is a typing slip."""
OLD_MAX_TOTAL = 84  # the bound of rules versions 1 and 2
MAX_XING = 21
CARD_FIELDS = ("groups", "hand", "winning_card")


@lru_cache(maxsize=16)
def most_points(variant: Variant) -> tuple[int, str]:
    """The most the seven groups can score under ``variant``'s group points, and how: six of
    its best quad and a pair (a layout holds a pair exactly when it holds a quad, and 21 +
    (quads − 1) cards), or seven of its best three-card group; mixes of the two lie between."""
    quad = max((Group([c] * 4, st) for c in ALL_CARDS for st in State), key=variant.group_points)
    threes = [Group([c] * 3, st) for c in ALL_CARDS for st in State]
    threes += [Group.parse(t) for t in ("x1x2x3", "d1d2d3", "x2x7x10", "d2d7d10")]
    three = max(threes, key=variant.group_points)
    name = variant.group_name
    by_quads = 6 * variant.group_points(quad)
    by_threes = 7 * variant.group_points(three)
    if by_quads >= by_threes:
        return by_quads, f"six {name(quad)} of big cards ({variant.group_points(quad)} each) and a pair"
    return by_threes, f"seven {name(three)} ({variant.group_points(three)} each)"


def _whole(value: Any, key: str, hi: int | None) -> int:
    """A whole number from 0 to ``hi`` (None: the rule set bounds it once it is known)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"field {key!r} must be a whole number, got {value!r}")
    if hi is None and value < 0:
        raise InputError(f"field {key!r} must be 0 or more, got {value}", code="bad_total")
    if hi is not None and not 0 <= value <= hi:
        raise InputError(f"field {key!r} must be 0 to {hi}, got {value}", code="bad_total")
    return value


# A total tells no red count: one red card triggers neither 乌福 (none) nor 红福 (ten or more).
_NO_RED_SPECIAL = 1


def score_total(obj: Any, rules: str | Rules | None = None) -> dict[str, Any]:
    """Score an input object whose ``total`` stands for the seven groups' points."""
    return total_result(obj, rules).to_json()


def total_result(obj: Any, rules: str | Rules | None = None) -> Result:
    """The typed result of a hand entered by its total."""
    if not isinstance(obj, Mapping):
        raise InputError(f"a hand must be a JSON object, got {type(obj).__name__}")
    given = [k for k in CARD_FIELDS if obj.get(k)]
    if given:
        raise InputError(f"a hand entered by total takes no cards: drop {given[0]!r} or 'total'",
                         code="total_with_cards")
    base = _whole(obj.get("total"), "total", None)
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
    most, how = most_points(r.variant)
    if r.options.rules_version < 3:  # the bound before version 3, so an old ledger replays as it was
        most, how = OLD_MAX_TOTAL, "the bound of rules versions 1 and 2"
    if base > most:
        shown = base if base < 10**9 else "of 10 digits or more"
        raise InputError(f"total {shown} is more than seven groups make in {r.name}: at most {most} "
                         f"{r.variant.unit} ({how})", code="bad_total")
    if ctx.won_by == "dealt" and ctx.winner != ctx.dealer and r.options.rules_version >= 3:
        raise InputError(f"seat {ctx.winner} is not the dealer (seat {ctx.dealer}): only the dealer wins "
                         "dealt, bar an instant win, and a total cannot express an instant win: "
                         "enter its cards", code="dealt_not_dealer")
    if xing and not r.variant.turned_cards:
        raise InputError(f"醒 is a Guilin count; {r.name} has none", code="bad_total")
    working = Working()
    out = settle_base(hand, base, _NO_RED_SPECIAL, [], working, xing=xing)
    return Result(r, ctx.players, out, working=tuple(working.steps), total=base)
