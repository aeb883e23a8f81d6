"""Choose which weak finds the layout may take in (``finder.spare_threshold`` and
``finder.max_spare`` in the manifest; ``zipai.vision.layout.take_in``), on validation scenes only.

A find that the thresholds turned away is offered to the layout when the hand does not split
into seven groups without it; only a find that alone makes it split is taken (or, where none
does, the one pair of finds that together do). Every floor under the finder's peak and every cap
on the number offered is tried, and none, by the rule of
``zipai tune thresholds`` (the most scenes read exactly, then the most layouts complete enough to
score, then per-card accuracy), then the most photos scored as the scene (what taking a card in
is for), then the least work (the higher floor, the fewer offered). The other settings are the
manifest's. Each scene is looked at once (both looks, at the lowest floor); every setting then
replays the layout step.

    zipai tune take-in data/detector/val_tune400 data/detector/val_unseen [--write-manifest]
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import replace

from zipai.models.evaluate import Tally, labelled_scenes, replay_scenes
from zipai.vision.config import MAX_SPARE
from zipai.vision.detection import Detection
from zipai.vision.detector import Detector
from zipai.vision.scan import scan_detections

from . import parser, section, write

FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3)
MOST = (4, 8, 16)
SETTINGS: tuple[tuple[float, int] | None, ...] = (None, *itertools.product(FLOORS, MOST))


def offered(spare: list[Detection], setting: tuple[float, int] | None) -> list[Detection]:
    """What ``Detector.detect`` would offer at this floor and cap, from what it offered at the
    lowest floor and the largest cap (strongest first, so the two commute)."""
    if setting is None:
        return []
    floor, most = setting
    return [d for d in spare if d.finder_score >= floor][:most]


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__, "take-in").parse_args(argv)
    det = Detector(args.model)
    lowest = section(det.config, "finder", spare_threshold=min(FLOORS), max_spare=max(MOST))
    det = det.with_config(replace(det.config, finder=lowest))
    tallies = [Tally() for _ in SETTINGS]
    taken = [0] * len(SETTINGS)
    scenes = labelled_scenes(args.data, args.limit)
    for decoded, anns, truth, base in replay_scenes(scenes):
        found = det.detect(decoded)
        for k, setting in enumerate(SETTINGS):
            sc = scan_detections(decoded.width, decoded.height, found.detections, base,
                                 spare=offered(found.spare, setting))
            tallies[k].add(sc, anns, truth)
            taken[k] += sum(d.taken_in for d in sc.detections)
    # the rule, then the least work: the higher floor, the fewer offered
    def rank(k: int) -> tuple:
        floor, most = SETTINGS[k] or (2.0, 0)
        return *tallies[k].rule(), floor, -most, k

    order = sorted(range(len(SETTINGS)), key=rank, reverse=True)
    names = " + ".join(str(f) for f in args.data)
    print(f"{len(scenes)} scenes of {names}; best settings first (peak floor, most offered):")
    print("  setting      exact   complete  per-card  scored  taken in  extras")
    for k in order[:8] + [k for k in order if SETTINGS[k] is None]:
        s = SETTINGS[k]
        name = f"{s[0]:g}, {s[1]}" if s else "none"
        exact, complete, card, scored = tallies[k].rule()
        extras = tallies[k].totals.figures()["extra_detections"]
        print(f"  {name:<11}  {exact:.4f}  {complete:.4f}    {card:.4f}    {scored:.4f}  "
              f"{taken[k]:>8}  {extras:>6}")
    best = SETTINGS[order[0]]
    if args.write_manifest:
        floor, most = best or (None, MAX_SPARE)
        write(det, args, finder=section(det.manifest.config, "finder", spare_threshold=floor, max_spare=most))
        print(f"manifest: take in {{'spare_threshold': {floor}, 'max_spare': {most}}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
