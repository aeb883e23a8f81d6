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


def _face(row: str, group: int, x: float, y: float, cid: int = 5, ignore: bool = False) -> dict:
    square = [[x, y], [x + 40, y], [x + 40, y + 40], [x, y + 40]]
    return {"category_id": cid, "card_polygon": square, "bbox": [x, y, 40, 40], "row": row,
            "group": group, "ignore": ignore}


def test_layout_faults_name_what_went_wrong() -> None:
    """Given labelled cards, a scene that is not scored is put down to what no photo settles
    (an all-back group, a hidden layout card) or to how the columns differ from the groups."""
    from zipai.vision.layout import Column

    anns = [_face("table", 0, 0, 0), _face("table", 0, 0, 50), _face("table", 0, 0, 100),
            _face("hand", 1, 200, 0), _face("loose", -1, 400, 0)]
    split = [Column([0, 1], ["x5", "x5"], "table", "open"), Column([2], ["x5"], "table", "hand"),
             Column([3], ["x5"], "hand", "hand"), Column([4], ["x5"], "hand", "hand")]
    assert mod.layout_faults(split, anns, set()) == ("a group split over columns", "a loose card taken in")
    swapped = [Column([0, 1, 2], ["x5"] * 3, "hand", "hand"), Column([3], ["x5"], "table", "hand"),
               Column([4], ["x5"], "loose", "loose")]
    assert mod.layout_faults(swapped, anns, set()) == ("the claimed and revealed rows told apart wrongly",)
    named = mod.layout_faults(swapped, anns, {"unnamed_concealed"})
    assert named == ("an all-back group (the user names it)",)
    hidden = [*anns, _face("hand", 1, 200, 50, ignore=True)]
    assert mod.layout_faults(swapped, hidden, set()) == ("a layout card hidden",)
    merged = [Column([0, 1, 2, 3], ["x5"] * 4, "table", "open"), Column([4], ["x5"], "loose", "loose")]
    assert mod.layout_faults(merged, anns, {"bad_group"}) == ("groups merged in one column",)
