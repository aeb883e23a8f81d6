"""Choose the probability the selector asks of a find (``postprocess.selector.threshold`` in the
manifest; ``zipai.vision.selector``), on validation scenes only.

Each threshold is tried by the rule of ``zipai tune thresholds`` (the most scenes read exactly, then
the most layouts complete enough to score, then per-card accuracy, then the most scored as the
scene), ties going to the higher threshold (fewer finds kept). Each photo's network outputs are
computed once per look (the first, and the second, closer one a threshold's finds ask for) and
replayed for every threshold with the layout step. The manifest's other settings stay.

    zipai tune selector data/detector/val_tune400 data/detector/val_unseen [--write-manifest]
"""

from __future__ import annotations

import sys
from dataclasses import replace

from zipai.models.evaluate import Tally, labelled_scenes, replay_scenes
from zipai.vision.detector import Detector
from zipai.vision.scan import scan_detections

from . import parser, section, write

THRESHOLDS = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__, "selector")
    p.add_argument("--thresholds", type=float, nargs="+", default=list(THRESHOLDS),
                   help="the probabilities to try (default: %(default)s)")
    args = p.parse_args(argv)
    thresholds = tuple(args.thresholds)
    if not all(0.0 < t < 1.0 for t in thresholds):
        print(f"zipai tune selector: --thresholds {' '.join(f'{t:g}' for t in thresholds)}: each must lie "
              "between 0 and 1", file=sys.stderr)
        return 2
    det = Detector(args.model)
    sel = det.config.postprocess.selector
    if sel is None:
        print("zipai tune selector: the manifest has no selector (python -m zipai.models.selector … --out)",
              file=sys.stderr)
        return 2
    tallies = {t: Tally() for t in thresholds}
    configs = {t: replace(det.config, postprocess=section(det.config, "postprocess",
                                                          selector=replace(sel, threshold=t)))
               for t in thresholds}
    scenes = labelled_scenes(args.data, args.limit)
    for decoded, anns, truth, base in replay_scenes(scenes):
        looks: dict = {}
        for t in thresholds:
            found = det.detect(decoded, configs[t], looks)
            sc = scan_detections(decoded.width, decoded.height, found.detections, base, spare=found.spare)
            tallies[t].add(sc, anns, truth)
    order = sorted(thresholds, key=lambda t: (*tallies[t].rule(), t), reverse=True)
    names = ", ".join(str(d) for d in args.data)
    print(f"{len(scenes)} scenes of {names}; best first:")
    print("  threshold  exact   complete  per-card  scored")
    for t in order:
        e, c, p, s = tallies[t].rule()
        print(f"  {t:<9}  {e:.4f}  {c:.4f}    {p:.4f}    {s:.4f}   extras {tallies[t].totals.extra}")
    best = order[0]
    print(f"chosen: {best} (manifest had {sel.threshold})")
    if args.write_manifest:
        write(det, args, {"postprocess": {"selector": {"tuned_on": names}}},
              postprocess=section(det.manifest.config, "postprocess", selector=replace(sel, threshold=best)))
        print(f"manifest: selector threshold {best}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
