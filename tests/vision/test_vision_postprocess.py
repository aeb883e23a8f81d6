"""Heatmap decoding, duplicate suppression and mapping boxes back to the photo."""

from __future__ import annotations

import numpy as np

from zipai.vision.postprocess import decode_heatmap, iou_matrix, nms, to_image
from zipai.vision.preprocess import Letterbox


def _outputs() -> tuple[np.ndarray, np.ndarray]:
    heat = np.zeros((1, 2, 20, 30), np.float32)
    reg = np.zeros((1, 4, 20, 30), np.float32)
    heat[0, 0, 5, 10] = 0.9  # a glyph
    reg[0, :, 5, 10] = (np.log(4.0), np.log(2.0), 0.5, 0.25)
    heat[0, 1, 12, 3] = 0.6  # a back
    reg[0, :, 12, 3] = (np.log(3.0), np.log(8.0), 0.0, 0.0)
    heat[0, 0, 2, 2] = 0.1  # below threshold
    heat[0, 0, 19, 29] = 0.8  # in the padding
    return heat, reg


def test_decode_heatmap_boxes_scores_kinds() -> None:
    heat, reg = _outputs()
    f = decode_heatmap(heat, reg, stride=4, threshold=0.3, valid=(100, 70))
    assert f.kinds.tolist() == [0, 1]
    assert np.allclose(f.scores, [0.9, 0.6])
    # glyph: centre (10.5, 5.25) cells = (42, 21) px, size 16 x 8 px
    assert np.allclose(f.boxes[0], [34, 17, 50, 25])
    assert np.allclose(f.boxes[1], [12 - 6, 48 - 16, 12 + 6, 48 + 16])


def test_decode_heatmap_empty() -> None:
    heat = np.zeros((1, 2, 8, 8), np.float32)
    f = decode_heatmap(heat, np.zeros((1, 4, 8, 8), np.float32))
    assert f.boxes.shape == (0, 4) and len(f.scores) == 0


def test_iou_and_nms() -> None:
    boxes = np.asarray([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [3, 3, 7, 7]], np.float32)
    scores = np.asarray([0.9, 0.8, 0.7, 0.6], np.float32)
    ious = iou_matrix(boxes, boxes)
    assert np.isclose(ious[0, 1], 81 / 119) and ious[0, 2] == 0
    keep = nms(boxes, scores)
    assert keep.tolist() == [0, 2]  # the shifted duplicate and the box inside the first go


def test_to_image_scales_and_clips() -> None:
    lb = Letterbox(scale=0.26, width=416, height=320, content_w=416, content_h=312)
    out = to_image(np.asarray([[26, 26, 52, 52], [400, 300, 420, 330]], np.float32), lb)
    assert np.allclose(out[0], [100, 100, 200, 200])
    assert out[1, 2] <= 1600 + 1e-3 and out[1, 3] <= 1200 + 1e-3


def test_nms_keeps_overlapping_backs_and_glyph_on_back() -> None:
    boxes = np.asarray([[0, 0, 100, 30], [0, 15, 100, 45], [40, 5, 60, 25]], np.float32)
    scores = np.asarray([0.9, 0.8, 0.7], np.float32)
    kinds = np.asarray([1, 1, 0])
    assert nms(boxes, scores, kinds).tolist() == [0, 1, 2]
    assert nms(boxes, scores).tolist() == [0]  # as glyphs, the others' centres lie inside the first


def test_turned_back_maps_a_turned_box_to_the_box_around_it() -> None:
    from zipai.vision.postprocess import turned_back

    # content 90 x 60 turned a quarter (to 60 x 90): the box around (12, 18) lies around (72, 12)
    boxes = np.asarray([[10, 16, 14, 20]], np.float32)
    back, on = turned_back(boxes, 90.0, (60, 90), (90, 60))
    assert np.allclose(back[0], [70, 10, 74, 14], atol=1e-4) and on.tolist() == [True]
    # at half scale the same find has half the input pixels
    back, _ = turned_back(boxes / 2, 90.0, (60, 90), (90, 60), scale=0.5)
    assert np.allclose(back[0], [70, 10, 74, 14], atol=1e-4)
    # turned 45 degrees, a square box comes back as the larger square around it
    square = np.asarray([[40, 40, 50, 50], [0, 0, 4, 4]], np.float32)
    back, on = turned_back(square, 45.0, (90, 90), (64, 64))
    assert np.allclose(back[0, 2] - back[0, 0], 10 * np.sqrt(2), atol=1e-3)
    assert on.tolist() == [True, False]  # the second lies in a turned corner, off the content
