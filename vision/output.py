"""Files the scanner writes for the user (the ``--overlay`` picture): checked before any work,
written whole or not at all.

An output that is a device or FIFO (``/dev/stdout``, ``mkfifo``) would block or spray bytes
into a terminal; one that is an input of the same run (the photo, by another name or a hard
link) would destroy it. So the target is checked by path and by inode before the scan, and
written to a temporary file in its folder, flushed to disk, then renamed over it: a full disk
or a kill leaves the old file as it was."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path

from zipai.engine.files import fsync_folder, shown

from .errors import VisionError


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def check_output(path: str, inputs: Sequence[tuple[str, str]], flag: str) -> Path:
    """The file ``path`` names, once it is known to be writable as a regular file that is none of
    ``inputs`` (each a path and what it is, "the photo itself"); a one-line VisionError (usage)
    otherwise. Symbolic links are followed: the file
    they reach is the one replaced, and it must pass the same checks."""
    name = shown(path)
    if not path or "\x00" in path:
        raise VisionError(f"{flag} {name}: not a valid file name", code="usage")
    target = Path(os.path.realpath(path))
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise VisionError(f"{flag} {name}: cannot use this file ({exc.strerror or exc})",
                          code="usage") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise VisionError(f"{flag} {name}: not a regular file (a directory, device or FIFO); give a file "
                          "name to write", code="usage")
    for given, what in inputs:
        try:
            same = st is not None and _same(st, os.stat(given))
        except (OSError, ValueError):
            same = False
        if same or target == Path(os.path.realpath(given)):
            raise VisionError(f"{flag} {name} is {what}, an input of this run; give another file name",
                              code="usage")
    folder = target.parent
    if folder.parts[1:2] in (("dev",), ("proc",), ("sys",)):
        raise VisionError(f"{flag} {name}: {shown(str(folder))} holds devices and kernel files, not "
                          "pictures; give a file name in another folder", code="usage")
    if not folder.is_dir():
        raise VisionError(f"{flag} {name}: no such folder {shown(str(folder))}", code="usage")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise VisionError(f"{flag} {name}: cannot write in {shown(str(folder))} (permission denied)",
                          code="usage")
    return target


def _mode(target: Path) -> int:
    """The replaced file's permissions, or a new file's under the umask (mkstemp gives 0600)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask


def write_atomic(target: Path, data: bytes, what: str) -> None:
    """``data`` as the whole of ``target``: a temporary file beside it, fsync, rename."""
    tmp = ""
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:40]}.", suffix=".tmp")
        os.fchmod(fd, _mode(target))
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        tmp = ""
        fsync_folder(target.parent)  # the rename itself reaches the disk with the folder
    except OSError as exc:
        raise VisionError(f"{shown(str(target))}: cannot write the {what} ({exc.strerror or exc}); "
                          "nothing was written", code="io") from None
    finally:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
