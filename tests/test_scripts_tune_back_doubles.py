"""The back-doubles tuner replays every limit pair on validation scenes and writes the winner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import load_script

from zipai.datasets.cli import main as data_main
from zipai.vision.detector import BackDoubles, Detector, models_dir

mod = load_script("tune_back_doubles")


def test_the_chosen_limits_are_written_to_the_manifest(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "val"
    assert data_main(["render", "--out", str(data), "--count", "2", "--seed", "6", "--split", "val",
                      "--size", "800x600", "--quiet"]) == 0
    model = tmp_path / "model"
    model.mkdir()
    man = json.loads((models_dir() / "manifest.json").read_text(encoding="utf-8"))
    for f in ("manifest.json", man["finder"]["file"], man["reader"]["file"]):
        shutil.copy(models_dir() / f, model / f)
    assert mod.main([str(data), "--model", str(model / "manifest.json"), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    assert "2 scenes of" in out and "back P / R" in out and "\n  none " in out
    written = json.loads((model / "manifest.json").read_text(encoding="utf-8"))["postprocess"]["back_doubles"]
    det = Detector(model / "manifest.json", threads=1)
    assert det.back_doubles in mod.SETTINGS
    assert written is None or det.back_doubles == BackDoubles(**written)
