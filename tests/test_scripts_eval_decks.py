"""The deck figures script: one rendered deck, taught and corrected, its figures printed."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load_script

from zipai.datasets.cli import main as data_main

mod = load_script("eval_decks")


def test_one_deck_is_taught_and_measured_three_ways(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "decks"
    assert data_main(["render", "--decks", "--out", str(out), "--count", "1", "--seed", "7", "--split",
                      "heldout", "--scenes", "2", "--size", "960x720", "--quiet", "--workers", "1"]) == 0
    capsys.readouterr()
    assert mod.main([str(out), "--evening", "1"]) == 0
    printed = capsys.readouterr().out
    assert "1 held-out decks, 0 teaching photos refused" in printed
    line = next(ln for ln in printed.splitlines() if ln.startswith("untaught -> taught -> and corrected"))
    assert "1 scenes" in line and line.count("->") == 2 + 3 * 2
    assert "teaching time: median" in printed


def test_a_folder_that_is_no_deck_set_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main([str(tmp_path)]) == 2
    assert "is not a deck set" in capsys.readouterr().err
