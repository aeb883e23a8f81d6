"""The card doubts' figures the evaluations print: wrong and right cards flagged, scenes with no doubt."""

from __future__ import annotations

import pytest

from zipai.models.evaluate import DoubtFigures, SceneMatch
from zipai.models.reliability import bins
from zipai.vision.detection import Detection
from zipai.vision.layout import Assembled, Column, Doubt
from zipai.vision.scan import Scan


def _scan(doubts: list[Doubt], complete: bool = True) -> Scan:
    dets = [Detection(c, (10.0 * i, 0.0, 10.0 * i + 8, 8.0), 0.9, "black", 0.9, 0.9, chance=chance)
            for i, (c, chance) in enumerate(zip(["x1", "x2", "x3", "x4", "x5"], [0.9, 0.01, 0.5, 0.001, 0.3],
                                                strict=True))]
    cols = [Column([0, 1, 2, 3], ["x1", "x2", "x3", "x4"]), Column([4], ["x5"], state="loose")]
    return Scan(100, 100, dets, cols, Assembled({}, complete, doubts))


def test_the_layouts_cards_named_by_a_card_doubt_are_counted_wrong_or_right() -> None:
    # 0 misread and flagged, 2 right but flagged, 3 extra and not flagged; 4 lies apart: not counted
    sc = _scan([Doubt("low_confidence", "", [0], chance=0.9), Doubt("colour", "", [2], chance=0.5),
                Doubt("claimed_row", "", [0, 1, 2, 3]), Doubt("stray_cards", "", [4])])
    m = SceneMatch(misreads=[0], extras=[3, 4])
    f = DoubtFigures()
    f.add(sc, m, right=False)
    assert (f.wrong, f.wrong_flagged, f.right, f.right_flagged) == (2, 1, 2, 1)
    assert sorted(f.chances) == [(0.001, True), (0.01, False), (0.5, False), (0.9, True)]
    assert (f.scenes, f.no_doubt) == (1, 0)  # a card doubt and a claimed row: not clean


def test_a_scene_with_only_strays_counts_as_no_doubt_and_wrong_when_it_scores_wrong() -> None:
    f = DoubtFigures()
    f.add(_scan([Doubt("stray_cards", "", [4])]), SceneMatch(), right=False)
    f.add(_scan([Doubt("stray_cards", "", [4])]), SceneMatch(), right=True)
    f.add(_scan([]), SceneMatch(), right=None)  # no layout to score: cards only
    assert (f.scenes, f.no_doubt, f.no_doubt_wrong) == (2, 2, 1)
    assert f.figures()["no_doubt_wrong_rate"] == 0.5 and f.right == 12


def test_reliability_bins_hold_the_mean_chance_and_the_share_wrong() -> None:
    pairs = [(0.0005, False)] * 10 + [(0.5, True), (0.7, False)]
    got = bins(pairs)
    assert got[0] == (0.0, pytest.approx(0.0005), 0.0, 10)
    assert got[-1] == (0.6, pytest.approx(0.7), 0.0, 1) and got[-2] == (0.4, pytest.approx(0.5), 1.0, 1)
