"""Choose when the detector looks at a photo again, larger (``finder.second_look`` in the
manifest; ``zipai.vision.detector.Detector.closer_look``), on validation scenes only.

A photo taken from far away shows glyphs a dozen finder pixels high or less, and the finder
misses more of them there. Every setting (median glyph under ``below`` finder pixels, the part
of the photo the cards lie in scaled so that it becomes ``target``, the finder input's long side
at most ``max_side``) is tried, and none, by the rule
of ``zipai tune thresholds``: the most scenes read exactly; then the most layouts complete enough to
score; then per-card accuracy; then the least work (the smaller largest input, then the fewer
photos looked at twice). The other settings are the manifest's. Each scene's first look is
made once, and each larger input size once per scene, whatever the settings that ask for it.

    zipai tune second-look data/detector/val_tune400 data/detector/val_unseen [--write-manifest]
"""

from __future__ import annotations

import itertools
import sys

from zipai.models.evaluate import Tally, labelled_scenes, replay_scenes
from zipai.vision.config import SecondLook
from zipai.vision.detector import Detector
from zipai.vision.scan import Scan, scan_detections

from . import parser, section, write

BELOW = (12.0, 14.0, 16.0)
TARGET = (16.0, 18.0, 20.0)
MAX_SIDE = (704, 960)
LOOKS: tuple[SecondLook | None, ...] = (None, *(SecondLook(b, t, m) for b, t, m in
                                               itertools.product(BELOW, TARGET, MAX_SIDE) if t > b))


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__, "second-look").parse_args(argv)
    det = Detector(args.model)
    tallies = [Tally() for _ in LOOKS]
    twice = [0] * len(LOOKS)
    scenes = labelled_scenes(args.data, args.limit)
    for decoded, anns, _, _ in replay_scenes(scenes):
        first = det.build(det.look(decoded)).detections
        seen: dict[tuple | None, Scan] = {}
        for k, look in enumerate(LOOKS):
            closer = det.closer_look(first, decoded, look=look) if look else None
            if closer not in seen:
                dets = first if closer is None else \
                    det.build(det.look(decoded, long_side=closer[0], window=closer[1])).detections
                seen[closer] = scan_detections(decoded.width, decoded.height, dets)
            tallies[k].add(seen[closer], anns)
            twice[k] += closer is not None
    # the rule (no layout is given, so nothing is scored), then the smaller largest input, then
    # the fewer photos looked at twice
    def rank(k: int) -> tuple:
        look = LOOKS[k]
        return *tallies[k].rule()[:3], -(look.max_side if look else 0), -twice[k], k

    order = sorted(range(len(LOOKS)), key=rank, reverse=True)
    names = " + ".join(str(f) for f in args.data)
    print(f"{len(scenes)} scenes of {names}; best settings first (glyph below, target, largest input):")
    print("  setting           exact  complete  per-card  looked at twice")
    for k in order[:10] + [k for k in order if LOOKS[k] is None]:
        look = LOOKS[k]
        name = f"{look.below:g}, {look.target:g}, {look.max_side}" if look else "none"
        exact, complete, card, _ = tallies[k].rule()
        print(f"  {name:<16}  {exact:.4f}  {complete:.4f}    {card:.4f}    {twice[k]}")
    best = LOOKS[order[0]]
    if args.write_manifest:
        write(det, args, finder=section(det.manifest.config, "finder", second_look=best))
        print(f"manifest: second look {best}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
