"""``zipai data``: COCO output, worker-independent results, and one clear line for bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PIL import Image

from zipai.datasets.cli import main


def _render(out: Path, *extra: str) -> int:
    return main(["render", "--out", str(out), "--count", "3", "--seed", "5", "--size", "160x120",
                 "--quiet", *extra])


def test_render_writes_coco(tmp_path: Path) -> None:
    assert _render(tmp_path / "a", "--workers", "1") == 0
    coco = json.loads((tmp_path / "a" / "annotations.json").read_text())
    assert [c["id"] for c in coco["categories"]] == list(range(1, 22))
    assert coco["categories"][0]["name"] == "x1" and coco["categories"][20]["name"] == "back"
    assert [im["id"] for im in coco["images"]] == [0, 1, 2]
    for im in coco["images"]:
        assert im["file_name"] == f"images/{im['id']:06d}.jpg"
        assert Image.open(tmp_path / "a" / im["file_name"]).size == (160, 120)
        assert im["split"] == "train" and im["font"] and "groups" in im["layout"]
    ids = [a["id"] for a in coco["annotations"]]
    assert len(ids) == len(set(ids)) > 0
    keys = {"bbox", "category_id", "area", "iscrowd", "card_polygon", "group", "group_state", "row",
            "color", "ignore", "image_id"}
    for a in coco["annotations"]:
        assert keys <= a.keys()
        x, y, w, h = a["bbox"]
        assert 0 <= x and 0 <= y and x + w <= 160 and y + h <= 120 and w > 0 and h > 0


def test_two_workers_match_one(tmp_path: Path) -> None:
    assert _render(tmp_path / "one", "--workers", "1") == 0
    assert _render(tmp_path / "two", "--workers", "2") == 0
    a = json.loads((tmp_path / "one" / "annotations.json").read_text())
    b = json.loads((tmp_path / "two" / "annotations.json").read_text())
    assert a == b
    one, two = tmp_path / "one" / "images", tmp_path / "two" / "images"
    for name in os.listdir(one):
        assert (one / name).read_bytes() == (two / name).read_bytes()


def test_start_offsets_the_indices(tmp_path: Path) -> None:
    assert _render(tmp_path / "s", "--workers", "1", "--start", "10") == 0
    coco = json.loads((tmp_path / "s" / "annotations.json").read_text())
    assert [im["id"] for im in coco["images"]] == [10, 11, 12]


def test_preview_draws_a_sheet(tmp_path: Path) -> None:
    assert _render(tmp_path / "p", "--workers", "1") == 0
    out = tmp_path / "sheet.png"
    assert main(["preview", str(tmp_path / "p"), "--out", str(out), "--count", "2", "--width", "200"]) == 0
    assert Image.open(out).width == 406


@pytest.mark.parametrize("argv", [
    ["render", "--count", "2"],
    ["render", "--out", "{d}", "--count", "0"],
    ["render", "--out", "{d}", "--count", "two"],
    ["render", "--out", "{d}", "--count", "1", "--size", "12x"],
    ["render", "--out", "{d}", "--count", "1", "--size", "10x10"],
    ["render", "--out", "{d}", "--count", "1", "--split", "test"],
    ["render", "--out", "{d}", "--count", "1", "--bogus"],
    ["render", "--out", "{f}", "--count", "1"],
    ["preview", "{d}/nothing"],
    ["preview", "{f}"],
    ["frobnicate"],
    [],
])
def test_bad_arguments_get_one_line(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    f = tmp_path / "file.txt"
    f.write_text("x")
    argv = [a.format(d=tmp_path, f=f) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_broken_annotations_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "annotations.json").write_text("{not json")
    assert main(["preview", str(tmp_path)]) == 2
    assert "annotations.json" in capsys.readouterr().err


def test_compose_five_is_recorded_and_bad_shares_are_refused(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture) -> None:
    assert _render(tmp_path / "c", "--workers", "1", "--compose-five", "1") == 0
    assert json.loads((tmp_path / "c" / "annotations.json").read_text())["info"]["compose_five"] == 1.0
    assert _render(tmp_path / "p", "--workers", "1") == 0  # not recorded when not asked for
    assert "compose_five" not in json.loads((tmp_path / "p" / "annotations.json").read_text())["info"]
    assert _render(tmp_path / "bad", "--compose-five", "2") == 2
    assert "expected a number between 0 and 1, got 2.0" in capsys.readouterr().err


def test_players_layouts_are_recorded_and_are_a_scene_option(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture) -> None:
    assert _render(tmp_path / "p", "--workers", "1", "--layouts", "players") == 0
    coco = json.loads((tmp_path / "p" / "annotations.json").read_text())
    assert coco["info"]["layouts"] == "players" and coco["images"][0]["layouts"] == "players"
    teach = ["render", "--out", str(tmp_path / "t"), "--count", "1", "--teach", "--layouts", "players"]
    assert main(teach) == 2
    assert "--layouts" in capsys.readouterr().err
