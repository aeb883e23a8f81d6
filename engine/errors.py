"""Exceptions of the engine: every bad input is a ValueError with a stable code."""

from __future__ import annotations


class ZipaiError(ValueError):
    """Base of every input error; ``code`` is stable for programs, the text is for people."""

    code = "invalid"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class CardError(ZipaiError):
    """A token that is no card, or more than four copies of one card."""

    code = "bad_card"


class GroupError(ZipaiError):
    """Cards that form none of the groups of RULINGS section 2."""

    code = "bad_group"


class RulesError(ZipaiError):
    """An unknown rule set, an unknown house option, or an option of the wrong type."""

    code = "bad_rules"


class InputError(ZipaiError):
    """A hand description that is malformed: a missing field, a seat out of range."""

    code = "bad_input"
