"""The far-end tuner replays every alignment limit on validation scenes and writes the winner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import load_script

from zipai.vision.detector import Detector, FarEnds

mod = load_script("tune_far_ends")


def test_the_chosen_limits_are_written_to_the_manifest(tuning_setup: tuple[Path, Path],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert Detector(manifest, threads=1).far_ends in mod.SETTINGS  # read from the manifest or default
    assert mod.main([str(data), "--model", str(manifest), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if re.match(r"  0\.\d+, (own|photo) ", line)]
    assert "2 scenes of" in out and len(rows) == len(mod.SETTINGS)
    written = json.loads(manifest.read_text(encoding="utf-8"))["postprocess"]["far_ends"]
    det = Detector(manifest, threads=1)
    assert det.far_ends == FarEnds(**written) and det.far_ends in mod.SETTINGS


def test_a_manifest_that_keeps_far_ends_is_refused(tuning_setup: tuple[Path, Path],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    man = json.loads(manifest.read_text(encoding="utf-8"))
    man["postprocess"]["drop_far_ends"] = False
    manifest.write_text(json.dumps(man), encoding="utf-8")
    assert mod.main([str(data), "--model", str(manifest)]) == 2
    assert "does not drop far ends" in capsys.readouterr().err
