"""What a session stores, read back: its frozen settings (``SessionInfo``) and its events
(``Event``), with stored JSON bounded and refused where it holds NaN, infinities or figures too
long to print. The replay trusts nothing else it reads."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from typing import Any

from zipai.engine import Rules, Variant, get_rules, get_variant

PLAY_KINDS = ("hand", "draw", "double", "adjust")
EVENT_BYTES = 256 * 1024  # one stored or imported event's JSON: a hand is a few kB
MAX_FIGURE = 10**15  # a hand's points, score or payout: far past any real hand, short to print


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def finite(text: str) -> float:
    """A JSON number with a fraction or exponent, refused when it overflows to infinity (1e999)."""
    v = float(text)
    if v != v or v in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:20]} is not a finite number")
    return v


def _loads(text: str) -> Any:
    """Stored JSON as the ledger wrote it: no NaN or Infinity, no number too long to print."""
    return json.loads(text, parse_constant=_no_constant, parse_float=finite)


def figure(v: Any, what: str) -> int:
    """A stored whole number of points within ``MAX_FIGURE`` (a ``ValueError`` otherwise)."""
    if isinstance(v, bool) or not isinstance(v, int) or not -MAX_FIGURE <= v <= MAX_FIGURE:
        raise ValueError(f"{what} is not a whole number of points within ±{MAX_FIGURE}")
    return v


# input fields the ledger owns: it fills them in from the session and the dealer rotation
LEDGER_FIELDS = ("rules", "players", "dealer")


@dataclass(frozen=True)
class SessionInfo:
    """A session as created: everything frozen at creation, rules included."""

    id: int
    name: str
    preset: str
    options: dict[str, Any]  # the full option dict resolved at creation
    source: str  # preset name or the house-rules file it was read from
    players: tuple[str, ...]
    stake: Decimal
    first_dealer: int
    created_at: str

    @property
    def n(self) -> int:
        return len(self.players)

    @cached_property
    def variant(self) -> Variant:
        """The session's rule set: what it plays to, who sits out, what it allows."""
        return get_variant(self.preset)

    @cached_property
    def rules(self) -> Rules:
        """The frozen rule set, rebuilt from the stored options (never from the TOML file).

        A session keeps the rules version it was created under, so re-scoring one of its hands
        (after an edit moves the dealer, or on import) never changes its evening; a session
        stored before versions were recorded reads as version 1.
        """
        keys = self.variant.option_keys
        opts = {k: v for k, v in self.options.items() if k in keys and v is not None}
        opts.setdefault("rules_version", 1)
        return get_rules(self.preset, opts)

    @property
    def rules_version(self) -> int:
        return self.rules.options.rules_version

    def rules_for(self, per_hand: Mapping[str, Any] | None) -> Rules:
        return self.rules.with_options(per_hand or {}, where="the hand's options")

    @property
    def rotation(self) -> str:
        return str(self.options.get("dealer_rotation", "winner"))

    def idle(self, dealer: int) -> int | None:
        """数审: the seat the rule set sits out under this dealer, if any."""
        return self.variant.idle(self.n, dealer)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name,
                "rules": {"preset": self.preset, "source": self.source, "options": self.options},
                "players": list(self.players), "stake": str(self.stake),
                "first_dealer": self.first_dealer, "created_at": self.created_at}


@dataclass(frozen=True)
class Event:
    """One stored row of the event log."""

    id: int
    kind: str
    data: dict[str, Any]
    target: int | None = None
    options: dict[str, Any] | None = None
    photo: str | None = None
    created_at: str = ""

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Event:
        """A stored row, each column of the type the ledger writes (a ``ValueError`` otherwise)."""
        eid, kind, target, data, options, photo, created = row
        for col, v in (("data", data), ("options", options), ("photo", photo), ("created_at", created)):
            if v is not None and not isinstance(v, str):
                raise ValueError(f"the {col} column holds {type(v).__name__}, not text")
            if isinstance(v, str) and len(v) > EVENT_BYTES:
                raise ValueError(f"the {col} column is {len(v)} characters long, at most {EVENT_BYTES}")
        if not isinstance(eid, int) or (target is not None and not isinstance(target, int)):
            raise ValueError("the event's id or target is not a whole number")
        parsed = _loads(data)
        opts = _loads(options) if options else None
        if not isinstance(parsed, dict) or (opts is not None and not isinstance(opts, dict)):
            raise ValueError("the event's data or options are not a JSON object")
        if photo is not None and (len(photo) > 4096 or not photo.isprintable()):
            raise ValueError("the photo column is not one line of a path")
        return cls(int(eid), str(kind), parsed, target, opts, photo, str(created))
