"""House options (RULINGS section 9): one typed object, and the check of each value.

Which keys a rule set takes, and which minimums, is the rule set's to say (engine/variants/);
this module knows only what a value of each key may be.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .errors import RulesError
from .text import short

# The engine's readings of the sources, numbered so a ledger replays a session under the
# rules it was recorded with. 1: before the corrections of 2026-12 (a fourth card may join
# any table triple when it came from another player and never when self-drawn; a Hunan
# discarder loses the whole score; 数审 takes half rounded to a point; 自摸 doubles uncapped).
# 2: RULINGS sections 5 and 6 of 2026-12. 3: the reread of 2026-12-07 (a self_draw hand's
# unmarked fourth copy of a table triple's card is the card just drawn and goes onto the
# triple; a `dealt` win has nothing open on the table and is the dealer's, bar instant wins).
RULES_VERSIONS = {1: "before 2026-12", 2: "2026-12", 3: "2026-12-07"}
CURRENT_RULES_VERSION = 3


@dataclass(frozen=True)
class Options:
    """House options, RULINGS section 9. ``minimum=None`` means the preset's default."""

    minimum: int | None = None
    self_draw: str = "double"
    piao: int = 30
    tianhu_multiplier: int = 2
    xing: tuple[str, ...] = ("up", "down")
    fan_as_zi: bool = False
    dealer_rotation: str = "winner"
    rules_version: int = CURRENT_RULES_VERSION
    # Hunan readings a table may play the other way (docs/rules.md, "the project's reading"):
    specials_below_minimum: bool = True  # 乌福 and 红福 (13+ reds) win below the minimum
    thirty_plus_ten: bool = True  # the 30 rule's capped doubling takes +10 on 自摸
    idle_rounding: str = "tens"  # 数审's half 四舍五入 to tens ("tens") or to a point ("units")

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["xing"] = list(self.xing)
        return out

    @cached_property
    def items(self) -> tuple[tuple[str, Any], ...]:
        """The options as (key, value) pairs, computed once per options object."""
        return tuple((f.name, getattr(self, f.name)) for f in dataclasses.fields(self))

    @cached_property
    def fields_dict(self) -> dict[str, Any]:
        """The options as one dict, built once: copy it, never change it (``Rules.to_dict``)."""
        return dict(self.items)


OPTION_KEYS = frozenset(Options.__dataclass_fields__)

BOUNDS: dict[str, tuple[int, int, str]] = {
    "minimum": (0, 100, "seven groups make at most 84 points, so a higher minimum no hand could reach"),
    "tianhu_multiplier": (1, 10, "天胡 at ten times the base is past any house's; a larger one is a slip"),
}
"""The numeric options' ranges and why: a value past them is a typing slip, and an unbounded
one grows every score and payout (a 4,000-digit multiplier makes numbers Python cannot print)."""


def check_value(key: str, value: Any, preset: str, minimums: tuple[int, ...] | None) -> Any:
    """One option value checked (and normalised); ``minimums`` are the allowed minimums of the
    rule set ``preset``, None when any whole number is allowed. The error names the key."""

    def need_int() -> int:
        lo, hi, why = BOUNDS[key]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise RulesError(f"option {key!r} must be a whole number from {lo} to {hi} ({why}), "
                             f"got {short(value)}")
        return value

    if key == "minimum":
        v = need_int()
        if minimums is not None and v not in minimums:
            raise RulesError(f"option 'minimum' for {preset} must be one of {minimums}, got {v}")
        return v
    if key == "self_draw":
        if value not in ("double", "plus_ten"):
            raise RulesError(f"option 'self_draw' must be 'double' or 'plus_ten', got {short(value)}")
        return value
    if key == "piao":
        if isinstance(value, bool) or not isinstance(value, int) or value not in (30, 100):
            raise RulesError(f"option 'piao' must be 30 or 100 (a whole number), got {short(value)}")
        return value
    if key == "tianhu_multiplier":
        return need_int()
    if key == "xing":
        if isinstance(value, str) or not isinstance(value, list | tuple) or not all(
            v in ("up", "same", "down") for v in value
        ):
            raise RulesError(f"option 'xing' must be a list of 'up', 'same', 'down', got {short(value)}")
        return tuple(v for v in ("up", "same", "down") if v in value)
    if key == "fan_as_zi":
        if not isinstance(value, bool):
            raise RulesError(f"option 'fan_as_zi' must be true or false, got {short(value)}")
        return value
    if key == "rules_version":
        if isinstance(value, bool) or not isinstance(value, int) or value not in RULES_VERSIONS:
            raise RulesError(f"option 'rules_version' must be one of {sorted(RULES_VERSIONS)}, "
                             f"got {short(value)}")
        return value
    if key == "dealer_rotation":
        if value not in ("winner", "next_seat"):
            raise RulesError(f"option 'dealer_rotation' must be 'winner' or 'next_seat', got {short(value)}")
        return value
    if key in ("specials_below_minimum", "thirty_plus_ten"):
        if not isinstance(value, bool):
            raise RulesError(f"option {key!r} must be true or false, got {value!r}")
        return value
    if key == "idle_rounding":
        if value not in ("tens", "units"):
            raise RulesError(f"option 'idle_rounding' must be 'tens' or 'units', got {value!r}")
        return value
    raise RulesError(f"unknown option {key!r}")  # pragma: no cover - callers check the key first
