"""A rule set with its house options: the region's type (engine/variants/) and the options chosen,
from a preset name or a house-rules file.

>>> get_rules("guangxi").options.minimum
15
>>> get_rules("hunan", {"self_draw": "plus_ten"}).options.self_draw
'plus_ten'
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from .errors import RulesError, ZipaiError
from .files import read_file, shown
from .options import CURRENT_RULES_VERSION, RULES_VERSIONS, Options
from .variants import Variant, find_variant, get_variant, variant_names, variants

__all__ = ["CURRENT_RULES_VERSION", "PRESETS", "RULES_VERSIONS", "Options", "Rules", "get_rules",
           "input_options", "load_rules_file", "parse_rules_toml", "preset", "rules_from_flag"]


@dataclass(frozen=True)
class Rules:
    """One rule set with its chosen options: the preset's name (its ``variant`` in the
    registry), the options, and where they came from."""

    name: str
    options: Options = field(default_factory=Options)
    source: str = ""  # where it came from: a preset name or a TOML path

    @cached_property
    def variant(self) -> Variant:
        """The rule set's type, looked up once per rules object."""
        return get_variant(self.name)

    def minimum(self, players: int) -> int:
        """起胡: the least points that win (RULINGS section 4)."""
        return self.variant.minimum(players, self.options)

    def with_options(self, overrides: Mapping[str, Any], where: str = "options") -> Rules:
        """A copy with some options replaced; every key and value is checked."""
        if not overrides:
            return self
        if not isinstance(overrides, Mapping):
            raise RulesError(f"{where} must be a table of option keys, not {type(overrides).__name__}")
        v = self.variant
        changes = {k: v.check_option(k, value, where) for k, value in overrides.items()}
        return dataclasses.replace(self, options=dataclasses.replace(self.options, **changes))

    def to_dict(self) -> dict[str, Any]:
        return {"preset": self.name, "options": _options_dict(self.options)}


def _options_dict(options: Options) -> dict[str, Any]:
    """A fresh dict of the options (this is on the scoring hot path: the items are kept)."""
    out = options.fields_dict.copy()
    out["xing"] = list(options.xing)  # the one list among the values
    return out


_PRESETS: dict[Variant, Rules] = {}


def preset(variant: Variant) -> Rules:
    """The rule set's preset: its default options, built once."""
    r = _PRESETS.get(variant)
    if r is None:
        r = _PRESETS[variant] = Rules(variant.name, variant.defaults, source=variant.name)
    return r


PRESETS: dict[str, Rules] = {v.name: preset(v) for v in variants()}
"""The regions the product ships, by name (``get_rules`` also finds any registered later)."""


def _names() -> str:
    return ", ".join(variant_names())


MAX_RULES_BYTES = 64 * 1024
"""A house-rules file is a dozen lines; the cap keeps a wrong file (a log, a disk image) out."""
MAX_TOML_DEPTH = 8
"""Tables, arrays and dotted keys nested deeper than this are refused before parsing: tomllib
recurses on nesting (2,000 levels raise RecursionError) and is quadratic in a dotted key's
length (a key dotted 30,000 deep takes about 20 s). A house-rules file nests two deep."""


def _toml_depth(text: str) -> int:
    """The deepest nesting of brackets plus dots in a key on one line, outside strings and
    comments: an upper bound on how deep tomllib would recurse, found in one linear pass."""
    depth = dots = worst = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if ch == '"' and text[i] == "\\":
                    i += 1
                elif len(quote) == 1 and text[i] == "\n":
                    break
                i += 1
            i += len(quote)
            continue
        if ch == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch == ".":
            dots += 1
        elif ch == "\n":
            dots = 0
        worst = max(worst, depth + dots)
        i += 1
    return worst


def parse_rules_toml(text: str, where: str) -> Rules:
    """A house-rules TOML text: ``preset = "hunan"`` and an ``[options]`` table."""
    if _toml_depth(text) > MAX_TOML_DEPTH:
        raise RulesError(f"rules file {where!r} nests tables, arrays or dotted keys more than "
                         f"{MAX_TOML_DEPTH} deep; a house-rules file has a preset and [options]")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"rules file {where!r} is not valid TOML: {exc}") from None
    except RecursionError:  # pragma: no cover - _toml_depth refuses such files first
        raise RulesError(f"rules file {where!r} is nested too deeply") from None
    except ValueError:  # an integer past Python's 4,300-digit conversion limit
        raise RulesError(f"rules file {where!r} is not valid TOML: a number has too many digits") from None
    unknown = set(data) - {"preset", "options"}
    if unknown:
        raise RulesError(f"unknown key {sorted(unknown)[0]!r} in {where} (expected 'preset' and [options])")
    name = data.get("preset")
    variant = find_variant(name) if isinstance(name, str) else None
    if variant is None:
        raise RulesError(f"'preset' in {where} must be one of {_names()}, got {name!r}")
    base = dataclasses.replace(preset(variant), source=where)
    return base.with_options(data.get("options", {}), where=where)


def load_rules_file(path: str | Path) -> Rules:
    """A house-rules file the user named (``--rules FILE``): a regular file of at most
    ``MAX_RULES_BYTES``, UTF-8 TOML of bounded nesting. Never call it with a name from data."""
    try:
        raw = read_file(path, MAX_RULES_BYTES, "house-rules .toml file")
    except ZipaiError as exc:
        raise RulesError(f"rules file {exc}", code=exc.code) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RulesError(f"rules file {shown(path)!r} is not valid TOML: not UTF-8 text") from None
    return parse_rules_toml(text, str(path))


def input_options(rules: Rules) -> dict[str, Any]:
    """The options of ``rules`` as an input's ``"options"`` table: what a house-rules file set
    travels in the data as values, so the data never needs the file again."""
    keys = rules.variant.option_keys
    return {k: v for k, v in rules.options.to_dict().items() if k in keys and v is not None}


def rules_from_flag(value: str) -> Rules:
    """A ``--rules`` value typed by the user: a preset name or alias, otherwise a file path."""
    variant = find_variant(value)
    return preset(variant) if variant is not None else load_rules_file(value)


def get_rules(name: str | Rules, overrides: Mapping[str, Any] | None = None) -> Rules:
    """A preset by name (``hunan``, ``guangxi``, ``guilin`` or a Chinese alias) or a ``Rules``,
    plus overrides. Never a file: this takes names from data (a hand's ``"rules"``, an import),
    and data must not name a file to open; ``load_rules_file`` is for paths the user typed."""
    if isinstance(name, Rules):
        rules = name
    elif not isinstance(name, str):
        raise RulesError(f"'rules' must be a preset name ({_names()}), got {name!r}")
    elif (variant := find_variant(name)) is not None:
        rules = preset(variant)
    else:
        shown = name if len(name) <= 60 else name[:60] + "…"
        raise RulesError(f"unknown rule set {shown!r} (use {_names()}; a house-rules file "
                         "is given with --rules FILE)")
    return rules.with_options(overrides or {})
