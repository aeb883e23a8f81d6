"""Choose the layout step's clustering limits (``zipai.vision.layout.Params``) on validation
scenes only, from their labelled cards, so that the networks' errors do not blur the choice.

Every combination in the grid is tried: how far across its column the next card may lie
(``max_across``), how much wider than the usual gap the widest gap of one long row must be to
cut it into the two rows laid side by side (``row_split``), the shortest step to the next card
(``min_step``), how far a face may turn from the layout's axis before it lies apart
(``off_axis``), and how much longer than a column's own step a step must be to end the column
(``column_break``). The rule: the most scenes scored as the scene (the engine gives the scene's
win, points and payouts), then the most engine inputs equal to the scene's, then the fewest
limits moved from the current defaults. The layout step does not depend on the model, so the
choice goes into ``Params``' defaults by hand; the script prints it.

    zipai tune layout data/detector/val_tune400 data/detector/val_unseen
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import asdict, replace
from pathlib import Path

from zipai.models.evaluate import labelled_detections, labelled_scenes, layout_base, same_layout, same_score
from zipai.vision.layout import Draft, Params, assemble, settle_strays
from zipai.vision.scan import DEFAULT_BASE

GRID: dict[str, tuple[float, ...]] = {
    "max_across": (0.35, 0.45, 0.55),
    "row_split": (1.1, 1.2, 1.4),
    "min_step": (0.15, 0.25),
    "off_axis": (30.0, 40.0),
    "column_break": (2.2, 2.6),
}


def settings(base: Params) -> list[Params]:
    """The current defaults first, then every combination of the grid."""
    out = [base]
    for values in itertools.product(*GRID.values()):
        p = replace(base, **dict(zip(GRID, values, strict=True)))
        if p != base:
            out.append(p)
    return out


def moved(p: Params, base: Params) -> int:
    """How many limits differ from the defaults."""
    a, b = asdict(p), asdict(base)
    return sum(a[k] != b[k] for k in GRID)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="zipai tune layout", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path, nargs="+", help="rendered folders; their scenes are pooled")
    ap.add_argument("--limit", type=int, default=0, help="only the first N scenes of each folder")
    args = ap.parse_args(argv)
    scenes = [(labelled_detections(anns), {**DEFAULT_BASE, **layout_base(im["layout"])}, im["layout"])
              for _, im, anns in labelled_scenes(args.data, args.limit) if "layout" in im]
    base = Params()
    rows = []
    for k, p in enumerate(settings(base)):
        scored = equal = 0
        for dets, lay_base, truth in scenes:
            draft = Draft.propose(dets, lay_base, p)
            draft = settle_strays(draft) or draft
            asm = assemble(draft.columns, draft.detections, lay_base, p)
            scored += same_score(asm.layout, asm.complete, truth)
            equal += same_layout(asm.layout, truth)
        rows.append((scored, equal, -moved(p, base), -k, p))
        if (k + 1) % 50 == 0:
            print(f"  {k + 1} settings run", file=sys.stderr)
    rows.sort(key=lambda r: r[:4], reverse=True)
    n = max(1, len(scenes))
    names = " + ".join(str(f) for f in args.data)
    print(f"{len(scenes)} scenes of {names}, their labelled cards; best settings first:")
    print("  scored  equal   " + "  ".join(GRID))
    current = next(r for r in rows if r[4] == base)
    for r in [*rows[:8], current]:
        values = "  ".join(f"{getattr(r[4], name):<{len(name)}g}" for name in GRID)
        mark = "  (current defaults)" if r[4] == base else ""
        print(f"  {r[0] / n:.4f}  {r[1] / n:.4f}  {values}{mark}")
    best = rows[0][4]
    print("choice: " + ", ".join(f"{name}={getattr(best, name):g}" for name in GRID))
    return 0


if __name__ == "__main__":
    sys.exit(main())
