"""Numbers and names read from text: the checks every package applies the same way.

Python's ``int()`` takes Arabic-Indic and other non-ASCII digits (``int("٣٠") == 30``) and
raises past 4,300 digits; a number typed at a table is a few ASCII digits, so anything else
is refused with one line before ``int()`` ever sees it. A name shown in a table, a file name
or a one-line message must not hide or reorder text (U+202E), hold invisible characters
(U+200B) or break the line: ``bad_char`` finds the first such character.

>>> parse_int("30", "piao")
30
>>> parse_int("٣٠", "piao")
Traceback (most recent call last):
...
zipai.engine.errors.InputError: piao must be a whole number in ASCII digits (0-9), got '٣٠'
>>> bad_char("a\\u202eb")
'\\u202e'
"""

from __future__ import annotations

import os
import unicodedata
from typing import Any

from .errors import InputError

MAX_DIGITS = 18
"""Digits of any whole number typed as text: every count, seat, option or coordinate fits in
far fewer, and a longer one is a typing slip (or an attack on ``int()``'s digit limit)."""


def short(value: Any, limit: int = 40) -> str:
    """A value for a one-line message: its repr, cut to ``limit`` characters. A huge int is
    described by its size: its repr past 4,300 digits would raise."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value) if not isinstance(value, str) or len(value) <= limit else repr(value[:limit]) + "…"
    return text if len(text) <= limit + 3 else text[:limit] + "…"


def parse_int(text: str, what: str, *, max_digits: int = MAX_DIGITS) -> int:
    """A whole number typed as text: optional sign, ASCII digits only, at most ``max_digits``."""
    s = text.strip()
    digits = s[1:] if s[:1] in "+-" else s
    if not digits or not digits.isascii() or not digits.isdigit():
        raise InputError(f"{what} must be a whole number in ASCII digits (0-9), got {short(text)}")
    if len(digits) > max_digits:
        raise InputError(f"{what} has {len(digits)} digits; at most {max_digits}", code="too_large")
    return int(s)


def arg_int(what: str) -> Any:
    """An argparse ``type=`` that reads a whole number with ``parse_int``; argparse turns its
    ArgumentTypeError into the parser's one-line usage error, our words kept."""
    import argparse

    def conv(text: str) -> int:
        try:
            return parse_int(text, "the value")
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    conv.__name__ = what
    return conv


def from_argv(text: str) -> str:
    """A command-line argument as the user typed it. Under an ASCII locale (``LC_ALL=C`` without
    UTF-8 mode) Python hands a non-ASCII argument over as escaped bytes (lone surrogates); a
    terminal sends UTF-8, so those bytes are read as UTF-8 where they are UTF-8."""
    if not any("\udc80" <= c <= "\udcff" for c in text):
        return text
    try:
        return os.fsencode(text).decode("utf-8")
    except (UnicodeError, ValueError):
        return text


_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def bad_char(text: str) -> str | None:
    """The first character of ``text`` that would break a line, hide or reorder text (control
    and format characters such as U+200B and U+202E, unassigned and private code points, line
    and paragraph separators); None when there is none."""
    for c in text:
        if c in _BIDI or unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            return c
    return None


def printable(text: str) -> str:
    """``text`` for a terminal: every character ``bad_char`` finds written as an escape, so
    nothing read from a file can move the cursor, recolour the screen or hide a word."""
    if bad_char(text) is None:
        return text
    return "".join(c.encode("unicode_escape").decode("ascii") if bad_char(c) else c for c in text)
