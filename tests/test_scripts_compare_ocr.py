"""The OCR comparison turns text lines into card predictions and matches them like the detector."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SPEC = importlib.util.spec_from_file_location(
    "compare_rapidocr", Path(__file__).resolve().parents[1] / "scripts" / "compare_rapidocr.py")
assert SPEC and SPEC.loader
mod = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(mod)


def test_a_line_of_three_glyphs_splits_into_three_centres():
    line = [[[0, 0], [300, 0], [300, 100], [0, 100]], "贰 柒拾", 0.9]
    preds = mod.ocr_predictions([line])
    assert [p[0] for p in preds] == [12, 17, 20]  # d2, d7, d10 (category = index + 1)
    assert [round(p[1]) for p in preds] == [50, 150, 250] and all(p[2] == 50 for p in preds)


def test_vertical_lines_split_downwards_and_non_cards_are_skipped():
    line = [[[0, 0], [50, 0], [50, 200], [0, 200]], "三A", 0.9]
    preds = mod.ocr_predictions([line])
    assert preds == [(3, 25.0, 50.0)]


def test_match_is_one_to_one_and_needs_the_right_class_inside_the_card():
    square = [[0, 0], [100, 0], [100, 100], [0, 100]]
    cards = [{"category_id": 3, "card_polygon": square}, {"category_id": 3, "card_polygon": square}]
    assert mod.match(cards, [(3, 50, 50)]) == 1
    assert mod.match(cards, [(3, 50, 50), (3, 20, 20)]) == 2
    assert mod.match(cards, [(4, 50, 50), (3, 150, 50)]) == 0
