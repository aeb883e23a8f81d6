"""Choose whether and how far ends are looked for again among the finds the selector kept
(``postprocess.selected_far_ends`` in the manifest; ``zipai.vision.config.SelectedFarEnds``),
on validation scenes only.

The selector weighs each find on its own evidence, and a card lying fully in view shows its rank
at both ends: both can look like glyphs, so it keeps both (the far end was the commonest extra
detection it kept, 84 of 261 on the 800 validation scenes, `zipai eval detector --why-extra`). The
rules' pair test (``drop_far_ends``, with the manifest's ``far_ends`` limits) sees the two ends
together. Each setting says which find the selector must be at least this sure of to stay
(``protect``), which end stays (``prefer``: the more upright one, or the one the selector is
surer of) and how plain the card body between the two must look (the rules' largest edge and
least dark, or stricter ones: two cards of one rank laid head to toe must not be taken for one);
"off" keeps every find the selector keeps. The step is there to drop extra finds, so a setting
that reads fewer cards than "off" is set aside (marked "fewer cards"); the others are tried by
the rule of ``zipai tune thresholds`` (the most scenes read exactly, then the most layouts complete
enough to score, then per-card accuracy, then the most scored as the scene), ties going to
"off", then to the settings that keep more. Each photo's network outputs are computed once per
look and replayed for every setting with the layout step; the manifest's other settings stay.

    zipai tune selected-far-ends data/detector/val_tune400 data/detector/val_unseen \\
        data/detector/val_style2 [--write-manifest]
"""

from __future__ import annotations

import itertools
import math
import sys
from dataclasses import asdict, replace

from zipai.models.evaluate import Tally, labelled_scenes, replay_scenes
from zipai.vision.config import PREFER, SelectedFarEnds
from zipai.vision.detector import Detector
from zipai.vision.scan import scan_detections

from . import parser, section, write

PROTECT = (0.9, 0.95, math.inf)  # inf: the selector's confidence protects no find
BODY = ((None, None), (0.4, None), (None, 0.85), (0.4, 0.85))  # (max_edge, min_dark); None: the rules'
SETTINGS: tuple[SelectedFarEnds | None, ...] = (
    None, *(SelectedFarEnds(p, end, *body) for p, end, body in itertools.product(PROTECT, PREFER, BODY)))


def name(s: SelectedFarEnds | None) -> str:
    if s is None:
        return "off"
    edge, dark = ("-" if v is None else f"{v:g}" for v in (s.max_edge, s.min_dark))
    body = "rules'" if s.max_edge is None and s.min_dark is None else f"{edge}/{dark}"
    return f"{'none' if math.isinf(s.protect) else f'{s.protect:g}'}, {s.prefer}, body {body}"


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__, "selected-far-ends").parse_args(argv)
    det = Detector(args.model)
    if det.config.postprocess.selector is None:
        print("zipai tune selected-far-ends: the manifest has no selector "
              "(python -m zipai.models.selector … --out)", file=sys.stderr)
        return 2
    current = det.config.postprocess.selected_far_ends
    tallies = [Tally() for _ in SETTINGS]
    configs = [replace(det.config, postprocess=section(det.config, "postprocess", selected_far_ends=s))
               for s in SETTINGS]
    scenes = labelled_scenes(args.data, args.limit)
    for decoded, anns, truth, base in replay_scenes(scenes):
        looks: dict = {}
        for k, config in enumerate(configs):
            found = det.detect(decoded, config, looks)
            sc = scan_detections(decoded.width, decoded.height, found.detections, base, spare=found.spare)
            tallies[k].add(sc, anns, truth)

    off_read = tallies[0].totals.read

    def rank(k: int) -> tuple:  # no cards lost, the rule, then off, then the settings that keep more
        s = SETTINGS[k]
        # a lower protect, a smaller largest edge and a higher least dark each drop fewer finds
        strict = (0.0, 0.0, 0.0) if s is None else (-s.protect, -(s.max_edge or 1.0), s.min_dark or 0.0)
        return (tallies[k].totals.read >= off_read, *tallies[k].rule(), s is None, *strict, -k)

    order = sorted(range(len(SETTINGS)), key=rank, reverse=True)
    names = ", ".join(str(d) for d in args.data)
    print(f"{len(scenes)} scenes of {names}; best first (manifest: {name(current)}); protect, end kept, "
          "body limits (largest edge / least dark):")
    print("  setting                           exact   complete  per-card  scored  extras  cards read")
    for k in order:
        exact, complete, card, scored = tallies[k].rule()
        read = tallies[k].totals.read
        print(f"  {name(SETTINGS[k]):<32}  {exact:.4f}  {complete:.4f}    {card:.4f}    {scored:.4f}  "
              f"{tallies[k].totals.extra:>5}  {read}{'  fewer cards' if read < off_read else ''}")
    best = SETTINGS[order[0]]
    print(f"chosen: {name(best)}")
    if args.write_manifest:
        if best is not None and math.isinf(best.protect):
            best = replace(best, protect=2.0)  # JSON has no infinity; the selector never gives more than 1
        write(det, args, {"postprocess": {"selected_far_ends": {"tuned_on": names}}} if best else None,
              postprocess=section(det.manifest.config, "postprocess", selected_far_ends=best))
        print(f"manifest: selected_far_ends {None if best is None else asdict(best)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
