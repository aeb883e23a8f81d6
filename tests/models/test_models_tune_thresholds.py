"""The tuner pools validation folders, replays every setting on them and writes the winner to the
manifest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import copy_model

from zipai.datasets.cli import main as data_main
from zipai.models.tune import thresholds as mod
from zipai.vision.config import read_config
from zipai.vision.detector import models_dir

if not (models_dir() / "sample.json").exists():
    pytest.skip("the shipped model has not landed yet", allow_module_level=True)


def _render(out: Path, count: int, seed: int, split: str) -> Path:
    assert data_main(["render", "--out", str(out), "--count", str(count), "--seed", str(seed), "--split",
                      split, "--size", "800x600", "--quiet"]) == 0
    return out


@pytest.fixture(scope="module")
def unseen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One scene in faces no network trains on, rendered once for the module's tests (the tuner
    only reads its scenes; it writes to the model's manifest)."""
    return _render(tmp_path_factory.mktemp("thresholds") / "unseen", 1, 12, "tune")


def _model_copy(tmp_path: Path) -> tuple[Path, dict]:
    """A copy of the shipped model to tune, and the shipped manifest as it was."""
    man = json.loads((models_dir() / "manifest.json").read_text(encoding="utf-8"))
    return copy_model(tmp_path / "model"), man


def test_the_tuned_setting_is_written_to_the_manifest(tmp_path: Path, tuning_scenes: Path, unseen: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    data = tuning_scenes  # two validation scenes, seed 6, in a folder named "val" (tests/conftest.py)
    manifest, _ = _model_copy(tmp_path)
    assert mod.main([str(data), str(unseen), "--model", str(manifest), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    assert "3 scenes of" in out and "best with margins [1.3]" in out
    cfg = read_config(manifest)
    f, r = cfg.finder, cfg.reader
    assert f.threshold in mod.THRESHOLDS and f.back_threshold in mod.BACKS
    assert r.none_threshold in mod.NONE and r.margins in mod.MARGINS
    assert json.loads(manifest.read_text(encoding="utf-8"))["postprocess"]["tuned_on"] == "val + unseen"
    assert "second chance for weak peaks" in out
    assert (f.rescue_threshold, r.rescue_prob) in mod.RESCUES or r.rescue_prob is None
    assert "second chance for weak peaks, backs" in out
    assert (f.back_rescue_threshold, r.back_rescue_prob) in mod.BACK_RESCUES or r.back_rescue_prob is None
    assert "face floor" in out and r.face_floor in mod.FACE_FLOORS


def test_finish_only_keeps_the_other_settings(tmp_path: Path, unseen: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    manifest, man = _model_copy(tmp_path)
    assert mod.main([str(unseen), "--model", str(manifest), "--finish-only", "--write-manifest"]) == 0
    assert "second chance for weak peaks" in capsys.readouterr().out
    after = json.loads(manifest.read_text(encoding="utf-8"))
    for part, key in (("finder", "threshold"), ("finder", "back_threshold"), ("reader", "margins"),
                      ("reader", "none_threshold")):
        assert after[part][key] == man[part][key]
    assert "rescue_threshold" in after["finder"] and "rescue_prob" in after["reader"]
    assert "back_rescue_threshold" in after["finder"] and "back_rescue_prob" in after["reader"]
    assert after["reader"]["face_floor"] in mod.FACE_FLOORS


def test_the_grid_does_not_inherit_the_manifests_late_choices(tmp_path: Path, unseen: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The main grid and the second chance are chosen with no face floor, whatever the manifest
    holds: a floor from an earlier tuning must not silently shape them."""
    manifest, man = _model_copy(tmp_path)
    man["reader"]["face_floor"] = 1.01  # would drop every face
    manifest.write_text(json.dumps(man), encoding="utf-8")
    assert mod.main([str(unseen), "--model", str(manifest)]) == 0
    out = capsys.readouterr().out
    best = float(out.split("best with margins [1.3]: exact ")[1].split("per card ")[1].split()[0])
    assert best > 0.5

