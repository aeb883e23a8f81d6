"""The take-in tuner replays the layout step at every floor and cap and writes the winner."""

from __future__ import annotations

from pathlib import Path

import pytest

from zipai.models.tune import take_in as mod
from zipai.vision.config import read_config
from zipai.vision.detection import Detection


def test_offered_finds_follow_the_floor_and_the_cap() -> None:
    spare = [Detection("x5", (0, 0, 10, 10), s, "black", finder_score=s) for s in (0.3, 0.22, 0.16, 0.11)]
    assert mod.offered(spare, None) == []
    assert [d.finder_score for d in mod.offered(spare, (0.15, 8))] == [0.3, 0.22, 0.16]
    assert [d.finder_score for d in mod.offered(spare, (0.1, 2))] == [0.3, 0.22]


def test_the_chosen_floor_is_written_to_the_manifest(tuning_setup: tuple[Path, Path],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    assert "2 scenes of" in out and "taken in" in out and "\n  none " in out
    f = read_config(manifest).finder
    chosen = None if f.spare_threshold is None else (f.spare_threshold, f.max_spare)
    assert chosen in mod.SETTINGS
