"""Choose when two finds are one card's two ends (``postprocess.far_ends`` in the manifest;
``zipai.vision.detector.drop_far_ends``), on validation scenes only.

A card lying fully in view shows its rank at both ends, and the far end, read again, is the
commonest extra detection (104 of 263 on the 800 validation scenes, `zipai eval detector
--why-extra`). The pair must lie along a down direction: the reader's own for most faces, the
photo's main card axis for 一二三十, which read the same turned round, so a loose 一二三 lying
across the layout kept both ends (``own_axis`` lets them follow their own axis; 十 reads the
same turned a quarter round and has none). And the card body between them must look plain, no
card edge (``max_edge``) nor shadow (``min_dark``) across it, each line across the path summed
up by its mean or its median (``across``: a card's middle ornament darkens part of a line, an
edge all of it). Every combination of the grid below is tried, by the rule of
``zipai tune thresholds`` (the most scenes read exactly, then the most layouts complete enough to
score, then per-card accuracy), then the most scored as the scene, then the stricter limits.
The other settings are the manifest's. Each scene is looked at once with the step off; every
setting then replays it and the layout step.

    zipai tune far-ends data/detector/val_tune400 data/detector/val_unseen [--write-manifest]
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import asdict, replace

import numpy as np

from zipai.models.evaluate import Tally, labelled_scenes, replay_scenes
from zipai.vision.config import BODY_SUMMARIES, FAR_ENDS, FarEnds
from zipai.vision.detector import Detector
from zipai.vision.filters import drop_back_doubles, drop_far_ends
from zipai.vision.scan import scan_detections

from . import parser, rules_only, section, write

MAX_SIN = (0.2, 0.3)
OWN_AXIS = (False, True)
MAX_EDGE = (0.4, 0.6, 0.8)
MIN_DARK = (0.75, 0.85)
ACROSS = BODY_SUMMARIES
SETTINGS = tuple(itertools.starmap(FarEnds, itertools.product(MAX_SIN, OWN_AXIS, MAX_EDGE, MIN_DARK, ACROSS)))


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__, "far-ends").parse_args(argv)
    det = rules_only(Detector(args.model), "far-ends")
    post = det.config.postprocess
    current = post.far_ends
    if not post.drop_far_ends:
        print("zipai tune far-ends: the manifest does not drop far ends (postprocess.drop_far_ends)",
              file=sys.stderr)
        return 2
    doubles = post.back_doubles  # after far ends, as in steps.rules
    det = det.with_config(replace(det.config,
                                  postprocess=replace(post, drop_far_ends=False, back_doubles=None)))
    tallies = [Tally() for _ in SETTINGS]
    scenes = labelled_scenes(args.data, args.limit)
    for decoded, anns, truth, base in replay_scenes(scenes):
        found = det.detect(decoded)
        arr = np.asarray(decoded.image, dtype=np.uint8)
        for k, far in enumerate(SETTINGS):
            kept = drop_far_ends(found.detections, far, image=arr, scale=decoded.scale)
            if doubles:
                kept = drop_back_doubles(kept, doubles)
            kept.sort(key=lambda d: (d.box[1], d.box[0]))
            sc = scan_detections(decoded.width, decoded.height, kept, base, spare=found.spare)
            tallies[k].add(sc, anns, truth)

    def rank(k: int) -> tuple:  # the rule, then the stricter limits (fewer finds dropped)
        far = SETTINGS[k]
        return (*tallies[k].rule(), -far.max_sin, not far.own_axis, -far.max_edge, far.min_dark,
                far.across == "mean", k)

    order = sorted(range(len(SETTINGS)), key=rank, reverse=True)
    names = " + ".join(str(f) for f in args.data)
    print(f"{len(scenes)} scenes of {names}; best settings first, then the manifest's and "
          "drop_far_ends' defaults (max sine, 一二三 on their own axis or the photo's, body: largest "
          "edge, least dark, each line across summed up by):")
    print("  setting                        exact   complete  per-card  scored  extras")
    for k in order[:12] + [k for k in order[12:] if SETTINGS[k] in (current, FAR_ENDS)]:
        far = SETTINGS[k]
        f = tallies[k].totals.figures()
        exact, complete, card, scored = tallies[k].rule()
        name = (f"{far.max_sin:g}, {'own' if far.own_axis else 'photo'}, {far.max_edge:g}, "
                f"{far.min_dark:g}, {far.across}")
        print(f"  {name:<29}  {exact:.4f}  {complete:.4f}    {card:.4f}    {scored:.4f}  "
              f"{f['extra_detections']:>5}")
    best = SETTINGS[order[0]]
    if args.write_manifest:
        write(det, args, postprocess=section(det.manifest.config, "postprocess", far_ends=best))
        print(f"manifest: far ends {asdict(best)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
