"""The rule sets by name: ``@register`` adds one, ``get_variant`` finds one by name or alias."""

from __future__ import annotations

from typing import TypeVar

from ..errors import RulesError
from .base import Variant

V = TypeVar("V", bound=type[Variant])

_BY_NAME: dict[str, Variant] = {}
_ALIASES: dict[str, str] = {}


class UnknownVariant(RulesError):
    """A rule-set name the registry does not know."""

    def __init__(self, name: str) -> None:
        shown = name if len(name) <= 60 else name[:60] + "…"
        super().__init__(f"unknown rule set {shown!r} (known: {', '.join(_BY_NAME)})")
        self.name = name


def register(cls: V) -> V:
    """Class decorator: make a rule set known by its name and aliases (one instance serves all)."""
    variant = cls()
    for key in (cls.name, *cls.aliases):
        if key in _BY_NAME or key in _ALIASES:
            raise RulesError(f"rule set name {key!r} is taken")
    _BY_NAME[cls.name] = variant
    for alias in cls.aliases:
        _ALIASES[alias] = cls.name
    return cls


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
