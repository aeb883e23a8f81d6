"""Teaching photos and the held-out deck set: the labels follow the layout, renders repeat, each
bad variant breaks the one promise it names, and every deck of the set is one no network saw."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageFilter

from zipai.cli import main as zipai_main
from zipai.datasets import fonts
from zipai.datasets.decks import DeckSetError, deck_refs, read_deck_set, render_decks
from zipai.datasets.scene import render_scene_full
from zipai.datasets.teach import LEARNABLE, VARIANTS, DeckRef, render_teach
from zipai.engine import CARD_NAMES

SIZE = (800, 600)
REF = DeckRef(3, "heldout", 1, 2)


@pytest.fixture(scope="module")
def clean() -> dict[str, tuple[np.ndarray, dict[str, Any]]]:
    """Every variant of one deck's photo, without photo effects."""
    out = {}
    for v in VARIANTS:
        img, label = render_teach(REF, v, SIZE, effects=False)
        out[v] = (np.asarray(img), label)
    return out


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _ink(rgb: np.ndarray) -> np.ndarray:
    """Ink against card paper: dark, or red."""
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return (rgb.mean(axis=-1) < 120) | ((r - g > 50) & (r - b > 30))


def test_good_photo_labels_follow_the_layout(clean: dict) -> None:
    rgb, label = clean["good"]
    faces = label["faces"]
    assert [f["card"] for f in faces] == list(CARD_NAMES)
    assert [(f["row"], f["col"]) for f in faces] == [(r, c) for r in (1, 2) for c in range(1, 11)]
    assert label["expect"] == "learn" and not label["upside_down"]
    H, W = rgb.shape[:2]
    for f in faces:
        x0, y0, x1, y1 = f["card_box"]
        assert 0 < x0 < x1 < W and 0 < y0 < y1 < H, f  # whole, inside the photo
        gx, gy, gw, gh = f["bbox"]
        assert x0 - 1 <= gx and gx + gw <= x1 + 1 and y0 - 1 <= gy and gy + gh <= y1 + 1
        assert f["upright"]
        # the glyph box lies in the card's upper half: the card stands upright
        assert gy + gh / 2 < (y0 + y1) / 2
        # and on ink
        assert _ink(rgb[gy:gy + gh, gx:gx + gw]).mean() > 0.05, f["card"]
    boxes = [f["card_box"] for f in faces] + ([label["back"]["card_box"]] if label["back"] else [])
    for i, a in enumerate(boxes):
        # axis-aligned boxes of cards turned a degree or two may touch; their centres stay apart
        for b in boxes[i + 1:]:
            ca, cb = ((a[0] + a[2]) / 2, (a[1] + a[3]) / 2), ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
            assert abs(ca[0] - cb[0]) > 0.8 * (a[2] - a[0]) or abs(ca[1] - cb[1]) > 0.8 * (a[3] - a[1])
    # the rows: every top-row card lies above every bottom-row card, left to right in each
    top, bottom = faces[:10], faces[10:]
    assert max(f["card_box"][3] for f in top) < min(f["card_box"][3] for f in bottom)
    for row in (top, bottom):
        xs = [f["card_box"][0] for f in row]
        assert xs == sorted(xs)


def test_renders_repeat_and_decks_differ() -> None:
    a, la = render_teach(REF, "good", (320, 240))
    b, lb = render_teach(REF, "good", (320, 240))
    assert np.array_equal(np.asarray(a), np.asarray(b)) and la == lb
    c, lc = render_teach(DeckRef(3, "heldout", 2, 2), "good", (320, 240))
    assert not np.array_equal(np.asarray(a), np.asarray(c))
    assert la["deck"]["id"] != lc["deck"]["id"]


def test_a_decks_scenes_print_that_deck() -> None:
    """The scene keeps everything but the deck: the same layout and table as without one."""
    deck = REF.deck()
    _, anns, meta = render_scene_full(5, "heldout", 0, (320, 240), effects=False, deck=deck)
    _, anns0, meta0 = render_scene_full(5, "heldout", 0, (320, 240), effects=False)
    assert meta["layout"] == meta0["layout"] and meta["table"] == meta0["table"]
    assert meta["font"] == deck.face.name == REF.meta()["font"]
    assert [a["category_id"] for a in anns] == [a["category_id"] for a in anns0]


def test_upside_down_is_the_good_photo_turned(clean: dict) -> None:
    good, lg = clean["good"]
    turned, lt = clean["upside_down"]
    assert np.array_equal(good[::-1, ::-1], turned)
    assert lt["upside_down"] and lt["expect"] == "learn"
    assert [f["card"] for f in lt["faces"]] == [*CARD_NAMES[10:][::-1], *CARD_NAMES[:10][::-1]]
    H, W = good.shape[:2]
    by_card = {f["card"]: f for f in lg["faces"]}
    for f in lt["faces"]:
        g = by_card[f["card"]]
        assert f["card_box"] == pytest.approx([W - g["card_box"][2], H - g["card_box"][3],
                                               W - g["card_box"][0], H - g["card_box"][1]], abs=0.11)
        # the labelled glyph is the other end's, which now reads upright at the card's top
        assert f["upright"] and f["bbox"][1] + f["bbox"][3] / 2 < (f["card_box"][1] + f["card_box"][3]) / 2


def _row_slope(faces: list[dict]) -> float:
    """The steepest least-squares slope (dy/dx) of a row's card centres."""
    out = 0.0
    for r in (1, 2):
        xs, ys = zip(*(((f["card_box"][0] + f["card_box"][2]) / 2, (f["card_box"][1] + f["card_box"][3]) / 2)
                       for f in faces if f["row"] == r), strict=True)
        out = max(out, abs(float(np.polyfit(xs, ys, 1)[0])))
    return out


def test_the_slanted_photo_turns_the_rows_and_labels_along_them(clean: dict) -> None:
    _, label = clean["slanted"]
    assert label["expect"] == "learn" and not label["upside_down"]
    assert [f["card"] for f in label["faces"]] == list(CARD_NAMES)
    assert [(f["row"], f["col"]) for f in label["faces"]] == [(r, c) for r in (1, 2) for c in range(1, 11)]
    assert _row_slope(label["faces"]) > np.tan(np.radians(10))  # drawn at 12 to 25 degrees
    assert _row_slope(clean["good"][1]["faces"]) < np.tan(np.radians(8))


def test_sideways_is_the_good_photo_a_right_angle_round(clean: dict) -> None:
    good, lg = clean["good"]
    side, ls = clean["sideways"]
    quarter = 1 if np.array_equal(np.rot90(good, 1), side) else 3
    assert np.array_equal(np.rot90(good, quarter), side)
    assert ls["expect"] == "learn" and not ls["upside_down"]
    assert (ls["width"], ls["height"]) == (lg["height"], lg["width"])
    assert [f["card"] for f in ls["faces"]] == list(CARD_NAMES)
    assert [(f["row"], f["col"]) for f in ls["faces"]] == [(r, c) for r in (1, 2) for c in range(1, 11)]
    W, H = lg["width"], lg["height"]
    by_card = {f["card"]: f for f in lg["faces"]}
    for f in ls["faces"]:
        x0, y0, x1, y1 = by_card[f["card"]]["card_box"]
        want = [y0, W - x1, y1, W - x0] if quarter == 1 else [H - y1, x0, H - y0, x1]
        assert f["card_box"] == pytest.approx(want, abs=0.11)
        gx, gy, gw, gh = by_card[f["card"]]["bbox"]
        assert f["bbox"] == ([gy, W - gx - gw, gh, gw] if quarter == 1 else [H - gy - gh, gx, gh, gw])
        bx, by, bw, bh = f["bbox"]
        assert _ink(side[by:by + bh, bx:bx + bw]).mean() > 0.02  # the glyph's ink lies in its box


def _turns(faces: list[dict]) -> list[float]:
    """Each card's angle, degrees, from its long edge (card_corners: top left, top right, ...)."""
    out = []
    for f in faces:
        (x0, y0), _, _, (x3, y3) = f["card_corners"]
        out.append(float(np.degrees(np.arctan2(x0 - x3, y3 - y0))))
    return out


def test_the_casual_layout_is_two_rows_of_ten_laid_by_hand(clean: dict) -> None:
    _, label = clean["casual"]
    _, good = clean["good"]
    assert label["expect"] == "learn" and not label["upside_down"]
    assert [f["card"] for f in label["faces"]] == list(CARD_NAMES)
    assert [(f["row"], f["col"]) for f in label["faces"]] == [(r, c) for r in (1, 2) for c in range(1, 11)]
    # each card turned its own way, many times more than the good layout's
    assert np.std(_turns(label["faces"])) > 2 * np.std(_turns(good["faces"]))

    def gaps(faces: list[dict]) -> np.ndarray:
        xs = np.asarray([(f["card_box"][0] + f["card_box"][2]) / 2 for f in faces if f["row"] == 1])
        return np.diff(xs)

    assert np.std(gaps(label["faces"])) > 1.5 * np.std(gaps(good["faces"]))  # uneven gaps


def test_bad_variants_break_one_promise_each(clean: dict) -> None:
    names = {v: [f["card"] for f in label["faces"]] for v, (_, label) in clean.items()}
    good = names["good"]
    assert len(names["missing"]) == 19 and len(set(good) - set(names["missing"])) == 1
    extra = Counter(names["extra"])
    assert len(names["extra"]) == 21 and set(extra) == set(good) and max(extra.values()) == 2
    assert Counter(f["row"] for f in clean["extra"][1]["faces"]).most_common(1)[0][1] == 11
    dup = Counter(names["duplicate"])
    assert len(names["duplicate"]) == 20 and len(dup) == 19 and max(dup.values()) == 2
    assert names["swapped"] == [*CARD_NAMES[10:], *CARD_NAMES[:10]]
    assert names["scene"] == [] and clean["scene"][1]["annotations"]
    for v, (_, label) in clean.items():
        assert label["expect"] == ("learn" if v in LEARNABLE else "refuse"), v
        assert label["variant"] == v and label["deck"] == REF.meta()


def _sharpness(img: Image.Image) -> float:
    return float(np.asarray(img.convert("L").filter(ImageFilter.FIND_EDGES), np.float32).mean())


def test_the_blurred_photo_is_far_out_of_focus() -> None:
    good, _ = render_teach(REF, "good", SIZE)
    blurred, _ = render_teach(REF, "blurred", SIZE)
    assert _sharpness(blurred) < 0.5 * _sharpness(good)


def test_unknown_variant_and_tiny_size_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown teaching variant 'crumpled'"):
        render_teach(REF, "crumpled")
    with pytest.raises(ValueError, match="too small"):
        render_teach(REF, "good", (32, 32))
    with pytest.raises(ValueError, match="unknown style"):
        DeckRef(1, "heldout", 0, 4)


def test_the_deck_set_is_held_out_and_varied() -> None:
    refs = deck_refs(21, 20)
    unseen = {f.path for f in fonts.HELDOUT}
    trained = {f.path for split, faces in fonts.SPLITS.items() if split != "heldout" for f in faces}
    assert not unseen & trained
    decks = [r.deck() for r in refs]
    assert all(r.split == "heldout" and d.split == "heldout" for r, d in zip(refs, decks, strict=True))
    assert all(d.face.path in unseen for d in decks)
    assert {r.style for r in refs} == {1, 2, 3}
    assert len({r.id for r in refs}) == 20 and len({repr(d) for d in decks}) == 20
    assert len({d.face for d in decks}) == len(fonts.HELDOUT)


def test_a_rendered_deck_set_reads_back(tmp_path: Path) -> None:
    manifest = render_decks(str(tmp_path), 2, 21, scenes=1, size=(320, 240), workers=1, quiet=True)
    entries = read_deck_set(tmp_path)
    assert [e.id for e in entries] == [d["id"] for d in manifest["decks"]]
    for e in entries:
        teach = json.loads(e.teach_label.read_text(encoding="utf-8"))
        coco = json.loads((e.scenes / "annotations.json").read_text(encoding="utf-8"))
        assert teach["deck"]["id"] == e.id and [f["card"] for f in teach["faces"]] == list(CARD_NAMES)
        assert [im["deck"] for im in coco["images"]] == [e.id]
        assert coco["images"][0]["font"] == teach["deck"]["font"] == e.font
        assert Image.open(e.teach).size == (320, 240)


@pytest.mark.parametrize(("manifest", "problem"), [
    (None, "no decks.json"),
    ('{"decks": [', "is not a deck set manifest"),
    ('{"decks": [{"id": "a", "folder": "../../etc", "font": "f", "style": 1}]}', "not a plain folder name"),
    ('{"decks": [{"id": "a", "folder": "deck-000", "font": "f", "style": 1}]}', "deck a: .* is missing"),
])
def test_a_bad_deck_set_gets_one_line(tmp_path: Path, manifest: str | None, problem: str) -> None:
    if manifest is not None:
        (tmp_path / "decks.json").write_text(manifest, encoding="utf-8")
    with pytest.raises(DeckSetError, match=problem):
        read_deck_set(tmp_path)


def test_render_teach_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "t"
    assert zipai_main(["data", "render", "--teach", "--out", str(out), "--count", "1", "--seed", "3",
                       "--size", "320x240", "--style", "2", "--workers", "1", "--quiet"]) == 0
    label = json.loads((out / "labels" / "000000.json").read_text(encoding="utf-8"))
    assert label["file_name"] == "images/000000.jpg" and (out / label["file_name"]).is_file()
    assert label["deck"]["style"] == 2 and label["deck"]["split"] == "heldout"
    coco = json.loads((out / "annotations.json").read_text(encoding="utf-8"))
    assert coco["images"][0]["deck"] == label["deck"]["id"]
    assert len(coco["annotations"]) == 20 + (label["back"] is not None)


@pytest.mark.parametrize(("argv", "problem"), [
    (["--variant", "blurred"], "--variant needs --teach"),
    (["--teach", "--variant", "crumpled"], "unknown teaching variant 'crumpled'"),
    (["--teach", "--decks"], "--teach and --decks"),
    (["--scenes", "3"], "--scenes needs --decks"),
    (["--decks", "--style", "2"], "leave --style out"),
])
def test_bad_teach_arguments_get_one_line(argv: list[str], problem: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture) -> None:
    code = zipai_main(["data", "render", "--out", str(tmp_path / "o"), "--count", "1", *argv])
    err = capsys.readouterr().err
    assert code == 2 and problem in err and len(err.strip().splitlines()) == 1


def test_two_workers_draw_what_one_draws(tmp_path: Path) -> None:
    from zipai.datasets.cli import render_teach_set

    for workers in (1, 2):
        render_teach_set(str(tmp_path / str(workers)), 2, 4, size=(320, 240), workers=workers, quiet=True,
                         style=3, variant="duplicate")
    for name in ("images/000000.jpg", "images/000001.jpg", "labels/000001.json", "annotations.json"):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes(), name
