"""The scored hand as types: what the engine found, read by attribute; ``to_json()`` gives
the contract's object (docs/json.md), key for key and in the same order.

A scorer or an app reads ``result.winning``, ``result.groups[i].name`` or ``result.payouts``
and never indexes a dict; what is stored or printed is ``to_json()``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .rules import Rules
from .variants import Variant


@dataclass(frozen=True, slots=True)
class ScoredGroup:
    """One group of a decomposition: its cards as text, kind, state, native name and points."""

    cards: tuple[str, ...]
    kind: str
    state: str
    name: str  # in the rule set's region, simplified script
    points: int
    winning_card: bool = False  # the group the winning card completed
    _json: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # the JSON object is written once per group and copied per call (the engine shares
        # one ScoredGroup among every hand that has the group): to_json is on the hot path
        d: dict[str, Any] = {"cards": self.cards, "kind": self.kind, "state": self.state,
                             "name": self.name, "points": self.points}
        if self.winning_card:
            d["winning_card"] = True
        object.__setattr__(self, "_json", d)

    def to_json(self) -> dict[str, Any]:
        return {**self._json, "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Special:
    id: str
    name: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name}


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a hand does not win: a stable ``code`` and a message for people."""

    code: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class Alternative:
    """One way to split the hand, with what it would pay."""

    text: str
    points: int
    winning: bool
    score: int
    payouts: tuple[int, ...]
    groups: tuple[ScoredGroup, ...]

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "points": self.points, "winning": self.winning, "score": self.score,
                "payouts": list(self.payouts), "groups": _groups_json(self.groups)}


@dataclass(frozen=True, slots=True)
class Result:
    """A scored hand. ``text`` is None when the cards form no seven groups; ``total`` is the
    typed total of a hand entered by its total (then ``groups`` is empty)."""

    rules: Rules
    winning: bool
    points: int
    score: int
    payouts: tuple[int, ...]
    reason: Reason | None = None
    groups: tuple[ScoredGroup, ...] = ()
    text: str | None = None
    leftover: tuple[str, ...] = ()  # cards outside the groups (instant wins only)
    specials: tuple[Special, ...] = ()
    extra: tuple[tuple[str, int], ...] = ()  # the rule set's fields after the score (Guilin 子/醒/番)
    transfers: tuple[tuple[int, int, int], ...] = ()  # payer, payee, points
    steps: tuple[Mapping[str, Any], ...] = ()  # the working, one line a step
    alternatives: tuple[Alternative, ...] = ()  # every decomposition, the claimed one first
    winning_card_matters: tuple[str, ...] = ()  # hand cards whose place as the winning card matters
    total: int | None = None

    @property
    def variant(self) -> Variant:
        return self.rules.variant

    @property
    def entered_by(self) -> str:
        return "cards" if self.total is None else "total"

    def extra_value(self, key: str) -> int:
        """One of the rule set's extra fields (``zi``, ``xing``, ``fan``)."""
        return dict(self.extra)[key]

    def to_json(self) -> dict[str, Any]:
        """The contract's object, exactly as the engine has always written it."""
        out: dict[str, Any] = {"rules": self.rules.to_dict(), "winning": self.winning}
        if self.reason is not None:
            out["reason"] = self.reason.to_json()
        out["groups"] = _groups_json(self.groups)
        out["points"] = self.points
        if self.text is not None:
            out["text"] = self.text
        if self.leftover:
            out["leftover"] = list(self.leftover)
        out["specials"] = [s.to_json() for s in self.specials]
        out["score"] = self.score
        out.update(self.extra)
        out["payouts"] = list(self.payouts)
        out["transfers"] = [list(t) for t in self.transfers]
        steps = [dict(s) for s in self.steps]
        if self.text is None or self.total is not None:  # nothing laid out: the empty list first
            out["alternatives"] = [a.to_json() for a in self.alternatives]
            out["steps"] = steps
        else:
            out["steps"] = steps
            out["alternatives"] = [a.to_json() for a in self.alternatives]
        if self.winning_card_matters:
            out["winning_card_matters"] = list(self.winning_card_matters)
        if self.total is not None:
            out["entered_by"] = "total"
            out["total"] = self.total
        return out


def _groups_json(groups: tuple[ScoredGroup, ...]) -> list[dict[str, Any]]:
    """``[g.to_json() for g in groups]`` without a call per group (the hot path)."""
    return [{**g._json, "cards": list(g.cards)} for g in groups]


def transfers_of(rows: Sequence[Sequence[int]]) -> tuple[tuple[int, int, int], ...]:
    return tuple((a, b, c) for a, b, c in rows)
