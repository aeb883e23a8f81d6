"""Ink colour measured from the photo (the check on the reader's class)."""

from __future__ import annotations

import numpy as np
import pytest

from zipai.vision.color import RED_THRESHOLD, ink_color, redness


def _glyph(ink: tuple[int, int, int], frame: tuple[int, int, int] | None = None,
           paper: tuple[int, int, int] = (235, 225, 200)) -> tuple[np.ndarray, tuple[float, ...]]:
    """A 60 px glyph box: a cross of 6 px strokes, and optionally a frame 3 px outside the box."""
    arr = np.zeros((120, 120, 3), np.uint8)
    arr[:] = paper
    if frame is not None:
        arr[25:95, 25:95] = frame
        arr[28:92, 28:92] = paper
    arr[57:63, 35:85] = ink
    arr[35:85, 57:63] = ink
    return arr, (31.0, 31.0, 89.0, 89.0)


@pytest.mark.parametrize("frame", [None, (200, 40, 40)])
def test_black_ink_stays_black_inside_a_red_frame(frame: tuple[int, int, int] | None) -> None:
    arr, box = _glyph((30, 30, 30), frame)
    assert ink_color(arr, box) == "black"
    arr, box = _glyph((190, 30, 35), frame)
    assert ink_color(arr, box) == "red"


def test_a_warm_lamp_tints_paper_and_ink_alike() -> None:
    arr, box = _glyph((30, 30, 30))
    warm = np.clip(arr.astype(np.float32) * np.asarray([1.15, 0.97, 0.7]), 0, 255).astype(np.uint8)
    assert redness(warm, box) < RED_THRESHOLD


def test_empty_or_outside_box_is_neutral() -> None:
    arr, _ = _glyph((30, 30, 30))
    assert redness(arr, (200.0, 200.0, 260.0, 260.0)) == 0.0
