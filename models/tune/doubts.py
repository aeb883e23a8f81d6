"""Choose when a scan says it is unsure, on validation scenes only: the selector's probability
under which a kept find is a doubt (``Params.low_select``), and which guessed claimed rows are
(``Params.row_doubts``: a long row split at its widest gap, two rows that look alike, a pair beside a
column of four that is no quad, rows told apart only by a back).

A scan is *clean* when its layout is complete and it raises no doubt but cards lying apart
(``stray_cards``, which only says what was left out). The app lets a clean scan through with a
glance; any other doubt asks the user to look. What matters is how often a clean scan is wrong:
its score (win, points, payouts) is not the scene's. Each setting is weighed by the right scores
it leaves clean less ``--weight`` times the wrong scores it leaves clean (a wrong payout passing
silently costs more than a needless look); the best is printed first. The networks run once a
photo; each setting only assembles the layout and its doubts again. For the layout's cards (not
those lying apart) it also counts how many misread or extra ones a card doubt names
(``zipai.models.evaluate.CARD_DOUBTS``), and how many of the cards those doubts name are wrong.

    zipai tune doubts data/detector/val_tune400 data/detector/val_unseen [--weight 3]
    zipai tune doubts data/layout/players_hand_val data/detector/val_tune400 --labelled-cards

``--no-silent`` chooses among the settings that leave no wrong score clean, the weight ordering
the rest: the layout's target is no wrong score without a doubt.

``--labelled-cards`` weighs only ``row_doubts``, on the scenes' labelled cards (the networks set
aside, as ``zipai eval detector --labelled-cards``): which rows to ask about is the layout's own
question, and the true cards leave it alone to answer.

``low_select`` only shapes the card doubts of the rule before the chance (``doubt_rule="reasons"``,
which this tuner assembles); a scan's card doubts are now chosen by the chance that a card is
wrong (``zipai tune chance``), and the claimed row's doubt by ``row_doubts`` under either rule.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from zipai.models.evaluate import (
    SceneMatch,
    clean,
    labelled_scenes,
    match_scene,
    named_cards,
    replay_scenes,
    same_score,
)
from zipai.vision.detector import Detector
from zipai.vision.layout import Params
from zipai.vision.scan import Scan, scan_detections

from . import parser

LOW_SELECT = (0.0, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8)
ROWS = (frozenset(), frozenset({"split"}), frozenset({"alike"}), frozenset({"split", "alike"}),
        frozenset({"split", "alike", "broken"}), frozenset({"split", "alike", "broken", "backs"}))


@dataclass
class Count:
    """One doubt setting's tally: complete scans clean or flagged, right or wrong, and the
    layout's wrong cards that a card doubt names."""

    scenes: int = 0
    complete: int = 0
    clean_right: int = 0
    clean_wrong: int = 0
    flagged_right: int = 0
    flagged_wrong: int = 0
    # the layout's cards (not those lying apart): misread or extra, and whether a card doubt names them
    named_wrong: int = 0
    named_right: int = 0
    unnamed_wrong: int = 0

    def add(self, sc: Scan, right: bool, m: SceneMatch | None = None) -> None:
        self.scenes += 1
        if m is not None:
            named_wrong, named_right, unnamed_wrong = named_cards(sc, m)
            self.named_wrong += named_wrong
            self.named_right += named_right
            self.unnamed_wrong += unnamed_wrong
        if not sc.assembled.complete:
            return
        self.complete += 1
        if clean(sc):
            self.clean_right += right
            self.clean_wrong += not right
        else:
            self.flagged_right += right
            self.flagged_wrong += not right

    def worth(self, weight: float) -> float:
        return self.clean_right - weight * self.clean_wrong

    def silent_ok(self, no_silent: bool) -> bool:
        """Whether the setting may be chosen first: with ``no_silent``, only one that leaves no
        wrong score clean (a wrong payout passing with no doubt is the one fault a look cannot
        catch)."""
        return not no_silent or self.clean_wrong == 0


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__, "doubts")
    p.add_argument("--weight", type=float, default=3.0,
                   help="a wrong score left clean counts this many needless looks (default 3)")
    p.add_argument("--no-silent", action="store_true",
                   help="choose among the settings that leave no wrong score clean (no wrong score "
                        "without a doubt); the weight orders the rest")
    p.add_argument("--labelled-cards", action="store_true",
                   help="weigh row_doubts alone on the labelled cards (no network runs)")
    args = p.parse_args(argv)
    if args.labelled_cards:
        return labelled_rows(args.data, args.limit, args.weight, args.no_silent)
    if args.write_manifest:
        print("zipai tune doubts: these settings are code defaults (zipai.vision.layout.Params), not the "
              "manifest's; nothing to write", file=sys.stderr)
        return 2
    det = Detector(args.model)
    settings = [(low, rows) for low in LOW_SELECT for rows in ROWS]
    counts = {s: Count() for s in settings}
    scenes = labelled_scenes(args.data, args.limit)
    for decoded, anns, truth, base in replay_scenes(scenes):
        if truth is None:  # a scene with no winning layout has no score to get right
            continue
        found = det.detect(decoded)
        dets, spare = found.detections, found.spare
        for low, rows in settings:
            sc = scan_detections(decoded.width, decoded.height, dets, base,
                                 Params(low_select=low, row_doubts=rows, doubt_rule="reasons"), spare)
            right = same_score(sc.assembled.layout, sc.assembled.complete, truth)
            m = match_scene([(d.card, d.box) for d in sc.detections], anns)
            counts[(low, rows)].add(sc, right, m)
    order = sorted(settings, key=lambda s: (counts[s].silent_ok(args.no_silent), counts[s].worth(args.weight),
                                            -s[0], -len(s[1])), reverse=True)
    names = ", ".join(str(d) for d in args.data)
    n = counts[settings[0]]
    print(f"{n.scenes} scenes of {names}; {n.complete} complete enough to score; best first "
          f"(worth: clean right - {args.weight:g} x clean wrong)")
    print("  low_select  claimed_row   clean  clean wrong      flagged right  flagged wrong  worth  "
          "wrong cards named  named cards wrong")
    for s in order:
        c = counts[s]
        n_clean = c.clean_right + c.clean_wrong
        named = c.named_wrong + c.named_right
        print(f"  {s[0]:<10}  {'+'.join(sorted(s[1])) or '-':<12}  {n_clean:<5}  {c.clean_wrong:<4} "
              f"({c.clean_wrong / max(1, n_clean):6.1%})  {c.flagged_right:<13}  {c.flagged_wrong:<13}  "
              f"{c.worth(args.weight):<5g}  {c.named_wrong:>4}/{c.named_wrong + c.unnamed_wrong:<4} "
              f"({c.named_wrong / max(1, c.named_wrong + c.unnamed_wrong):5.1%})  "
              f"{c.named_wrong / max(1, named):5.1%} of {named}")
    best = order[0]
    now = Params()
    print(f"chosen: low_select {best[0]}, row_doubts {sorted(best[1])} (Params has low_select "
          f"{now.low_select}, row_doubts {sorted(now.row_doubts)})")
    return 0


def labelled_rows(folders: list, limit: int, weight: float, no_silent: bool = False) -> int:
    """Each ``ROWS`` setting scored on the scenes' labelled cards (``labelled_scan``), the rest
    of ``Params`` as shipped: how many complete scans it leaves clean, right and wrong, and how
    many it flags; best first, as ``main`` weighs them."""
    from zipai.models.eval_layout import labelled_scan

    counts = {rows: Count() for rows in ROWS}
    scenes = labelled_scenes(folders, limit)
    for _, im, anns in scenes:
        truth = im.get("layout")
        if truth is None:  # a scene with no layout has no score to get right
            continue
        for rows in ROWS:
            p = Params(row_doubts=rows)
            sc = labelled_scan(im, anns, lambda w, h, d, b, p=p: scan_detections(w, h, d, b, p))
            counts[rows].add(sc, same_score(sc.assembled.layout, sc.assembled.complete, truth))
    order = sorted(ROWS, key=lambda r: (counts[r].silent_ok(no_silent), counts[r].worth(weight), -len(r)),
                   reverse=True)
    n = counts[ROWS[0]]
    print(f"{n.scenes} scenes of {', '.join(str(d) for d in folders)}, labelled cards; {n.complete} complete "
          f"enough to score; best first (worth: clean right - {weight:g} x clean wrong)")
    print("  claimed_row               clean  clean wrong  flagged right  flagged wrong  worth")
    for r in order:
        c = counts[r]
        print(f"  {'+'.join(sorted(r)) or '-':<24}  {c.clean_right + c.clean_wrong:<5}  {c.clean_wrong:<11}  "
              f"{c.flagged_right:<13}  {c.flagged_wrong:<13}  {c.worth(weight):g}")
    print(f"chosen: row_doubts {sorted(order[0])} (Params has row_doubts {sorted(Params().row_doubts)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
