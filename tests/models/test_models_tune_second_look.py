"""The second-look tuner replays every setting on validation scenes and writes the winner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zipai.models.tune import second_look as mod
from zipai.vision.config import SecondLook, read_config


def test_the_chosen_second_look_is_written_to_the_manifest(tuning_setup: tuple[Path, Path],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    assert "2 scenes of" in out and "looked at twice" in out and "\n  none " in out
    written = json.loads(manifest.read_text(encoding="utf-8"))["finder"].get("second_look")
    chosen = read_config(manifest).finder.second_look
    assert chosen in mod.LOOKS
    assert written is None or chosen == SecondLook(**written)
