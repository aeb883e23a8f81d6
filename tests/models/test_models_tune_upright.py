"""The upright tuner runs every setting through the whole pipeline and writes the winner."""

from __future__ import annotations

from pathlib import Path

import pytest

from zipai.models.tune import upright as mod
from zipai.vision.config import Upright, read_config


def test_ties_go_to_the_cheaper_setting() -> None:
    cheap = sorted(mod.SETTINGS, key=mod.cost)
    assert cheap[0] is None and cheap[1] == Upright(0.8, 0.15, (1.3, 1.45))
    assert mod.cost(Upright(0.9, 0.15, (1.3,))) < mod.cost(Upright(0.9, 0.15, (1.3, 1.45)))
    assert mod.name(None) == "off"
    assert mod.name(Upright(0.9, 0.15, (1.3, 1.45))) == "below 0.9, margins 1.3/1.45"


def test_every_setting_is_tried_and_the_best_is_written(tuning_setup: tuple[Path, Path],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("  off", "  below"))]
    assert "2 scenes of" in out and len(rows) == len(mod.SETTINGS)
    best = next(up for up in mod.SETTINGS if rows[0].startswith(f"  {mod.name(up)} "))
    assert read_config(manifest).reader.upright == best  # the first row is what is written
