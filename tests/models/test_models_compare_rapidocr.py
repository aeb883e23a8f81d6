"""The OCR comparison turns text lines into card predictions and matches them like the detector."""

from __future__ import annotations

from zipai.models import compare_rapidocr as mod


def test_a_line_of_three_glyphs_splits_into_three_centres():
    line = [[[0, 0], [300, 0], [300, 100], [0, 100]], "贰 柒拾", 0.9]
    preds = mod.ocr_predictions([line])
    assert [p[0] for p in preds] == ["d2", "d7", "d10"]
    assert [round(p[1][0]) for p in preds] == [50, 150, 250] and all(p[1][1] == 50 for p in preds)


def test_vertical_lines_split_downwards_and_non_cards_are_skipped():
    line = [[[0, 0], [50, 0], [50, 200], [0, 200]], "三A", 0.9]
    assert mod.ocr_predictions([line]) == [("x3", [25.0, 50.0, 25.0, 50.0])]


def test_predictions_score_with_the_detector_rule():
    square = [[0, 0], [100, 0], [100, 100], [0, 100]]
    cards = [{"category_id": 3, "card_polygon": square, "bbox": [0, 0, 10, 10]}]
    line = [[[0, 40], [100, 40], [100, 60], [0, 60]], "三", 0.9]
    m = mod.match_scene(mod.ocr_predictions([line]), cards)
    assert (m.read, m.extra) == (1, 0)
