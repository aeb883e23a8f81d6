"""The held-out evaluation sorts missed cards by where they were lost, pile tops on their own."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import load_script

from zipai.vision.decode import load
from zipai.vision.detector import Detector, models_dir

mod = load_script("eval_detector")

SAMPLE = models_dir() / "sample.jpg"
if not SAMPLE.exists():
    pytest.skip("the shipped model has not landed yet", allow_module_level=True)


def _back(row: str, x: float) -> dict:
    square = [[x, 10], [x + 40, 10], [x + 40, 50], [x, 50]]
    return {"category_id": 21, "card_polygon": square, "bbox": [x, 10, 40, 40], "row": row}


def test_a_missed_pile_top_is_counted_apart_from_backs_in_groups() -> None:
    causes: Counter = Counter()
    cards = [_back("loose", 10), _back("hand", 100), {**_back("loose", 200), "ignore": True}]
    mod.why_missed(Detector(threads=1), load(SAMPLE), [], cards, causes)
    assert sum(causes.values()) == 2  # the ignored card is neither credit nor blame
    assert {what for what, _ in causes} == {"back lying apart", "back"}
