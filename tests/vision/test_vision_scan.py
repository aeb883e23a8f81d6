"""The shipped model end to end: the sample photo is read right and scored; odd photos give a
result with no cards, quickly; the runtime seam takes another session factory."""

from __future__ import annotations

import io
import json
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import copy_model
from PIL import Image

from zipai.engine import Result, score
from zipai.vision import Detector, scan_file
from zipai.vision import detector as detector_module
from zipai.vision.cli import main
from zipai.vision.config import RESCUE_OFF, Config, SecondLook, Turned
from zipai.vision.detection import Detection, Finds, Look
from zipai.vision.detector import models_dir
from zipai.vision.scan import scan_detections
from zipai.vision.session import OrtSession, signed_kernels_exact

SAMPLE = models_dir() / "sample.jpg"
if not (models_dir() / "sample.json").exists():  # only while the first model is being trained
    pytest.skip("the shipped model has not landed yet", allow_module_level=True)
TRUTH = json.loads((models_dir() / "sample.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector()


def test_manifest_and_provenance_record_the_model(detector: Detector) -> None:
    data = detector.manifest.data
    provenance = json.loads((models_dir() / "provenance.json").read_text(encoding="utf-8"))
    assert provenance["training"]["data_seed"] == TRUTH["source"]["train_seed"]
    assert "training" not in data and "figures" not in data  # the runtime reads no provenance
    assert data["finder"]["long_side"] > 0 and len(data["classes"]) == 22
    size = sum((models_dir() / data[k]["file"]).stat().st_size for k in ("finder", "reader"))
    assert size <= 5 * 1024 * 1024


def test_sample_is_read_right(detector: Detector) -> None:
    sc = scan_file(SAMPLE, detector)
    got = Counter(d.card for d in sc.detections)
    assert got == Counter(TRUTH["cards"])
    assert (sc.width, sc.height) == (1600, 1200)
    for d in sc.detections:
        assert 0 <= d.box[0] < d.box[2] <= 1600 and 0 <= d.box[1] < d.box[3] <= 1200
        assert d.color_ok


def test_scanning_ready_detections_gives_the_scan_of_the_photo(detector: Detector) -> None:
    """Tuning rebuilds the layout from detections it already has; it must be the scan's own."""
    sc = scan_file(SAMPLE, detector)
    again = scan_detections(sc.width, sc.height, list(sc.detections))
    assert again.assembled.layout == sc.assembled.layout
    assert sc.result is not None and again.result == sc.result
    assert [c.cards for c in again.columns] == [c.cards for c in sc.columns]
    assert again.assembled.complete


def test_the_scan_keeps_the_engines_typed_result_and_writes_it_only_as_json(detector: Detector) -> None:
    """The scan passes the engine's ``Result`` on (read by attribute); its JSON is the engine's."""
    sc = scan_file(SAMPLE, detector, {"won_by": "stock"})
    assert isinstance(sc.result, Result) and sc.result.winning == TRUTH["winning"]
    assert sc.to_json()["result"] == sc.result.to_json() == score(sc.assembled.layout)


def test_sample_json_contract(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    overlay = tmp_path / "o.png"
    argv = [str(SAMPLE), "--json", "--overlay", str(overlay), "--rules", "hunan", "--won-by", "stock"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"image", "detections", "groups", "layout", "result", "doubts"}
    assert out["image"] == {"width": 1600, "height": 1200}
    d0 = out["detections"][0]
    assert set(d0) == {"card", "color", "box", "score", "chance", "group"} and len(d0["box"]) == 4
    for g, grp in enumerate(out["groups"]):
        assert {"cards", "state", "row", "detections"} <= set(grp)
        assert all(out["detections"][i]["group"] == g for i in grp["detections"])
    assert out["layout"]["won_by"] == "stock"
    assert out["result"] is not None and out["result"]["winning"] == TRUTH["winning"]
    with Image.open(overlay) as im:
        assert im.size == (1600, 1200)


def test_each_card_carries_its_chance_and_each_card_doubt_its_alternatives(detector: Detector) -> None:
    from zipai.vision.layout.chance import shipped_chance

    sc = scan_file(SAMPLE, detector)
    dets = list(sc.detections)
    # the sample's first face, read unsure with another card second
    k = next(i for i, d in enumerate(dets) if d.card == "x9")
    dets[k] = replace(dets[k], class_prob=0.15, finder_score=0.3, selected=0.3,
                      alternatives=(("x4", 0.8), ("x2", 0.05)))
    out = scan_detections(sc.width, sc.height, dets).to_json()
    bar = shipped_chance().bar
    assert all(0.0 <= d["chance"] <= 1.0 for d in out["detections"])
    assert out["detections"][k]["chance"] >= bar
    card = [d for d in out["doubts"] if "chance" in d]
    named = {d["detections"][0] for d in card}
    in_layout = {i for g in out["groups"] if g["state"] != "loose" for i in g["detections"]}
    assert named == {i for i in in_layout if out["detections"][i]["chance"] >= bar} and k in named
    for d in card:
        i = d["detections"][0]
        assert d["chance"] == out["detections"][i]["chance"] and d["card"] == out["detections"][i]["card"]
        assert d["alternatives"] and all(a["card"] != d["card"] for a in d["alternatives"])
        assert d["alternatives"][-1]["card"] is None  # no card there at all
        assert d["changes_pay"] == any(a["changes_pay"] for a in d["alternatives"])
        if out["result"] is not None:
            assert d["total"] == out["result"]["score"] and d["payouts"] == out["result"]["payouts"]
    mine = next(d for d in card if d["detections"] == [k])
    assert [a["card"] for a in mine["alternatives"]] == ["x4", "x2", None]


def test_sample_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert f"{len(TRUTH['cards'])} cards read" in out and "score:" in out


def test_photo_without_cards_and_huge_photo(tmp_path: Path, detector: Detector) -> None:
    plain = tmp_path / "felt.jpg"
    Image.new("RGB", (1600, 1200), (25, 110, 50)).save(plain, "JPEG")
    sc = scan_file(plain, detector)
    assert sc.detections == [] and sc.result is None
    assert [d.kind for d in sc.assembled.doubts] == ["no_cards"]
    big = tmp_path / "big.jpg"
    Image.new("RGB", (8660, 5773), (120, 80, 40)).save(big, "JPEG", quality=70)  # 50 megapixels
    t0 = time.perf_counter()
    sc = scan_file(big, detector)
    assert time.perf_counter() - t0 < 30  # a generous bound: never a hang
    assert (sc.width, sc.height) == (8660, 5773) and sc.detections == []


def test_tiny_image(tmp_path: Path, detector: Detector) -> None:
    buf = io.BytesIO()
    Image.new("RGB", (1, 1), (255, 255, 255)).save(buf, "PNG")
    f = tmp_path / "dot.png"
    f.write_bytes(buf.getvalue())
    assert scan_file(f, detector).detections == []


def test_custom_session_factory(detector: Detector) -> None:
    """What Android does with ONNX Runtime's Java API: any object with run(inputs) -> outputs."""
    calls: list[str] = []

    class Wrapped:
        def __init__(self, model: bytes, threads: int) -> None:
            self.inner = OrtSession(model, threads)

        def run(self, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
            calls.append(next(iter(inputs)))
            return self.inner.run(inputs)

    det = Detector(factory=Wrapped, threads=1)
    sc = scan_file(SAMPLE, det)
    # the finder, then the reader, and the reader again on the unsure finds turned upright
    # (when there are any); a second, closer look at the photo runs them all again
    looks = " ".join(calls).replace("image", "|image").split("|")[1:]
    assert 1 <= len(looks) <= 2 and all(look.split() in (["image", "crops"], ["image", "crops", "crops"])
                                        for look in looks)
    assert calls.count("crops") > len(looks)  # the sample photo has an unsure find to read again
    assert Counter(d.card for d in sc.detections) == Counter(TRUTH["cards"])


def test_sessions_let_idle_workers_sleep(detector: Detector) -> None:
    """Two networks on two cores: a pool that spins after its run slows the other one."""
    for part in ("finder", "reader"):
        sess = OrtSession(detector.manifest.model_bytes(part), threads=2)
        assert sess.options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_sessions_compute_what_the_int8_graph_says(detector: Detector) -> None:
    """The session's outputs on the sample photo are those of the graph run op by op as written
    (no optimisation: each quantize and dequantize on its own, float kernels between). The fused
    uint8 x int8 kernels of an x86 CPU without VNNI saturate, and the finder saw backs on face
    cards there; the shipped weights are stored as uint8 so that every CPU sums them right."""
    onnx = pytest.importorskip("onnx")  # the [train] extra's; the runtime needs no onnx
    numpy_helper = onnx.numpy_helper

    from zipai.vision.decode import load
    from zipai.vision.preprocess import letterbox

    x, _ = letterbox(load(SAMPLE).image, 416, 32, detector.config.mean, detector.config.std)
    crops = np.random.default_rng(0).random((16, 3, 48, 48)).astype(np.float32) * 2 - 1
    twins = (False, True) if signed_kernels_exact() else (False,)  # the twins where they load
    for part, feed, twin in [(p, f, t) for p, f in (("finder", {"image": x}), ("reader", {"crops": crops}))
                             for t in twins]:
        model = detector.manifest.model_bytes(part, twin)
        weights = [numpy_helper.to_array(t) for t in onnx.load_from_string(model).graph.initializer]
        assert any(w.dtype == np.int8 for w in weights) == twin, part
        plain = OrtSession(model, threads=2, optimise=False)
        for got, want in zip(OrtSession(model, threads=2).run(feed), plain.run(feed), strict=True):
            # integer kernels round between layers, now and then a step of an output's scale
            # (at most 0.08 here); saturated ones were off by up to 1.0, and on average 0.05
            err = np.abs(got - want)
            assert err.max() < 0.25 and err.mean() < 0.005, (part, twin, float(err.max()), float(err.mean()))


def _unfused(sess: object) -> bool:
    """Whether an ``OrtSession`` keeps the QDQ fusion off (``session.NO_QDQ_FUSION``)."""
    try:
        return sess.options.get_session_config_entry("session.disable_quant_qdq") == "1"  # type: ignore[attr-defined]
    except RuntimeError:  # never set
        return False


def test_networks_with_int8_weights_run_unfused_where_the_cpu_would_saturate(
        detector: Detector, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model exported before weights were stored as uint8 (its manifest says nothing of them)
    is run, on a CPU whose flags do not promise exact uint8 x int8 kernels, with its quantize and
    dequantize steps apart, which every CPU computes right, and reads the sample photo as the
    shipped model does; where they do, it runs fused."""
    import hashlib

    onnx = pytest.importorskip("onnx")
    numpy_helper = onnx.numpy_helper

    data = json.loads(detector.manifest.path.read_text(encoding="utf-8"))
    del data["int8"]["weights"]
    for part in ("finder", "reader"):
        del data[part]["int8_file"]  # exported before the twins too
        model = onnx.load(str(detector.manifest.path.parent / data[part]["file"]))
        for t in model.graph.initializer:  # weights back to int8, as such exports stored them
            a = numpy_helper.to_array(t)
            if t.name.endswith("_u8"):  # the names export.unsigned_weights gives what it moved
                t.CopyFrom(numpy_helper.from_array((a.astype(np.int16) - 128).astype(np.int8), t.name))
        onnx.save(model, str(tmp_path / data[part]["file"]))
        data[part]["sha256"] = hashlib.sha256((tmp_path / data[part]["file"]).read_bytes()).hexdigest()
    (tmp_path / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(detector_module, "signed_kernels_exact", lambda: False)
    old = Detector(tmp_path / "manifest.json")
    assert old.manifest.signed_weights and not detector.manifest.signed_weights and not old.int8_files
    assert _unfused(old.finder.session)
    assert Counter(d.card for d in scan_file(SAMPLE, old).detections) == Counter(TRUTH["cards"])
    monkeypatch.setattr(detector_module, "signed_kernels_exact", lambda: True)
    fused = Detector(tmp_path / "manifest.json")
    assert not _unfused(fused.finder.session)


def test_the_int8_weight_twins_load_where_the_cpu_sums_them_exactly(
        detector: Detector, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped networks come twice: weights stored as uint8 (right on every CPU) and as int8
    (twice as fast where fused uint8 x int8 kernels are exact). The CPU's flags choose; asked
    for, the int8 files run unfused where the flags do not promise exact kernels."""
    assert detector.manifest.has_int8_files
    exact = signed_kernels_exact()  # this CPU's own answer, before the test overrides it
    monkeypatch.setattr(detector_module, "signed_kernels_exact", lambda: True)
    fast = Detector()
    assert fast.int8_files and not Detector(weights="uint8").int8_files
    monkeypatch.setattr(detector_module, "signed_kernels_exact", lambda: False)
    assert not Detector().int8_files
    forced = Detector(weights="int8")
    assert forced.int8_files
    assert _unfused(forced.finder.session) and not _unfused(fast.finder.session)
    want = Counter(TRUTH["cards"])
    for det in (fast, forced) if exact else (forced,):  # fused twins saturate where it says no
        assert Counter(d.card for d in scan_file(SAMPLE, det).detections) == want
    with pytest.raises(ValueError, match="weights must be one of auto, uint8, int8"):
        Detector(weights="int4")


def test_the_int8_twins_are_the_shipped_networks_stored_otherwise(detector: Detector, tmp_path: Path) -> None:
    """Each twin, its weights stored as uint8 (``export.unsigned_weights``), is byte for byte the
    shipped file: the two are one network, not two trainings."""
    pytest.importorskip("onnx")
    from zipai.models.export import unsigned_weights

    for part in ("finder", "reader"):
        f = tmp_path / f"{part}.onnx"
        f.write_bytes(detector.manifest.model_bytes(part, int8_file=True))
        assert unsigned_weights(f) > 0
        assert f.read_bytes() == detector.manifest.model_bytes(part)


@pytest.mark.parametrize(("flags", "exact"), [
    ("fpu sse2 avx2 avx512f avx512_vnni", True), ("fpu avx2 avx_vnni", True),
    ("fpu sse2 avx2 avx512f avx512bw", False), (None, False),
])
def test_the_cpu_flags_say_whether_fused_int8_kernels_are_exact(
        tmp_path: Path, flags: str | None, exact: bool) -> None:
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("the flags are read on x86 only; every other CPU gets the uint8 files")
    info = tmp_path / "cpuinfo"
    if flags is not None:  # None: no such file, flags unknown
        info.write_text(f"processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: {flags}\n", encoding="utf-8")
    assert signed_kernels_exact(info) is exact


def test_reader_margins_are_averaged() -> None:
    """With several crop margins in the manifest, each glyph is read once per margin in one batch,
    and its class probabilities and down direction are the mean of those reads."""
    class Fake:
        def __init__(self) -> None:
            self.batches: list[int] = []

        def run(self, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
            x = next(iter(inputs.values()))
            self.batches.append(len(x))
            n = len(x) // 2
            probs = np.zeros((len(x), 22), np.float32)
            probs[:n, 0] = 1.0  # the first margin reads x1, the second x2
            probs[n:, 1] = 1.0
            downs = np.tile(np.asarray([[1.0, 0.0]], np.float32), (len(x), 1))
            downs[n:] = (0.0, 1.0)
            return [probs, downs]

    from zipai.vision.manifest import load_manifest
    from zipai.vision.reader import Reader

    cfg = load_manifest().config
    session = Fake()
    reader = Reader(session, replace(cfg.reader, margins=(1.3, 1.6)), cfg.classes, cfg.mean, cfg.std)
    arr = np.zeros((100, 100, 3), np.uint8)
    reading, _ = reader(arr, np.asarray([[10, 10, 30, 30], [50, 50, 70, 70], [0, 0, 9, 9]], np.float32))
    probs, downs = reading.probs, reading.downs
    assert session.batches == [6] and reading.embedding is None
    assert np.allclose(probs[:, :2], 0.5) and np.allclose(probs.sum(axis=1), 1.0)
    assert np.allclose(downs, [[2 ** -0.5, 2 ** -0.5]] * 3, atol=1e-5)


def test_a_weak_peak_counts_only_when_the_reader_is_sure(detector: Detector) -> None:
    """A glyph or back under its finder threshold gets a second chance: it counts when its peak
    reaches the rescue floor and the reader gives its best face (a back: ``back``) the rescue
    probability; with no rescue in the manifest it never counts."""
    k = detector.config.classes.index
    probs = np.zeros((4, len(detector.config.classes)), np.float32)
    probs[0, k("x5")] = 0.99  # sure
    probs[1, k("x5")], probs[1, k("x6")] = 0.6, 0.4  # unsure
    probs[2, k("back")] = 0.99  # a sure back
    probs[3, k("d7")] = 0.99  # sure, but its peak is under the floor
    raw = Look(np.full((200, 200, 3), 230, np.uint8), 1.0, Finds(
        np.asarray([[10, 10, 30, 30], [60, 10, 80, 30], [10, 60, 40, 190], [120, 10, 140, 30]], np.float32),
        np.asarray([0.25, 0.25, 0.25, 0.1], np.float32), np.asarray([0, 0, 1, 0]), probs,
        np.tile(np.asarray([[0.0, 1.0]], np.float32), (4, 1))))

    def cards(rescue: Rescue, back: Rescue = RESCUE_OFF) -> list[str]:
        return sorted(d.card for d in detector.build(raw, _rules(detector.config, rescue, back)).detections)

    assert cards((0.2, 0.95), (0.2, 0.95)) == ["back", "x5"]
    assert cards((0.2, 0.95)) == ["x5"]  # the faces' second chance is not the backs'
    assert cards(RESCUE_OFF, (0.2, 0.95)) == ["back"]
    assert cards((0.3, 0.95), (0.3, 0.95)) == []
    assert cards((0.2, 0.995), (0.2, 0.995)) == []
    assert cards((0.05, 0.95), (0.05, 0.95)) == ["back", "d7", "x5"]
    assert cards((0.35, None), (0.35, None)) == []  # what a manifest without a rescue gives


def test_the_second_chance_does_not_let_in_a_found_cards_far_end(detector: Detector) -> None:
    """A weak peak that the reader reads as the rank of a card found above it, turned round a
    card's length away, is that card's far end (``drop_weak_far_ends`` runs inside build)."""
    k = detector.config.classes.index
    probs = np.zeros((3, len(detector.config.classes)), np.float32)
    probs[:, k("x5")] = 0.99
    raw = Look(np.full((400, 200, 3), 230, np.uint8), 1.0, Finds(
        np.asarray([[10, 10, 30, 30], [10, 74, 30, 94], [120, 10, 140, 30]], np.float32),
        np.asarray([0.9, 0.25, 0.25], np.float32), np.asarray([0, 0, 0]), probs,
        np.asarray([[0.0, 1.0], [0.0, -1.0], [0.0, 1.0]], np.float32)))
    dets = detector.build(raw, _rules(detector.config, (0.2, 0.9), RESCUE_OFF, 0.0)).detections
    assert [(d.card, d.box[1]) for d in dets] == [("x5", 10.0), ("x5", 10.0)]  # the far end is gone


def test_backs_share_the_faces_second_chance_unless_the_manifest_says_otherwise(tmp_path: Path) -> None:
    """An older manifest names one second chance for both kinds; a manifest that names the backs'
    own (or null: none) keeps them apart."""
    from zipai.vision.detector import default_manifest
    from zipai.vision.manifest import load_manifest

    copy_model(tmp_path)
    data = json.loads(default_manifest().read_text(encoding="utf-8"))
    data["finder"]["rescue_threshold"] = 0.2
    data["reader"]["rescue_prob"] = 0.9
    data["finder"].pop("back_rescue_threshold", None)
    data["reader"].pop("back_rescue_prob", None)
    (tmp_path / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    old = load_manifest(tmp_path / "manifest.json").config
    assert (old.finder.back_rescue_threshold, old.reader.back_rescue_prob) == (0.2, 0.9)
    data["reader"]["back_rescue_prob"] = None
    (tmp_path / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    apart = load_manifest(tmp_path / "manifest.json").config
    assert (apart.finder.rescue_threshold, apart.reader.rescue_prob) == (0.2, 0.9)
    assert apart.reader.back_rescue_prob is None and apart.reader.back_rescue_sure > 1.0


def test_a_face_counts_only_when_its_best_class_reaches_the_floor(detector: Detector) -> None:
    """``face_floor``: a find whose best face the reader gives less than the floor is dropped
    (most are a tablecloth's print or a pattern); backs are not faces and stay."""
    k = detector.config.classes.index
    probs = np.zeros((3, len(detector.config.classes)), np.float32)
    probs[0, k("x5")], probs[0, k("none")], probs[0, k("back")] = 0.3, 0.35, 0.35  # unsure
    probs[1, k("d2")] = 0.9  # sure
    probs[2, k("back")] = 0.3  # a back the reader doubts: not the floor's business
    raw = Look(np.full((200, 200, 3), 230, np.uint8), 1.0, Finds(
        np.asarray([[10, 10, 30, 30], [60, 10, 80, 30], [10, 60, 40, 190]], np.float32),
        np.asarray([0.8, 0.8, 0.8], np.float32), np.asarray([0, 0, 1]), probs,
        np.tile(np.asarray([[0.0, 1.0]], np.float32), (3, 1))))

    def cards(floor: float) -> list[str]:
        chosen = detector.build(raw, _rules(detector.config, face_floor=floor))
        return sorted(d.card for d in chosen.detections)

    assert cards(0.0) == ["back", "d2", "x5"]
    assert cards(0.25) == ["back", "d2", "x5"]
    assert cards(0.4) == ["back", "d2"]
    assert cards(0.95) == ["back"]


Rescue = tuple[float, float | None]  # a second chance: peak floor, reader probability (None: none)


def _rules(cfg: Config, rescue: Rescue | None = None, back_rescue: Rescue | None = None,
           face_floor: float | None = None) -> Config:
    """The rules alone (no selector, no far ends) at thresholds 0.4 (none 0.5), with these second
    chances and face floor (None: the manifest's)."""
    f, r = replace(cfg.finder, threshold=0.4, back_threshold=0.4), replace(cfg.reader, none_threshold=0.5)
    if rescue is not None:
        f, r = replace(f, rescue_threshold=rescue[0]), replace(r, rescue_prob=rescue[1])
    if back_rescue is not None:
        f, r = replace(f, back_rescue_threshold=back_rescue[0]), replace(r, back_rescue_prob=back_rescue[1])
    if face_floor is not None:
        r = replace(r, face_floor=face_floor)
    post = replace(cfg.postprocess, drop_far_ends=False, selector=None)
    return replace(cfg, finder=f, reader=r, postprocess=post)


def _face(size: float, x: float = 100.0, y: float = 100.0) -> Detection:
    return Detection("x5", (x, y, x + size, y + size), 0.9, "black")


def test_closer_look_scales_the_cards_part_of_the_photo_to_the_target() -> None:
    """``closer_look``: a median glyph under ``below`` finder pixels asks for a second look at
    the part of the photo the cards lie in, scaled so the glyphs come out ``target`` finder
    pixels, the input never above ``max_side`` nor the part's own pixels; big glyphs, a photo of
    backs only, or no second look in the manifest ask for none."""
    from zipai.vision.decode import Decoded

    det = Detector()
    long_side = det.config.finder.long_side
    look = SecondLook(below=14.0, target=18.0, max_side=832)
    photo = Decoded(Image.new("RGB", (1600, 1200)), 1600, 1200)
    k = 1600 / long_side  # photo pixels per finder pixel at the first look
    small = [_face(9 * k, x, y) for x in (500, 600, 700) for y in (400, 500)]  # 9 finder pixels
    side, (x0, y0, x1, y1) = det.closer_look(small, photo, look=look)
    assert 0 <= x0 < 500 and 0 <= y0 < 400 and 700 + 9 * k < x1 <= 1600 and 500 + 9 * k < y1 <= 1200
    assert side % det.config.finder.multiple == 0 and side < 832
    glyph = 9 * k * side / max(x1 - x0, y1 - y0)  # finder pixels at the second look
    assert abs(glyph - 18.0) < 1.5
    wide = [_face(5 * k, x, y) for x in (0, 1580) for y in (0, 1180)]  # tiny glyphs across the photo
    assert det.closer_look(wide, photo, look=look) == (832, (0, 0, 1600, 1200))  # capped at max_side
    assert det.closer_look([_face(15 * k)], photo, look=look) is None
    backs = [Detection("back", (0.0, 0.0, 9 * k, 9 * k), 0.9, None)]
    assert det.closer_look(backs, photo, look=look) is None
    small_photo = Decoded(Image.new("RGB", (500, 375)), 500, 375)
    tiny = [_face(3 * 500 / long_side, x, 150) for x in (0, 480)]
    side, window = det.closer_look(tiny, small_photo, look=look)
    assert side == 512 and window[0] == 0 and window[2] <= 500  # its own 500 pixels, to a multiple of 32
    assert det.closer_look(small, photo, replace(det.config, finder=replace(det.config.finder,
                                                                           second_look=None))) is None


def test_a_photo_from_far_away_is_looked_at_again_larger(detector: Detector) -> None:
    """The sample hand pasted small into a wide view of the table: the first look finds glyphs
    too small, so ``detect`` runs the finder again on the part the cards lie in, larger, and
    keeps that look, which finds more of the hand."""
    from zipai.vision.decode import Decoded

    hand = Image.open(SAMPLE).convert("RGB").resize((1400, 1050))
    wide = Image.new("RGB", (3200, 2400), (52, 96, 60))
    wide.paste(hand, (900, 700))
    photo = Decoded(wide, 3200, 2400)
    shapes: list[tuple[int, ...]] = []
    det = detector.with_config(_second_look(detector.config))
    run = det.finder.run

    def spy(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        shapes.append(x.shape)
        return run(x)

    det.finder.run = spy  # type: ignore[method-assign]
    found = det.detect(photo)
    dets, took = found.detections, found.look
    first = det.build(det.look(photo)).detections
    side, (x0, y0, x1, y1) = det.closer_look(first, photo)
    long_side = det.config.finder.long_side
    assert len(shapes) == 3 and max(shapes[0][2:]) == long_side and max(shapes[1][2:]) == side
    assert all(x0 <= d.box[0] and d.box[2] <= x1 and y0 <= d.box[1] and d.box[3] <= y1 for d in first)
    assert took == (side, (x0, y0, x1, y1))  # detect says which look it took
    assert side / max(x1 - x0, y1 - y0) > 1.5 * long_side / 3200  # closer than the first look
    faces = [d for d in dets if d.card != "back"]
    assert len(faces) > len([d for d in first if d.card != "back"])
    assert all(900 <= d.center[0] <= 2300 and 700 <= d.center[1] <= 1750 for d in faces)


def test_replay_gives_what_detect_gives_with_one_network_pass_a_look(detector: Detector) -> None:
    """The tuners try many settings on one photo: ``replay`` keeps each look's network outputs
    and must give ``detect``'s detections and spares, the second look included."""
    from zipai.vision.decode import Decoded

    hand = Image.open(SAMPLE).convert("RGB").resize((1400, 1050))
    wide = Image.new("RGB", (3200, 2400), (52, 96, 60))
    wide.paste(hand, (900, 700))
    photo = Decoded(wide, 3200, 2400)
    calls = 0
    det = detector.with_config(_second_look(detector.config))
    found = det.detect(photo)
    run = det.finder.run

    def count(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        nonlocal calls
        calls += 1
        return run(x)

    det.finder.run = count  # type: ignore[method-assign]
    looks: dict = {}
    first = det.detect(photo, looks=looks)
    again = det.detect(photo, looks=looks)
    assert found.look is not None and set(looks) == {None, found.look}  # both looks kept
    assert calls == 2  # one pass a look, the second replay none
    key = [(d.card, d.box) for d in found.detections]
    assert [(d.card, d.box) for d in first.detections] == key == [(d.card, d.box) for d in again.detections]
    assert [(d.card, d.box) for d in first.spare] == [(d.card, d.box) for d in found.spare]


def test_a_turned_pass_only_adds_finds_the_first_pass_missed() -> None:
    from zipai.vision.finder import found_before as _found_before

    first = np.asarray([[100, 100, 120, 120], [300, 300, 360, 400]], np.float32)
    kinds = np.asarray([0, 1])
    turned = np.asarray([[95, 95, 125, 125],    # the first glyph again, a larger box
                         [104, 130, 116, 142],  # a glyph a box away: a split glyph, not new
                         [200, 200, 220, 220],  # a glyph nothing found
                         [310, 320, 350, 380]],  # the back again
                        np.float32)
    assert _found_before(turned, np.asarray([0, 0, 0, 1]), first, kinds).tolist() == [0, 0, -1, 1]
    # a back find where only a glyph was found is new
    assert _found_before(turned[:1], np.asarray([1]), first, kinds).tolist() == [-1]
    assert _found_before(turned, np.asarray([0, 0, 0, 1]), first[:0], kinds[:0]).tolist() == [-1] * 4


def test_a_turned_pass_runs_the_finder_on_the_turned_photo(detector: Detector) -> None:
    """With ``finder.turned`` the finder runs again on the photo turned 45 degrees, on a square
    input larger than the first; every find lies on the photo, the first pass's finds stay,
    and with ``lift`` they keep their boxes and some take a higher peak."""
    from zipai.vision.decode import Decoded

    img = Image.open(SAMPLE).convert("RGB")
    photo = Decoded(img, *img.size)
    shapes: list[tuple[int, ...]] = []

    def turned(t: Turned) -> Detector:
        det = detector.with_config(replace(detector.config, finder=replace(detector.config.finder, turned=t)))
        run = det.finder.run

        def spy(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            shapes.append(x.shape)
            return run(x)

        det.finder.run = spy  # type: ignore[method-assign]
        return det

    plain = detector.look(photo)
    raw = turned(Turned((45.0,), 1.0)).look(photo)
    lifted = turned(Turned((45.0,), 1.0, lift=True)).look(photo)
    assert len(shapes) == 4 and shapes[1][2] == shapes[1][3] > max(shapes[0][2:])  # turned: square, larger
    assert len(raw.boxes) >= len(plain.boxes)
    w, h = img.size
    assert np.all(raw.boxes[:, :2] >= 0) and np.all(raw.boxes[:, 2] <= w) and np.all(raw.boxes[:, 3] <= h)
    kept = {tuple(b) for b in np.round(plain.boxes, 2).tolist()}
    assert kept <= {tuple(b) for b in np.round(raw.boxes, 2).tolist()}  # the first pass's finds stay
    # lifted, the same finds, each with at least its own peak, and some higher
    def peaks(r: Look) -> dict[tuple[float, ...], float]:
        return dict(zip(map(tuple, np.round(r.boxes, 2).tolist()), r.scores.tolist(), strict=True))

    own, up = peaks(raw), peaks(lifted)
    assert up.keys() == own.keys()
    assert all(up[b] >= own[b] - 1e-6 for b in own) and any(up[b] > own[b] + 1e-6 for b in own)


def test_a_manifests_turned_pass_is_read_or_named_as_unusable(tmp_path: Path) -> None:
    from zipai.vision.detector import default_manifest
    from zipai.vision.errors import ModelError
    from zipai.vision.manifest import load_manifest

    copy_model(tmp_path)
    data = json.loads(default_manifest().read_text(encoding="utf-8"))
    assert load_manifest(default_manifest()).config.finder.turned is None  # off unless a manifest names it
    data["finder"]["turned"] = {"angles": [45], "scale": 0.75, "lift": True}
    (tmp_path / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    read = load_manifest(tmp_path / "manifest.json").config.finder.turned
    assert read == Turned((45.0,), 0.75, False, True)
    data["finder"]["turned"] = {"scale": 0.75}
    (tmp_path / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelError, match=r"finder\.turned needs a list of angles"):
        Detector(tmp_path / "manifest.json")


def test_a_discard_win_asks_for_the_winning_card_only_where_it_matters(detector: Detector) -> None:
    sc = scan_file(SAMPLE, detector)
    base = {"won_by": "discard", "from": 2, "winner": 1}
    asked = scan_detections(sc.width, sc.height, list(sc.detections), base)
    doubt = next(d for d in asked.assembled.doubts if d.kind == "winning_card")
    assert asked.result is not None and asked.result.winning_card_matters
    named = {asked.detections[i].card for i in doubt.detections}
    assert named == set(asked.result.winning_card_matters)
    card = asked.result.winning_card_matters[0]
    told = scan_detections(sc.width, sc.height, list(sc.detections), {**base, "winning_card": card})
    assert not [d for d in told.assembled.doubts if d.kind == "winning_card"]
    drawn = scan_detections(sc.width, sc.height, list(sc.detections), {**base, "won_by": "self_draw"})
    assert not [d for d in drawn.assembled.doubts if d.kind == "winning_card"]


def _second_look(cfg: Config) -> Config:
    return replace(cfg, finder=replace(cfg.finder, second_look=SecondLook(14.0, 18.0, 960)))
