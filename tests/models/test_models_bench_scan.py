"""The scan benchmark reports each model and, given two, their photo-by-photo difference."""

from __future__ import annotations

from pathlib import Path

import pytest

from zipai.models import bench_scan as mod
from zipai.vision.detector import default_manifest, models_dir


def test_two_models_are_run_in_turn_and_compared(capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main([str(models_dir()), "--count", "1", "--against", str(default_manifest())]) == 0
    out = capsys.readouterr().out
    assert out.count("model inference median") == 2 and out.count("1 photos 1600x1200") == 2
    assert "model inference, second minus first, photo by photo: median" in out


def test_a_folder_without_photos_is_one_clear_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main([str(tmp_path)]) == 2
    assert "no .jpg files" in capsys.readouterr().err


def test_a_deck_is_run_in_turn_with_untaught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from deckphotos import teach

    from zipai.vision.deck import DeckStore, learn

    monkeypatch.setenv("ZIPAI_DECKS", str(tmp_path / "decks"))
    DeckStore().save(learn(teach("good")[0], "home").deck)
    assert mod.main([str(models_dir()), "--count", "1", "--deck", "home"]) == 0
    out = capsys.readouterr().out
    assert out.count("model inference median") == 2 and "deck 'home' (reader: reader" in out
    assert "scan end to end, second minus first, photo by photo: median" in out


def test_an_unknown_deck_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ZIPAI_DECKS", str(tmp_path))
    assert mod.main([str(models_dir()), "--count", "1", "--deck", "nowhere"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("zipai bench scan: unknown deck 'nowhere'") and "\n" not in err
