"""Ledger errors: every refusal is a ValueError with a stable ``code`` and a one-line message."""

from __future__ import annotations


class LedgerError(ValueError):
    """A request the ledger refuses; nothing was written. ``code`` is for programs."""

    code = "ledger"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class NotALedger(LedgerError):
    """The file is corrupt, not SQLite, or an SQLite database of another program."""

    code = "not_a_ledger"


class LockedSession(LedgerError):
    """The session is settled; reopen it before changing it."""

    code = "locked"


class UnknownSession(LedgerError):
    """No session has that id or name."""

    code = "unknown_session"


class LedgerBusy(LedgerError):
    """Another program holds the write lock past the busy timeout; the file is fine, try again."""

    code = "busy"


class ReadOnlyLedger(LedgerError):
    """The file (or its folder) cannot be written: it can be shown and exported, not changed."""

    code = "read_only"


class DamagedData(LedgerError):
    """A row SQLite reads without complaint but whose content the ledger cannot use.

    ``event`` is the id of the event row to blame, when one is.
    """

    code = "damaged"
    event: int | None = None
    why: str = ""
