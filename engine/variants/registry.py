"""The rule sets by name: ``BUILT_IN`` lists the regions the product ships, in the order it
lists them; ``register`` adds another (a test's own region), ``get_variant`` finds one by
name or alias. Nothing registers itself on import."""

from __future__ import annotations

from typing import TypeVar

from ..errors import RulesError
from .base import Names, Special, Variant
from .guangxi import Guangxi
from .guilin import Guilin
from .hunan import Hunan

V = TypeVar("V", bound=type[Variant])

BUILT_IN: tuple[type[Variant], ...] = (Hunan, Guangxi, Guilin)

_BY_NAME: dict[str, Variant] = {}
_ALIASES: dict[str, str] = {}


class UnknownVariant(RulesError):
    """A rule-set name the registry does not know."""

    def __init__(self, name: str) -> None:
        shown = name if len(name) <= 60 else name[:60] + "…"
        super().__init__(f"unknown rule set {shown!r} (known: {', '.join(_BY_NAME)})")
        self.name = name


def register(cls: V) -> V:
    """Make a rule set known by its name and aliases (one instance serves all)."""
    variant = cls()
    for key in (cls.name, *cls.aliases):
        if key in _BY_NAME or key in _ALIASES:
            raise RulesError(f"rule set name {key!r} is taken")
    _BY_NAME[cls.name] = variant
    for alias in cls.aliases:
        _ALIASES[alias] = cls.name
    return cls


for _cls in BUILT_IN:
    register(_cls)


def unregister(name: str) -> None:
    """Forget a rule set (a test's own, once the test is done)."""
    variant = _BY_NAME.pop(name)
    for alias in variant.aliases:
        _ALIASES.pop(alias, None)


def canonical(name: str) -> str:
    """The registered name ``name`` stands for (stripped, aliases resolved, case folded);
    the name itself, folded, when nothing is registered under it."""
    name = name.strip()
    return _ALIASES.get(name, name.lower())


def find_variant(name: str) -> Variant | None:
    """The rule set called ``name`` (or one of its aliases), else None."""
    return _BY_NAME.get(canonical(name))


def get_variant(name: str | Variant) -> Variant:
    """The rule set called ``name``; an unknown name raises ``UnknownVariant`` (a ValueError)."""
    if isinstance(name, Variant):
        return name
    if not isinstance(name, str):
        raise UnknownVariant(repr(name))
    found = find_variant(name)
    if found is None:
        raise UnknownVariant(name)
    return found


def variants() -> tuple[Variant, ...]:
    """Every registered rule set, in the order registered."""
    return tuple(_BY_NAME.values())


def variant_names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def region_names(name: str) -> Names | None:
    """A registered region's names in the three scripts (the app's rule-set labels)."""
    v = find_variant(name)
    return v.names if v is not None else None


def find_special(sid: str) -> Special | None:
    """The first registered rule set's special of that id (regions that share an id, such as
    天胡, share its names)."""
    for v in _BY_NAME.values():
        s = v.special_by_id.get(sid)
        if s is not None:
            return s
    return None
