"""The layout step on the finder's own boxes: what the labelled cards never show (their down
directions are the cards' own) but the reader's detections do."""

from __future__ import annotations

import math

from zipai.vision.detection import Detection
from zipai.vision.layout import Params, card_axis, columns

G = 50.0  # glyph size in pixels: a card is 1.2 glyphs (60 px) wide


def _face(card: str, cx: float, cy: float, down: tuple[float, float] = (0.0, 1.0)) -> Detection:
    box = (cx - G / 2, cy - G / 2, cx + G / 2, cy + G / 2)
    red = card in ("x2", "x7", "x10", "d2", "d7", "d10")
    return Detection(card, box, 0.9, "red" if red else "black", 0.9, 0.99, down=down)


def _leaning_column(x: float, lean: float, far_at: float = 260.0) -> list[Detection]:
    """Two glyphs 60 px apart and the far end of the last card ``far_at`` px on, down a column
    leaning ``lean`` degrees, as the reader reads them: every down straight down the photo
    (the far end's straight up), as the reader's downs lean to the photo's axes."""
    s, c = math.sin(math.radians(lean)), math.cos(math.radians(lean))
    along = [0.0, 60.0, 60.0 + far_at]
    cards = ["d5", "d5", "d6"]
    return [_face(card, x + s * t, 100.0 + c * t, (0.0, -1.0) if k == 2 else (0.0, 1.0))
            for k, (card, t) in enumerate(zip(cards, along, strict=True))]


def _beside() -> list[Detection]:
    """A straight column of three to the right, for the photo's usual step."""
    return [_face("x4", 400.0, 100.0 + 60.0 * k) for k in range(3)]


def test_a_leaning_columns_far_end_is_linked_though_the_readers_downs_stand_straight() -> None:
    """A column leaning 10 degrees: its far end lies 45 px across the line the reader's downs
    give (0.75 card widths, past ``max_across``), within the step times ``down_slack``."""
    got = [c.cards for c in columns([*_leaning_column(100.0, 10.0), *_beside()])]
    assert ["d5", "d5", "d6"] in got
    assert ["x4", "x4", "x4"] in got
    cut = [c.cards for c in columns([*_leaning_column(100.0, 10.0), *_beside()], Params(down_slack=0.0))]
    assert ["d5", "d5"] in cut and ["d6"] in cut


def test_a_far_end_well_off_the_column_stays_apart() -> None:
    """A glyph turned round 25 degrees off the column's line is no far end of it (the
    down-direction error is some degrees, not a quarter turn)."""
    got = [c.cards for c in columns([*_leaning_column(100.0, 25.0), *_beside()])]
    assert ["d5", "d5", "d6"] not in got


def test_only_a_far_end_gets_the_slack() -> None:
    """The next glyph down a straight column, 0.6 card widths across (past ``max_across``) and
    facing the column's way, is not linked on: the slack is for the longest link of a column,
    to a glyph turned round, not for every step."""
    col = [_face("d5", 100.0, 100.0 + 60.0 * k) for k in range(3)]
    aside = _face("d6", 100.0 + 36.0, 100.0 + 180.0)
    got = [c.cards for c in columns([*col, aside, *_beside()])]
    assert ["d5", "d5", "d5"] in got and ["d6"] in got


def test_the_layouts_down_is_signed_by_glyphs_that_show_it() -> None:
    """Six 二 and 十 the reader reads pointing up and three faces pointing down: the layout's
    cards run down the photo, as the faces show (二 and 十 read the same turned round)."""
    dets = [_face(card, 100.0 * k, 100.0, (0.0, -1.0)) for k, card in enumerate(["x2", "x10"] * 3)]
    dets += [_face(card, 100.0 * k, 400.0) for k, card in enumerate(["d4", "x5", "d8"])]
    assert abs(card_axis(dets)) < 1.0
    # with no glyph that shows it, the majority still signs it
    assert abs(abs(card_axis(dets[:6])) - 180.0) < 1.0


def test_a_column_under_upside_down_twos_keeps_its_far_end() -> None:
    """The reader's downs of 二 and 十 point up in a layout whose faces run down: the far end
    of a column's last card (d6 turned round) still ends that column, and the cards of the
    other columns link down, not up."""
    cols = [[_face(card, 300.0 + 100.0 * k, 100.0 + 60.0 * j, (0.0, -1.0))
             for j, card in enumerate(["x2", "x2", "x10"])] for k in range(3)]
    dets = [d for col in cols for d in col] + _leaning_column(100.0, 0.0)
    got = sorted(c.cards for c in columns(dets))
    assert ["d5", "d5", "d6"] in got
    assert got.count(["x2", "x2", "x10"]) == 3


def test_a_layout_error_with_a_hidden_card_is_told_apart() -> None:
    """A scene whose layout cards were all read right but one lies hidden under another (the
    match leaves it out; the labelled cards hold it) is counted apart among the layout errors
    with every card read right: no finder's box could have shown it."""
    from zipai.engine import score
    from zipai.models.eval_layout import LayoutSplit
    from zipai.models.evaluate import SceneMatch
    from zipai.vision.layout import Assembled
    from zipai.vision.scan import Scan

    truth = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "self_draw",
             "groups": [{"cards": ["d5", "d5", "d5"], "state": "open"},
                        {"cards": ["x10"] * 3, "state": "concealed"},
                        {"cards": ["x1", "x2", "x3"], "state": "open"}],
             "hand": ["x4", "x5", "x6", "d2", "d7", "d10", "x9", "x9", "x9", "d8", "d8", "x8"]}
    right = Scan(100, 100, [], [], Assembled(truth, True, []), score(truth))
    wrong = Scan(100, 100, [], [], Assembled(truth, False, []), None)
    read = SceneMatch(cards=20, read=20, rows={"hand": [11, 11], "table": [9, 9]})
    hidden = [{"row": "hand", "ignore": True, "category_id": 8, "bbox": [0, 0, 1, 1]}]
    split = LayoutSplit()
    split.add(wrong, read, truth, hidden, right)
    split.add(wrong, read, truth, [], right)
    assert (split.layout_errors_cards_right, split.layout_errors_hidden) == (2, 1)
    line = "2 with every card of the layout read right, 1 of them with a layout card hidden"
    assert line in split.summary()
