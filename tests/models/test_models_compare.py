"""The paired comparison runs both models on the same scenes and reports their disagreements."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zipai.models import compare as mod


def test_a_model_against_itself_disagrees_on_no_scene(tuning_setup: tuple[Path, Path],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    cache = data.parent / "cache"
    argv = [str(data), "--b", str(manifest), "--threads", "1", "--resamples", "200", "--cache", str(cache)]
    assert mod.main(argv) == 0
    first = capsys.readouterr()
    assert "2 scenes" in first.out
    assert "exact only with A: 0, only with B: 0; McNemar exact two-sided p = 1.000" in first.out
    assert "B - A, scenes exact: +0 (95% paired bootstrap: +0.0 to +0.0 scenes)" in first.out
    # the same manifest twice: B is read back from what A left
    assert first.err.count("results from") == 1 and len(list(cache.glob("*.json"))) == 1
    # again: both read back, the same figures; a changed setting is another model
    assert mod.main(argv) == 0
    second = capsys.readouterr()
    assert second.out == first.out and second.err.count("results from") == 2
    man = json.loads(manifest.read_text(encoding="utf-8"))
    man["finder"]["threshold"] = 0.9
    manifest.write_text(json.dumps(man), encoding="utf-8")
    assert mod.main(argv) == 0
    assert capsys.readouterr().err.count("results from") == 1 and len(list(cache.glob("*.json"))) == 2


def test_a_missing_manifest_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main([str(tmp_path), "--b", str(tmp_path / "nope.json")]) == 2
    assert "nope.json: no such manifest" in capsys.readouterr().err


def test_a_folder_without_annotations_is_one_clear_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main([str(tmp_path)]) == 2
    assert "annotations.json" in capsys.readouterr().err


def test_the_cache_key_follows_the_code_that_makes_detections(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Same manifest, same scenes, other code in zipai.vision: the cached results are stale."""
    from zipai import vision
    from zipai.vision.detector import Detector

    det = Detector(threads=1)
    code = tmp_path / "vision"
    code.mkdir()
    (code / "__init__.py").write_text("", encoding="utf-8")
    (code / "layout.py").write_text("LIMIT = 1\n", encoding="utf-8")
    data = tmp_path / "val"
    data.mkdir()
    (data / "annotations.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(vision, "__file__", str(code / "__init__.py"))
    before = mod.cache_key(det, [data], 0)
    assert mod.cache_key(det, [data], 0) == before
    (code / "layout.py").write_text("LIMIT = 2\n", encoding="utf-8")
    assert mod.cache_key(det, [data], 0) != before
    (code / "layout").mkdir()  # a subpackage's code counts too
    (code / "layout" / "repairs.py").write_text("STEPS = 1\n", encoding="utf-8")
    before = mod.cache_key(det, [data], 0)
    (code / "layout" / "repairs.py").write_text("STEPS = 2\n", encoding="utf-8")
    assert mod.cache_key(det, [data], 0) != before


def test_the_cache_key_ignores_the_manifests_figures(tuning_setup: tuple[Path, Path]) -> None:
    """`zipai eval detector` rewrote the figures after every run; they change no detection."""
    from zipai.vision.detector import Detector

    data, manifest = tuning_setup
    before = mod.cache_key(Detector(manifest, threads=1), [data], 0)
    man = json.loads(manifest.read_text(encoding="utf-8"))
    man["figures"] = {"heldout": {"per_card_accuracy": 0.5}}
    manifest.write_text(json.dumps(man), encoding="utf-8")
    assert mod.cache_key(Detector(manifest, threads=1), [data], 0) == before
    man["reader"]["margin"] = 1.6
    manifest.write_text(json.dumps(man), encoding="utf-8")
    assert mod.cache_key(Detector(manifest, threads=1), [data], 0) != before


def test_each_folder_is_counted_apart() -> None:
    """A loss on the decorated scenes shows even when the pooled figures tie."""
    scenes = [(Path("plain"), {}, []), (Path("plain"), {}, []), (Path("decorated"), {}, [])]
    a = [(True, 10, 10), (False, 9, 10), (True, 5, 5)]
    b = [(True, 10, 10), (True, 10, 10), (False, 4, 5)]
    parts = mod.by_folder(scenes, a, b)
    assert list(parts) == ["plain", "decorated"]
    assert (parts["plain"].exact("a"), parts["plain"].exact("b")) == (1, 2)
    assert parts["decorated"].per_card("a") == 1.0 and parts["decorated"].per_card("b") == 0.8
