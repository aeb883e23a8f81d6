"""The learnt selector: its evidence for each find, its manifest form, how it is trained and
labelled, and the detector choosing with it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import copy_model

from zipai.engine import CARD_NAMES
from zipai.models.selector import Examples, fit, labels
from zipai.vision import steps
from zipai.vision.config import Config
from zipai.vision.detection import Finds, Look
from zipai.vision.detector import Detector, default_manifest
from zipai.vision.errors import ModelError
from zipai.vision.selector import FEATURES, Selector, SelectorError, features

CLASSES = [*CARD_NAMES, "back", "none"]
COL = {name: k for k, name in enumerate(FEATURES)}


def _probs(*cards: str, p: float = 0.95) -> np.ndarray:
    out = np.full((len(cards), len(CLASSES)), (1 - p) / (len(CLASSES) - 1), np.float32)
    for i, c in enumerate(cards):
        out[i, CLASSES.index(c)] = p
    return out


def _evidence(cards: list[str], boxes: list[list[float]], peaks: list[float], downs: list[list[float]],
              redness: list[float] | None = None, body=None) -> np.ndarray:
    return features(cards, np.asarray(boxes, np.float64), np.asarray(peaks), _probs(*cards),
                    np.asarray(downs, np.float64), CLASSES,
                    np.asarray(redness if redness is not None else [0.0] * len(cards)), 0.05, 0.25, body)


def test_a_cards_far_end_is_seen_as_a_pair_turned_round_and_the_upright_end_as_upright() -> None:
    """五 at the top of a card and 五 turned round a card's length below it: each has the other
    as its pair, the upright one with a positive ``pair_upright``; a third 五 beside them,
    facing the same way as the first, is nobody's far end."""
    seen: list[tuple[tuple[float, float], tuple[float, float], float]] = []

    def body(a: tuple[float, float], b: tuple[float, float], size: float) -> tuple[float, float]:
        seen.append((a, b, size))
        return 0.2, 0.9

    x = _evidence(["x5", "x5", "x5"], [[100, 100, 120, 120], [100, 170, 120, 190], [300, 100, 320, 120]],
                  [0.9, 0.5, 0.8], [[0, 1], [0, -1], [0, 1]], body=body)
    assert x[0, COL["pair"]] == 1 and x[1, COL["pair"]] == 1 and x[2, COL["pair"]] == 0
    assert x[0, COL["pair_upright"]] > 0 > x[1, COL["pair_upright"]]
    assert x[1, COL["pair_peak"]] == pytest.approx(0.9)
    assert x[0, COL["pair_edge"]] == pytest.approx(0.2) and x[0, COL["pair_dark"]] == pytest.approx(0.9)
    assert x[2, COL["pair_dark"]] == 1.0  # no pair: a plain body, the neutral value
    assert seen[0][2] == 20.0


def test_two_cards_facing_one_way_are_no_pair_but_one_two_three_need_no_turn() -> None:
    """Two 五 facing the same way a card's length apart are two cards of a column; 二 reads the
    same turned round, so for it the distance and the axis alone make the pair."""
    fives = _evidence(["x5", "x5"], [[100, 100, 120, 120], [100, 170, 120, 190]], [0.9, 0.9],
                      [[0, 1], [0, 1]])
    twos = _evidence(["x2", "x2"], [[100, 100, 120, 120], [100, 170, 120, 190]], [0.9, 0.9],
                     [[0, 1], [0, 1]])
    assert fives[:, COL["pair"]].tolist() == [0, 0]
    assert twos[:, COL["pair"]].tolist() == [1, 1] and twos[0, COL["symmetric"]] == 1


def test_a_second_peak_on_one_glyph_sees_the_stronger_one_and_a_lone_find_sees_nothing() -> None:
    x = _evidence(["x3", "x3", "d7"], [[100, 100, 120, 120], [104, 108, 124, 128], [400, 400, 420, 420]],
                  [0.9, 0.4, 0.9], [[0, 1], [0, 1], [0, 1]])
    assert x[1, COL["near_stronger"]] == 1 and x[1, COL["near_same"]] == 1
    assert x[1, COL["near_peak"]] == pytest.approx(0.9)
    assert x[0, COL["near_stronger"]] == 0
    assert x[2, COL["near_peak"]] == 0 and x[2, COL["nearest"]] > 10 - 1e-6


def test_ink_colour_counts_for_a_class_it_agrees_with_and_against_one_it_does_not() -> None:
    """二 is red, 三 black: red ink is evidence for 二 and against 三."""
    x = _evidence(["x2", "x3", "back"], [[0, 0, 20, 20], [100, 0, 120, 20], [200, 0, 260, 150]],
                  [0.9, 0.9, 0.9], [[0, 1], [0, 1], [0, 1]], redness=[0.2, 0.2, 0.0])
    assert x[0, COL["colour"]] > 0 > x[1, COL["colour"]]
    assert x[2, COL["colour"]] == 0 and x[2, COL["is_back"]] == 1


def test_a_back_inside_a_stronger_back_is_seen_covered() -> None:
    x = _evidence(["back", "back", "x5"], [[0, 0, 60, 150], [5, 20, 55, 140], [300, 0, 320, 20]],
                  [0.9, 0.5, 0.9], [[0, 1], [0, 1], [0, 1]])
    assert x[1, COL["back_cover"]] == pytest.approx(1.0) and x[0, COL["back_cover"]] == 0
    assert 0 < x[1, COL["back_reach"]] < 10


def test_no_finds_give_no_rows() -> None:
    assert features([], np.zeros((0, 4)), np.zeros(0), np.zeros((0, len(CLASSES))), np.zeros((0, 2)),
                    CLASSES, np.zeros(0), 0.05, 0.25).shape == (0, len(FEATURES))


def _selector(threshold: float = 0.5) -> Selector:
    """Keeps a find by its peak alone: probability sigmoid(10 * (peak - 0.5))."""
    n = len(FEATURES)
    w1 = np.zeros((n, 2), np.float32)
    w1[COL["peak"], 0] = 10.0
    w2 = np.asarray([[1.0], [0.0]], np.float32)
    return Selector(np.zeros(n, np.float32), np.ones(n, np.float32),
                    ((w1, np.asarray([0.0, 0.0], np.float32)), (w2, np.asarray([-5.0], np.float32))),
                    threshold, 0.15)


def test_the_selector_round_trips_through_its_manifest_form() -> None:
    sel = _selector(0.4)
    again = Selector.from_json(json.loads(json.dumps(sel.to_json())))
    x = np.random.default_rng(0).uniform(0, 1, (5, len(FEATURES))).astype(np.float32)
    assert np.allclose(sel.probability(x), again.probability(x))
    assert (again.threshold, again.floor) == (0.4, 0.15)
    assert sel.probability(np.eye(len(FEATURES))[[COL["peak"]]] * 0.9)[0] > 0.95


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d.update(features=d["features"][:-1]), "features"),
    (lambda d: d.pop("threshold"), "threshold"),
    (lambda d: d["layers"][0].__setitem__(1, [0.0]), "layer shapes"),
    (lambda d: d.update(mean="zero"), "unreadable"),
])
def test_a_damaged_selector_is_refused_naming_what(change, words: str) -> None:
    d = _selector().to_json()
    change(d)
    with pytest.raises(SelectorError, match=words):
        Selector.from_json(d)


def test_a_manifest_with_a_damaged_selector_is_a_model_error(tmp_path: Path) -> None:
    copy_model(tmp_path)
    data = json.loads(default_manifest().read_text(encoding="utf-8"))
    data.setdefault("postprocess", {})["selector"] = {"features": ["peak"], "threshold": 0.5}
    (tmp_path / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelError, match=r"postprocess\.selector"):
        Detector(tmp_path / "manifest.json")
    data = json.loads(default_manifest().read_text(encoding="utf-8"))
    data["reader"]["upright"] = {"below": 0.9, "margins": [1.3]}
    (tmp_path / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelError, match=r"reader\.upright needs"):
        Detector(tmp_path / "manifest.json")


def _three_finds(det: Detector) -> Look:
    """An x5 with a strong peak, a d2 with a weak one (0.2) and a back (0.8)."""
    k = det.config.classes.index
    probs = np.zeros((3, len(det.config.classes)), np.float32)
    probs[0, k("x5")] = probs[1, k("d2")] = 0.99
    probs[2, k("back")] = 0.99
    return Look(np.full((300, 300, 3), 230, np.uint8), 1.0, Finds(
        np.asarray([[10, 10, 30, 30], [160, 10, 180, 30], [10, 100, 60, 250]], np.float32),
        np.asarray([0.9, 0.2, 0.8], np.float32), np.asarray([0, 0, 1]), probs,
        np.tile(np.asarray([[0.0, 1.0]], np.float32), (3, 1))))


def _with_selector(cfg: Config, sel: Selector | None) -> Config:
    return replace(cfg, postprocess=replace(cfg.postprocess, selector=sel))


def _cards(det: Detector, raw: Look, cfg: Config) -> list[str]:
    return sorted(d.card for d in det.build(raw, cfg).detections)


def test_the_detector_keeps_the_finds_its_selector_chooses() -> None:
    """With a selector the detector keeps what it chooses, not what the thresholds say: here a
    weak peak (0.2, under every threshold and the second chance's floor) that the selector
    passes at a lower threshold of its own."""
    det = Detector()
    cfg = _with_selector(det.config, _selector(0.5))
    raw = _three_finds(det)
    assert _cards(det, raw, cfg) == ["back", "x5"]
    assert _cards(det, raw, _with_selector(cfg, _selector(0.01))) == ["back", "d2", "x5"]
    low = cfg.rules_only()
    low = replace(low, finder=replace(low.finder, threshold=0.15, back_threshold=0.15),
                  reader=replace(low.reader, face_floor=0.0))
    assert _cards(det, raw, low) == ["back", "d2", "x5"]
    _, x = steps.candidates(raw, cfg)
    assert x[:, COL["rules"]].tolist() == [1.0, 0.0, 1.0]  # the rules' own choice is evidence too
    assert _cards(det, raw, cfg.rules_only()) == ["back", "x5"]  # the rules alone
    with pytest.raises(ModelError, match=r"no postprocess\.selector"):
        steps.select(raw, cfg.rules_only())


def test_labels_name_the_glyph_nearest_the_labelled_one_and_skip_ignored_cards() -> None:
    """Of two reads of one card's face, the one nearest the labelled glyph is the card and the
    other (its far end) is not; a misread is not; a find on an ignored card teaches nothing."""
    card = {"category_id": 5, "bbox": [100, 100, 20, 20],
            "card_polygon": [100, 95, 125, 95, 125, 200, 100, 200]}
    hidden = {"category_id": 21, "bbox": [300, 100, 50, 50], "ignore": True,
              "card_polygon": [300, 100, 360, 100, 360, 200, 300, 200]}
    boxes = np.asarray([[100, 170, 120, 190], [101, 101, 121, 121], [102, 130, 122, 150],
                        [310, 110, 350, 190]], np.float64)
    assert labels(["x5", "x5", "x6", "back"], boxes, [card, hidden]).tolist() == [0, 1, 0, -1]
    # a card that no find reads right: with ``misreads`` its find nearest the glyph is its card,
    # never its far end
    assert labels(["x6", "x6"], boxes[:2], [card]).tolist() == [0, 0]
    assert labels(["x6", "x6"], boxes[:2], [card], misreads=True).tolist() == [0, 1]
    assert labels(["x6"], boxes[:1], [card], misreads=True).tolist() == [0]


def test_labels_take_the_stronger_of_one_back_found_twice() -> None:
    """Two finds on one back: given the peaks, the stronger is the back, even when the other
    lies nearer the labelled part; without them the nearer is, as for faces. A face's far end
    stays a non-card however strong its peak."""
    back = {"category_id": 21, "bbox": [100, 100, 60, 40],
            "card_polygon": [100, 100, 160, 100, 160, 200, 100, 200]}
    boxes = np.asarray([[100, 100, 160, 140], [100, 130, 160, 190]], np.float64)
    peaks = np.asarray([0.5, 0.8])
    assert labels(["back", "back"], boxes, [back]).tolist() == [1, 0]
    assert labels(["back", "back"], boxes, [back], peaks=peaks).tolist() == [0, 1]
    card = {"category_id": 5, "bbox": [100, 100, 20, 20],
            "card_polygon": [100, 95, 125, 95, 125, 200, 100, 200]}
    ends = np.asarray([[101, 101, 121, 121], [100, 170, 120, 190]], np.float64)
    assert labels(["x5", "x5"], ends, [card], peaks=np.asarray([0.3, 0.9])).tolist() == [1, 0]


def test_fit_learns_a_rule_the_examples_follow() -> None:
    """Cards are the finds with a peak over 0.5 and the reader's face over 0.6: the fitted
    selector tells them apart on scenes it was not fitted on."""
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, (3000, len(FEATURES))).astype(np.float32)
    y = ((x[:, COL["peak"]] > 0.5) & (x[:, COL["face_p"]] > 0.6)).astype(np.float32)
    sel, info = fit(Examples(x, y, np.arange(3000) // 10), steps=600)
    test = rng.uniform(0, 1, (1000, len(FEATURES))).astype(np.float32)
    truth = (test[:, COL["peak"]] > 0.5) & (test[:, COL["face_p"]] > 0.6)
    assert ((sel.probability(test) >= 0.5) == truth).mean() > 0.95
    assert info["held_back_accuracy"] > 0.95 and info["rows"] == 3000


def test_one_photo_is_weighed_once_for_every_threshold_and_a_kept_find_keeps_its_probability(
        monkeypatch: pytest.MonkeyPatch) -> None:
    det = Detector()
    sel = _selector(0.5)
    cfg = _with_selector(det.config, sel)
    raw = _three_finds(det)
    calls: list[int] = []
    weigh = steps.candidates
    monkeypatch.setattr(steps, "candidates", lambda sub, c: calls.append(len(sub.boxes)) or weigh(sub, c))
    kept = steps.select(raw, cfg).detections
    assert [(d.card, round(d.selected or 0, 3)) for d in kept] == [("x5", 0.982), ("back", 0.953)]
    lower = _with_selector(cfg, replace(sel, threshold=0.01))
    assert sorted(d.card for d in steps.select(raw, lower).detections) == ["back", "d2", "x5"]
    assert calls == [3]  # the second threshold replayed the first weighing
    steps.select(raw, _with_selector(cfg, _selector(0.5)))  # another selector weighs the photo again
    assert calls == [3, 3]


class _Reader:
    """Stands in for the reader session: reads every crop as ``card`` and records the batches."""

    def __init__(self, det: Detector, card: str) -> None:
        self.k, self.n, self.batches = det.config.classes.index(card), len(det.config.classes), []

    def run(self, feeds: dict) -> list[np.ndarray]:
        x = next(iter(feeds.values()))
        self.batches.append(x.shape)
        p = np.zeros((len(x), self.n), np.float32)
        p[:, self.k] = 1.0
        return [p, np.tile(np.asarray([[0.0, 1.0]], np.float32), (len(x), 1))]


def test_only_unsure_finds_are_read_again_upright_and_the_two_reads_are_averaged() -> None:
    from zipai.vision.config import Upright
    from zipai.vision.reader import Reader

    det = Detector()
    cfg = det.config
    k = cfg.classes.index
    probs = np.zeros((3, len(cfg.classes)), np.float32)
    probs[0, k("x5")] = 0.97  # sure
    probs[1, k("x10")], probs[1, k("x7")] = 0.55, 0.45  # unsure: read again
    probs[2, k("d5")], probs[2, k("d6")] = 0.5, 0.5  # unsure, but its peak is under the floor
    boxes = np.asarray([[10, 10, 40, 40], [60, 10, 90, 40], [110, 10, 140, 40]], np.float32)
    downs = np.asarray([[0.0, 1.0], [1.0, 0.0], [0.0, -1.0]], np.float32)
    session = _Reader(det, "x7")
    reader = Reader(session, cfg.reader, cfg.classes, cfg.mean, cfg.std)
    size = cfg.reader.size
    up = Upright(0.9, 0.15, (1.3, 1.45))
    arr = np.full((100, 200, 3), 230, np.uint8)
    out, _ = reader.upright(arr, boxes, np.asarray([0.9, 0.5, 0.1]), probs, downs, up)
    assert session.batches == [(2, 3, size, size)]  # one find, two margins
    assert np.array_equal(out[[0, 2]], probs[[0, 2]])
    assert out[1, k("x7")] == pytest.approx(0.725) and out[1, k("x10")] == pytest.approx(0.275)
    same, _ = reader.upright(arr, boxes[:1], np.asarray([0.9]), probs[:1], downs[:1], up)
    assert np.array_equal(same, probs[:1])
    assert session.batches == [(2, 3, size, size)]  # nothing unsure: no read
