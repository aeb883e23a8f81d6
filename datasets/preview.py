"""A contact sheet: a few rendered images with their labels drawn over them, for a person to check."""

from __future__ import annotations

import json
import os

from PIL import Image, ImageDraw, ImageFont

from .fonts import TRAIN, font


class PreviewError(ValueError):
    """The folder is not a rendered dataset."""


def _label_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return font(TRAIN[3], size)
    except ValueError:
        return ImageFont.load_default()


def contact_sheet(folder: str, out: str, count: int = 6, tile_w: int = 800, colors: int = 0) -> Image.Image:
    """Draw glyph boxes (magenta; grey when ignored), card polygons (cyan) and class names;
    ``colors`` > 0 saves a palette PNG with that many colours."""
    path = os.path.join(folder, "annotations.json")
    if not os.path.isfile(path):
        raise PreviewError(f"{path} not found (render a dataset there first)")
    try:
        with open(path, encoding="utf-8") as f:
            coco = json.load(f)
        names = {c["id"]: c["name"] for c in coco["categories"]}
        images = coco["images"][:count]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise PreviewError(f"{path} is not a COCO file from zipai data render: {exc}") from None
    if not images:
        raise PreviewError(f"{path} holds no images")
    by_image: dict[int, list[dict]] = {}
    for a in coco["annotations"]:
        by_image.setdefault(a["image_id"], []).append(a)
    tiles = []
    for im in images:
        fp = os.path.join(folder, im["file_name"])
        if not os.path.isfile(fp):
            raise PreviewError(f"image {fp} listed in annotations.json is missing")
        img = Image.open(fp).convert("RGB")
        s = tile_w / img.width
        img = img.resize((tile_w, int(img.height * s)), Image.Resampling.BILINEAR)
        d = ImageDraw.Draw(img)
        lf = _label_font(max(10, int(14 * tile_w / 800)))
        for a in by_image.get(im["id"], []):
            poly = [(x * s, y * s) for x, y in a["card_polygon"]]
            if len(poly) >= 3:
                d.polygon(poly, outline=(0, 220, 255))
        for a in by_image.get(im["id"], []):
            x, y, w, h = (v * s for v in a["bbox"])
            col = (150, 150, 150) if a["ignore"] else (255, 0, 255)
            d.rectangle((x, y, x + w, y + h), outline=col, width=2)
            if not a["ignore"]:
                name = names.get(a["category_id"], "?")
                d.text((x, y - lf.size - 2), name, font=lf, fill=(255, 255, 0), stroke_width=2,
                       stroke_fill=(0, 0, 0))
        d.text((6, 4), f"{im['file_name']}  {im.get('font', '')}  {im.get('split', '')}", font=lf,
               fill=(255, 255, 255), stroke_width=2, stroke_fill=(0, 0, 0))
        tiles.append(img)
    cols = 2 if len(tiles) > 1 else 1
    rows = (len(tiles) + cols - 1) // cols
    th = max(t.height for t in tiles)
    sheet = Image.new("RGB", (cols * tile_w + (cols - 1) * 6, rows * th + (rows - 1) * 6), (255, 255, 255))
    for i, t in enumerate(tiles):
        sheet.paste(t, ((i % cols) * (tile_w + 6), (i // cols) * (th + 6)))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    if colors:  # a palette image is a much smaller PNG, for committing a sheet
        pal = sheet.quantize(colors=min(256, max(2, colors)), method=Image.Quantize.MEDIANCUT)
        pal.save(out, optimize=True)
    else:
        sheet.save(out, optimize=True)
    return sheet
