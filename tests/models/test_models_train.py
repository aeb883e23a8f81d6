"""Training pieces on tiny synthetic data: targets, batches, a few optimisation steps, export
and loading through the runtime's manifest check."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import copy_model
from PIL import Image

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")
numpy_helper = onnx.numpy_helper

from zipai.datasets.fonts import faces  # noqa: E402
from zipai.models import data as D  # noqa: E402
from zipai.models import train as T  # noqa: E402
from zipai.models.export import (  # noqa: E402
    WEIGHT_FORMAT,
    export_all,
    export_reader,
    export_reader_onnx,
    onnx_layers,
    sha256,
    unsigned_weights,
)
from zipai.models.manifest import read_provenance  # noqa: E402
from zipai.models.nets import READER_CLASSES, Finder, FinderExport, Reader, n_params  # noqa: E402
from zipai.vision.decode import decode  # noqa: E402
from zipai.vision.detector import Detector  # noqa: E402
from zipai.vision.errors import ModelError  # noqa: E402
from zipai.vision.session import OrtSession  # noqa: E402


def test_finder_targets_peak_size_offset_and_ignore() -> None:
    boxes = np.asarray([[10, 20, 30, 28], [50, 50, 70, 70]], np.float32)
    kinds, ignore = np.asarray([0, 1]), np.asarray([False, True])
    heat, weight, reg, mask = D.finder_targets(boxes, kinds, ignore, 32, 32, 4)
    assert heat[0, 6, 5] == 1.0 and heat[0].sum() > 1.0  # centre (20, 24) px = cell (5, 6)
    assert np.allclose(reg[:, 6, 5], [math.log(5.0), math.log(2.0), 0.0, 0.0])
    assert mask.sum() == 1
    assert heat[1].max() == 0 and weight[1, 12:18, 12:18].max() == 0  # the ignored back
    assert weight[0].min() == 1.0


def test_a_pile_top_keeps_its_peak_inside_the_ignored_cards_under_it() -> None:
    # a stock pile: two ignored slivers whose boxes span the pile, then the top back
    boxes = np.asarray([[20, 20, 100, 60], [22, 18, 102, 62], [24, 22, 96, 58]], np.float32)
    kinds, ignore = np.asarray([1, 1, 1]), np.asarray([True, True, False])
    heat, weight, _, mask = D.finder_targets(boxes, kinds, ignore, 32, 32, 4)
    assert heat[1, 10, 15] == 1.0 and mask[10, 15] == 1.0  # centre (60, 40) px
    assert weight[1, 10, 15] == 1.0 and weight[1, 9:12, 14:17].min() == 1.0
    assert weight[1, 5, 6] == 0.0  # the slivers' own corner, far from the peak, stays untaught
    assert weight[0].min() == 1.0  # the glyph channel is untouched


def test_networks_shapes_and_sizes() -> None:
    f, r = Finder().eval(), Reader().eval()
    heat, reg = FinderExport(f)(torch.zeros(1, 3, 96, 128))
    assert heat.shape == (1, 2, 24, 32) and reg.shape == (1, 4, 24, 32)
    assert r(torch.zeros(2, 3, 48, 48)).shape == (2, len(READER_CLASSES) + 2)
    assert n_params(r) < 500_000
    assert 4 * (n_params(f) + n_params(r)) < 5_000_000  # float32 weights: the 5 MB model limit


def test_mirror_averaged_finder_is_symmetric_and_reflects_the_x_offset() -> None:
    """The mirrored view must land on the same cells: the averaged output of a photo, mirrored,
    equals the output of the mirrored photo, with the sub-cell x offset reflected."""
    torch.manual_seed(1)
    f = FinderExport(Finder().eval(), flip=True).eval()
    x = torch.randn(1, 3, 64, 96)
    with torch.no_grad():
        h1, r1 = f(x)
        h2, r2 = f(x.flip(3))
    assert torch.allclose(h1, h2.flip(3), atol=1e-5)
    assert torch.allclose(r1[:, :2], r2[:, :2].flip(3), atol=1e-5)  # sizes
    assert torch.allclose(r1[:, 2], 1 - r2[:, 2].flip(2), atol=1e-5)  # x offset, reflected
    assert torch.allclose(r1[:, 3], r2[:, 3].flip(2), atol=1e-5)
    single = FinderExport(f.finder)
    with torch.no_grad():
        assert not torch.allclose(single(x)[0], h1)  # a second view, not the first one twice


def _finder_set() -> D.FinderSet:
    rng = np.random.default_rng(0)
    images = np.full((2, 128, 128, 3), 230, np.uint8)
    boxes, kinds = [], []
    for i in range(2):
        bl = []
        for _ in range(4):
            x, y = rng.integers(8, 100, 2)
            images[i, y:y + 12, x:x + 12] = 20  # a dark "glyph"
            bl.append([x, y, x + 12, y + 12])
        boxes.append(np.asarray(bl, np.float32))
        kinds.append(np.zeros(4, np.int64))
    return D.FinderSet(images, np.asarray([[128, 128], [128, 128]]), boxes, kinds,
                       [np.zeros(4, bool), np.zeros(4, bool)])


def test_zoomed_windows_keep_targets_on_the_glyphs() -> None:
    """Every positive of a rescaled window sits on the dark square it labels, at the new size."""
    fs = _finder_set()
    rng = np.random.default_rng(3)
    sizes = set()
    for _ in range(6):
        imgs, _heat, _w, reg, mask = T.finder_batch(fs, np.asarray([0, 1]), 64, rng, flip=False,
                                                    zoom=(0.6, 1.7))
        for n in range(2):
            for y, x in zip(*np.nonzero(mask[n]), strict=True):
                cx, cy = (x + reg[n, 2, y, x]) * T.STRIDE, (y + reg[n, 3, y, x]) * T.STRIDE
                w = math.exp(reg[n, 0, y, x]) * T.STRIDE
                assert imgs[n, int(cy), int(cx)].max() < 100  # the centre is on ink
                sizes.add(round(w))
    assert len(sizes) > 2  # the windows were rescaled by different factors


def test_paper_crops_are_text_of_the_training_faces() -> None:
    pytest.importorskip("zipai.datasets")
    crops = D.paper_crops(12, 48, 1.3, np.random.default_rng(0))
    assert crops.shape == (12, 48, 48, 3) and crops.dtype == np.uint8
    ink = (crops.astype(np.int32).sum(axis=3) < 300).mean(axis=(1, 2))
    assert (ink > 0.005).all() and (ink < 0.8).all()  # some ink on paper in every crop


def test_back_box_is_the_bulk_of_the_visible_part() -> None:
    """A back covered by a card lying 100 px lower and 4 px to the right: it shows a strip at its
    top and a 4 px sliver down its left side. Its labelled box spans both; the target is the strip."""
    w, h = 60.0, 200.0
    back = D.Ann(20, (100.0, 100.0, 100.0 + w, 100.0 + h), False,
                 corners=[(100.0, 100.0), (100.0 + w, 100.0), (100.0 + w, 100.0 + h), (100.0, 100.0 + h)])
    top = D.Ann(3, (120.0, 210.0, 150.0, 240.0), False,
                corners=[(104.0, 200.0), (104.0 + w, 200.0), (104.0 + w, 200.0 + h), (104.0, 200.0 + h)])
    x0, y0, x1, y1 = D.back_box([back, top], 0)
    assert abs(x0 - 100) <= 3 and abs(x1 - 160) <= 3
    assert abs(y0 - 100) <= 3 and abs(y1 - 200) <= 3  # the strip, not the sliver down to y = 300
    assert D.back_box([back], 0) == pytest.approx((100.0, 100.0, 160.0, 300.0), abs=2.5)


def test_finder_overfits_a_tiny_batch() -> None:
    torch.manual_seed(0)
    fs = _finder_set()
    batch = T.finder_batch(fs, np.asarray([0, 1]), 128, np.random.default_rng(1), flip=False)
    imgs, heat, weight, reg, mask = (torch.from_numpy(a) for a in batch)
    assert heat[:, 0].eq(1).sum() == 8
    model = Finder()
    opt = torch.optim.AdamW(model.parameters(), 3e-3)
    x = T._norm(torch, imgs)
    first = None
    for _ in range(40):
        loss, _, _ = T.finder_loss(torch, model(x), heat, weight, reg, mask)
        first = float(loss.detach()) if first is None else first
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert float(loss.detach()) < 0.5 * first


def test_reader_augment_keeps_shape_and_range() -> None:
    x = torch.randint(0, 255, (6, 48, 48, 3), dtype=torch.uint8)
    y = T.reader_augment(torch, x)
    assert y.shape == (6, 3, 48, 48) and torch.isfinite(y).all()


def test_brush_augment_keeps_shape_and_range() -> None:
    x = torch.randint(0, 255, (6, 48, 48, 3), dtype=torch.uint8)
    y = T.reader_augment(torch, x, brush=True)
    assert y.shape == (6, 3, 48, 48) and torch.isfinite(y).all()


def test_nib_draws_a_dot_into_a_streak_along_one_direction() -> None:
    """A dot of ink under a nib: darker pixels appear on one line through it, the dot stays,
    nothing gets lighter; with a share of zero the crop comes back as it was."""
    x = torch.ones(4, 3, 17, 17)
    x[..., 8, 8] = 0.0
    torch.manual_seed(3)
    y = T.nib(torch, x, share=1.0, reach=3.0)
    assert (y <= x + 1e-6).all() and float(y[0, 0, 8, 8]) < 1e-6
    for img in y[:, 0]:
        ink = 1.0 - img.numpy()
        assert 2.0 <= ink.sum() <= 5.0  # a short streak, not a blot
        ys, xs = np.mgrid[:17, :17]
        cx, cy = (ink * xs).sum() / ink.sum(), (ink * ys).sum() / ink.sum()
        cov = np.cov(np.stack([xs.ravel() - cx, ys.ravel() - cy]), aweights=ink.ravel())
        small, large = np.linalg.eigvalsh(cov)
        assert small < 0.3 * large  # the ink lies along one line
    assert torch.equal(T.nib(torch, x, share=0.0), x)


def test_pen_grows_or_wears_a_stroke_along_one_direction_and_never_erases_it() -> None:
    """A two-pixel horizontal stroke under the pen: grown, it covers more rows (or stays, the
    pen held along it); worn, it pales or narrows to a hairline but keeps some ink; nothing
    outside the pen's reach changes; with a share of zero the windows come back as they were."""
    x = torch.ones(64, 3, 32, 32)
    x[..., 15:17, 4:28] = 0.0
    torch.manual_seed(1)
    y = T.pen(torch, x, share=1.0, reach=2.0)
    ink_before = float((1 - x[0, 0]).sum())
    grew = wore = 0
    for img in y[:, 0]:
        ink = float((1 - img).sum())
        grew += ink > ink_before + 1
        wore += ink < ink_before - 1
        assert float(img[15:17, 6:26].min()) <= 0.7 + 1e-6  # the stroke keeps 0.3 of its ink
        assert torch.equal(img[:12], torch.ones(12, 32)) and torch.equal(img[20:], torch.ones(12, 32))
    assert grew > 10 and wore > 10
    assert torch.equal(T.pen(torch, x, share=0.0), x)


def test_warp_bends_the_grid_smoothly_and_by_at_most_its_amount() -> None:
    eye = torch.eye(2, 3).expand(3, 2, 3)
    grid = torch.nn.functional.affine_grid(eye, [3, 3, 48, 48], align_corners=False)
    torch.manual_seed(0)
    bent = T.warp(torch, grid, share=1.0, amount=0.08)
    d = bent - grid
    assert float(d.abs().max()) <= 0.08 * 1.3 and float(d.abs().max()) > 0.005  # bicubic overshoots a little
    assert float((d[:, 1:] - d[:, :-1]).abs().max()) < 0.02  # neighbours move together
    assert torch.equal(T.warp(torch, grid, share=0.0, amount=0.08), grid)


def test_mined_finds_take_the_label_of_the_card_they_fall_on(tmp_path: Path) -> None:
    scene = D.load_coco(_coco(tmp_path))[0]
    glyph = scene.anns[0].box
    boxes = np.asarray([glyph, [5, 5, 25, 25], [5, 200, 40, 230]], np.float32)
    got_boxes, labels, downs = T.label_finds(scene, boxes, np.asarray([0, 0, 1]))
    # the card, then a glyph find on nothing; a back find on nothing is left out
    assert labels.tolist() == [3, 21]
    assert np.allclose(got_boxes, boxes[:2]) and np.allclose(downs[0], [0.0, 1.0])
    assert np.isnan(downs[1]).all()


def _tuned_model(out: Path, part: str, key: str) -> Path:
    """An untrained pair exported into ``out``, with one tuned setting (0.42) that a run
    training one network must keep; the manifest."""
    torch.manual_seed(0)
    manifest = export_all(torch, Finder().eval(), Reader().eval(), out, {"data_seed": 5}, {})
    data = json.loads(manifest.read_text())
    data[part][key] = 0.42
    manifest.write_text(json.dumps(data))
    return manifest


def test_reader_only_trains_a_reader_behind_the_shipped_finder(tmp_path: Path) -> None:
    """``--reader-only``: the finder file and every tuned setting stay, the reader and its hash
    change, the run records itself, and the runtime loads the pair."""
    out = tmp_path / "model"
    manifest = _tuned_model(out, "reader", "none_threshold")
    finder_bytes, reader_bytes = (out / "finder.onnx").read_bytes(), (out / "reader.onnx").read_bytes()
    args = ["--reader-only", "--out", str(out), "--data", str(tmp_path / "data"),
            "--runs", str(tmp_path / "runs"),
            "--reader-train", "2", "--reader-train-style2", "1", "--reader-extra", "1",
            "--reader-extra-style2", "0", "--reader-extra-size", "320x240", "--val-count", "1",
            "--size", "320x240", "--reader-minutes", "0.01", "--paper", "8", "--no-int8", "--brush",
            "--threads", "1"]  # one thread a test worker (tests/conftest.py)
    assert T.main(args) == 0
    new = json.loads(manifest.read_text())
    assert (out / "finder.onnx").read_bytes() == finder_bytes
    assert (out / "reader.onnx").read_bytes() != reader_bytes
    assert new["reader"]["none_threshold"] == 0.42 and read_provenance(manifest)["training"]["data_seed"] == 5
    t = read_provenance(manifest)["training"]
    assert t["reader_only"] is True and t["reader_train_scenes"] == 2 and t["reader_train_style2_scenes"] == 1
    assert t["reader_brush"] == {"nib": list(T.NIB), "warp": list(T.WARP)}
    assert t["mined_with_finder"] == new["finder"]["sha256"]
    assert (tmp_path / "data" / "train_reader_own_style2").is_dir()
    Detector(manifest)  # the hashes check out
    assert not list(out.glob("*.new"))
    # trained on from that reader (--reader-from): the first run stays on record beside it
    start = tmp_path / "start.onnx"
    start.write_bytes((out / "reader.onnx").read_bytes())
    assert T.main([*args, "--fresh", "--reader-from", str(start)]) == 0
    again = read_provenance(manifest)["training"]
    warm = again["reader_warm"]
    assert warm["reader_from_sha256"] == hashlib.sha256(start.read_bytes()).hexdigest()
    assert warm["reader_lr"] == 5e-4 and again["reader_brush"] == t["reader_brush"]
    assert (out / "reader.onnx").read_bytes() != start.read_bytes()
    assert warm["command"].startswith("zipai train --reader-only") and "reader_warm_before" not in warm
    Detector(manifest)
    # a second warm round keeps the first one's record under it
    start.write_bytes((out / "reader.onnx").read_bytes())
    assert T.main([*args, "--fresh", "--reader-from", str(start)]) == 0
    third = read_provenance(manifest)["training"]["reader_warm"]
    assert third["reader_warm_before"] == warm and third["reader_from_sha256"] != warm["reader_from_sha256"]


def test_reader_only_can_learn_from_the_recipe_scenes(tmp_path: Path) -> None:
    """``--reader-scenes recipe``: the reader-only run takes the finder's training renders (at
    ``--size``, the recipe's seeds and folders), not scenes of its own."""
    base = ["--reader-only", "--data", str(tmp_path), "--train-count", "2", "--style2-count", "1",
            "--val-count", "1", "--size", "320x240", "--reader-train", "3", "--reader-train-style2", "1",
            "--reader-extra-size", "160x120"]
    train_sc, _, n_style2 = T.train_scenes(T.build_parser().parse_args([*base, "--reader-scenes", "recipe"]))
    assert len(train_sc) == 3 and n_style2 == 1 and {s.width for s in train_sc} == {320}
    infos = [json.loads((tmp_path / f / "annotations.json").read_text(encoding="utf-8"))["info"]
             for f in ("train", "train_style2")]
    assert [(i["style"], i["seed"], i["split"]) for i in infos] == [(1, 5, "train"), (2, 13, "train")]
    assert not (tmp_path / "train_reader_own").exists()
    own, _, _ = T.train_scenes(T.build_parser().parse_args(base))  # the default: its own scenes
    assert len(own) == 3 and {s.width for s in own} == {160} and (tmp_path / "train_reader_own").is_dir()


def test_reader_only_needs_a_finder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert T.main(["--reader-only", "--out", str(tmp_path / "empty"), "--runs", str(tmp_path / "runs")]) == 2
    assert "has no finder.onnx" in capsys.readouterr().err


def test_stroke_weight_grows_or_thins_the_ink_of_the_chosen_images_only() -> None:
    """A one-pixel dark stroke on paper: grown, it covers three columns; thinned, it pales; an
    image drawn for neither comes back as it was."""
    x = torch.ones(1, 3, 16, 16)
    x[..., 8] = 0.0
    torch.manual_seed(0)
    grown = T.stroke_weight(torch, x.clone(), thick=1.0, thin=0.0)
    assert (grown[0, 0, 4, 7:10] < 0.71).all() and float(grown[0, 0, 4, 5]) == 1.0
    thinned = T.stroke_weight(torch, x.clone(), thick=0.0, thin=1.0, thin_max=0.7)
    assert 0.29 < float(thinned[0, 0, 4, 8]) <= 0.71  # blended in by at most 0.7: still ink
    same = T.stroke_weight(torch, x.clone(), thick=0.0, thin=0.0)
    assert torch.equal(same, x)


def _plain_photometric(x: torch.Tensor, strong: bool) -> torch.Tensor:
    """The augmentation written out a pass at a time, as the recipe first had it."""
    F = torch.nn.functional
    b = x.shape[0]
    x = x.permute(0, 3, 1, 2).float() / 255.0
    gain = 1 + (torch.rand(b, 3, 1, 1) - 0.5) * (0.4 if strong else 0.3)
    bright = 0.55 + torch.rand(b, 1, 1, 1) * 0.8
    x = x * gain * bright
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * (0.6 + torch.rand(b, 1, 1, 1) * 0.7) + mean
    gray = (torch.rand(b, 1, 1, 1) < (0.15 if strong else 0.08)).float()
    x = gray * x.mean(dim=1, keepdim=True).expand_as(x) + (1 - gray) * x
    blur = torch.rand(b) < (0.4 if strong else 0.25)
    if blur.any():
        k = torch.tensor([1.0, 2.0, 1.0])
        k2 = (k[:, None] * k[None, :] / 16).expand(3, 1, 3, 3).contiguous()
        xb = F.conv2d(F.pad(x[blur], (1, 1, 1, 1), mode="replicate"), k2, groups=3)
        if strong:
            twice = torch.rand(xb.shape[0], 1, 1, 1) < 0.4
            xb2 = F.conv2d(F.pad(xb, (1, 1, 1, 1), mode="replicate"), k2, groups=3)
            xb = torch.where(twice, xb2, xb)
        x = x.clone()
        x[blur] = xb
    sigma = torch.rand(b, 1, 1, 1) * (0.06 if strong else 0.04)
    x = (x + torch.randn_like(x) * sigma).clamp(0, 1)
    return (x - torch.tensor(T.MEAN).view(1, 3, 1, 1)) / torch.tensor(T.STD).view(1, 3, 1, 1)


@pytest.mark.parametrize("strong", [False, True])
def test_the_one_pass_light_and_colour_are_the_plain_formulas(strong: bool) -> None:
    """The same random draws in the same order, so the same images (to float rounding): the
    fused passes change the speed of a training step, not what it learns from."""
    x = torch.randint(0, 256, (24, 20, 20, 3), generator=torch.Generator().manual_seed(1), dtype=torch.uint8)
    for seed in range(3):
        torch.manual_seed(seed)
        want = _plain_photometric(x, strong)
        torch.manual_seed(seed)
        got = T.photometric(torch, x, strong=strong)
        assert got.shape == want.shape == (24, 3, 20, 20)
        assert torch.allclose(got, want, atol=1e-4), float((got - want).abs().max())


def _coco(tmp: Path) -> Path:
    """A one-image COCO folder: a white card on grey with a black 'glyph' near its top."""
    (tmp / "images").mkdir(parents=True)
    img = Image.new("RGB", (320, 240), (90, 90, 90))
    img.paste((245, 245, 240), (100, 40, 160, 210))
    img.paste((10, 10, 10), (115, 55, 145, 85))
    img.save(tmp / "images" / "000000.jpg", quality=95)
    ann = {"id": 1, "image_id": 0, "category_id": 4, "bbox": [115, 55, 30, 30], "ignore": False,
           "card_polygon": [[100, 40], [160, 40], [160, 210], [100, 210]],
           "card_corners": [[100, 40], [160, 40], [160, 210], [100, 210]], "color": "black",
           "glyphs": [{"which": "top", "bbox": [115, 55, 30, 30], "visible": 1.0, "upright": True}]}
    coco = {"images": [{"id": 0, "file_name": "images/000000.jpg", "width": 320, "height": 240}],
            "annotations": [ann], "categories": []}
    (tmp / "annotations.json").write_text(json.dumps(coco))
    return tmp


def test_coco_loading_and_reader_crops(tmp_path: Path) -> None:
    scenes = D.load_coco(_coco(tmp_path))
    assert len(scenes) == 1 and scenes[0].anns[0].cls == 3 and scenes[0].anns[0].down == (0.0, 1.0)
    crops, labels, downs = D.scene_crops(scenes[0], 48, 1.3, np.random.default_rng(0), copies=2, negatives=4)
    assert crops.shape[1:] == (48, 48, 3) and len(crops) == len(labels) == len(downs)
    assert (labels == 3).sum() >= 2 and (labels == 21).sum() >= 1
    # a crop turned a quarter round carries a down direction turned with it
    turned = (labels == 3) & (np.abs(downs[:, 0]) > 0.5)
    for k in np.flatnonzero(turned):
        assert np.isclose(np.hypot(*downs[k]), 1.0, atol=1e-5)
    assert np.all(np.isnan(downs[labels == 21]))
    fs = D.build_finder_set(scenes, 160)
    assert fs.images.shape == (1, 160, 160, 3) and np.allclose(fs.boxes[0], [[57.5, 27.5, 72.5, 42.5]])


def test_a_finder_set_comes_back_from_its_cache_as_built(tmp_path: Path) -> None:
    scenes = D.load_coco(_coco(tmp_path / "scenes"))
    cache = tmp_path / "finder.npz"
    fs = D.build_finder_set(scenes, 160, cache)
    again = D.build_finder_set(scenes, 160, cache)
    assert np.array_equal(fs.images, again.images) and np.array_equal(fs.sizes, again.sizes)
    assert [b.tolist() for b in fs.boxes] == [b.tolist() for b in again.boxes]
    joined = D.join_finder_sets(fs, again)
    assert len(joined.boxes) == len(joined.ignore) == 2 and np.array_equal(joined.images[1], fs.images[0])


def test_crop_rotation_matches_down_direction() -> None:
    arr = np.full((100, 100, 3), 255, np.uint8)
    arr[50:70, 45:55] = 0  # ink below the centre: "down" is +y
    from zipai.vision.preprocess import cut_crops

    c = cut_crops(arr, np.asarray([[30, 30, 70, 70]], np.float32), 20, 1.0,
                  np.asarray([math.pi / 2], np.float32))[0, :, :, 0]
    # down (0, 1) turned by -90°: (1, 0) -> ink right of centre
    assert c[10, 15] < 100 and c[10, 4] > 200


def test_export_load_detect_and_tamper(tmp_path: Path) -> None:
    torch.manual_seed(0)
    out = tmp_path / "model"
    manifest = export_all(torch, Finder().eval(), Reader().eval(), out, {"data_seed": 1}, {})
    data = json.loads(manifest.read_text())
    assert data["classes"] == list(READER_CLASSES) and "training" not in data
    assert read_provenance(manifest)["training"]["data_seed"] == 1
    det = Detector(manifest)
    img = Image.new("RGB", (640, 480), (30, 120, 40))
    import io

    buf = io.BytesIO()
    img.save(buf, "JPEG")
    dets = det.detect(decode(buf.getvalue())).detections
    assert isinstance(dets, list)
    (out / "reader.onnx").write_bytes((out / "reader.onnx").read_bytes() + b"x")
    with pytest.raises(ModelError, match="SHA-256"):
        Detector(manifest)


def _settle(model: torch.nn.Module, x: torch.Tensor) -> torch.nn.Module:
    """BatchNorm statistics from ``x``: an untrained network in eval mode barely varies its
    output, and a quantization test needs outputs that differ from input to input."""
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = None
    model.train()
    with torch.no_grad():
        model(x)
    return model.eval()


def test_int8_export_records_itself_and_reads_like_float(tmp_path: Path) -> None:
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    photos = [rng.integers(0, 256, (90, 120, 3), dtype=np.uint8) for _ in range(3)]
    crops = np.repeat(rng.integers(0, 256, (40, 1, 1, 3), dtype=np.uint8), 48, 1).repeat(48, 2)
    for i, (y, x) in enumerate(rng.integers(0, 32, (40, 2))):
        crops[i, y:y + 16, x:x + 16] = rng.integers(0, 256, 3)  # a block of ink on paper
    c = ((crops.transpose(0, 3, 1, 2) / 255.0 - 0.5) / 0.25).astype(np.float32)
    img = np.zeros((1, 3, 96, 128), np.float32)
    img[0, :, :90, :120] = (photos[0].transpose(2, 0, 1) / 255.0 - 0.5) / 0.25
    finder = _settle(Finder(), torch.from_numpy(img))
    reader = _settle(Reader(), torch.from_numpy(c))
    with torch.no_grad():
        reader.fc.weight.mul_(10)  # decisive logits, as a trained reader has
    fp32 = json.loads(export_all(torch, finder, reader, tmp_path / "f", {}, {}).read_text())
    assert fp32["int8"] is None and fp32["finder"]["mirror_averaged"] is True
    manifest = export_all(torch, finder, reader, tmp_path / "q", {}, {}, calibration=(photos, crops))
    data = json.loads(manifest.read_text())
    assert "3 val photos, 40 val crops" in data["int8"]["calibration"]
    size = {d: (tmp_path / d / "reader.onnx").stat().st_size for d in ("f", "q")}
    assert size["q"] < 0.5 * size["f"]  # int8 weights
    a, b = Detector(tmp_path / "f" / "manifest.json"), Detector(manifest)
    # the box regression
    ra, rb = a.finder.session.run({"image": img})[1], b.finder.session.run({"image": img})[1]
    assert np.corrcoef(ra.ravel(), rb.ravel())[0, 1] > 0.95
    pa, pb = a.reader.session.run({"crops": c})[0], b.reader.session.run({"crops": c})[0]
    assert len(set(pa.argmax(1).tolist())) > 2  # the crops are read differently ...
    assert (pa.argmax(1) == pb.argmax(1)).mean() >= 0.9  # ... and alike in both precisions
    assert data["int8"]["format"] == WEIGHT_FORMAT
    for part in ("finder", "reader"):  # no int8 weights for a CPU's uint8 x int8 kernels to saturate
        graph = onnx.load(str(tmp_path / "q" / f"{part}.onnx")).graph
        assert {numpy_helper.to_array(t).dtype for t in graph.initializer} & {np.dtype(np.uint8)}
        assert np.dtype(np.int8) not in {numpy_helper.to_array(t).dtype for t in graph.initializer}
        # its twin is the graph as quantized, weights as int8: the same network, stored otherwise
        twin = tmp_path / "q" / data[part]["int8_file"]["file"]
        assert twin.name == f"{part}_int8.onnx" and data[part]["int8_file"]["sha256"] == sha256(twin)
        stored = {numpy_helper.to_array(t).dtype for t in onnx.load(str(twin)).graph.initializer}
        assert np.dtype(np.int8) in stored
        again = tmp_path / f"{part}_again.onnx"
        again.write_bytes(twin.read_bytes())
        unsigned_weights(again)
        assert again.read_bytes() == (tmp_path / "q" / f"{part}.onnx").read_bytes()
    c8 = Detector(manifest, weights="int8")
    assert c8.int8_files and (c8.reader.session.run({"crops": c})[0].argmax(1) == pb.argmax(1)).mean() >= 0.95
    # a reader written anew without a twin (float here) leaves the old twin out of the manifest
    export_reader(torch, reader, tmp_path / "q", {}, {})
    after = json.loads(manifest.read_text())
    assert "int8_file" not in after["reader"] and "int8_file" in after["finder"]
    assert not Detector(manifest).int8_files
    with pytest.raises(ModelError, match="int8_file"):
        Detector(manifest, weights="int8")
    export_reader(torch, reader, tmp_path / "q", {}, {}, calibration=crops)
    twin = json.loads(manifest.read_text())["reader"]["int8_file"]
    assert twin["sha256"] == sha256(tmp_path / "q" / "reader_int8.onnx")
    assert Detector(manifest, weights="int8").int8_files and not list((tmp_path / "q").glob("new.*"))


def test_unsigned_weights_keep_every_number(tmp_path: Path) -> None:
    """Weights stored as uint8 with zero points moved by 128 dequantize to the same values, and
    the graph reads the same; a second pass finds nothing left to move."""
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    crops = rng.integers(0, 256, (32, 48, 48, 3), dtype=np.uint8)
    c = ((crops.transpose(0, 3, 1, 2) / 255.0 - 0.5) / 0.25).astype(np.float32)
    path = tmp_path / "reader.onnx"
    export_reader_onnx(torch, _settle(Reader(), torch.from_numpy(c)), path, 48)
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Feed(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter([{"crops": c}])

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.it, None)

    quantize_static(str(path), str(path), Feed(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    before = onnx_layers(path)
    ref = OrtSession(path.read_bytes(), optimise=False).run({"crops": c})
    assert unsigned_weights(path) == len(before)
    assert unsigned_weights(path) == 0
    for (op_a, w_a, _), (op_b, w_b, _) in zip(before, onnx_layers(path), strict=True):
        assert op_a == op_b and np.array_equal(w_a, w_b)
    got = OrtSession(path.read_bytes(), optimise=False).run({"crops": c})
    assert all(np.array_equal(a, b) for a, b in zip(ref, got, strict=True))


def test_ensure_split_renders_decorated_scenes_once(tmp_path: Path) -> None:
    d = T.ensure_split(tmp_path, "train", 1, 13, "320x240", "train_style2", style=2)
    assert d == tmp_path / "train_style2"
    coco = json.loads((d / "annotations.json").read_text(encoding="utf-8"))
    assert coco["info"]["style"] == 2 and coco["info"]["split"] == "train" and len(coco["images"]) == 1
    stamp = (d / "annotations.json").stat().st_mtime_ns
    assert T.ensure_split(tmp_path, "train", 1, 13, "320x240", "train_style2", style=2) == d
    assert (d / "annotations.json").stat().st_mtime_ns == stamp  # there already: not rendered again


def test_finder_only_scenes_are_rendered_small_and_joined_after_the_training_scenes(tmp_path: Path) -> None:
    args = T.build_parser().parse_args(["--data", str(tmp_path), "--finder-extra", "2",
                                        "--finder-extra-style2", "1", "--finder-extra-size", "320x240"])
    extra = T.finder_extra(args)
    assert len(extra) == 2 and {s.width for s in extra} == {320}
    infos = [json.loads((tmp_path / f / "annotations.json").read_text(encoding="utf-8"))["info"]
             for f in ("train_finder", "train_finder_style2")]
    assert [(i["style"], i["seed"]) for i in infos] == [(1, 25), (2, 26)]
    first = _finder_set()
    joined = D.join_finder_sets(first, D.build_finder_set(extra, 128))
    assert len(joined.sizes) == len(joined.boxes) == len(joined.kinds) == len(joined.ignore) == 4
    assert np.array_equal(joined.images[:2], first.images)  # the training scenes keep their indices
    assert np.all(joined.sizes[2:] == [128, 96])


def test_reader_only_scenes_use_the_reader_faces_at_their_own_size(tmp_path: Path) -> None:
    args = T.build_parser().parse_args(["--data", str(tmp_path), "--reader-extra", "2",
                                        "--reader-extra-style2", "1", "--reader-extra-size", "320x240"])
    more = T.reader_extra(args)
    assert len(more) == 2 and {s.width for s in more} == {320}
    infos = [json.loads((tmp_path / f / "annotations.json").read_text(encoding="utf-8"))["info"]
             for f in ("train_reader", "train_reader_style2")]
    assert [(i["style"], i["seed"], i["split"]) for i in infos] == [(1, 35, "reader"), (2, 36, "reader")]
    reader_faces = {f.name for f in faces("reader")}
    assert {s.info["font"] for s in more} <= reader_faces


def test_reader_only_scenes_in_the_wide_split_and_a_folder_of_another_split_refused(tmp_path: Path) -> None:
    args = T.build_parser().parse_args(["--data", str(tmp_path), "--reader-extra", "3",
                                        "--reader-extra-style2", "0", "--reader-extra-size", "320x240",
                                        "--reader-extra-split", "wide", "--seed", "2"])
    more = T.reader_extra(args)
    assert {s.info["font"] for s in more} <= {f.name for f in faces("wide")}
    assert T.rendered_as(tmp_path / "train_reader") == ("wide", 0.0)
    args.reader_extra_split = "reader"  # the same folder, asked for in other faces
    with pytest.raises(T.TrainError, match=r"train_reader holds scenes of font split wide, not reader"):
        T.reader_extra(args)


def test_a_folder_rendered_with_composed_five_is_refused(tmp_path: Path) -> None:
    """No recipe trains on composed 伍 (``zipai data render --compose-five``): a folder of that
    name rendered so is refused, not trained on."""
    args = T.build_parser().parse_args(["--data", str(tmp_path), "--reader-only", "--reader-train", "2",
                                        "--reader-train-style2", "0", "--reader-extra", "1",
                                        "--reader-extra-style2", "0", "--reader-extra-size", "320x240",
                                        "--val-count", "1", "--size", "320x240", "--seed", "2"])
    from zipai.datasets.cli import main as data_main

    assert data_main(["render", "--out", str(tmp_path / "train_reader"), "--count", "1", "--seed", "32",
                      "--split", "reader", "--size", "320x240", "--compose-five", "1", "--quiet"]) == 0
    with pytest.raises(T.TrainError, match=r"train_reader holds scenes rendered with --compose-five 1, "
                                           r"which no recipe trains on"):
        T.reader_extra(args)
    T.train_scenes(args)  # the plain folders render and load
    assert T.rendered_as(tmp_path / "train_reader_own") == ("train", 0.0)


def test_more_decorated_finder_scenes_than_finder_scenes_is_an_error(tmp_path: Path) -> None:
    args = T.build_parser().parse_args(["--data", str(tmp_path), "--finder-extra", "1",
                                        "--finder-extra-style2", "3"])
    with pytest.raises(T.TrainError, match="--finder-extra-style2 3"):
        T.finder_extra(args)


def _crops(n: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """uint8 crops with a block of ink on paper, and the same normalised for the networks."""
    rng = np.random.default_rng(seed)
    crops = np.repeat(rng.integers(0, 256, (n, 1, 1, 3), dtype=np.uint8), 48, 1).repeat(48, 2)
    for i, (y, x) in enumerate(rng.integers(0, 32, (n, 2))):
        crops[i, y:y + 16, x:x + 16] = rng.integers(0, 256, 3)
    return crops, ((crops.transpose(0, 3, 1, 2) / 255.0 - 0.5) / 0.25).astype(np.float32)


def test_a_reader_comes_back_from_its_onnx_file_float_and_int8(tmp_path: Path) -> None:
    """``reader_from_onnx``: the exported graph, float or int8, loads back into a Reader that
    computes what the file computes (the BatchNorms were folded into the convolutions)."""
    from zipai.models.export import reader_from_onnx

    torch.manual_seed(0)
    crops, c = _crops()
    img = np.zeros((1, 3, 96, 128), np.float32)
    reader = _settle(Reader(), torch.from_numpy(c))
    with torch.no_grad():
        reader.fc.weight.mul_(10)
        want = torch.softmax(reader(torch.from_numpy(c))[:, :22], 1).numpy()
    finder = _settle(Finder(), torch.from_numpy(img))
    export_all(torch, finder, reader, tmp_path / "f", {}, {})
    back = reader_from_onnx(torch, tmp_path / "f" / "reader.onnx")
    with torch.no_grad():
        got = torch.softmax(back(torch.from_numpy(c))[:, :22], 1).numpy()
    np.testing.assert_allclose(got, want, atol=1e-4)
    photo = [img[0].transpose(1, 2, 0)]
    export_all(torch, finder, reader, tmp_path / "q", {}, {}, calibration=(photo, crops))
    q = reader_from_onnx(torch, tmp_path / "q" / "reader.onnx")
    with torch.no_grad():
        got_q = torch.softmax(q(torch.from_numpy(c))[:, :22], 1).numpy()
    assert (got_q.argmax(1) == want.argmax(1)).mean() >= 0.9 and not np.allclose(got_q, want, atol=1e-6)
    with pytest.raises(ValueError, match="not a reader graph"):
        reader_from_onnx(torch, tmp_path / "f" / "finder.onnx")
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(ValueError, match=r"junk\.onnx"):
        reader_from_onnx(torch, tmp_path / "junk.onnx")


def test_a_warm_started_reader_learns_with_its_batchnorm_statistics_kept(tmp_path: Path) -> None:
    """``--reader-from``: training starts from the file's weights, the folded BatchNorm
    statistics stay put (batch statistics would undo the fold) and the weights move."""
    from zipai.models.export import reader_from_onnx

    torch.manual_seed(0)
    crops, c = _crops(64)
    reader = _settle(Reader(), torch.from_numpy(c))
    export_all(torch, Finder().eval(), reader, tmp_path / "m", {}, {})
    args = T.build_parser().parse_args(["--runs", str(tmp_path / "runs"), "--reader-minutes", "0.02",
                                        "--reader-from", str(tmp_path / "m" / "reader.onnx")])
    args.runs.mkdir()
    y = np.arange(64) % 22
    d = np.full((64, 2), np.nan, np.float32)
    model, hist = T.train_reader(torch, (crops, y, d), (crops, y, d), args)
    start = reader_from_onnx(torch, tmp_path / "m" / "reader.onnx")
    bn = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert all(torch.equal(m.running_mean, torch.zeros_like(m.running_mean)) for m in bn)
    assert all(torch.allclose(m.running_var, torch.full_like(m.running_var, 1 - m.eps)) for m in bn)
    assert not torch.equal(model.features[0][0].weight, start.features[0][0].weight)
    assert hist["val"] and not model.training


def test_reader_from_needs_reader_only_and_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert T.main(["--reader-from", str(tmp_path / "r.onnx"), "--out", str(tmp_path / "o"),
                   "--runs", str(tmp_path / "runs"), "--data", str(tmp_path / "d")]) == 2
    assert "--reader-from goes with --reader-only" in capsys.readouterr().err
    out = tmp_path / "model"
    export_all(torch, Finder().eval(), Reader().eval(), out, {}, {})
    assert T.main(["--reader-only", "--reader-from", str(tmp_path / "missing.onnx"), "--out", str(out),
                   "--runs", str(tmp_path / "runs"), "--data", str(tmp_path / "d")]) == 2
    assert "missing.onnx: no such file" in capsys.readouterr().err
    assert T.main(["--reader-only", "--reader-from", str(out / "finder.onnx"), "--out", str(out),
                   "--runs", str(tmp_path / "runs"), "--data", str(tmp_path / "d")]) == 2
    assert "not a reader graph" in capsys.readouterr().err


def test_a_finder_comes_back_from_its_mirror_averaged_onnx_file(tmp_path: Path) -> None:
    """``finder_from_onnx``: the mirror-averaged graph runs one set of weights twice; they load
    back into a Finder whose export computes what the file computes."""
    from zipai.models.export import finder_from_onnx

    torch.manual_seed(0)
    img = torch.from_numpy(np.random.default_rng(1).normal(0, 1, (1, 3, 96, 128)).astype(np.float32))
    finder = _settle(Finder(), img)
    export_all(torch, finder, Reader().eval(), tmp_path, {}, {})
    back = finder_from_onnx(torch, tmp_path / "finder.onnx")
    with torch.no_grad():
        want = FinderExport(finder, flip=True)(img)
        got = FinderExport(back, flip=True)(img)
    for a, b in zip(want, got, strict=True):
        np.testing.assert_allclose(b.numpy(), a.numpy(), atol=1e-4)
    with pytest.raises(ValueError, match="not a finder graph"):
        finder_from_onnx(torch, tmp_path / "reader.onnx")


def test_finder_only_trains_the_finder_on_behind_the_shipped_reader(tmp_path: Path) -> None:
    """``--finder-only``: the reader file and every tuned setting stay, the finder and its hash
    change, the run records where it started, and the runtime loads the pair."""
    out = tmp_path / "model"
    manifest = _tuned_model(out, "finder", "threshold")
    start = tmp_path / "start.onnx"
    start.write_bytes((out / "finder.onnx").read_bytes())
    reader_bytes = (out / "reader.onnx").read_bytes()
    args = ["--finder-only", "--finder-from", str(start), "--out", str(out), "--data", str(tmp_path / "data"),
            "--runs", str(tmp_path / "runs"), "--train-count", "2", "--style2-count", "1",
            "--finder-extra", "2", "--finder-extra-style2", "1", "--finder-extra-size", "160x120",
            "--val-count", "1", "--size", "320x240", "--finder-minutes", "0.01",
            "--finder-tune-minutes", "0.01", "--no-int8", "--finder-pen", "--threads", "1"]
    assert T.main(args) == 0
    new = json.loads(manifest.read_text())
    assert (out / "reader.onnx").read_bytes() == reader_bytes
    assert (out / "finder.onnx").read_bytes() != start.read_bytes()
    assert new["finder"]["threshold"] == 0.42 and new["finder"]["mirror_averaged"] is True
    t = read_provenance(manifest)["training"]["finder_warm"]
    assert t["finder_only"] is True and t["finder_extra_scenes"] == 2
    assert t["finder_pen"] == {"pen": list(T.PEN)}
    assert read_provenance(manifest)["training"]["data_seed"] == 5
    assert t["finder_from_sha256"] == hashlib.sha256(start.read_bytes()).hexdigest()
    Detector(manifest)  # the hashes check out
    assert not list(out.glob("new.*"))


def test_finder_from_needs_finder_only_and_finder_only_needs_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "model"
    export_all(torch, Finder().eval(), Reader().eval(), out, {}, {})
    common = ["--out", str(out), "--runs", str(tmp_path / "runs"), "--data", str(tmp_path / "d")]
    assert T.main(["--finder-from", str(out / "finder.onnx"), *common]) == 2
    assert "--finder-from goes with --finder-only" in capsys.readouterr().err
    assert T.main(["--finder-only", *common]) == 2
    assert "--finder-from names the exported file" in capsys.readouterr().err
    assert T.main(["--finder-only", "--reader-only", *common]) == 2
    assert "one network at a time" in capsys.readouterr().err


def test_the_last_stage_fits_the_selector_to_the_networks_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The selector learns from the finds of the networks in ``--out`` on the selector scene
    sets (rendered when missing), keeps the manifest's threshold, and a second fit of the same
    finds reads them back from ``--runs``; ``--no-selector``, and a one-network run unless
    told, leave the manifest as it was."""
    from zipai.datasets import sets

    out = tmp_path / "model"
    manifest = copy_model(out)
    before = json.loads(manifest.read_text(encoding="utf-8"))["postprocess"]["selector"]
    monkeypatch.setitem(sets.SETS, "selector", (sets.SceneSet("a", 2, 60, "reader"),
                                                sets.SceneSet("b", 2, 62, "reader", style=3)))
    data, runs = tmp_path / "sel", tmp_path / "runs"
    argv = ["--out", str(out), "--runs", str(runs), "--selector-data", str(data), "--threads", "1"]
    for kept in (["--no-selector"], ["--reader-only"], ["--finder-only"]):
        T.fit_selector(T.build_parser().parse_args([*argv, *kept]), out)
        assert json.loads(manifest.read_text(encoding="utf-8"))["postprocess"]["selector"] == before
    assert not data.exists()
    args = T.build_parser().parse_args(argv)
    T.fit_selector(args, out)
    assert (data / "a" / "annotations.json").exists() and (data / "b" / "annotations.json").exists()
    after = json.loads(manifest.read_text(encoding="utf-8"))["postprocess"]["selector"]
    assert after["trained_on"] == [str(data / "a"), str(data / "b")]
    assert after["threshold"] == before["threshold"] and after["layers"] != before["layers"]
    assert after["training"]["scenes"] == 4 and after["training"]["cards"] > 20
    assert len(list(runs.glob("selector_examples_*.npz"))) == 1
    from zipai.models import selector as S

    def no_networks(*_a: object, **_k: object) -> None:
        raise AssertionError("the networks ran again")

    monkeypatch.setattr(S, "collect", no_networks)
    T.fit_selector(args, out)  # the same networks and scenes: the finds come from the cache
    assert json.loads(manifest.read_text(encoding="utf-8"))["postprocess"]["selector"] == after
    assert Detector(manifest).config.postprocess.selector is not None
    from zipai import vision  # other code making the finds: the cached ones are stale

    code = tmp_path / "vision"
    code.mkdir()
    (code / "__init__.py").write_text("# another version\n", encoding="utf-8")
    monkeypatch.setattr(vision, "__file__", str(code / "__init__.py"))
    with pytest.raises(AssertionError, match="ran again"):
        T.fit_selector(args, out)

