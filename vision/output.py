"""Files the scanner writes for the user (the ``--overlay`` picture): checked before any work,
written whole or not at all.

An output that is a device or FIFO (``/dev/stdout``, ``mkfifo``) would block or spray bytes
into a terminal; one that is an input of the same run (the photo, by another name or a hard
link) would destroy it. So the target is checked by path and by inode before the scan, and
written by the one writer of every package (``engine.files.write_whole``): a temporary file in
its folder, flushed to disk, then renamed over it; a full disk or a kill leaves the old file as
it was."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from zipai.engine.files import same_file, shown, write_whole

from .errors import VisionError


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
        if same_file(target, given):
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


def write_atomic(target: Path, data: bytes, what: str) -> None:
    """``data`` as the whole of ``target`` (``engine.files.write_whole``: a temporary file beside
    it, fsync, rename; the replaced file's permissions, or a new file's under the umask)."""
    try:
        write_whole(target, data)
    except OSError as exc:
        raise VisionError(f"{shown(str(target))}: cannot write the {what} ({exc.strerror or exc}); "
                          "nothing was written", code="io") from None
