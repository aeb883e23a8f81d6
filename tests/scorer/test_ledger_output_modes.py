"""The ledger's outputs are written like any file the user writes: a new export or backup gets
the umask's permissions (as the ledger itself does), a replaced export keeps its own."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from test_ledger_hands import l1, new_ledger

from zipai.scorer import files


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_exports_and_backups_follow_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        led = new_ledger(tmp_path)
        s = led.new_session("modes", "hunan", ["甲", "乙", "丙"])
        led.record_hand(s, l1(1, "stock"))
        export = files.write_atomic(tmp_path / "e.json", b"{}", files.ledger_files(led.path))
        backup = led.backup(tmp_path / "b.db")
        assert mode(export) == mode(backup) == mode(led.path) == 0o644
        export.chmod(0o600)  # a private export stays private when written again
        files.write_atomic(export, b"[]", files.ledger_files(led.path))
        assert mode(export) == 0o600 and export.read_bytes() == b"[]"
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    finally:
        os.umask(old)
