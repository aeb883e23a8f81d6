"""The error breakdown counts every labelled card once, by glyph share, size, row and class."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from zipai.models import error_breakdown as mod
from zipai.models.evaluate import SceneMatch, match_scene


def _ann(cat: int, x: float, visible: float, row: str = "hand", ignore: bool = False) -> dict:
    poly = [[x, 0], [x + 40, 0], [x + 40, 120], [x, 120]]
    glyphs = [] if cat == 21 else [{"visible": visible}, {"visible": visible / 2}]
    return {"category_id": cat, "bbox": [x + 5, 5, 30, 36], "card_polygon": poly, "row": row,
            "glyphs": glyphs, "ignore": ignore}


def test_the_doctests_pass() -> None:
    assert doctest.testmod(mod).failed == 0


def test_each_card_gets_the_outcome_the_figures_gave_it() -> None:
    anns = [_ann(1, 0, 1.0), _ann(2, 100, 0.6), _ann(3, 200, 0.9, ignore=True), _ann(21, 300, 1.0, "loose"),
            _ann(5, 400, 0.55)]
    # x1 read, x2 read as x3, the ignored x3 found (no credit, no blame), the back missed, x5 read
    dets = [("x1", [10, 10, 30, 30]), ("x3", [110, 10, 130, 30]), ("x3", [210, 10, 230, 30]),
            ("x5", [410, 10, 430, 30])]
    m = match_scene(dets, anns)
    got = [(c.name, c.row, c.visible, c.size, c.outcome) for c in mod.outcomes(anns, m)]
    assert got == [("x1", "hand", 1.0, 30, "read"), ("x2", "hand", 0.6, 30, "misread"),
                   ("back", "loose", 1.0, 30, "missed"), ("x5", "hand", 0.55, 30, "read")]
    assert mod.spoilers(m) == "missed + misread"


def test_bins_and_groups_count_each_card_once() -> None:
    cards = [mod.CardOutcome("x1", "hand", v, s, o) for v, s, o in
             ((0.45, 10, "read"), (0.5, 25, "missed"), (0.75, 35, "misread"), (1.0, 80, "read"))]
    rows = mod.binned(cards, lambda c: c.size, (20, 30, 60), "{:.0f}")
    assert [(r.label, r.cards, r.missed, r.misread, r.errors) for r in rows] == [
        ("20-30", 1, 1, 0, 1), ("30-60", 1, 0, 1, 1), ("60+", 1, 0, 0, 0)]  # 10 px lies under them all
    by = mod.grouped([*cards, mod.CardOutcome("back", "loose", 1.0, 40, "missed")], lambda c: c.row)
    assert [(r.label, r.cards, r.errors) for r in by] == [("hand", 4, 2), ("loose", 1, 1)]
    assert mod.spoilers(SceneMatch(cards=1, read=1)) == "exact"
    assert mod.spoilers(SceneMatch(cards=1, read=1, extra=2)) == "extra"


def test_the_script_breaks_down_a_rendered_scene(tuning_setup: tuple[Path, Path],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    png = data.parent / "lost.png"
    assert mod.main([str(data), "--model", str(manifest), "--sheet", str(png)]) == 0
    out = capsys.readouterr().out
    head = re.match(r"2 scenes of .*: (\d+) cards, (\d+) read \([\d.]+%\), (\d+) not \((\d+) missed, "
                    r"(\d+) misread\); \d+ extra detections", out)
    assert head, out
    cards, read, lost, missed, misread = (int(g) for g in head.groups())
    assert cards > 30 and read + lost == cards and missed + misread == lost
    # the row table holds every card, whatever its row
    section = out.split("cards, by row:")[1].split("faces, by class")[0]
    counted = sum(int(line.split()[2]) for line in section.splitlines()[2:] if line.strip())
    assert counted == cards
    scenes = out.split("scenes, by what keeps them from exact:")[1]
    assert sum(int(line.split()[-1]) for line in scenes.splitlines() if line.startswith("  ")) == 2
    faces_lost = re.search(r"(\d+) face cards lost drawn in", out)
    assert faces_lost and png.exists()


def test_a_lost_card_is_cut_from_around_its_box_and_captioned() -> None:
    from PIL import Image

    photo = Image.new("RGB", (200, 100), "white")
    photo.paste((255, 0, 0), (40, 40, 60, 60))  # the glyph, 20 px square
    card = mod.CardOutcome("x7", "hand", 0.71, 20, "misread", "x10", (40.0, 40.0, 20.0, 20.0))
    t = mod.tile(photo, card)
    assert t.size == (mod.TILE, mod.TILE) and t.getpixel((64, 64)) == (255, 0, 0)
    assert t.getpixel((5, 5)) == (255, 255, 255)  # a glyph's width of table around it
    # a photo decoded at half size: the same glyph, half the pixels
    half = photo.resize((100, 50))
    assert mod.tile(half, card, 2.0).getpixel((64, 64))[0] > 200
    assert mod.caption(card) == "x7>x10 0.71 hand"
    assert mod.caption(mod.CardOutcome("x9", "loose", 1.0, 30, "missed")) == "x9>- 1.00 loose"
    s = mod.sheet([(t, "a"), (t, "b"), (t, "c")], columns=2)
    assert s.size == (2 * (mod.TILE + 2), 2 * (mod.TILE + 16))


def test_a_folder_without_labels_gets_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zipai eval errors: ") and len(err.strip().splitlines()) == 1
