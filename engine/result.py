"""The scored hand as types: what the engine found, read by attribute; ``to_json()`` gives
the JSON contract's object (docs/rules.md, "The JSON contract"), key for key and in the same order.

A scorer or an app reads ``result.winning``, ``result.groups[i].name`` or ``result.payouts``
and never indexes a dict; what is stored or printed is ``to_json()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from operator import attrgetter
from typing import Any

from .cards import Card
from .groups import Group, Kind, State
from .rules import Rules
from .scoring import Outcome
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
                "payouts": list(self.payouts), "groups": [g.to_json() for g in self.groups]}


@dataclass(slots=True)
class Candidate:
    """One decomposition the search found, settled (the engine's working record)."""

    groups: list[Group]
    points: list[int]
    outcome: Outcome
    winning_group: int
    text: str
    leftover: tuple[Card, ...] = ()  # cards outside the groups (instant wins only)
    working: tuple[Mapping[str, Any], ...] = ()  # its steps, where it was worked out (else empty)

    def key(self, winner: int) -> tuple[int, int, int]:
        o = self.outcome
        pay = o.payouts[winner] if o.payouts else 0
        return (-int(o.winning), -pay, -sum(self.points))


MAX_ALTERNATIVES = 64


@dataclass(frozen=True)
class Result:
    """A scored hand: read it by attribute (``winning``, ``score``, ``payouts``, ``groups``,
    ``alternatives``, ...); ``to_json()`` writes the contract's object.

    It keeps what the engine settled (the claimed decomposition first) and derives the typed
    views when first read, so that scoring to JSON builds each group's object once: the
    engine's speed is the product's (``zipai bench``)."""

    rules: Rules
    players: int
    settled: Outcome | None = None  # the claim's settlement; None when there was nothing to settle
    decompositions: tuple[Candidate, ...] = ()  # every one found, the claimed one first
    working: tuple[Mapping[str, Any], ...] = ()  # the claim's steps
    winning_card_matters: tuple[str, ...] = ()  # hand cards whose place as the winning card matters
    total: int | None = None  # a hand entered by its total
    unlaid: Reason | None = None  # why there was nothing to settle (the cards form no seven groups)

    # ------------------------------------------------------------ what it pays
    @property
    def variant(self) -> Variant:
        return self.rules.variant

    @property
    def entered_by(self) -> str:
        return "cards" if self.total is None else "total"

    @property
    def winning(self) -> bool:
        return self.settled is not None and self.settled.winning

    @property
    def reason(self) -> Reason | None:
        o = self.settled
        if o is None:
            return self.unlaid
        return Reason(*o.reason) if not o.winning and o.reason else None

    @property
    def points(self) -> int:
        if self.total is not None:
            return self.total
        return sum(self.decompositions[0].points) if self.decompositions else 0

    @property
    def score(self) -> int:
        return self.settled.score if self.winning and self.settled else 0

    @property
    def payouts(self) -> tuple[int, ...]:
        o = self.settled
        return tuple(o.payouts) if o is not None and o.winning else (0,) * self.players

    @property
    def transfers(self) -> tuple[tuple[int, int, int], ...]:
        o = self.settled
        if o is None or not o.winning or not self.variant.lists_transfers:
            return ()
        return tuple((a, b, c) for a, b, c in o.transfers)

    @property
    def specials(self) -> tuple[Special, ...]:
        o = self.settled
        name = self.variant.special_name
        return tuple(Special(s, name(s)) for s in o.specials) if o is not None and o.winning else ()

    @property
    def extra(self) -> tuple[tuple[str, int], ...]:
        """The rule set's fields after the score (Guilin 子/醒/番), as (name, value)."""
        return tuple(self.variant.outcome_extra(self.settled.extra)) if self.settled is not None else ()

    def extra_value(self, key: str) -> int:
        return dict(self.extra)[key]

    @property
    def steps(self) -> tuple[Mapping[str, Any], ...]:
        return self.working

    # ------------------------------------------------------------ the layout
    @property
    def text(self) -> str | None:
        """The claimed decomposition in text notation ("" by total; None: no seven groups)."""
        if self.total is not None:
            return ""
        return self.decompositions[0].text if self.decompositions else None

    @property
    def leftover(self) -> tuple[str, ...]:
        return tuple(c.text for c in self.decompositions[0].leftover) if self.decompositions else ()

    @cached_property
    def alternatives(self) -> tuple[Alternative, ...]:
        """Every decomposition (at most ``MAX_ALTERNATIVES``), the claimed one first."""
        n, v = self.players, self.variant
        return tuple(
            Alternative(c.text, sum(c.points), c.outcome.winning, c.outcome.score if c.outcome.winning else 0,
                        tuple(c.outcome.payouts) if c.outcome.winning else (0,) * n,
                        tuple(scored_group(g, p, v) for g, p in zip(c.groups, c.points, strict=True)))
            for c in self.decompositions[:MAX_ALTERNATIVES])

    @cached_property
    def groups(self) -> tuple[ScoredGroup, ...]:
        """The claimed decomposition's groups, the one the winning card completed marked."""
        if not self.decompositions:
            return ()
        c, v = self.decompositions[0], self.variant
        return tuple(scored_group(g, p, v, i == c.winning_group)
                     for i, (g, p) in enumerate(zip(c.groups, c.points, strict=True)))

    # ------------------------------------------------------------ the contract
    def to_json(self) -> dict[str, Any]:
        """The contract's object, exactly as the engine has always written it (fresh objects
        each call)."""
        n, v = self.players, self.variant
        out: dict[str, Any] = {"rules": self.rules.to_dict()}
        o = self.settled
        if o is None:  # the cards form no seven groups
            reason = self.unlaid.to_json() if self.unlaid else None
            out.update(winning=False, reason=reason, groups=[], points=0, specials=[], score=0,
                       payouts=[0] * n, transfers=[], alternatives=[], steps=[])
            if self.winning_card_matters:
                out["winning_card_matters"] = list(self.winning_card_matters)
            return out
        out["winning"] = o.winning
        if not o.winning and o.reason:
            out["reason"] = {"code": o.reason[0], "message": o.reason[1]}
        steps = [dict(s) for s in self.working]
        if self.total is not None:
            out.update(groups=[], points=self.total, text="", **_outcome_json(o, v, n))
            out.update(alternatives=[], steps=steps, entered_by="total", total=self.total)
            return out
        cands = self.decompositions
        # a call per group saved (this is most of scoring's JSON): the cached group, copied
        index, scored, opened = _INDEX, _scored_group, State.OPEN
        alt_groups = [[{**(sg := scored(tuple(map(index, g.cards)), g.state is opened, p, v, False))._json,
                        "cards": list(sg.cards)} for g, p in zip(c.groups, c.points, strict=True)]
                      for c in cands[:MAX_ALTERNATIVES]]
        best = cands[0]
        # the claim is the first alternative: its groups' objects are copied, not built again
        out["groups"] = [{**d, "cards": list(d["cards"]), "winning_card": True} if i == best.winning_group
                         else {**d, "cards": list(d["cards"])} for i, d in enumerate(alt_groups[0])]
        out["points"] = sum(best.points)
        out["text"] = best.text
        if best.leftover:
            out["leftover"] = [c.text for c in best.leftover]
        out.update(_outcome_json(o, v, n))
        out["steps"] = steps
        out["alternatives"] = [
            {"text": c.text, "points": sum(c.points), "winning": c.outcome.winning,
             "score": c.outcome.score if c.outcome.winning else 0,
             "payouts": list(c.outcome.payouts) if c.outcome.winning else [0] * n,
             "groups": groups}
            for c, groups in zip(cands, alt_groups, strict=False)]
        if self.winning_card_matters:
            out["winning_card_matters"] = list(self.winning_card_matters)
        return out


@dataclass(frozen=True, slots=True)
class Simultaneous:
    """Guangxi's two instant wins after one deal (RULINGS section 6): both layouts' results, who
    wins (one seat, or both on equal points) and what the event pays; ``to_json()`` writes the
    contract's object (``winners``, ``results``, ``payouts``, ``transfers``)."""

    winners: tuple[int, ...]
    results: tuple[Result, Result]
    payouts: tuple[int, ...]
    transfers: tuple[tuple[int, int, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "results": [r.to_json() for r in self.results],
                "payouts": list(self.payouts), "transfers": [list(t) for t in self.transfers]}


def _outcome_json(o: Outcome, v: Variant, players: int) -> dict[str, Any]:
    """What a settled hand pays, in the contract's fields (a hand that does not win pays nothing)."""
    win = o.winning
    name = v.special_name
    out: dict[str, Any] = {
        "specials": [{"id": s, "name": name(s)} for s in o.specials] if win else [],
        "score": o.score if win else 0}
    if v.extra_fields:
        out.update(v.outcome_extra(o.extra))
    out["payouts"] = list(o.payouts) if win else [0] * players
    out["transfers"] = [list(t) for t in o.transfers] if win and v.lists_transfers else []
    return out


_INDEX = attrgetter("index")
_KIND_TEXT = {k: str(k.value) for k in Kind}


def scored_group(g: Group, points: int, variant: Variant, winning_card: bool = False) -> ScoredGroup:
    """A group as the result gives it; one immutable object serves every hand that has it
    (keyed by card indices: they hash without a call per card)."""
    return _scored_group(tuple(map(_INDEX, g.cards)), g.state is State.OPEN, points, variant, winning_card)


@lru_cache(maxsize=8192)
def _scored_group(indices: tuple[int, ...], open_: bool, points: int, variant: Variant,
                  winning_card: bool) -> ScoredGroup:
    g = Group.of(indices, State.OPEN if open_ else State.CONCEALED)
    return ScoredGroup(tuple([c.text for c in g.cards]), _KIND_TEXT[g.kind], "open" if open_ else "concealed",
                       variant.group_name(g), points, winning_card)
