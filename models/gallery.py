"""Pictures of what the detector does on scenes it never saw: the first N scenes of a rendered,
labelled split, in index order (not chosen), each drawn as ``zipai scan --overlay`` draws it,
with what the figures count against it marked on top: a card no detection reads (magenta
outline and the true card), a misread (cyan box: read and true card), an extra detection
(orange box), and a line saying whether the scene was read exactly and scored as the scene.

    zipai eval gallery data/detector/heldout --count 6 --out docs/gallery
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from PIL import Image, ImageDraw

from zipai.models.evaluate import (
    SceneMatch,
    _polygon,
    category_name,
    labelled_scenes,
    layout_base,
    match_scene,
    same_score,
)
from zipai.vision.decode import load
from zipai.vision.detector import Detector
from zipai.vision.scan import DEFAULT_BASE, Scan, _font, overlay, scan_decoded

MISSED = (255, 0, 255)
MISREAD = (0, 230, 255)  # not red: the overlay boxes red ink in red
EXTRA = (255, 150, 0)
WIDTH = 1000  # pixels across a saved picture: enough to read the labels, small enough to commit


def caption(sc: Scan, m: SceneMatch, scored: bool | None) -> list[str]:
    """What the figures count for this scene, and the doubts the scan raised (cards it left
    out aside)."""
    doubts = Counter(d.kind for d in sc.assembled.doubts if d.kind != "stray_cards")
    verdict = "exact" if m.exact else f"{len(m.wrong)} misread, {len(m.missed)} missed, {m.extra} extra"
    score = "" if scored is None else ("; scored as the scene" if scored else "; not scored as the scene")
    said = ", ".join(f"{k} x{v}" if v > 1 else k for k, v in sorted(doubts.items())) or "none"
    return [f"{m.read} of {m.cards} cards read: {verdict}{score}", f"doubts: {said}"]


def picture(photo: Image.Image, sc: Scan, anns: list[dict], scored: bool | None,
            m: SceneMatch | None = None) -> Image.Image:
    """The scan's overlay with the matching rule's verdicts (``m``, matched here when not given)
    drawn over it and a caption below."""
    m = m or match_scene([(d.card, d.box) for d in sc.detections], anns)
    img = overlay(photo, sc)
    k = img.width / max(1, sc.width)  # the overlay is drawn at most OVERLAY_SIDE wide
    draw = ImageDraw.Draw(img)
    lw = max(3, round(max(img.size) / 400))
    font = _font(max(14, round(max(img.size) / 55)))
    for m_k in m.missed_at:
        poly = [(p[0] * k, p[1] * k) for p in _polygon(anns[m_k])]
        draw.line([*poly, poly[0]], fill=MISSED, width=lw)
        x, y = min(p[0] for p in poly), max(p[1] for p in poly)
        draw.text((x, y + lw), f"missed {category_name(int(anns[m_k]['category_id']))}", fill=MISSED,
                  font=font, stroke_width=2, stroke_fill=(0, 0, 0))
    marks = [(i, MISREAD, f"{read}, is {true}") for i, (true, read) in zip(m.misreads, m.wrong, strict=True)]
    for i, colour, label in marks + [(i, EXTRA, "extra") for i in m.extras]:
        x0, y0, x1, y1 = (v * k for v in sc.detections[i].box)
        draw.rectangle((x0 - 2 * lw, y0 - 2 * lw, x1 + 2 * lw, y1 + 2 * lw), outline=colour, width=lw)
        draw.text((x0, y1 + 2 * lw), label, fill=colour, font=font, stroke_width=2, stroke_fill=(0, 0, 0))
    lines = caption(sc, m, scored)
    cap_font = _font(max(14, round(img.width / 60)))
    size = getattr(cap_font, "size", 14)
    while len(lines) < 4 and ImageDraw.Draw(img).textlength(lines[-1], font=cap_font) > img.width - 6 * lw:
        words = lines[-1].split(" ")
        cut = max(1, len(words) // 2)
        lines[-1:] = [" ".join(words[:cut]), "  " + " ".join(words[cut:])]
    step = round(size * 1.35)
    out = Image.new("RGB", (img.width, img.height + step * len(lines) + size // 2), (20, 20, 20))
    out.paste(img, (0, 0))
    for n, line in enumerate(lines):
        ImageDraw.Draw(out).text((lw * 3, img.height + size // 4 + n * step), line, fill=(255, 255, 255),
                                 font=cap_font)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zipai eval gallery", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, help="a rendered COCO folder (annotations.json, images/)")
    p.add_argument("--count", type=int, default=6)
    p.add_argument("--start", type=int, default=0, help="skip this many scenes first")
    p.add_argument("--out", type=Path, default=Path("docs/gallery"))
    p.add_argument("--model", type=Path, default=None, help="manifest.json (default: the shipped model)")
    args = p.parse_args(argv)
    try:
        scenes = labelled_scenes([args.data])[args.start:args.start + args.count]
    except ValueError as exc:
        print(f"zipai eval gallery: {exc}", file=sys.stderr)
        return 2
    det = Detector(args.model)
    args.out.mkdir(parents=True, exist_ok=True)
    for _, im, anns in scenes:
        decoded = load(args.data / im["file_name"])
        truth = im.get("layout")
        base = {**DEFAULT_BASE, **layout_base(truth)} if truth else None
        sc = scan_decoded(decoded, det, base)
        scored = same_score(sc.assembled.layout, sc.assembled.complete, truth) if truth else None
        m = match_scene([(d.card, d.box) for d in sc.detections], anns)
        pic = picture(decoded.image, sc, anns, scored, m)
        pic.thumbnail((WIDTH, WIDTH))
        name = args.out / f"{args.data.name}_{Path(im['file_name']).stem}.jpg"
        pic.save(name, quality=85)
        print(f"{name}: " + "; ".join(caption(sc, m, scored)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
