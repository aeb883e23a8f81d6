"""Decoding photos: EXIF orientation, huge images, and one clear error for bad files."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from zipai.vision.decode import MAX_SIDE, decode, load
from zipai.vision.errors import ImageError


def _jpeg(w: int, h: int, orientation: int | None = None) -> bytes:
    img = Image.new("RGB", (w, h), (200, 30, 30))
    img.paste((0, 0, 255), (0, 0, w // 4, h // 4))  # a blue top-left corner to track rotation
    buf = io.BytesIO()
    exif = Image.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    img.save(buf, "JPEG", quality=90, exif=exif.tobytes())
    return buf.getvalue()


def test_plain_jpeg_keeps_size_and_rgb() -> None:
    d = decode(_jpeg(320, 240))
    assert (d.width, d.height) == (320, 240)
    assert d.image.mode == "RGB" and d.image.size == (320, 240)
    assert d.scale == 1.0


def test_exif_rotation_is_applied() -> None:
    d = decode(_jpeg(320, 240, orientation=6))  # stored landscape, shown portrait
    assert (d.width, d.height) == (240, 320)
    assert d.image.size == (240, 320)
    # orientation 6 = rotate 90° clockwise for display: the blue corner moves to the top right
    r, _g, b = d.image.getpixel((235, 5))
    assert b > 150 and r < 100


def test_huge_photo_is_downscaled_on_decode() -> None:
    d = decode(_jpeg(6000, 4500))
    assert (d.width, d.height) == (6000, 4500)
    assert max(d.image.size) <= MAX_SIDE
    assert d.scale == pytest.approx(6000 / d.image.width)


def test_png_with_alpha_becomes_rgb() -> None:
    img = Image.new("RGBA", (40, 30), (0, 0, 0, 0))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    d = decode(buf.getvalue())
    assert d.image.mode == "RGB" and d.image.getpixel((1, 1)) == (255, 255, 255)


@pytest.mark.parametrize(("data", "words"), [
    (b"", "empty file"),
    (b"this is not an image at all", "not an image"),
    (_jpeg(200, 150)[:600], "truncated"),
], ids=["empty", "text", "truncated"])
def test_bad_bytes_give_one_clear_error(data: bytes, words: str) -> None:
    with pytest.raises(ImageError) as exc:
        decode(data, "photo.jpg")
    assert words in str(exc.value) and "photo.jpg" in str(exc.value)
    assert "\n" not in str(exc.value)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="no such file"):
        load(tmp_path / "nope.jpg")
    with pytest.raises(ImageError, match="is a directory"):
        load(tmp_path)
