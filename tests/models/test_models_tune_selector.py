"""The selector's trainer writes a working selector into a manifest, and its tuner replays every
threshold on validation scenes and writes the winner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from zipai.models.selector import main as train_main
from zipai.models.tune import selector as mod
from zipai.vision.config import read_config


def test_train_then_tune_a_selector(tuning_setup: tuple[Path, Path], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    cache = tmp_path / "finds.npz"
    assert train_main([str(data), "--model", str(manifest), "--out", str(manifest), "--steps", "60",
                       "--cache", str(cache), "--threshold", "0.5"]) == 0
    z = np.load(cache)
    assert len(z["y"]) == len(z["x"]) > 20 and set(np.unique(z["scene"])) == {0, 1}
    written = json.loads(manifest.read_text(encoding="utf-8"))["postprocess"]["selector"]
    assert written["threshold"] == 0.5 and written["training"]["scenes"] == 2
    sel = read_config(manifest).postprocess.selector
    assert sel is not None and sel.floor == 0.15
    capsys.readouterr()
    assert mod.main([str(data), "--model", str(manifest), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if re.match(r"  0\.\d+ +0\.\d{4}", line)]
    assert "2 scenes of" in out and len(rows) == len(mod.THRESHOLDS)
    chosen = float(rows[0].split()[0])
    written = read_config(manifest).postprocess.selector
    assert written is not None and written.threshold == chosen  # the best row is written
    assert mod.main([str(data), "--model", str(manifest), "--thresholds", "0.375", "0.425"]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()
            if re.match(r"  0\.\d+ +0\.\d{4}", line)]
    assert sorted(rows) == ["0.375", "0.425"]  # only the thresholds asked for


def test_a_threshold_outside_zero_and_one_is_refused(tuning_setup: tuple[Path, Path],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--thresholds", "0.4", "1.5"]) == 2
    assert "--thresholds 0.4 1.5: each must lie between 0 and 1" in capsys.readouterr().err


def test_a_manifest_without_a_selector_is_refused(tuning_setup: tuple[Path, Path],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    man = json.loads(manifest.read_text(encoding="utf-8"))
    man["postprocess"].pop("selector", None)
    manifest.write_text(json.dumps(man), encoding="utf-8")
    assert mod.main([str(data), "--model", str(manifest)]) == 2
    assert "has no selector" in capsys.readouterr().err
