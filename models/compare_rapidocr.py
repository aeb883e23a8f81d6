"""Compare a general Chinese OCR (RapidOCR, the PyPI package rapidocr-onnxruntime, which ships
its own ONNX models) with our detector on the same labelled scenes: per-card accuracy and time.

A user might try a phone OCR app instead of Zipai Scorer; this measures what that gives, and
runs our detector over the same scenes in the same run.
OCR returns text lines with a quadrilateral each. Every character of a line that is a card
numeral (一…十, 壹…拾 with their variant forms) becomes one prediction, its box the matching
slice of the line's quadrilateral. A card counts as read when a prediction of the right class
has its box centre inside the card's visible polygon, matched one to one
(``zipai.models.evaluate``, the rule of zipai eval detector). OCR cannot read card backs,
so backs are left out and the figure is over face cards only.

    pip install -e ".[ocr]"
    zipai data render --out data/heldout --count 300 --seed 7 --split heldout
    zipai eval rapidocr data/heldout [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from zipai.engine import Card, CardError
from zipai.models.evaluate import Totals, labelled_scenes, match_scene

BACK = 21


def ocr_predictions(result: list[Any] | None) -> list[tuple[str, list[float]]]:
    """Card predictions ``(card, [cx, cy, cx, cy])`` (a box shrunk to its centre) from text lines."""
    preds: list[tuple[str, list[float]]] = []
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
            preds.append((str(card), [float(cx), float(cy), float(cx), float(cy)]))
    return preds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zipai eval rapidocr", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, help="a rendered COCO folder (annotations.json, images/)")
    p.add_argument("--limit", type=int, default=0, help="only the first N images")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError:
        print("zipai eval rapidocr: install the ocr extra first: pip install -e '.[ocr]'", file=sys.stderr)
        return 2
    try:
        images = labelled_scenes([args.data], args.limit)
    except ValueError as exc:
        print(f"zipai eval rapidocr: {exc}", file=sys.stderr)
        return 2
    ocr = RapidOCR(intra_op_num_threads=args.threads, inter_op_num_threads=1)
    from zipai.vision import scan_file

    totals, ours = Totals(), Totals()
    times: list[float] = []
    our_times: list[float] = []
    for n, (_, img, anns) in enumerate(images, 1):
        # OCR cannot see backs: faces only (ignored ones kept)
        cards = [a for a in anns if a["category_id"] != BACK]
        t0 = time.perf_counter()
        result, _ = ocr(str(args.data / img["file_name"]))
        times.append(time.perf_counter() - t0)
        totals.add(match_scene(ocr_predictions(result), cards))
        t0 = time.perf_counter()
        sc = scan_file(args.data / img["file_name"])
        our_times.append(time.perf_counter() - t0)
        ours.add(match_scene([(d.card, d.box) for d in sc.detections if d.card != "back"], cards))
        print(f"\r{n}/{len(images)} images, {totals.read}/{totals.cards} face cards read", end="",
              file=sys.stderr)
    print(file=sys.stderr)
    f = totals.figures()
    print(f"RapidOCR (rapidocr-onnxruntime 1.4.4) on {len(images)} scenes of {args.data}:")
    print(f"  per-card accuracy (face cards): {totals.read}/{totals.cards} = "
          f"{100 * f['per_card_accuracy']:.1f}%")
    print(f"  scenes exact (every face card read, nothing extra): {totals.exact}/{totals.scenes} = "
          f"{100 * f['scene_exact_rate']:.1f}%; extra detections {totals.extra}")
    print(f"  time per photo: median {1000 * statistics.median(times):.0f} ms, "
          f"{args.threads} threads")
    g = ours.figures()
    print("Zipai Scorer's detector (zipai scan, backs left out) on the same scenes:")
    print(f"  per-card accuracy (face cards): {ours.read}/{ours.cards} = {100 * g['per_card_accuracy']:.1f}%")
    print(f"  scenes exact: {ours.exact}/{ours.scenes} = {100 * g['scene_exact_rate']:.1f}%; "
          f"extra detections {ours.extra}")
    print(f"  time per photo (whole scan): median {1000 * statistics.median(our_times):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
