"""Hardening: a command that commits a write never fails while printing, whatever encoding the
output stream takes (an ASCII locale, ``PYTHONIOENCODING=ascii`` or ``latin-1``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HAND = {"players": 3, "winner": 1, "won_by": "self_draw",
        "groups": [], "hand": "x1 x2 x3 x4 x5 x6 x7 x8 x9 d1 d2 d3 d4 d5 d6 d7 d8 d9 d10 d10 d10".split()}


def _zipai(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "zipai", *args], capture_output=True, text=True,
                          encoding="ascii", errors="replace", env=env, timeout=60)


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_writes_that_commit_exit_0_under_an_ascii_or_latin1_stream(tmp_path: Path, encoding: str) -> None:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "ZIPAI_DB": str(tmp_path / "l.db")}
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(HAND), encoding="utf-8")
    new = _zipai(["session", "new", "周五", "--rules", "hunan", "--players", "甲,乙,丙"], env)
    assert new.returncode == 0, new.stderr
    added = _zipai(["hand", "add", str(hand)], env)
    assert added.returncode == 0, added.stderr
    assert "\\u" in added.stdout or "\\x" in added.stdout  # the Chinese came out escaped, not lost
    shown = _zipai(["session", "show", "--json"], env)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["hands"] == 1
    undone = _zipai(["session", "undo"], env)
    assert undone.returncode == 0, undone.stderr


def test_score_prints_under_an_ascii_stream(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    out = _zipai(["score", "--text", "x1x2x3 x4x5x6 x7x8x9 d1d2d3 d4d5d6 d7d8d9 d10d10d10",
                  "--winner", "1", "--won-by", "self_draw"], env)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
