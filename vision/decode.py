"""Photo decoding with Pillow only (Android ships it too): EXIF orientation, cheap downscale of
huge photos at decode time, and one clear error for anything that is not a usable image."""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageOps, UnidentifiedImageError

from .errors import ImageError

# Decoded pixels never exceed this on the long side: enough for 40+ px glyphs on any framing
# a phone makes, and a 50-megapixel JPEG then decodes at 1/4 scale in a fraction of a second.
MAX_SIDE = 2048
MAX_FILE_BYTES = 200 * 1024 * 1024
# Pillow refuses larger images outright; we want our own message, not its warning.
MAX_SOURCE_PIXELS = 400_000_000


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
    """A file's bytes, or an ImageError naming the file and the problem."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise ImageError(f"{path}: is a directory, not a photo", code="io")
        if size > MAX_FILE_BYTES:
            raise ImageError(f"{path}: {size // 2**20} MB is too large for a photo", code="io")
        return p.read_bytes()
    except FileNotFoundError:
        raise ImageError(f"{path}: no such file", code="io") from None
    except PermissionError:
        raise ImageError(f"{path}: permission denied", code="io") from None
    except OSError as exc:
        raise ImageError(f"{path}: cannot read ({exc.strerror or exc})", code="io") from None


def decode(data: bytes, name: str = "image", max_side: int = MAX_SIDE) -> Decoded:
    """Decode encoded image bytes to RGB, EXIF-upright, at most ``max_side`` on the long side."""
    if not data:
        raise ImageError(f"{name}: empty file, not an image", code="not_image")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            old = Image.MAX_IMAGE_PIXELS
            Image.MAX_IMAGE_PIXELS = MAX_SOURCE_PIXELS
            try:
                img = Image.open(io.BytesIO(data))
                img = _load(img, max_side)
            finally:
                Image.MAX_IMAGE_PIXELS = old
    except UnidentifiedImageError:
        raise ImageError(f"{name}: not an image (unknown format)", code="not_image") from None
    except Image.DecompressionBombError:
        raise ImageError(f"{name}: image has too many pixels to be a photo", code="too_large") from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        msg = str(exc) or type(exc).__name__
        if "truncat" in msg.lower() or isinstance(exc, EOFError):
            msg = "the file is truncated"
        raise ImageError(f"{name}: cannot decode image ({msg})", code="bad_image") from None
    return img


def _load(img: Image.Image, max_side: int) -> Decoded:
    w0, h0 = img.size
    if w0 < 1 or h0 < 1:
        raise ImageError("empty image (no pixels)", code="empty_image")
    orient = 1
    try:
        orient = int(img.getexif().get(0x0112, 1) or 1)
    except Exception:  # a broken EXIF block is no reason to refuse the photo
        orient = 1
    swap = orient in (5, 6, 7, 8)
    width, height = (h0, w0) if swap else (w0, h0)
    if img.format == "JPEG" and max(w0, h0) > max_side:
        img.draft("RGB", (max_side, max_side))  # DCT-domain 1/2, 1/4, 1/8 decode: fast, low memory
    img.load()
    if max(img.size) > 2 * max_side:
        factor = max(img.size) // max_side
        img = img.reduce(factor)
    if img.mode != "RGB":
        img = _to_rgb(img)
    if orient != 1:
        img = ImageOps.exif_transpose(img) or img
    if max(img.size) > max_side:
        s = max_side / max(img.size)
        img = img.resize((max(1, round(img.width * s)), max(1, round(img.height * s))),
                         Image.Resampling.BILINEAR, reducing_gap=2.0)
    return Decoded(img, width, height)


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
