"""The second-look tuner replays every setting on validation scenes and writes the winner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import load_script

from zipai.vision.detector import Detector, SecondLook

mod = load_script("tune_second_look")


def test_the_chosen_second_look_is_written_to_the_manifest(tuning_setup: tuple[Path, Path],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    assert "2 scenes of" in out and "looked at twice" in out and "\n  none " in out
    written = json.loads(manifest.read_text(encoding="utf-8"))["finder"]["second_look"]
    det = Detector(manifest, threads=1)
    assert det.second_look in mod.LOOKS
    assert written is None or det.second_look == SecondLook(**written)
