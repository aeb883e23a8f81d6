"""Choose when two back finds count as one back (``postprocess.back_doubles`` in the manifest;
``zipai.vision.detector.drop_back_doubles``), on validation scenes only.

The last back of a concealed column shows the whole card, and the finder sometimes gives it two
peaks; each is then an extra detection that costs the scene. Every limit pair (how much of the
smaller box lies inside the other, how many glyph sizes apart the centres may lie) is tried,
and none, by the rule of ``zipai tune thresholds`` (the most scenes read exactly, then the most
layouts complete enough to score, then per-card accuracy), then the most scored as the scene,
then the stricter limits (fewer finds dropped). The other settings are the manifest's. Each
scene is looked at once with the step off; every setting then replays it and the layout step.

    zipai tune back-doubles data/detector/val_tune400 data/detector/val_unseen [--write-manifest]
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import replace

from zipai.models.evaluate import Tally, labelled_scenes, replay_scenes
from zipai.vision.config import BackDoubles
from zipai.vision.detector import Detector
from zipai.vision.filters import drop_back_doubles
from zipai.vision.scan import scan_detections

from . import parser, rules_only, section, write

OVERLAP = (0.5, 0.6, 0.7, 0.8, 0.9)
REACH = (1.0, 1.5, 2.0)
SETTINGS: tuple[BackDoubles | None, ...] = (None, *itertools.starmap(BackDoubles,
                                                                     itertools.product(OVERLAP, REACH)))


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__, "back-doubles").parse_args(argv)
    det = rules_only(Detector(args.model), "back-doubles")
    det = det.with_config(replace(det.config,
                                  postprocess=section(det.config, "postprocess", back_doubles=None)))
    tallies = [Tally() for _ in SETTINGS]
    scenes = labelled_scenes(args.data, args.limit)
    for decoded, anns, truth, base in replay_scenes(scenes):
        found = det.detect(decoded)
        for k, limits in enumerate(SETTINGS):
            kept = found.detections if limits is None else drop_back_doubles(found.detections, limits)
            sc = scan_detections(decoded.width, decoded.height, kept, base, spare=found.spare)
            tallies[k].add(sc, anns, truth)
    # the rule, then the stricter limits (fewer finds dropped)
    def rank(k: int) -> tuple:
        limits = SETTINGS[k]
        return *tallies[k].rule(), *((limits.overlap, -limits.reach) if limits else (2.0, 0.0)), k

    order = sorted(range(len(SETTINGS)), key=rank, reverse=True)
    names = " + ".join(str(f) for f in args.data)
    print(f"{len(scenes)} scenes of {names}; best settings first "
          "(inside the other >=, centres within glyphs):")
    print("  setting     exact   complete  per-card  scored  back P / R     extras")
    for k in order[:8] + [k for k in order if SETTINGS[k] is None]:
        s = SETTINGS[k]
        f = tallies[k].totals.figures()
        name = f"{s.overlap:g}, {s.reach:g}" if s else "none"
        exact, complete, card, scored = tallies[k].rule()
        print(f"  {name:<10}  {exact:.4f}  {complete:.4f}    {card:.4f}    {scored:.4f}  "
              f"{f['back_precision']:.4f} / {f['back_recall']:.4f}  {f['extra_detections']:>5}")
    best = SETTINGS[order[0]]
    if args.write_manifest:
        write(det, args, postprocess=section(det.manifest.config, "postprocess", back_doubles=best))
        print(f"manifest: back doubles {best}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
