"""Checks on what a user or a file gives the ledger: names, notes, stakes, seats, JSON.

Every refusal is a ``LedgerError`` with one line that names the problem. The bounds keep
every session settleable (money is points × stake in exact decimals) and every command
finite: data nested deeper than ``MAX_DEPTH`` is refused before anything walks it.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from zipai.engine import PRESETS, ZipaiError, get_rules

from .errors import LedgerError

# Bounds on what a user or a file may give: beyond them a session could never be settled
# (money is points × stake in exact decimals) or a command could recurse without end.
MAX_STAKE = Decimal(1_000_000)
STAKE_PLACES = 4  # decimals of a stake
MAX_POINTS = 1_000_000  # one seat's change in one adjustment, or one transfer
MAX_NAME = 60  # characters of a player or session name
MAX_TEXT = 200  # characters of a note or a reason
MAX_PATH = 4096  # characters of a stored photo path
MAX_DEPTH = 64  # nesting of a JSON hand or export

# characters that break a line or hide text: refused in names, notes and reasons
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def bad_char(v: str) -> str | None:
    for c in v:
        if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") or c in _BIDI:
            return c
    return None


def check_name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise LedgerError(f"{what} must be a non-empty text, got {short(value)}", code="bad_name")
    v = value.strip()
    if len(v) > MAX_NAME:
        raise LedgerError(f"{what} {v[:20]!r}… is {len(v)} characters long, at most {MAX_NAME}",
                          code="bad_name")
    c = bad_char(v)
    if c is not None:
        raise LedgerError(f"{what} {v[:20]!r} holds a line break or control character (U+{ord(c):04X})",
                          code="bad_name")
    return v


def check_text(value: Any, what: str) -> str:
    """A note or a reason: one line of at most ``MAX_TEXT`` characters."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LedgerError(f"the {what} must be a text, got {short(value)}", code="bad_text")
    v = value.strip()
    if len(v) > MAX_TEXT:
        raise LedgerError(f"the {what} is {len(v)} characters long, at most {MAX_TEXT}", code="bad_text")
    c = bad_char(v)
    if c is not None:
        raise LedgerError(f"the {what} holds a line break or control character (U+{ord(c):04X})",
                          code="bad_text")
    return v


def check_photo(value: Any) -> str | None:
    """A photo path as given by the app or the user (stored, shown; the ledger never opens it)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > MAX_PATH or "\x00" in value or bad_char(value):
        raise LedgerError(f"a photo path must be one line of at most {MAX_PATH} characters, "
                          f"got {short(value)}", code="bad_photo")
    return value


def short(value: Any, limit: int = 40) -> str:
    """A value for an error message, cut short: data may be huge."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # e.g. an int too long to print
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit] + "…"


def why(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"missing field {short(exc.args[0] if exc.args else exc)}"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:160]


def preset_name(value: Any, where: str) -> str:
    """A registered preset named by data (an export, a hand's ``rules``); never a file path.

    A house-rules file is named only by the user on the command line; a session stores its
    parsed options, so nothing read from data is ever handed to the engine as a path.
    """
    if isinstance(value, str) and 0 < len(value) <= 20 and not any(c in value for c in "/\\.:~"):
        try:
            name = get_rules(value).name
        except ZipaiError:
            name = ""
        if name in PRESETS:
            return name
    raise LedgerError(f"{where}: rules {short(value)} is not one of the presets "
                      f"({', '.join(PRESETS)}); data never names a rules file", code="bad_rules")


def check_depth(obj: Any, where: str, limit: int = MAX_DEPTH) -> None:
    """Refuse data nested deeper than ``limit`` (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        o, d = stack.pop()
        if d > limit:
            raise LedgerError(f"{where}: nested more than {limit} levels deep", code="too_deep")
        if isinstance(o, Mapping):
            stack.extend((v, d + 1) for v in o.values())
        elif isinstance(o, list | tuple):
            stack.extend((v, d + 1) for v in o)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json(text: str | bytes, where: str) -> Any:
    """JSON from a user or a file: any malformed, too deep or too large input is a LedgerError."""
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise LedgerError(f"{where}: not valid JSON (nested too deeply)", code="bad_json") from None
    except (ValueError, TypeError) as exc:  # JSONDecodeError, a 5000-digit number, bad UTF-8
        raise LedgerError(f"{where}: not valid JSON ({why(exc)})", code="bad_json") from None
    check_depth(obj, where)
    return obj


def check_seat(value: Any, names: Sequence[str], what: str) -> int:
    if isinstance(value, str) and not value.lstrip("-").isdigit():
        if value in names:
            return list(names).index(value)
        raise LedgerError(f"{what} {short(value)} is not one of the players ({', '.join(names)})",
                          code="bad_seat")
    if isinstance(value, bool) or not isinstance(value, int | str) or len(str(value)) > 6:
        raise LedgerError(f"{what} must be a seat number or a player's name, got {short(value)}",
                          code="bad_seat")
    seat = int(value)
    if not 0 <= seat < len(names):
        raise LedgerError(f"{what} seat {seat} does not exist (seats 0–{len(names) - 1})", code="bad_seat")
    return seat


def check_stake(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str) or len(str(value)) > 40:
        raise LedgerError(f"stake must be a number of money per point, got {short(value)}",
                          code="bad_stake")
    try:
        d = Decimal(str(value).strip())
    except InvalidOperation:
        raise LedgerError(f"stake must be a number of money per point, got {short(value)}",
                          code="bad_stake") from None
    if not d.is_finite() or not 0 <= d <= MAX_STAKE:
        raise LedgerError(f"stake must be from 0 to {MAX_STAKE} per point, got {short(value)}",
                          code="bad_stake")
    if d != d.quantize(Decimal(1).scaleb(-STAKE_PLACES)):
        raise LedgerError(f"stake has at most {STAKE_PLACES} decimals, got {short(value)}",
                          code="bad_stake")
    return d if d.as_tuple().exponent <= 0 else d.quantize(Decimal(1))  # 1E+2 is stored as 100
