"""Files the ledger writes besides itself: exports, backups, the copy a restore keeps.

Two rules hold for every one of them. An output never lands on something the command
reads or keeps: the open ledger, its ``-wal`` and ``-shm``, an input of the same run, or
any SQLite file (a ledger or a backup) — compared by resolved path and by device and
inode, so a symbolic or hard link, ``..`` or a second mount is caught. And an output is
written whole or not at all, by the one writer of every package (``engine.files``): into
a temporary file in the same folder, flushed to the disk, then renamed over the target;
on any failure the temporary file is removed and the target is as it was. A new output
gets a new file's permissions under the umask, a replaced one keeps its own. A target
that is not a regular file (a FIFO, a device, a folder) is refused without being opened,
so nothing blocks.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from zipai.engine.files import fsync_folder, new_temp, write_whole
from zipai.engine.files import same_file as same_file  # the ledger's callers ask it here

from .errors import LedgerError

SQLITE_MAGIC = b"SQLite format 3\x00"


class OutputRefused(LedgerError):
    """An output path the command will not write: it is an input, the ledger, or no plain file."""

    code = "io"


def os_cause(exc: OSError) -> str:
    """What an operating-system error means to the user, in a few words."""
    no = exc.errno
    if no == errno.ENOSPC or no == getattr(errno, "EDQUOT", -1):
        return "the disk is full"
    if no == errno.EROFS:
        return "the file system is read-only"
    if no in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if no == errno.ENAMETOOLONG:
        return "the name is too long"
    if no == errno.ENOENT:
        return "the folder does not exist"
    if no == errno.ENOTDIR:
        return "a part of the path is not a folder"
    return exc.strerror or str(exc)


def ledger_files(path: str | Path) -> list[Path]:
    """The open ledger and the files SQLite keeps beside it."""
    p = Path(path)
    return [p, Path(f"{p}-wal"), Path(f"{p}-shm"), Path(f"{p}-journal")]


def check_output(target: str | Path, keep: Iterable[str | Path], what: str = "output") -> Path:
    """``target`` if a command may write it; an ``OutputRefused`` naming why not.

    ``keep``: the files of this run that must survive it (the ledger's, the inputs).
    """
    t = Path(target)
    name = str(target)
    if "\x00" in name:
        raise OutputRefused(f"{name!r}: not a valid file name")
    for k in keep:
        if same_file(t, k):
            raise OutputRefused(f"{name}: the {what} would replace {k}, which this command reads or "
                                "keeps; choose another file")
    try:
        st = os.stat(t)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputRefused(f"{name}: cannot write the {what} there ({os_cause(exc)})") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise OutputRefused(f"{name}: is a folder; give a file name for the {what}")
        if not stat.S_ISREG(st.st_mode):
            raise OutputRefused(f"{name}: not a regular file (a FIFO, device or socket); the {what} "
                                "is written only to a plain file")
        if _is_sqlite(t):
            raise OutputRefused(f"{name}: is an SQLite database (a ledger or a backup); {_a(what)} "
                                "never replaces one")
    parent = t.parent if str(t.parent) else Path(".")
    try:
        pst = os.stat(parent)
    except FileNotFoundError:
        pst = None  # made by the writer
    except OSError as exc:
        raise OutputRefused(f"{name}: cannot write the {what} there ({os_cause(exc)})") from None
    if pst is not None and not stat.S_ISDIR(pst.st_mode):
        raise OutputRefused(f"{name}: {parent} is not a folder")
    return t


def _a(what: str) -> str:
    return ("an " if what[:1] in "aeiou" else "a ") + what


def _is_sqlite(p: Path) -> bool:
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        return os.read(fd, len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False
    finally:
        os.close(fd)


@contextlib.contextmanager
def temp_beside(target: Path, what: str) -> Iterator[Path]:
    """A fresh temporary path in ``target``'s folder, removed unless the caller renamed it away."""
    folder = target.parent if str(target.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp_path = new_temp(target)
    except OSError as exc:
        raise LedgerError(f"{target}: cannot write the {what} ({os_cause(exc)}); nothing was written",
                          code="io") from None
    try:
        yield tmp_path
    finally:
        with contextlib.suppress(OSError):
            tmp_path.unlink()


def write_atomic(target: str | Path, data: bytes, keep: Iterable[str | Path], what: str = "export") -> Path:
    """Write ``data`` to ``target`` whole or not at all (temp file, fsync, rename)."""
    t = check_output(target, keep, what)
    folder = t.parent if str(t.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LedgerError(f"{t}: cannot write the {what} ({os_cause(exc)}); nothing was written",
                          code="io") from None
    try:  # check_output again last: nothing slipped in meanwhile (a FIFO, a link to the ledger)
        write_whole(t, data, check=lambda: check_output(t, keep, what))
    except OSError as exc:
        raise LedgerError(f"{t}: cannot write the {what} ({os_cause(exc)}); "
                          f"{'the old file is unchanged' if t.exists() else 'nothing was written'}",
                          code="io") from None
    return t


def publish_new(target: Path, fill: Callable[[Path], None], keep: Iterable[str | Path],
                what: str = "backup") -> Path:
    """Make ``target``, which must not exist, from a temporary file that ``fill`` writes and
    syncs; it appears whole (a hard link, else a rename) or not at all, with a new file's
    permissions under the umask (``engine.files.new_temp``)."""
    keep = list(keep)
    for k in keep:
        if same_file(target, k):
            raise OutputRefused(f"{target}: the {what} would replace {k}, which this command reads or "
                                "keeps; choose another file")
    if os.path.lexists(target):
        raise LedgerError(f"{target} exists; a {what} never overwrites a file", code="exists")
    t = check_output(target, keep, what)
    with temp_beside(t, what) as tmp:
        fill(tmp)
        try:
            try:
                os.link(tmp, t)  # fails if the target appeared meanwhile: never overwrites
            except FileExistsError:
                raise LedgerError(f"{t} exists; a {what} never overwrites a file", code="exists") from None
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                    raise
                if os.path.lexists(t):
                    raise LedgerError(f"{t} exists; a {what} never overwrites a file",
                                      code="exists") from None
                os.rename(tmp, t)  # a file system without hard links (FAT, some mounts)
        except OSError as exc:
            raise LedgerError(f"{t}: cannot write the {what} ({os_cause(exc)}); nothing was written",
                              code="io") from None
    fsync_folder(t.parent if str(t.parent) else Path("."))
    return t


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_input(path: str | Path, what: str) -> Path:
    """A file the command reads, checked without opening it: it exists and is a regular file
    (a FIFO would block the reader, a device might never end)."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise LedgerError(f"{path} does not exist", code="io") from None
    except (OSError, ValueError) as exc:
        cause = os_cause(exc) if isinstance(exc, OSError) else "not a valid file name"
        raise LedgerError(f"{path}: cannot read the {what} ({cause})", code="io") from None
    if stat.S_ISDIR(st.st_mode):
        raise LedgerError(f"{path}: is a folder; give a {what} file", code="io")
    if not stat.S_ISREG(st.st_mode):
        raise LedgerError(f"{path}: not a regular file (a FIFO, device or socket); give a {what} file",
                          code="io")
    return p
