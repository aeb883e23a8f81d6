"""The far-end tuner replays every alignment limit on validation scenes and writes the winner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from zipai.models.tune import far_ends as mod
from zipai.vision.config import FarEnds, read_config
from zipai.vision.detector import Detector
from zipai.vision.errors import ModelError


def test_the_chosen_limits_are_written_to_the_manifest(tuning_setup: tuple[Path, Path],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert read_config(manifest).postprocess.far_ends in mod.SETTINGS  # read from the manifest or default
    assert mod.main([str(data), "--model", str(manifest), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if re.match(r"  0\.\d+, (own|photo), ", line)]
    assert "2 scenes of" in out and len(rows) in (12, 13, 14)  # the manifest's and the defaults
    assert any(line.startswith("  0.2, photo, 0.6, 0.75, mean ") for line in rows)  # the defaults
    written = json.loads(manifest.read_text(encoding="utf-8"))["postprocess"]["far_ends"]
    chosen = read_config(manifest).postprocess.far_ends
    assert chosen == FarEnds(**written) and chosen in mod.SETTINGS


def test_a_manifest_that_keeps_far_ends_is_refused(tuning_setup: tuple[Path, Path],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    man = json.loads(manifest.read_text(encoding="utf-8"))
    man["postprocess"]["drop_far_ends"] = False
    manifest.write_text(json.dumps(man), encoding="utf-8")
    assert mod.main([str(data), "--model", str(manifest)]) == 2
    assert "does not drop far ends" in capsys.readouterr().err


def test_a_manifest_naming_an_unknown_summary_is_refused_at_load(tuning_setup: tuple[Path, Path]) -> None:
    _, manifest = tuning_setup
    man = json.loads(manifest.read_text(encoding="utf-8"))
    man["postprocess"]["far_ends"] = {"across": "max"}
    manifest.write_text(json.dumps(man), encoding="utf-8")
    with pytest.raises(ModelError, match=r"postprocess\.far_ends\.across must be mean or median, not 'max'"):
        Detector(manifest, threads=1)
