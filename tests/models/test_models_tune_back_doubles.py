"""The back-doubles tuner replays every limit pair on validation scenes and writes the winner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zipai.models.tune import back_doubles as mod
from zipai.vision.config import BackDoubles, read_config


def test_the_chosen_limits_are_written_to_the_manifest(tuning_setup: tuple[Path, Path],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    assert "2 scenes of" in out and "back P / R" in out and "\n  none " in out
    written = json.loads(manifest.read_text(encoding="utf-8"))["postprocess"].get("back_doubles")
    chosen = read_config(manifest).postprocess.back_doubles
    assert chosen in mod.SETTINGS
    assert written is None or chosen == BackDoubles(**written)
