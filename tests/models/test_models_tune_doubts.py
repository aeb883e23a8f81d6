"""The doubt tuner scores every setting on the same network pass and weighs clean scans."""

from __future__ import annotations

from pathlib import Path

import pytest

from zipai.models.evaluate import SceneMatch
from zipai.models.tune import doubts as mod
from zipai.vision.layout import Assembled, Column, Doubt, Params
from zipai.vision.scan import Scan


def _scan(complete: bool, *kinds: str) -> Scan:
    return Scan(10, 10, [], [], Assembled({}, complete, [Doubt(k, k) for k in kinds]))


def test_a_scan_is_clean_with_only_cards_lying_apart_and_wrong_clean_scans_weigh_more() -> None:
    c = mod.Count()
    c.add(_scan(True), True)
    c.add(_scan(True, "stray_cards"), False)
    c.add(_scan(True, "low_confidence"), False)
    c.add(_scan(True, "claimed_row", "stray_cards"), True)
    c.add(_scan(False, "missing_cards"), False)
    assert (c.scenes, c.complete, c.clean_right, c.clean_wrong, c.flagged_right, c.flagged_wrong) == \
        (5, 4, 1, 1, 1, 1)
    assert c.worth(3.0) == -2.0 and c.worth(0.5) == 0.5


def test_card_doubts_are_counted_on_the_layouts_cards_only() -> None:
    """Detections 0-2 make a group and 3 lies apart: 0 is misread and named, 1 is read right but
    named, 2 is an extra nobody named; 3 is an extra lying apart (no matter to the score)."""
    cols = [Column([0, 1, 2], ["x5", "x5", "x5"], "table", "open"), Column([3], ["d2"], "loose", "loose")]
    doubts = [Doubt("low_confidence", "", [0]), Doubt("colour", "", [1]), Doubt("claimed_row", "", [2]),
              Doubt("stray_cards", "", [3])]
    sc = Scan(10, 10, [], cols, Assembled({}, True, doubts))
    c = mod.Count()
    c.add(sc, True, SceneMatch(misreads=[0], extras=[2, 3]))
    assert (c.named_wrong, c.named_right, c.unnamed_wrong) == (1, 1, 1)


def test_every_setting_is_tried_and_nothing_is_written(tuning_setup: tuple[Path, Path],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    before = manifest.read_bytes()
    assert mod.main([str(data), "--model", str(manifest)]) == 0
    out = capsys.readouterr().out
    assert "2 scenes of" in out and "chosen: low_select" in out
    rows = [line for line in out.splitlines() if line.startswith("  0.")]
    assert len(rows) == len(mod.LOW_SELECT) * len(mod.ROWS)
    assert mod.main([str(data), "--model", str(manifest), "--write-manifest"]) == 2
    assert manifest.read_bytes() == before


def test_the_labelled_cards_weigh_the_rows_asked_about_alone(tuning_setup: tuple[Path, Path],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """No network runs: each claimed-row setting assembles the scenes' labelled cards, and the
    choice names one of them beside what ``Params`` ships."""
    data, _ = tuning_setup
    assert mod.main([str(data), "--labelled-cards"]) == 0
    out = capsys.readouterr().out
    assert "2 scenes of" in out and "labelled cards" in out
    rows = [line for line in out.splitlines() if line.startswith("  ") and "claimed_row" not in line]
    assert sorted(line.split()[0] for line in rows) == sorted("+".join(sorted(r)) or "-" for r in mod.ROWS)
    assert "chosen: row_doubts [" in out and f"Params has row_doubts {sorted(Params().row_doubts)}" in out


def test_no_silent_puts_first_only_a_setting_that_leaves_no_wrong_score_clean() -> None:
    """A wrong score passing with no doubt is the fault a look cannot catch: with ``--no-silent``
    a setting that leaves one is ranked after every setting that leaves none, whatever it is worth."""
    quiet, asking = mod.Count(clean_right=50, clean_wrong=1), mod.Count(clean_right=10, clean_wrong=0)
    assert quiet.worth(3.0) > asking.worth(3.0)
    assert quiet.silent_ok(False) and not quiet.silent_ok(True) and asking.silent_ok(True)
