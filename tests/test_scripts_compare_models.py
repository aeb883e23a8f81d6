"""The paired comparison runs both models on the same scenes and reports their disagreements."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load_script

mod = load_script("compare_models")


def test_a_model_against_itself_disagrees_on_no_scene(tuning_setup: tuple[Path, Path],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--b", str(manifest), "--threads", "1", "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "2 scenes" in out
    assert "exact only with A: 0, only with B: 0; McNemar exact two-sided p = 1.000" in out
    assert "B - A, scenes exact: +0 (95% paired bootstrap: +0.0 to +0.0 scenes)" in out


def test_a_missing_manifest_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main([str(tmp_path), "--b", str(tmp_path / "nope.json")]) == 2
    assert "nope.json: no such manifest" in capsys.readouterr().err


def test_a_folder_without_annotations_is_one_clear_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main([str(tmp_path)]) == 2
    assert "annotations.json" in capsys.readouterr().err
