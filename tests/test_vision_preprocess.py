"""Finder input (resize, pad, normalise) and reader crops, each checked alone."""

from __future__ import annotations

import numpy as np
from PIL import Image

from zipai.vision.preprocess import cut_crops, input_size, letterbox, normalise


def test_input_size_keeps_aspect_and_pads_to_multiple() -> None:
    s, pw, ph, cw, ch = input_size(1600, 1200, 416)
    assert (cw, ch) == (416, 312) and (pw, ph) == (416, 320)
    assert s == 416 / 1600
    _, pw, ph, cw, ch = input_size(1200, 1600, 416)
    assert (cw, ch, pw, ph) == (312, 416, 320, 416)


def test_normalise_maps_grey_to_zero_and_is_channels_first() -> None:
    arr = np.full((2, 3, 3), 127.5, np.float32).astype(np.uint8)
    arr[..., 0] = 255
    x = normalise(arr)
    assert x.shape == (3, 2, 3) and x.dtype == np.float32
    assert np.allclose(x[0], 2.0)  # (1 - 0.5) / 0.25
    assert np.allclose(x[1], (127 / 255 - 0.5) / 0.25, atol=1e-5)


def test_letterbox_places_image_top_left_and_pads_with_mean() -> None:
    img = Image.new("RGB", (800, 600), (255, 255, 255))
    x, lb = letterbox(img, 416)
    assert x.shape == (1, 3, 320, 416)
    assert (lb.content_w, lb.content_h) == (416, 312)
    assert np.allclose(x[0, :, :312, :], 2.0)
    assert np.allclose(x[0, :, 312:, :], 0.0)  # padding = mean colour
    assert abs(lb.scale - 416 / 800) < 1e-9


def test_crops_are_centred_on_the_box() -> None:
    arr = np.full((200, 300, 3), 255, np.uint8)
    arr[90:110, 140:160] = (255, 0, 0)  # a red square at (150, 100)
    crops = cut_crops(arr, np.asarray([[140, 90, 160, 110]], np.float32), size=32, margin=2.0)
    assert crops.shape == (1, 32, 32, 3)
    c = crops[0]
    assert tuple(c[16, 16]) == (255, 0, 0)  # centre is red
    assert tuple(c[1, 1]) == (255, 255, 255)  # corners are outside the square: white
    assert (c[:, :, 1] < 128).sum() == 16 * 16  # the square fills half the crop's side


def test_each_crop_may_have_its_own_margin() -> None:
    arr = np.full((200, 300, 3), 255, np.uint8)
    arr[90:110, 140:160] = (255, 0, 0)
    box = [140, 90, 160, 110]
    crops = cut_crops(arr, np.asarray([box, box], np.float32), size=32, margin=np.asarray([2.0, 4.0]))
    red = (crops[:, :, :, 1] < 128).sum(axis=(1, 2))
    assert red.tolist() == [16 * 16, 8 * 8]  # half the side, then a quarter


def test_crops_shrink_without_losing_thin_strokes() -> None:
    arr = np.full((400, 400, 3), 255, np.uint8)
    arr[:, 200] = 0  # a 1-px line, crop shrinks 3x
    crops = cut_crops(arr, np.asarray([[128, 128, 272, 272]], np.float32), size=48, margin=1.0)
    assert crops[0, :, :, 0].min() < 200  # still visible as a grey line


def test_crops_outside_image_replicate_edges_and_turn() -> None:
    arr = np.zeros((50, 50, 3), np.uint8)
    arr[:25] = 255  # top half white
    crops = cut_crops(arr, np.asarray([[-10, -10, 10, 10], [15, 15, 35, 35]], np.float32), size=16,
                      margin=1.0, angles=np.asarray([0.0, np.pi], np.float32))
    assert crops.shape == (2, 16, 16, 3)
    assert crops[0].min() == 255  # clamped to the white top-left edge
    assert crops[1, 1, 8, 0] < 50 and crops[1, 14, 8, 0] > 200  # turned round: black on top
    assert len(cut_crops(arr, np.zeros((0, 4), np.float32))) == 0


def test_upright_crops_sample_like_the_turned_path() -> None:
    """Unturned crops take a separable shortcut; it must sample what the general (turnable)
    path samples, at every density (1, 2 and 3 samples per pixel) and across the image edge."""
    rng = np.random.default_rng(3)
    arr = rng.integers(0, 256, (240, 320, 3), dtype=np.uint8)
    boxes = np.asarray([[100, 80, 130, 110], [10, 20, 90, 100], [250, 150, 330, 260], [-20, -5, 40, 60]],
                       np.float32)
    fast = cut_crops(arr, boxes, size=24, margin=1.3)
    slow = cut_crops(arr, boxes, size=24, margin=1.3, angles=np.full(len(boxes), 1e-9))
    assert np.abs(fast.astype(int) - slow.astype(int)).max() <= 1  # the turn by 1e-9 may round
