"""Reading a file the user named: a regular file under a size cap, or one clear error.

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
import os
import stat
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
