"""Rule sets as data: a typed options object per preset and a registry looked up by name.

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
from typing import Any, ClassVar

from .errors import RulesError, ZipaiError
from .files import read_file, shown

# The engine's readings of the sources, numbered so a ledger replays a session under the
# rules it was recorded with. 1: before the corrections of 2026-12 (a fourth card may join
# any table triple when it came from another player and never when self-drawn; a Hunan
# discarder loses the whole score; 数审 takes half rounded to a point; 自摸 doubles uncapped).
# 2: RULINGS sections 5 and 6 as they stand.
RULES_VERSIONS = {1: "before 2026-12", 2: "2026-12"}
CURRENT_RULES_VERSION = 2


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

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["xing"] = list(self.xing)
        return out

    @cached_property
    def items(self) -> tuple[tuple[str, Any], ...]:
        """The options as (key, value) pairs, computed once per options object."""
        return tuple((f.name, getattr(self, f.name)) for f in dataclasses.fields(self))


@dataclass(frozen=True)
class Rules:
    """One rule set: its preset name, the keys it accepts, and the chosen options."""

    name: str
    options: Options = field(default_factory=Options)
    source: str = ""  # where it came from: a preset name or a TOML path

    KEYS: ClassVar[dict[str, frozenset[str]]] = {
        "hunan": frozenset({"minimum", "self_draw", "piao", "dealer_rotation", "rules_version"}),
        "guangxi": frozenset({"minimum", "tianhu_multiplier", "dealer_rotation", "rules_version"}),
        "guilin": frozenset({"minimum", "xing", "fan_as_zi", "dealer_rotation", "rules_version"}),
    }
    PLAYERS: ClassVar[dict[str, tuple[int, int]]] = {
        "hunan": (2, 4), "guangxi": (2, 3), "guilin": (2, 3),
    }
    UNIT: ClassVar[dict[str, str]] = {"hunan": "福", "guangxi": "油", "guilin": "胡"}
    TITLE: ClassVar[dict[str, str]] = {"hunan": "湖南字牌", "guangxi": "广西大字牌", "guilin": "桂林字牌"}

    def minimum(self, players: int) -> int:
        """起胡: the least points that win (RULINGS section 4)."""
        if self.options.minimum is not None:
            return self.options.minimum
        return 20 if players == 2 else 15  # Hunan: 15 福, 20 with two players

    def with_options(self, overrides: Mapping[str, Any], where: str = "options") -> Rules:
        """A copy with some options replaced; every key and value is checked."""
        if not overrides:
            return self
        if not isinstance(overrides, Mapping):
            raise RulesError(f"{where} must be a table of option keys, not {type(overrides).__name__}")
        changes = {k: _check_option(self.name, k, v, where) for k, v in overrides.items()}
        return dataclasses.replace(self, options=dataclasses.replace(self.options, **changes))

    def to_dict(self) -> dict[str, Any]:
        return {"preset": self.name, "options": _options_dict(self.options)}


def _options_dict(options: Options) -> dict[str, Any]:
    """A fresh dict of the options (this is on the scoring hot path: the items are kept)."""
    out = dict(options.items)
    out["xing"] = list(options.xing)  # the one list among the values
    return out


PRESETS: dict[str, Rules] = {
    "hunan": Rules("hunan", Options(), source="hunan"),  # minimum follows the seat count
    "guangxi": Rules("guangxi", Options(minimum=15), source="guangxi"),
    "guilin": Rules("guilin", Options(minimum=10), source="guilin"),
}
_ALIASES = {"湖南": "hunan", "广西": "guangxi", "廣西": "guangxi", "桂林": "guilin"}


def _check_option(preset: str, key: str, value: Any, where: str) -> Any:
    """Validate one option value; the error names the key."""
    known = Rules.KEYS[preset]
    if key not in Options.__dataclass_fields__:
        raise RulesError(f"unknown option {key!r} in {where} (known: {', '.join(sorted(known))})")
    if key not in known:
        raise RulesError(f"option {key!r} does not apply to {preset} (it takes: {', '.join(sorted(known))})")

    def need_int(lo: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise RulesError(f"option {key!r} must be a whole number >= {lo}, got {value!r}")
        return value

    if key == "minimum":
        allowed = {"guangxi": (15, 20, 25, 30), "guilin": (10, 15)}.get(preset)
        v = need_int(0)
        if allowed and v not in allowed:
            raise RulesError(f"option 'minimum' for {preset} must be one of {allowed}, got {v}")
        return v
    if key == "self_draw":
        if value not in ("double", "plus_ten"):
            raise RulesError(f"option 'self_draw' must be 'double' or 'plus_ten', got {value!r}")
        return value
    if key == "piao":
        if isinstance(value, bool) or value not in (30, 100):
            raise RulesError(f"option 'piao' must be 30 or 100, got {value!r}")
        return value
    if key == "tianhu_multiplier":
        return need_int(1)
    if key == "xing":
        if isinstance(value, str) or not isinstance(value, list | tuple) or not all(
            v in ("up", "same", "down") for v in value
        ):
            raise RulesError(f"option 'xing' must be a list of 'up', 'same', 'down', got {value!r}")
        return tuple(v for v in ("up", "same", "down") if v in value)
    if key == "fan_as_zi":
        if not isinstance(value, bool):
            raise RulesError(f"option 'fan_as_zi' must be true or false, got {value!r}")
        return value
    if key == "rules_version":
        if isinstance(value, bool) or not isinstance(value, int) or value not in RULES_VERSIONS:
            raise RulesError(f"option 'rules_version' must be one of {sorted(RULES_VERSIONS)}, got {value!r}")
        return value
    if key == "dealer_rotation":
        if value not in ("winner", "next_seat"):
            raise RulesError(f"option 'dealer_rotation' must be 'winner' or 'next_seat', got {value!r}")
        return value
    raise RulesError(f"unknown option {key!r} in {where}")  # pragma: no cover


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
    preset = data.get("preset")
    if not isinstance(preset, str) or _canonical(preset) not in PRESETS:
        raise RulesError(f"'preset' in {where} must be one of {', '.join(PRESETS)}, got {preset!r}")
    base = dataclasses.replace(PRESETS[_canonical(preset)], source=where)
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
    return {k: v for k, v in rules.options.to_dict().items()
            if k in Rules.KEYS[rules.name] and v is not None}


def rules_from_flag(value: str) -> Rules:
    """A ``--rules`` value typed by the user: a preset name or alias, otherwise a file path."""
    if _canonical(value) in PRESETS:
        return PRESETS[_canonical(value)]
    return load_rules_file(value)


def _canonical(name: str) -> str:
    return _ALIASES.get(name.strip(), name.strip().lower())


def get_rules(name: str | Rules, overrides: Mapping[str, Any] | None = None) -> Rules:
    """A preset by name (``hunan``, ``guangxi``, ``guilin`` or a Chinese alias) or a ``Rules``,
    plus overrides. Never a file: this takes names from data (a hand's ``"rules"``, an import),
    and data must not name a file to open; ``load_rules_file`` is for paths the user typed."""
    if isinstance(name, Rules):
        rules = name
    elif not isinstance(name, str):
        raise RulesError(f"'rules' must be a preset name ({', '.join(PRESETS)}), got {name!r}")
    elif _canonical(name) in PRESETS:
        rules = PRESETS[_canonical(name)]
    else:
        shown = name if len(name) <= 60 else name[:60] + "…"
        raise RulesError(f"unknown rule set {shown!r} (use {', '.join(PRESETS)}; a house-rules file "
                         "is given with --rules FILE)")
    return rules.with_options(overrides or {})
