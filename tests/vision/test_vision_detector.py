"""The detector as parts: columnar finds, a reader that passes on its pooled feature, a detect()
that returns what it found and keeps nothing, so that one detector serves many threads."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from zipai.datasets.cli import main as data_main
from zipai.vision.decode import load
from zipai.vision.detection import Finds
from zipai.vision.detector import Detector, models_dir
from zipai.vision.manifest import load_manifest
from zipai.vision.reader import Reader
from zipai.vision.scan import scan_decoded

SAMPLE = models_dir() / "sample.jpg"


def test_finds_are_columns_indexed_by_a_mask() -> None:
    n = 4
    finds = Finds(np.arange(4 * n, dtype=np.float32).reshape(n, 4), np.asarray([0.9, 0.2, 0.5, 0.1]),
                  np.asarray([0, 1, 0, 0]), np.eye(n, 22, dtype=np.float32), np.zeros((n, 2), np.float32))
    assert len(finds) == 4 and np.isnan(finds.reds).all()
    strong = finds[finds.scores >= 0.5]
    assert len(strong) == 2 and strong.scores.tolist() == [0.9, 0.5] and strong.kinds.tolist() == [0, 0]
    assert strong.boxes.tolist() == [finds.boxes[0].tolist(), finds.boxes[2].tolist()]
    assert finds[np.asarray([3, 1])].probs.argmax(axis=1).tolist() == [3, 1]


def test_the_reader_passes_on_a_pooled_feature_when_the_network_gives_one() -> None:
    class ThreeOutputs:
        def run(self, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
            m = len(next(iter(inputs.values())))
            probs = np.full((m, 22), 1 / 22, np.float32)
            feature = np.arange(m, dtype=np.float32)[:, None] * np.ones((1, 128), np.float32)
            return [probs, np.tile(np.asarray([[0.0, 1.0]], np.float32), (m, 1)), feature]

    cfg = load_manifest().config
    reader = Reader(ThreeOutputs(), cfg.reader, cfg.classes, cfg.mean, cfg.std)
    boxes = np.asarray([[10, 10, 30, 30], [40, 40, 60, 60], [0, 0, 8, 8]], np.float32)
    reading, timing = reader(np.zeros((80, 80, 3), np.uint8), boxes)
    n, k = len(boxes), len(cfg.reader.margins)
    assert reading.embedding is not None and reading.embedding.shape == (n, 128)
    # each box's feature is the mean over its margins' crops (margin-major batch: i, n + i, …)
    want = [float(np.mean([i + j * n for j in range(k)])) for i in range(n)]
    assert reading.embedding[:, 0].tolist() == want
    assert reading.probs.shape == (n, 22) and timing.reader >= 0.0


def test_detect_returns_its_timing_and_looks_and_keeps_nothing() -> None:
    det = Detector(threads=1)
    before = set(vars(det))
    found = det.detect(load(SAMPLE))
    assert set(vars(det)) == before  # nothing of the call is kept on the detector
    assert found.detections and None in found.looks and found.timing.finder > 0 and found.timing.reader > 0


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("heldout")
    assert data_main(["render", "--out", str(out), "--count", "3", "--seed", "7", "--split", "heldout",
                      "--size", "800x600", "--quiet"]) == 0
    return [SAMPLE, *sorted((out / "images").glob("*.jpg"))]


def test_one_detector_scans_from_several_threads_as_it_does_one_at_a_time(photos: list[Path]) -> None:
    det = Detector(threads=1)

    def scan(path: Path) -> str:
        return json.dumps(scan_decoded(load(path), det).to_json(), sort_keys=True)

    alone = [scan(p) for p in photos]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(scan, photos * 3))
    assert together == alone * 3
    assert len(set(alone)) == len(photos)  # different photos: the comparison can fail
