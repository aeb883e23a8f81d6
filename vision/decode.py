"""Photo decoding with Pillow only (Android ships it too): EXIF orientation, cheap downscale of
huge photos at decode time, and one clear error for anything that is not a usable image."""

from __future__ import annotations

import io
import struct
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from zipai.engine import ZipaiError
from zipai.engine.files import read_file, shown

from .errors import ImageError

# Decoded pixels never exceed this on the long side: enough for 40+ px glyphs on any framing
# a phone makes, and a 50-megapixel JPEG then decodes at 1/4 scale in a fraction of a second.
MAX_SIDE = 2048
MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_PIXELS = 60_000_000
"""The most pixels decoded at full size. The header tells the size before any pixel is read: a
16383x16383 lossless WebP of a few hundred bytes would take 1 GB as RGBA, and more on its way
to RGB; 60 Mpx of RGBA is 240 MB, which a phone survives."""
MAX_JPEG_PIXELS = 250_000_000
"""A baseline JPEG decodes at 1/2 to 1/8 scale in the DCT (``draft``) and is read a stripe at a
time, so a 200-megapixel phone photo costs about 100 MB. A progressive JPEG keeps every DCT
coefficient of the full image while it decodes (about 6 bytes a pixel), so it gets ``MAX_PIXELS``."""
FORMATS = ("JPEG", "PNG", "WEBP", "BMP", "GIF")
"""The photo formats Pillow may open for us (its JPEG opener also gives MPO, the JPEG with a
second picture that some phones write). Pillow's other decoders are code that a hostile file
could reach and that no camera needs; TIFF above all, whose libtiff prints its complaints about
a broken file straight onto stderr."""


@dataclass(frozen=True, slots=True)
class Decoded:
    """An RGB image and how its pixels map to the photo's (after EXIF orientation)."""

    image: Image.Image
    width: int  # the photo's size after EXIF orientation
    height: int

    @property
    def scale(self) -> float:
        """Photo pixels per decoded pixel (>= 1)."""
        return self.width / self.image.width


def read_bytes(path: str | Path) -> bytes:
    """A regular file's bytes (never a FIFO or a device), or an ImageError naming the problem."""
    try:
        return read_file(path, MAX_FILE_BYTES, "photo")
    except ZipaiError as exc:
        raise ImageError(str(exc), code="io") from None


def decode(data: bytes, name: str = "image", max_side: int = MAX_SIDE) -> Decoded:
    """Decode encoded image bytes to RGB, EXIF-upright, at most ``max_side`` on the long side."""
    name = shown(name)
    if not data:
        raise ImageError(f"{name}: empty file, not an image", code="not_image")
    try:
        with warnings.catch_warnings():
            # Pillow warns of corrupt EXIF, odd chunks and big images: the photo is read or
            # refused here with our own one line, and nothing else belongs on stderr.
            warnings.simplefilter("ignore")
            old = Image.MAX_IMAGE_PIXELS
            Image.MAX_IMAGE_PIXELS = None  # _budget refuses big images, from the header, in our words
            try:
                opened = Image.open(io.BytesIO(data), formats=FORMATS)
                img = _load(opened, max_side, name)
            finally:
                Image.MAX_IMAGE_PIXELS = old
    except UnidentifiedImageError:
        raise ImageError(f"{name}: not an image (unknown format; use {', '.join(FORMATS[:4])})",
                         code="not_image") from None
    except Image.DecompressionBombError:
        raise ImageError(f"{name}: image has too many pixels to be a photo", code="too_large") from None
    except MemoryError:
        raise ImageError(f"{name}: image too large to decode in memory", code="too_large") from None
    except (OSError, SyntaxError, ValueError, EOFError, struct.error, IndexError, KeyError,
            TypeError, ZeroDivisionError) as exc:
        if isinstance(exc, ImageError):
            raise
        # Pillow's decoders raise these for broken headers and chunks
        msg = " ".join(str(exc).split()) or type(exc).__name__
        if "truncat" in msg.lower() or isinstance(exc, EOFError):
            msg = "the file is truncated"
        raise ImageError(f"{name}: cannot decode image ({msg[:200]})", code="bad_image") from None
    return img


def _budget(img: Image.Image, name: str) -> None:
    """Refuse, from the header alone, an image whose decode would not fit a phone's memory."""
    w, h = img.size
    progressive = bool(img.info.get("progressive") or img.info.get("progression"))
    jpeg = img.format in ("JPEG", "MPO") and not progressive
    limit = MAX_JPEG_PIXELS if jpeg else MAX_PIXELS
    if w * h > limit:
        kind = "a baseline JPEG" if jpeg else ("a progressive JPEG" if progressive else "this format")
        raise ImageError(f"{name}: {w}x{h} is {w * h / 1e6:.0f} megapixels, more than "
                         f"{limit // 1_000_000} for {kind}; scale the photo down", code="too_large")


def _load(img: Image.Image, max_side: int, name: str = "image") -> Decoded:
    w0, h0 = img.size
    if w0 < 1 or h0 < 1:
        raise ImageError(f"{name}: empty image (no pixels)", code="empty_image")
    _budget(img, name)
    orient = 1
    try:
        orient = int(img.getexif().get(0x0112, 1) or 1)
    except Exception:  # a broken EXIF block is no reason to refuse the photo
        orient = 1
    swap = orient in (5, 6, 7, 8)
    width, height = (h0, w0) if swap else (w0, h0)
    if img.format in ("JPEG", "MPO") and max(w0, h0) > max_side:
        img.draft("RGB", (max_side, max_side))  # DCT-domain 1/2, 1/4, 1/8 decode: fast, low memory
    if img.size[0] * img.size[1] > MAX_PIXELS:  # a baseline JPEG that draft cannot shrink enough
        raise ImageError(f"{name}: {w0}x{h0} is too many pixels to decode on a phone", code="too_large")
    img.load()
    if img.mode.startswith("I;16"):  # Pillow cannot reduce these
        img = _to_8bit(img)
    if max(img.size) > 2 * max_side:
        if img.mode not in ("L", "LA", "RGB", "RGBA", "I", "F", "CMYK"):  # what ``reduce`` takes
            img = _to_rgb(img)  # a palette or 1-bit image: within MAX_PIXELS, checked above
        factor = max(img.size) // max_side
        img = img.reduce(factor)
    if img.mode == "I":
        img = _to_8bit(img)
    if img.mode != "RGB":
        img = _to_rgb(img)
    if orient != 1:
        img = ImageOps.exif_transpose(img) or img
    if max(img.size) > max_side:
        s = max_side / max(img.size)
        img = img.resize((max(1, round(img.width * s)), max(1, round(img.height * s))),
                         Image.Resampling.BILINEAR, reducing_gap=2.0)
    return Decoded(img, width, height)


def _to_8bit(img: Image.Image) -> Image.Image:
    """16-bit greyscale as 8-bit grey. Pillow's ``convert`` clips every value above 255, so a
    16-bit PNG would read as all white and show no cards. Pillow 10 opens such a PNG as mode
    ``I`` (32 bits) where later versions say ``I;16``; the samples are 16-bit in both."""
    a = np.asarray(img)
    if img.mode != "I":
        return Image.fromarray((a >> 8).astype(np.uint8))
    return Image.fromarray((np.clip(a, 0, 65535) >> 8).astype(np.uint8))


def _to_rgb(img: Image.Image) -> Image.Image:
    """RGB on a white background for transparent images; plain convert otherwise."""
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        bg = Image.new("RGB", rgba.size, (255, 255, 255))
        bg.paste(rgba, mask=rgba.getchannel("A"))
        return bg
    return img.convert("RGB")


def load(path: str | Path, max_side: int = MAX_SIDE) -> Decoded:
    """Read and decode a photo file."""
    return decode(read_bytes(path), str(path), max_side)
