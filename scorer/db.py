"""Opening the SQLite file: where it lives, pragmas, and the versioned schema.

Every schema change is a numbered migration applied in one transaction and recorded in
``schema_migrations``; version 1 is the first schema, already with the photo path and
the per-hand options on each event. A file that is not SQLite, is damaged, or belongs to
another program is refused with ``NotALedger`` before anything is written to it.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from .errors import LedgerBusy, LedgerError, NotALedger, ReadOnlyLedger

APPLICATION_ID = 0x5A504C47  # "ZPLG": marks the file as a zipai ledger (PRAGMA application_id)
APP_NAME = "zipai-ledger"
BUSY_TIMEOUT_MS = 15_000

EVENT_KINDS = ("hand", "draw", "double", "adjust", "void", "edit", "settle", "reopen")

_V1 = [
    """CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL)""",
    """CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        preset TEXT NOT NULL,
        rules_json TEXT NOT NULL,
        stake TEXT NOT NULL,
        first_dealer INTEGER NOT NULL,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE session_players (
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        seat INTEGER NOT NULL,
        player_id INTEGER NOT NULL REFERENCES players(id),
        PRIMARY KEY (session_id, seat))""",
    f"""CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        kind TEXT NOT NULL CHECK (kind IN ({", ".join(repr(k) for k in EVENT_KINDS)})),
        target INTEGER REFERENCES events(id),
        data TEXT NOT NULL CHECK (json_valid(data)),
        options TEXT CHECK (options IS NULL OR json_valid(options)),
        photo TEXT,
        created_at TEXT NOT NULL)""",
    "CREATE INDEX events_by_session ON events(session_id, id)",
]

# version -> statements; append new versions, never edit a released one.
MIGRATIONS: dict[int, list[str]] = {1: _V1}
SCHEMA_VERSION = max(MIGRATIONS)


def now() -> str:
    """UTC time stamp of an event, ISO 8601 to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def default_path() -> Path:
    """``$ZIPAI_DB``, else ``$XDG_DATA_HOME/zipai/ledger.db``, else ``~/.local/share/zipai/ledger.db``."""
    env = os.environ.get("ZIPAI_DB")
    if env:
        return expand(env, "ZIPAI_DB")
    base = os.environ.get("XDG_DATA_HOME")
    if base:
        return expand(base, "XDG_DATA_HOME") / "zipai" / "ledger.db"
    try:
        home = Path.home()
    except (RuntimeError, KeyError):
        raise LedgerError("no home folder is known for this user; set ZIPAI_DB to the ledger's path",
                          code="io") from None
    return home / ".local" / "share" / "zipai" / "ledger.db"


def expand(text: str, what: str) -> Path:
    """``~`` and ``~user`` expanded; a ``~user`` this system does not know is refused, not taken
    as a folder named ``~user`` in the current folder."""
    if "\x00" in text:
        raise LedgerError(f"{what} holds a NUL character, not a path", code="io")
    try:
        p = Path(text).expanduser()
    except (RuntimeError, KeyError):
        p = Path(text)
    if str(p).startswith("~"):
        user = str(p)[1:].split(os.sep, 1)[0]
        raise LedgerError(f"{what}={text!r}: " + (f"there is no user {user!r} on this system, so "
                          f"'~{user}' names no home folder" if user else "no home folder is known")
                          + "; give the path in full", code="io")
    return p


def _refuse(path: str, why: str) -> NotALedger:
    return NotALedger(f"{path} is not a zipai ledger: {why}")


def is_busy(exc: sqlite3.Error) -> bool:
    """SQLite gave up waiting for another connection's lock (not a sign of damage)."""
    name = str(getattr(exc, "sqlite_errorname", ""))
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc) or "busy" in str(exc)


def is_read_only(exc: sqlite3.Error) -> bool:
    name = str(getattr(exc, "sqlite_errorname", ""))
    return name.startswith("SQLITE_READONLY") or "readonly" in str(exc)


def is_damage(exc: sqlite3.Error) -> bool:
    """SQLite found the file itself malformed (not the disk, the folder or a lock)."""
    name = str(getattr(exc, "sqlite_errorname", ""))
    text = str(exc)
    return (name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_FORMAT"))
            or "malformed" in text or "not a database" in text)


def environment_cause(path: str | Path, exc: BaseException | None = None) -> str | None:
    """Why the file's surroundings refuse a write: a full disk, a read-only file system,
    missing permission; ``None`` when none of them is the case."""
    name = str(getattr(exc, "sqlite_errorname", "")) if exc is not None else ""
    if name.startswith("SQLITE_FULL") or "database or disk is full" in str(exc or ""):
        return "the disk is full"
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    try:
        vfs = os.statvfs(folder)
    except (OSError, AttributeError):
        return None
    if vfs.f_flag & getattr(os, "ST_RDONLY", 1):
        return "it is on a read-only file system"
    if (vfs.f_bavail == 0 and os.geteuid() != 0) or vfs.f_bfree == 0:
        return "the disk is full"
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        return "permission denied (the file or its folder cannot be written)"
    return None


def busy(shown: str) -> LedgerBusy:
    return LedgerBusy(f"{shown} is busy: another program holds its write lock (waited "
                      f"{BUSY_TIMEOUT_MS / 1000:g} s); nothing was changed, try again")


def read_only(shown: str, cause: str | None = None) -> ReadOnlyLedger:
    return ReadOnlyLedger(f"{shown} is read-only here" + (f" ({cause})" if cause else "")
                          + ": it can be shown and exported, not changed")


def connect(path: str | Path, *, create: bool = True, readonly: bool = False) -> sqlite3.Connection:
    """Open (and if new, create) a ledger file; refuse anything that is not one.

    ``readonly`` opens it with SQLite's read-only mode and writes nothing, not even a lock,
    so a read works on a read-only file and while another process is writing.
    """
    p = Path(path)
    shown = str(p)
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise LedgerError(f"{shown}: cannot open the ledger ({exc.strerror or exc})", code="io") from None
    except ValueError:
        raise LedgerError(f"{shown!r} is not a valid file name", code="io") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise _refuse(shown, "it is a folder")
    if mode is not None and not stat.S_ISREG(mode):
        raise _refuse(shown, "not a regular file (a FIFO, device or socket)")
    if not p.exists():
        if not create or readonly:
            raise NotALedger(f"{shown} does not exist")
        p.parent.mkdir(parents=True, exist_ok=True)
    elif readonly and not p.stat().st_size:
        raise _refuse(shown, "the file is empty")
    # The header is read by SQLite, never by a file object of ours: closing any descriptor of
    # the file drops every POSIX lock this process holds on it, so a second Ledger opened in a
    # process that already has one (the app serving its table page) would leave the first
    # unlocked while other processes write, and then read pages that are not there.
    conn = _open(p, shown, readonly)
    try:
        _prepare(conn, shown, readonly)
    except sqlite3.DatabaseError as exc:
        conn.close()
        if str(getattr(exc, "sqlite_errorname", "")) == "SQLITE_NOTADB" and not _sqlite_header(p):
            raise _refuse(shown, "not an SQLite database") from None
        wal = Path(f"{p}-wal")
        if readonly and not is_busy(exc) and not is_damage(exc) and wal.exists() and wal.stat().st_size:
            cause = environment_cause(shown, exc)
            if cause is not None:
                raise ReadOnlyLedger(
                    f"{shown} cannot be read here: its -wal journal still holds committed changes "
                    f"and {cause}, so SQLite cannot merge it; copy the ledger with its -wal file to a "
                    "writable folder, or open it once where it can be written") from None
        if not readonly or is_busy(exc) or (wal.exists() and wal.stat().st_size):
            raise _failure(shown, exc) from None
        # a read-only folder: SQLite cannot make the -shm file a WAL reader needs; with no
        # -wal file there is nothing to miss, and no writer can start, so read it as immutable
        conn = _open(p, shown, readonly, immutable=True)
        try:
            _prepare(conn, shown, readonly)
        except sqlite3.DatabaseError as again:
            conn.close()
            raise _failure(shown, again) from None
        except LedgerError:
            conn.close()
            raise
    except LedgerError:
        conn.close()
        raise
    return conn


def _open(p: Path, shown: str, readonly: bool, immutable: bool = False) -> sqlite3.Connection:
    try:
        if not readonly:
            return sqlite3.connect(shown, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                   check_same_thread=False)
        uri = f"{p.resolve().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")
        return sqlite3.connect(uri, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False, uri=True)
    except sqlite3.Error as exc:
        raise _refuse(shown, f"cannot open it ({exc})") from None


def _sqlite_header(p: Path) -> bool:
    """Whether the file starts as an SQLite database does (read only once SQLite said it is none,
    so no connection of this process can hold a lock on it)."""
    try:
        with p.open("rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _failure(shown: str, exc: sqlite3.DatabaseError) -> LedgerError:
    """What an SQLite error on opening means to the user: busy, read-only, a full disk, missing
    permission, or (only when SQLite says so) a damaged file."""
    if is_busy(exc):
        return busy(shown)
    cause = None if is_damage(exc) else environment_cause(shown, exc)
    if cause == "the disk is full":
        return LedgerError(f"{shown}: cannot open the ledger: the disk is full ({exc}); free some space "
                           "and try again, the file is unharmed", code="disk_full")
    if cause is not None and "read-only" not in cause and not is_read_only(exc):
        return LedgerError(f"{shown}: cannot open the ledger: {cause} ({exc})", code="read_only")
    if cause is not None or is_read_only(exc):
        return read_only(shown, cause)
    if not is_damage(exc):
        return LedgerError(f"{shown}: cannot open the ledger ({exc})", code="db_error")
    err = _refuse(shown, f"the file is damaged ({exc}); 'zipai session export' salvages what can "
                         "still be read")
    err.code = "damaged"
    return err


def _prepare(conn: sqlite3.Connection, shown: str, readonly: bool = False) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables):
        raise _refuse(shown, "an SQLite database of another program")
    if readonly:
        current = schema_version(conn)
        if current != SCHEMA_VERSION:
            raise _refuse(shown, f"schema version {current}, this program reads {SCHEMA_VERSION}"
                                 + ("; open it once for writing to upgrade it" if current < SCHEMA_VERSION
                                    else ""))
        _check_meta(conn, shown)
        return
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if str(mode).lower() != "wal":  # only a new file needs the switch (it takes the write lock)
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":  # pragma: no cover - e.g. a read-only folder
        raise _refuse(shown, f"cannot switch it to WAL journaling (got {mode})")
    conn.execute("PRAGMA synchronous = FULL")  # a committed hand survives power loss too
    conn.execute("PRAGMA foreign_keys = ON")
    migrate(conn, shown)


def schema_version(conn: sqlite3.Connection) -> int:
    try:
        row = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
    except sqlite3.OperationalError as exc:
        if is_busy(exc):
            raise
        return 0
    return int(row[0] or 0)


def migrate(conn: sqlite3.Connection, shown: str = "ledger") -> int:
    """Bring the schema up to ``SCHEMA_VERSION``, one transaction per version.

    An up-to-date file is only read: opening a ledger takes no write lock.
    """
    current = schema_version(conn)
    if current > SCHEMA_VERSION:
        raise _refuse(shown, f"schema version {current} is newer than this program ({SCHEMA_VERSION})")
    if current == SCHEMA_VERSION:
        _check_meta(conn, shown)
        return SCHEMA_VERSION
    conn.execute("BEGIN IMMEDIATE")
    try:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").fetchone():
            conn.execute("CREATE TABLE schema_migrations ("
                         "version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        current = schema_version(conn)
        if current > SCHEMA_VERSION:
            raise _refuse(shown, f"schema version {current} is newer than this program ({SCHEMA_VERSION})")
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    for version in range(current + 1, SCHEMA_VERSION + 1):
        _apply(conn, version, MIGRATIONS[version])
    _check_meta(conn, shown)
    return SCHEMA_VERSION


def _apply(conn: sqlite3.Connection, version: int, statements: list[str]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        if schema_version(conn) >= version:  # another process got there first
            conn.execute("ROLLBACK")
            return
        for sql in statements:
            conn.execute(sql)
        if version == 1:
            conn.execute("INSERT INTO meta(key, value) VALUES ('app', ?)", (APP_NAME,))
        conn.execute("INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)", (version, now()))
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise


def _check_meta(conn: sqlite3.Connection, shown: str) -> None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'app'").fetchone()
    except sqlite3.OperationalError:
        row = None
    if row is None or row[0] != APP_NAME:
        raise _refuse(shown, "its meta table does not name zipai-ledger")


def transaction(conn: sqlite3.Connection, body: Callable[[], object]) -> object:
    """Run ``body`` inside BEGIN IMMEDIATE … COMMIT; any exception rolls everything back."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = body()
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return result


def rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is still open: SQLite ends one itself on some errors (a full
    disk), and a second ROLLBACK would hide the real cause behind 'no transaction is active'."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass
