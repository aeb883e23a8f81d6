"""The one writer of every package's outputs (``engine.files.write_whole``): whole or nothing,
a new file's permissions under the umask, a replaced file's kept, no temporary file left."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from zipai.engine.files import new_temp, same_file, write_whole


@pytest.fixture
def umask_027() -> Iterator[None]:
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_a_new_file_gets_the_umask_mode_not_0600(tmp_path: Path, umask_027: None) -> None:
    out = tmp_path / "export.json"
    write_whole(out, b"{}")
    assert out.read_bytes() == b"{}" and mode(out) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["export.json"]


def test_a_replaced_file_keeps_its_mode(tmp_path: Path, umask_027: None) -> None:
    out = tmp_path / "shared.csv"
    out.write_bytes(b"old")
    out.chmod(0o604)
    write_whole(out, b"new")
    assert out.read_bytes() == b"new" and mode(out) == 0o604


def test_a_refusal_just_before_the_rename_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "keep.txt"
    out.write_bytes(b"old")

    def refuse() -> None:
        raise ValueError("a link to the ledger appeared")

    with pytest.raises(ValueError, match="ledger"):
        write_whole(out, b"new", check=refuse)
    assert out.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_a_missing_folder_is_an_os_error_with_nothing_written(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_whole(tmp_path / "no" / "such.txt", b"x")
    assert list(tmp_path.iterdir()) == []


def test_temporaries_are_fresh_names_beside_the_target(tmp_path: Path) -> None:
    target = tmp_path / "a.png"
    a, b = new_temp(target), new_temp(target)
    assert a != b and a.parent == b.parent == tmp_path and a.name.startswith(".a.png.")
    assert a.stat().st_size == 0


def test_same_file_sees_links(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_bytes(b"x")
    (tmp_path / "hard").hardlink_to(f)
    (tmp_path / "soft").symlink_to(f)
    assert same_file(f, tmp_path / "hard") and same_file(f, tmp_path / "soft")
    assert same_file(f, tmp_path / "sub" / ".." / "f") and not same_file(f, tmp_path / "g")
