"""What every rule set's scoring shares (RULINGS sections 3, 4 and 6): how the hand was won,
the settled outcome, one line of working, and every-seat-pays.

The points, specials and settlement of each rule set live with it, in engine/variants/.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .groups import Group
    from .rules import Rules


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
    idle: int | None = None  # 数审, the seat that sits the hand out, as the rule set says


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


def pay_each(ctx: Context, amount: int, payer: int | None = None) -> tuple[list[int], list[list[int]]]:
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


def below_minimum(base: int, minimum: int, unit: str, steps: list[dict[str, Any]]) -> Outcome:
    """The outcome of a base short of the minimum (no special lifts it)."""
    return Outcome(False, reason=("below_minimum", f"{base} {unit} is below the minimum of {minimum}"),
                   steps=steps)


def group_points(group: Group, rules: Rules) -> int:
    """胡息/福/油 of one group under ``rules``, RULINGS section 3."""
    return rules.variant.group_points(group)


def piece_points(piece: tuple[int, ...], open_: bool, rules: Rules) -> int:
    """Points of a group given as count-vector indices (the search's hot loop)."""
    return rules.variant.piece_points(piece, open_)
