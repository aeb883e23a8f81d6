"""Compare a general Chinese OCR (RapidOCR, the PyPI package rapidocr-onnxruntime, which ships
its own ONNX models) with our detector on the same labelled scenes: per-card accuracy and time.

A user might try a phone OCR app instead of Zipai Scorer; this measures what that gives.
OCR returns text lines with a quadrilateral each. Every character of a line that is a card
numeral (一…十, 壹…拾 with their variant forms) becomes one prediction, its box the matching
slice of the line's quadrilateral. A card counts as read when a prediction of the right class
has its box centre inside the card's visible polygon, matched one to one (the same rule as
scripts/eval_detector.py). OCR cannot see card backs, so backs and ignored cards are left out.

    pip install -e ".[ocr]"
    zipai data render --out data/heldout --count 300 --seed 7 --split heldout
    python scripts/compare_rapidocr.py data/heldout [--limit N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from zipai.engine import Card, CardError

BACK = 21


def _inside(pt: tuple[float, float], poly: list[list[float]]) -> bool:
    """Ray casting: is the point inside the polygon?"""
    x, y = pt
    inside = False
    n = len(poly)
    for i in range(n):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % n]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def match(cards: list[dict[str, Any]], preds: list[tuple[int, float, float]]) -> int:
    """Cards read: one-to-one matches of a prediction of the right class centred in the card."""
    used = [False] * len(preds)
    read = 0
    for ann in cards:
        for j, (cat, cx, cy) in enumerate(preds):
            if not used[j] and cat == ann["category_id"] and _inside((cx, cy), ann["card_polygon"]):
                used[j] = True
                read += 1
                break
    return read


def ocr_predictions(result: list[Any] | None) -> list[tuple[int, float, float]]:
    """Card predictions (category id, centre) from RapidOCR's text lines."""
    preds: list[tuple[int, float, float]] = []
    for quad, text, _conf in result or []:
        q = np.asarray(quad, dtype=float)  # tl, tr, br, bl
        chars = [ch for ch in text if not ch.isspace()]
        if not chars:
            continue
        horizontal = np.linalg.norm(q[1] - q[0]) >= np.linalg.norm(q[3] - q[0])
        a, b = (q[0] + q[3]) / 2, (q[1] + q[2]) / 2  # left mid, right mid
        if not horizontal:
            a, b = (q[0] + q[1]) / 2, (q[3] + q[2]) / 2  # top mid, bottom mid
        for k, ch in enumerate(chars):
            try:
                card = Card.parse(ch)
            except CardError:
                continue
            cx, cy = a + (b - a) * ((k + 0.5) / len(chars))
            preds.append((card.index + 1, float(cx), float(cy)))
    return preds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, help="a rendered COCO folder (annotations.json, images/)")
    p.add_argument("--limit", type=int, default=0, help="only the first N images")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError:
        print("compare_rapidocr: install the ocr extra first: pip install -e '.[ocr]'", file=sys.stderr)
        return 2
    coco = json.loads((args.data / "annotations.json").read_text(encoding="utf-8"))
    images = coco["images"][: args.limit or None]
    by_image: dict[int, list[dict[str, Any]]] = {}
    for ann in coco["annotations"]:
        if ann["category_id"] != BACK and not ann.get("ignore"):
            by_image.setdefault(ann["image_id"], []).append(ann)
    ocr = RapidOCR(intra_op_num_threads=args.threads, inter_op_num_threads=1)
    total = read = exact = 0
    times: list[float] = []
    for n, img in enumerate(images, 1):
        cards = by_image.get(img["id"], [])
        t0 = time.perf_counter()
        result, _ = ocr(str(args.data / img["file_name"]))
        times.append(time.perf_counter() - t0)
        got = match(cards, ocr_predictions(result))
        total += len(cards)
        read += got
        exact += got == len(cards)
        print(f"\r{n}/{len(images)} images, {read}/{total} face cards read", end="", file=sys.stderr)
    print(file=sys.stderr)
    print(f"RapidOCR (rapidocr-onnxruntime) on {len(images)} scenes of {args.data}:")
    print(f"  per-card accuracy (face cards): {read}/{total} = {100 * read / max(total, 1):.1f}%")
    print(f"  scenes with every face card read: {exact}/{len(images)} = "
          f"{100 * exact / max(len(images), 1):.1f}%")
    print(f"  time per photo: median {1000 * statistics.median(times):.0f} ms, "
          f"{args.threads} threads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
