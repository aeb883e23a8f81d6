"""Finder input (resize, pad, normalise) and reader crops, each checked alone."""

from __future__ import annotations

import numpy as np
from PIL import Image

from zipai.vision.preprocess import cut_crops, input_size, letterbox, normalise, turned_crops


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


def test_turned_crops_turn_like_the_direct_path_and_put_the_cards_down_down() -> None:
    """A bar pointing along a card's down direction comes out pointing down the crop, as in
    ``cut_crops``' direct gather, which it follows to within a resampling's softening."""
    arr = np.full((300, 300, 3), 230, np.uint8)
    arr[150:154, 150:200] = (20, 20, 20)  # a bar from the centre to the right: the card's down is +x
    box = np.asarray([[110, 110, 190, 190]], np.float32)
    turn = np.asarray([np.arctan2(-1.0, 0.0)], np.float32)  # down (1, 0) -> the angle the detector uses
    crop = turned_crops(arr, box, 32, 1.3, turn)[0].astype(int).sum(axis=2)
    dark = np.argwhere(crop < 300)
    assert len(dark) and dark[:, 0].min() >= 14 and abs(dark[:, 1].mean() - 15.5) < 2  # below the centre
    direct = cut_crops(arr, box, 32, 1.3, turn)[0].astype(int).sum(axis=2)
    assert np.abs(crop - direct).mean() < 15
    rng = np.random.default_rng(5)
    noise = rng.integers(0, 256, (240, 320, 3), dtype=np.uint8)
    # one photo pixel to a crop pixel: the same samples as cut_crops (no supersampling to skip)
    boxes = np.asarray([[100, 80, 124, 104], [10, 20, 34, 44], [-10, -5, 14, 19], [300, 220, 324, 244]],
                       np.float32)
    flat = turned_crops(noise, boxes, 24, 1.0, np.zeros(4, np.float32))
    assert np.abs(flat.astype(int) - cut_crops(noise, boxes, 24, 1.0).astype(int)).max() <= 1
    none = turned_crops(noise, np.zeros((0, 4), np.float32), 24, 1.3, np.zeros(0, np.float32))
    assert none.shape == (0, 24, 24, 3)


def test_turned_input_turns_the_content_about_its_centre_and_pads_with_the_mean() -> None:
    from zipai.vision.preprocess import turned_input

    x = np.zeros((1, 3, 64, 96), np.float32)  # content 90 x 60, padded
    x[0, :, 10:14, 70:74] = 1.0  # a dot right of centre and above it
    out, size, valid = turned_input(x, 90, 60, 90.0)  # a quarter turn counter-clockwise
    assert size == (60, 90) and valid == (60, 90)
    assert out.shape == (1, 3, 96, 64) and out.dtype == np.float32
    ys, xs = np.nonzero(out[0, 0] > 0.5)
    # (72, 12) is (+27, -18) from the centre (45, 30); turned, (-18, -27) from (30, 45)
    assert abs(xs.mean() - 12) <= 1 and abs(ys.mean() - 18) <= 1
    assert out[0, :, 90:, :].max() == 0.0  # padding is the mean colour
    half, size, valid = turned_input(x, 90, 60, 45.0, scale=0.5)
    assert valid == (round(size[0] * 0.5), round(size[1] * 0.5))
    assert half.shape[2] % 32 == 0 and half.shape[3] % 32 == 0
