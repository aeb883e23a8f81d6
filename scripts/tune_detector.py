"""Choose the detector's thresholds on the validation split (never on held-out fonts): the finder's
score threshold, the reader's "none" threshold and whether to drop the far ends of fully shown
cards. Runs the networks once per scene at a low threshold, then replays every setting.

    python scripts/tune_detector.py data/detector/val [--write-manifest]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from zipai.vision.decode import load
from zipai.vision.detector import Detector, default_manifest
from zipai.vision.evaluate import Totals, match_scene

THRESHOLDS = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
BACKS = (0.15, 0.2, 0.3, 0.4, 0.5, 0.6)
NONE = (0.5, 0.7, 0.9)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path)
    p.add_argument("--model", type=Path, default=None)
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--write-manifest", action="store_true")
    args = p.parse_args(argv)
    coco = json.loads((args.data / "annotations.json").read_text(encoding="utf-8"))
    by_img: dict[int, list[dict]] = {}
    for a in coco["annotations"]:
        by_img.setdefault(int(a["image_id"]), []).append(a)
    det = Detector(args.model)
    raws = []
    images = coco["images"][: args.limit or None]
    for n, im in enumerate(images):
        raw = det.raw(load(args.data / im["file_name"]), min(THRESHOLDS + BACKS))
        raws.append((replace(raw, arr=np.zeros((1, 1, 3), np.uint8)), by_img.get(int(im["id"]), [])))
        if (n + 1) % 50 == 0:
            print(f"  {n + 1}/{len(images)} scenes run", file=sys.stderr)
    rows = []
    for thr, back, none, far in itertools.product(THRESHOLDS, BACKS, NONE, (False, True)):
        t = Totals()
        for raw, anns in raws:
            dets = det.build(raw, thr, none, far, back)
            t.add(match_scene([(d.card, d.box) for d in dets], anns))
        f = t.figures()
        rows.append((f["scene_exact_rate"], f["per_card_accuracy"], thr, none, far, f["extra_detections"],
                     back))
    rows.sort(reverse=True)
    print(f"{len(raws)} scenes of {args.data}; best settings first:")
    print("  exact  per-card  glyph>=  back>=  none>=  far-ends  extra")
    for r in rows[:12]:
        print(f"  {r[0]:.3f}  {r[1]:.4f}    {r[2]:.2f}    {r[6]:.2f}    {r[3]:.2f}   {r[4]!s:5}     {r[5]}")
    best = rows[0]
    if args.write_manifest:
        from zipai.models.export import update_manifest

        man = args.model or default_manifest()
        update_manifest(man, "finder", {"threshold": best[2], "back_threshold": best[6]})
        update_manifest(man, "reader", {"none_threshold": best[3]})
        update_manifest(man, "postprocess", {"drop_far_ends": best[4], "tuned_on": str(args.data.name)})
        print(f"manifest: finder threshold {best[2]} (backs {best[6]}), none threshold {best[3]}, "
              f"drop_far_ends {best[4]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
