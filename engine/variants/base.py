"""A rule set as a type: everything the engine, the ledger and the app ask of a region.

A subclass states its facts as class attributes (name, unit, seats, minimums, option keys,
group names, specials, how its totals are kept) and implements ``settle``; the engine calls
it and never asks for a region by name. Instances are stateless: one serves every thread.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any, ClassVar, NamedTuple

from ..errors import RulesError
from ..groups import TRADITIONAL, Group, Kind, State
from ..options import OPTION_KEYS, Options, check_value
from ..scoring import SILENT, Context, Outcome, Working

GroupNames = Mapping[tuple[Kind, State | None], str]
"""A region's names for the groups: (kind, state) for triples and quads, (kind, None) else."""

COMMON_OPTIONS = frozenset({"minimum", "dealer_rotation", "rules_version"})


class Names(NamedTuple):
    """A name as the product shows it: in simplified and traditional Chinese, and as the
    app's English screens give it (often the Chinese word with a gloss)."""

    simplified: str
    traditional: str
    english: str


@dataclass(frozen=True, slots=True)
class Win:
    """What a special's value rule reads of a settled hand."""

    base: int
    minimum: int
    ctx: Context
    options: Options
    reds: int = 0  # red cards in the seven groups, where the rule set counts them
    instant: bool = False  # an instant win after the deal (起手胡)
    quads: int = 0  # of an instant win: quads and triples dealt
    triples: int = 0

    @property
    def reached(self) -> bool:
        return self.instant or self.base >= self.minimum


def _nothing(win: Win) -> int:
    return 0


@dataclass(frozen=True, slots=True)
class Special:
    """One special (番/福 of its own) of a rule set: the rule set applies its specials in
    ``order`` and asks each one's ``value`` of the hand; None: the special does not apply.
    What the value means is the rule set's (Hunan: 福 in place of the normal score; Guangxi
    天胡: a multiplier; Guilin: one 番)."""

    id: str
    names: Names
    order: int
    value: Callable[[Win], int | None]
    bonus: Callable[[Win], int] = _nothing
    """Points on top of the value (Hunan's +10 of a win by self-draw or discard)."""
    instant: bool = False
    """A special of an instant win after the deal (起手胡)."""

    @property
    def name(self) -> str:
        """The name the contract's ``specials`` give (simplified)."""
        return self.names.simplified


class Variant(ABC):
    """One regional rule set. Subclass it, fill in the facts, implement ``settle``, and
    decorate it with ``@register`` (engine/variants/registry.py)."""

    name: ClassVar[str]
    """The preset name the data uses (``"rules": "hunan"``)."""
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other names a user may type (Chinese place names)."""
    title: ClassVar[str]
    names: ClassVar[Names]
    """The region as the app lists it (title and unit), in the three scripts."""
    unit: ClassVar[str]
    """What a group's points are called: 福, 油 or 胡."""
    seats: ClassVar[tuple[int, int]] = (2, 3)
    """The fewest and most players."""
    minimums: ClassVar[tuple[int, ...]]
    """The minimums (起胡) a house may choose; the first is the default."""
    any_minimum: ClassVar[bool] = False
    """Whether any other whole number is also accepted as the minimum."""
    option_keys: ClassVar[frozenset[str]] = COMMON_OPTIONS
    defaults: ClassVar[Options] = Options()
    group_names: ClassVar[GroupNames]
    specials: ClassVar[tuple[Special, ...]] = ()
    """Every special this rule set can report, as records; kept sorted by ``order``."""
    special_by_id: ClassVar[Mapping[str, Special]] = {}
    extra_fields: ClassVar[tuple[tuple[str, int], ...]] = ()
    """Output fields after ``score`` (name, value when the hand pays nothing)."""
    lists_transfers: ClassVar[bool] = True
    """Whether a win lists who pays whom (else the payouts are round-total changes)."""
    plays_rounds: ClassVar[bool] = False
    """冲百福: totals run in rounds closed at 100 and paid by rank; adjustments need not balance."""
    counts_reds: ClassVar[bool] = False
    """Whether ``settle`` needs the red-card count of the seven groups."""
    counts_cards: ClassVar[bool] = False
    """Whether ``settle`` needs the cards of the seven groups."""
    turned_cards: ClassVar[bool] = False
    """醒: a turned card whose neighbours among the winner's cards add to the score."""
    instant_specials: ClassVar[tuple[str, ...]] = ()
    """The specials of an instant win after the deal (起手胡), from the records; none: no instant wins."""
    simultaneous_instant: ClassVar[bool] = False
    """Two instant wins after one deal settle as one event."""
    misdeal_penalty: ClassVar[bool] = False
    """下夥: a seat that mis-holds pays every other seat the minimum."""
    forfeit_penalty: ClassVar[bool] = False
    """胡多少处罚多少: a seat that broke a forced rule forfeits the win and pays what its hand
    would have scored (seed 001)."""
    hand_minimum: ClassVar[bool] = False
    """The dealer may change the minimum for one hand."""
    first_discard: ClassVar[bool] = False
    """A win on the dealer's first discard scores differently (the app asks 庄家首张 only then)."""

    piece_points: Callable[[tuple[int, ...], bool], int]
    """Points of a group given as count-vector indices and whether it is open: a cached lookup
    for the search's hot loop (a partial of the cache, so no Python frame per call)."""

    def __init__(self) -> None:
        self.piece_points = partial(_piece_points, self)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ordered = tuple(sorted(cls.specials, key=lambda s: s.order))
        ids = [s.id for s in ordered]
        if len(set(ids)) != len(ids) or len({s.order for s in ordered}) != len(ordered):
            raise RulesError(f"{cls.__name__}: each special needs its own id and order")
        cls.specials = ordered
        cls.special_by_id = {s.id: s for s in ordered}
        cls.instant_specials = tuple(s.id for s in ordered if s.instant)

    def special_name(self, sid: str) -> str:
        """The contract's name of a special (its id when the rule set has no such special)."""
        s = self.special_by_id.get(sid)
        return s.name if s is not None else sid

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # ------------------------------------------------------------ seats and minimums
    def minimum(self, players: int, options: Options) -> int:
        """起胡: the least points that win (RULINGS section 4)."""
        return options.minimum if options.minimum is not None else self.default_minimum(players)

    def default_minimum(self, players: int) -> int:
        return self.minimums[0]

    def minimum_choices(self) -> list[int | None]:
        """The minimums a house picks from (None: the default that follows the seats)."""
        return ([None] if self.defaults.minimum is None else []) + list(self.minimums)

    def idle(self, players: int, dealer: int) -> int | None:
        """数审: the seat that sits this hand out, if any."""
        return None

    # ------------------------------------------------------------ options
    def check_option(self, key: str, value: Any, where: str = "options") -> Any:
        """One house option checked against this rule set; the error names the key."""
        known = self.option_keys
        if key not in OPTION_KEYS:
            raise RulesError(f"unknown option {key!r} in {where} (known: {', '.join(sorted(known))})")
        if key not in known:
            raise RulesError(f"option {key!r} does not apply to {self.name} "
                             f"(it takes: {', '.join(sorted(known))})")
        return check_value(key, value, self.name, None if self.any_minimum else self.minimums)

    # ------------------------------------------------------------ groups
    def group_points(self, group: Group) -> int:
        """Points of one group, RULINGS section 3 (the table every region shares)."""
        kind = group.kind
        big = group.cards[0].big
        if kind is Kind.TRIPLE:
            if group.state is State.CONCEALED:
                return 6 if big else 3
            return 3 if big else 1
        if kind is Kind.QUAD:
            if group.state is State.CONCEALED:
                return 12 if big else 9
            return 9 if big else 6
        if kind is Kind.ONE_TWO_THREE or kind is Kind.TWO_SEVEN_TEN:
            return 6 if big else 3
        return 0


    def group_name(self, group: Group, traditional: bool = False) -> str:
        """The group's native name in this region."""
        return _group_name(self, group.cards, group.kind, group.state, traditional)

    # ------------------------------------------------------------ settlement
    @abstractmethod
    def settle(self, base: int, ctx: Context, options: Options, *, reds: int = 0,
               cards: Sequence[int] = (), xing: int | None = None, working: Working = SILENT) -> Outcome:
        """The hand score and the payouts of a base of ``base`` points. ``reds`` and ``cards``
        are given when ``counts_reds`` / ``counts_cards`` ask; ``xing`` is a 醒 already
        counted (a hand entered by its total); the working is written to ``working``."""

    def applied(self, win: Win) -> list[tuple[Special, int]]:
        """The specials that apply to a hand and their values, in the records' order."""
        out = []
        for s in self.specials:
            v = s.value(win)
            if v is not None:
                out.append((s, v))
        return out

    def settle_instant(self, points: int, quads: int, triples: int, cards: Sequence[int], ctx: Context,
                       options: Options, working: Working = SILENT) -> Outcome:
        """An instant win after the deal (only asked when ``instant_specials`` is not empty)."""
        raise NotImplementedError(f"{self.name} has no instant wins")

    def score_text(self, score: int, fields: Mapping[str, Any]) -> str:
        """The score as a player reads it; ``fields`` holds the result's ``extra_fields``."""
        return str(score)

    def outcome_extra(self, extra: Mapping[str, int]) -> list[tuple[str, int]]:
        """The ``extra_fields`` of a settled hand, in order."""
        return [(k, extra.get(k, default)) for k, default in self.extra_fields]


@lru_cache(maxsize=8192)
def _piece_points(variant: Variant, piece: tuple[int, ...], open_: bool) -> int:
    return variant.group_points(Group.of(piece, State.OPEN if open_ else State.CONCEALED))


@lru_cache(maxsize=4096)
def _group_name(variant: Variant, cards: tuple[Any, ...], kind: Kind, state: State, traditional: bool) -> str:
    if kind is Kind.ONE_TWO_THREE or kind is Kind.TWO_SEVEN_TEN:
        name = "".join(c.chinese() for c in cards)
    else:
        name = variant.group_names[(kind, state if kind in (Kind.TRIPLE, Kind.QUAD) else None)]
    return name.translate(TRADITIONAL) if traditional else name
