"""The layout tuner tries every clustering setting on labelled cards and names its choice."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from zipai.models.tune import layout as mod
from zipai.vision.layout import Params


def test_the_grid_starts_from_the_defaults_and_counts_what_moved() -> None:
    grid = mod.settings(Params())
    assert grid[0] == Params() and len(set(map(repr, grid))) == len(grid)
    assert len(grid) in (1 + 3 * 3 * 2 * 2 * 2 - 1, 1 + 3 * 3 * 2 * 2 * 2)  # the defaults once
    assert mod.moved(Params(), Params()) == 0
    assert mod.moved(replace(Params(), max_across=0.55, off_axis=40.0), Params()) == 2


def test_the_choice_is_printed(tuning_setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = tuning_setup
    assert mod.main([str(data)]) == 0
    out = capsys.readouterr().out
    assert "2 scenes of" in out and "(current defaults)" in out
    assert out.strip().splitlines()[-1].startswith("choice: max_across=")
