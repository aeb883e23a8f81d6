"""The gallery draws each scene as scanned, with the figures' verdicts on it and a caption."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from zipai.models import gallery as mod
from zipai.vision.scan import Scan


def test_pictures_for_the_first_scenes_with_their_verdicts(tuning_setup: tuple[Path, Path],
                                                           tmp_path: Path) -> None:
    data, manifest = tuning_setup
    out = tmp_path / "gallery"
    assert mod.main([str(data), "--count", "1", "--out", str(out), "--model", str(manifest)]) == 0
    (pic,) = out.glob("*.jpg")
    with Image.open(pic) as im:
        assert im.width <= mod.WIDTH and im.height > im.width * 600 / 800  # the caption below the photo


def test_a_missed_card_and_an_extra_find_are_drawn_in_their_colours() -> None:
    """Nothing found on a labelled card: its outline in magenta. A find on no card: orange."""
    from zipai.vision.detector import Detection
    from zipai.vision.layout import Assembled

    outline = [[10, 10], [90, 10], [90, 150], [10, 150]]
    card = {"category_id": 5, "bbox": [20, 20, 30, 30], "card_polygon": outline}
    extra = Detection("x3", (300, 300, 340, 340), 0.9, "black", 0.9, 0.99)
    sc = Scan(400, 400, [extra], [], Assembled({}, False, []))
    pic = mod.picture(Image.new("RGB", (400, 400), (90, 90, 90)), sc, [card], None)
    px = pic.load()
    assert px[10, 80][:3] == pytest.approx(mod.MISSED, abs=40)
    assert any(px[x, 295][:3] == pytest.approx(mod.EXTRA, abs=40) for x in range(300, 340))
    assert pic.height > 400


def test_a_folder_without_labels_is_one_clear_line(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"zipai eval gallery: {tmp_path}: no readable annotations.json")
    assert err.count("\n") == 1
