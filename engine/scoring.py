"""What every rule set's scoring shares (RULINGS sections 3, 4 and 6): how the hand was won,
the settled outcome, the recorder of the working, and every-seat-pays.

The points, specials and settlement of each rule set live with it, in engine/variants/.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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


class Working:
    """The score's working, one line at a time, as the contract's ``steps`` give it: the
    settlement writes every line here; the search settles with ``SILENT``, which keeps none."""

    __slots__ = ("steps",)

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []

    def __call__(self, code: str, value: int, **extra: Any) -> None:
        """One line: ``code`` names it, ``value`` is its number."""
        self.steps.append({"code": code, "value": value, **extra})


class _Silent(Working):
    """Keeps nothing: the decomposition search settles every candidate, and only the claimed
    one is worked out."""

    __slots__ = ()

    def __call__(self, code: str, value: int, **extra: Any) -> None:
        return None


SILENT: Working = _Silent()


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


def below_minimum(base: int, minimum: int, unit: str) -> Outcome:
    """The outcome of a base short of the minimum (no special lifts it)."""
    return Outcome(False, reason=("below_minimum", f"{base} {unit} is below the minimum of {minimum}"))
