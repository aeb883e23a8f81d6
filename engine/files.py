"""Reading a file the user named: a regular file under a size cap, or one clear error; and
writing one whole or not at all (``write_whole``), the one writer every package's outputs use.

A FIFO would block ``open`` or ``read`` until a writer comes; ``/dev/zero`` never ends; a
directory or a name with a NUL byte raises what no caller expects. So every path from the
command line is opened without blocking, checked with ``fstat`` on the open descriptor (no
race with a rename), and read to at most ``limit + 1`` bytes.

>>> read_file("/dev/zero", 10, "rules file")
Traceback (most recent call last):
...
zipai.engine.errors.InputError: /dev/zero: not a regular file (a device, FIFO or socket); give a rules file
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

from .errors import InputError

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # POSIX: open a FIFO without waiting for a writer
_OPEN_FLAGS = os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def shown(path: str | Path) -> str:
    """A path as one printable line: control characters would break a one-line message."""
    text = str(path)
    return text if text.isprintable() else repr(text)


def size_text(n: int) -> str:
    """Bytes for people: ``2.0 MiB``, ``64 KiB``, ``512 bytes``."""
    if n >= 2**20:
        return f"{n / 2**20:.1f} MiB"
    return f"{n // 1024} KiB" if n >= 1024 else f"{n} bytes"


def open_regular(path: str | Path, what: str) -> tuple[int, int]:
    """An open descriptor of a regular file and its size; the caller closes it."""
    name = shown(path)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise InputError(f"{name}: no such file", code="io") from None
    except PermissionError:
        raise InputError(f"{name}: permission denied", code="io") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory; give a {what}", code="io") from None
    except (ValueError, TypeError):  # a NUL byte in the name
        raise InputError(f"{name}: not a valid file name", code="io") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot open ({exc.strerror or exc})", code="io") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{name}: is a directory; give a {what}", code="io")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{name}: not a regular file (a device, FIFO or socket); give a {what}",
                             code="io")
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size


def read_file(path: str | Path, limit: int, what: str) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; an ``InputError`` otherwise."""
    fd, size = open_regular(path, what)
    try:
        if size > limit:
            raise InputError(f"{shown(path)}: {size_text(size)} is too large for a {what} "
                             f"(at most {size_text(limit)})", code="too_large")
        chunks: list[bytes] = []
        got = 0
        while got <= limit:  # the file may grow after fstat: never read past the cap
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise InputError(f"{shown(path)}: more than {size_text(limit)}, too large for a {what}",
                             code="too_large")
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(f"{shown(path)}: cannot read ({exc.strerror or exc})", code="io") from None
    finally:
        os.close(fd)


def fsync_folder(folder: str | Path) -> None:
    """The folder's entries to disk, so a file just renamed into it survives a power cut; a
    file system that cannot sync a folder is no reason to fail a write already made whole."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# ------------------------------------------------------------------ writing a file whole

_CREATE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
           | getattr(os, "O_NOFOLLOW", 0))


def identity(path: str | Path) -> tuple[str, tuple[int, int] | None]:
    """The resolved path and (device, inode) of a path; no inode when nothing is there."""
    try:
        resolved = str(Path(path).resolve())
    except (OSError, RuntimeError, ValueError):
        resolved = os.path.abspath(path)
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return resolved, None
    return resolved, (st.st_dev, st.st_ino)


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file: the same resolved path, or the same device and inode
    (a symbolic or hard link, ``..`` or a second mount)."""
    ra, ia = identity(a)
    rb, ib = identity(b)
    return ra == rb or (ia is not None and ia == ib)


def new_temp(target: Path) -> Path:
    """A new empty file beside ``target`` (same folder, so the rename stays on one file system)
    with the permissions ``target`` will keep: the replaced file's, else a new file's under the
    umask, as any file the user writes. (``mkstemp``'s 0600 would make an export or a picture
    private by accident, and drop a replaced file's mode; the kernel applies the umask here, so
    no thread changes it.) Raises ``OSError``."""
    folder = target.parent if str(target.parent) else Path(".")
    try:
        st = os.stat(target)
        mode = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None
    except (OSError, ValueError):
        mode = None
    for _ in range(100):
        tmp = folder / f".{target.name[:40]}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(tmp, _CREATE, 0o666)
        except FileExistsError:
            continue
        try:
            if mode is not None:
                os.fchmod(fd, mode)
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        os.close(fd)
        return tmp
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))


def write_whole(target: Path, data: bytes, check: Callable[[], object] | None = None) -> None:
    """``data`` as the whole of ``target``, or nothing: a temporary file beside it, written and
    synced, ``check()`` (the caller's last look at the target), a rename over it, then the
    folder synced so the rename survives a power cut. Raises ``OSError`` (or what ``check``
    raises) with ``target`` as it was and no temporary file left."""
    tmp = new_temp(target)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if check is not None:
            check()
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_folder(target.parent if str(target.parent) else Path("."))
