"""``zipai tune deck-finds``: the deck's say over which finds are cards, chosen on a deck set."""

from __future__ import annotations

from pathlib import Path

import pytest

from zipai.cli import main as zipai_main
from zipai.datasets.decks import render_decks


def test_a_deck_set_is_tuned_and_the_choice_printed(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    render_decks(str(tmp_path), 1, 31, split="val", scenes=1, workers=1, quiet=True)
    assert zipai_main(["tune", "deck-finds", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 scenes; the deck rereading only:")
    assert "card face       n=" in out  # how near the deck the finds that are cards lie
    settings = [line for line in out.splitlines() if line.startswith("  Admit(")]
    assert len(settings) >= 40 and all("exact" in s and "per card" in s for s in settings)
    assert out.splitlines()[-1].startswith("choice: Admit(")


def test_a_folder_that_is_no_deck_set_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert zipai_main(["tune", "deck-finds", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("zipai tune deck-finds:") and "is not a deck set" in err and "\n" not in err
