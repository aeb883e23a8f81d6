"""Choose when two back finds count as one back (``postprocess.back_doubles`` in the manifest;
``zipai.vision.detector.drop_back_doubles``), on validation scenes only.

The last back of a concealed column shows the whole card, and the finder sometimes gives it two
peaks; each is then an extra detection that costs the scene. Every limit pair (how much of the
smaller box lies inside the other, how many glyph sizes apart the centres may lie) is tried,
and none, by the rule of ``tune_detector.py`` (the most scenes read exactly, then the most
layouts complete enough to score, then per-card accuracy), then the most scored as the scene,
then the stricter limits (fewer finds dropped). The other settings are the manifest's. Each
scene is looked at once with the step off; every setting then replays it and the layout step.

    python scripts/tune_back_doubles.py data/detector/val_tune400 data/detector/val_unseen [--write-manifest]
"""

from __future__ import annotations

import argparse
import copy
import itertools
import sys
from pathlib import Path

from zipai.vision.decode import load
from zipai.vision.detector import BackDoubles, Detector, default_manifest, drop_back_doubles
from zipai.vision.evaluate import Totals, labelled_scenes, layout_base, match_scene, same_score
from zipai.vision.scan import scan_detections

OVERLAP = (0.5, 0.6, 0.7, 0.8, 0.9)
REACH = (1.0, 1.5, 2.0)
SETTINGS: tuple[BackDoubles | None, ...] = (None, *itertools.starmap(BackDoubles,
                                                                     itertools.product(OVERLAP, REACH)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, nargs="+", help="rendered folders; their scenes are pooled")
    p.add_argument("--model", type=Path, default=None)
    p.add_argument("--limit", type=int, default=0, help="only the first N scenes of each folder")
    p.add_argument("--write-manifest", action="store_true")
    args = p.parse_args(argv)
    det = Detector(args.model)
    det.back_doubles = None
    totals = [Totals() for _ in SETTINGS]
    complete = [0] * len(SETTINGS)
    scored = [0] * len(SETTINGS)
    scenes = labelled_scenes(args.data, args.limit)
    for n, (folder, im, anns) in enumerate(scenes, 1):
        decoded = load(folder / im["file_name"])
        found = det.detect(decoded)
        base = layout_base(im["layout"]) if "layout" in im else None
        for k, limits in enumerate(SETTINGS):
            # the layout step adds to the detections it is given: each setting its own copy
            kept = found if limits is None else drop_back_doubles(found, limits)
            dets, spare = copy.deepcopy((kept, det.spare))
            sc = scan_detections(decoded.width, decoded.height, dets, base, spare=spare)
            totals[k].add(match_scene([(d.card, d.box) for d in sc.detections], anns))
            complete[k] += sc.assembled.complete
            if "layout" in im:
                scored[k] += same_score(sc.assembled.layout, sc.assembled.complete, im["layout"])
        if n % 50 == 0:
            print(f"  {n} scenes run", file=sys.stderr)
    n = len(scenes)
    rows = []
    for k, limits in enumerate(SETTINGS):
        f = totals[k].figures()
        strict = (limits.overlap, -limits.reach) if limits else (2.0, 0.0)
        rows.append((f["scene_exact_rate"], complete[k] / max(1, n), f["per_card_accuracy"],
                     scored[k] / max(1, n), *strict, k))
    rows.sort(reverse=True)
    names = " + ".join(str(f) for f in args.data)
    print(f"{n} scenes of {names}; best settings first (inside the other >=, centres within glyphs):")
    print("  setting     exact   complete  per-card  scored  back P / R     extras")
    for r in rows[:8] + [r for r in rows if SETTINGS[r[-1]] is None]:
        s = SETTINGS[r[-1]]
        f = totals[r[-1]].figures()
        name = f"{s.overlap:g}, {s.reach:g}" if s else "none"
        print(f"  {name:<10}  {r[0]:.4f}  {r[1]:.4f}    {r[2]:.4f}    {r[3]:.4f}  "
              f"{f['back_precision']:.4f} / {f['back_recall']:.4f}  {f['extra_detections']:>5}")
    best = SETTINGS[rows[0][-1]]
    if args.write_manifest:
        from zipai.models.export import update_manifest

        value = {"overlap": best.overlap, "reach": best.reach} if best else None
        update_manifest(args.model or default_manifest(), "postprocess", {"back_doubles": value})
        print(f"manifest: back doubles {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
