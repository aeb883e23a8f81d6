"""Per-card accuracy, whole-scene exact rate and back precision/recall of the shipped detector
on a rendered, labelled split (the held-out-font split for the README figures).

A card counts as read when a detection of the right class has its box centre inside the card's
visible polygon, matched one to one (zipai.models.evaluate). Runs the same code as `zipai scan`.

    zipai data render --out data/detector/heldout --count 300 --seed 7 --split heldout
    zipai eval detector data/detector/heldout [--limit N] [--record] [--model-card docs/model-card.md]

Several folders are pooled into one set of figures (the 800 validation scenes are three), as the
tuners pool them; only a single whole split is recorded in the model's provenance or the model card.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from zipai.models.evaluate import (
    LAYOUT_ROWS,
    DoubtFigures,
    Scene,
    SceneMatch,
    Totals,
    _polygon,
    category_name,
    clean,
    doubt_lines,
    inside,
    labelled_detections,
    labelled_scenes,
    layout_base,
    match_scene,
    named_cards,
    reasons_scan,
    same_layout,
    same_score,
    true_cards,
)
from zipai.models.manifest import read_provenance, update_manifest, update_provenance
from zipai.models.model_card import write_card
from zipai.vision.constants import SYMMETRIC
from zipai.vision.decode import Decoded, load
from zipai.vision.detector import Detection, Detector, default_manifest
from zipai.vision.layout import Column
from zipai.vision.scan import Scan, scan_decoded, scan_detections


def calibrate(pairs: list[tuple[float, bool]]) -> tuple[float, float]:
    """The redness threshold that best separates red from black ink, and its accuracy."""
    if not pairs:
        return 0.1, 0.0
    r = np.asarray([p[0] for p in pairs])
    red = np.asarray([p[1] for p in pairs])
    ts = np.quantile(r, np.linspace(0.01, 0.99, 197))
    accs = [float(((r > t) == red).mean()) for t in ts]
    k = int(np.argmax(accs))
    return float(ts[k]), accs[k]


def why_missed(det: Detector, decoded: Decoded, detections: list[Detection], annotations: list[dict],
               causes: Counter, took: tuple[int, tuple[int, int, int, int]] | None = None) -> None:
    """Sort the cards with no detection by where they were lost: no finder peak at all (below
    0.05), a peak under the least that is weighed (the selector's floor; without a selector, the
    finder's threshold), or a find weighed and turned away (by the selector, or by the reader's
    "none" and duplicates under the rules), in the look the detections came from (the second,
    closer one where the photo had one: ``took``, the scan's ``look``). Backs lying apart (a
    stock pile's top card) are counted on their own: they look like no back in a group, lying at
    any angle on the pile's slivers."""
    polys = [(a, _polygon(a)) for a in annotations if not a.get("ignore")]
    missed = [(a, poly) for a, poly in polys if not any(inside(d.center, poly) for d in detections)]
    if not missed:
        return
    raw = det.look(decoded, threshold=0.05, long_side=took and took[0], window=took and took[1])
    centres = [((b[0] + b[2]) / 2 * raw.scale, (b[1] + b[3]) / 2 * raw.scale) for b in raw.boxes]
    for a, poly in missed:
        back = category_name(int(a["category_id"])) == "back"
        kind = 1 if back else 0
        best = max((float(s) for c, s, k in zip(centres, raw.scores, raw.kinds, strict=True)
                    if k == kind and inside(c, poly)), default=0.0)
        sel, finder = det.config.postprocess.selector, det.config.finder
        if sel is not None:
            thr, under, dropped = sel.floor, "finder peak under the selector's floor", \
                "found, then turned away by the selector"
        else:
            thr, under, dropped = finder.back_threshold if back else finder.threshold, \
                "finder peak under threshold", "found, then dropped by the reader or a duplicate"
        cause = "no finder peak" if best == 0.0 else under if best < thr else dropped
        what = ("back lying apart" if a.get("row") == "loose" else "back") if back else "face"
        causes[(what, cause)] += 1


def why_extra(detections: list[Detection], annotations: list[dict], m: SceneMatch, kinds: Counter) -> None:
    """Sort the extra detections (matched to no card) by what they lie on. Most lie on a card
    that another detection already reads: the same face again is its far end (1.5 glyph sizes
    or more away, turned round against it; 一二三十 read the same turned round, so for them only
    the distance counts), or the same face found twice closer than that (one glyph split in
    two: a stroke of 二 or 三 on its own, a radical); another face there is a part of the glyph
    read as another (一 for a stroke of 二) or, further away, a misread far end. A back may be
    one back found twice. The rest lie on no card: the table's print, a card's edge, a lamp."""
    polys = [(a, _polygon(a)) for a in annotations if not a.get("ignore")]
    for i in m.extras:
        d = detections[i]
        on = next(((a, poly) for a, poly in polys if inside(d.center, poly)), None)
        if on is None:
            kinds["on no card"] += 1
            continue
        a, poly = on
        name = category_name(int(a["category_id"]))
        if d.card == "back":
            kinds["a back found twice" if name == "back" else "a back on a face card"] += 1
            continue
        if name == "back":
            kinds["a face on a card back"] += 1
            continue
        other = [e for k, e in enumerate(detections) if k != i and inside(e.center, poly)]
        if not other:
            kinds["a face on a card no other detection reads" if d.card == name else "a misread"] += 1
            continue
        dist, e = min(((float(np.hypot(e.center[0] - d.center[0], e.center[1] - d.center[1])), e)
                       for e in other), key=lambda pair: pair[0])
        apart = dist / max(d.box[2] - d.box[0], d.box[3] - d.box[1],
                           e.box[2] - e.box[0], e.box[3] - e.box[1], 1.0)
        turned = d.card in SYMMETRIC or d.down[0] * e.down[0] + d.down[1] * e.down[1] < -0.5
        if apart < 1.5:
            kinds["the same face found twice close (a split glyph)" if d.card == name
                  else "part of a glyph read as another face"] += 1
        elif d.card != name:
            kinds["another face on a card already read, apart"] += 1
        elif turned:
            kinds["the same face at the card's far end"] += 1
        else:
            kinds["the same face found twice apart, facing one way"] += 1


def layout_faults(cols: list[Column], anns: list[dict], doubts: set[str]) -> tuple[str, ...]:
    """Why the layout step, given a scene's labelled cards, did not score it as the scene: what
    no photo can settle first (an all-back group the user names; a layout card hidden under
    something, labelled but ignored), then how its columns differ from the labelled groups."""
    if "unnamed_concealed" in doubts:
        return ("an all-back group (the user names it)",)
    if any(a.get("ignore") and a.get("row") in LAYOUT_ROWS for a in anns):
        return ("a layout card hidden",)
    keep = [a for a in anns if not a.get("ignore")]
    size = Counter((a.get("row"), a.get("group")) for a in keep)
    faults = set()
    for c in cols:
        groups = {(keep[i].get("row"), keep[i].get("group")) for i in c.detections if i >= 0}
        if not groups:  # a card no find shows, read by the rules
            continue
        if len(groups) > 1:
            faults.add("groups merged in one column")
            continue
        (row, group), = groups
        if row not in LAYOUT_ROWS:
            if c.state != "loose":
                faults.add("a loose card taken in")
        elif c.state == "loose":
            faults.add("a layout card left out")
        else:
            if len(c.detections) < size[(row, group)]:
                faults.add("a group split over columns")
            if c.row != row:
                faults.add("the claimed and revealed rows told apart wrongly")
    return tuple(sorted(faults)) or ("other: " + ", ".join(sorted(doubts)),)


def labelled_scan(im: dict, anns: list[dict]) -> Scan:
    """The scan of a scene's labelled cards (``true_cards``: the layout's hidden ones too), the
    finder and the reader set aside: every step a scan takes after the networks, with the
    scene's seat and win flags."""
    return scan_detections(int(im["width"]), int(im["height"]), labelled_detections(true_cards(anns)),
                           layout_base(im["layout"]))


@dataclass(slots=True)
class LayoutSplit:
    """Scenes scored as the scene end to end beside the layout step's own figure (the same
    scenes' labelled cards), and each scene scored wrong put down to the cards or the layout:
    a card error when a card of the layout was misread, missed or found extra and the labelled
    cards score right; a layout error when the labelled cards score wrong too, or when every
    card of the layout was read right."""

    scenes: int = 0
    scored: int = 0
    scored_true: int = 0  # scored as the scene from the labelled cards
    card_errors: int = 0
    layout_errors: int = 0
    layout_errors_cards_right: int = 0  # of the layout errors, scenes whose cards were all read right
    cards_right: int = 0  # scenes whose layout cards were all read right, nothing extra
    no_result_cards_right: int = 0  # of those, scans with no result at all
    wrong_without_doubt: int = 0  # scans with a result, scored wrong, and no doubt but strays
    faults: Counter = field(default_factory=Counter)  # the labelled cards' wrong scenes, by fault

    def add(self, sc: Scan, m: SceneMatch, truth: dict, anns: list[dict], true_scan: Scan) -> None:
        """One scene: its scan, how its detections match its labels, its layout and annotations,
        and the scan of its labelled cards."""
        right = same_score(sc.assembled.layout, sc.assembled.complete, truth)
        true_right = same_score(true_scan.assembled.layout, true_scan.assembled.complete, truth)
        self.scenes += 1
        self.scored += right
        self.scored_true += true_right
        self.cards_right += m.layout_read
        self.no_result_cards_right += m.layout_read and sc.result is None
        self.wrong_without_doubt += not right and sc.result is not None and clean(sc)
        if not true_right:
            doubts = {d.kind for d in true_scan.assembled.doubts}
            self.faults[" + ".join(layout_faults(true_scan.columns, true_cards(anns), doubts))] += 1
        if right:
            return
        if true_right and not m.layout_read:
            self.card_errors += 1
        else:
            self.layout_errors += 1
            self.layout_errors_cards_right += m.layout_read

    def figures(self) -> dict[str, float | int]:
        n = max(1, self.scenes)
        return {"scored_labelled_cards_rate": round(self.scored_true / n, 4),
                "wrong_card_errors": self.card_errors, "wrong_layout_errors": self.layout_errors,
                "no_result_cards_right_rate": round(self.no_result_cards_right / max(1, self.cards_right), 4),
                "wrong_without_doubt": self.wrong_without_doubt}

    def summary(self) -> str:
        n = max(1, self.scenes)
        lines = [f"  scored as the scene: end to end {self.scored}/{self.scenes} ({self.scored / n:.2%}), "
                 f"the layout step on the labelled cards {self.scored_true}/{self.scenes} "
                 f"({self.scored_true / n:.2%})",
                 f"  scored wrong end to end: {self.card_errors} card errors (the labelled cards score "
                 f"right), {self.layout_errors} layout errors ({self.layout_errors_cards_right} with "
                 "every card of the layout read right)",
                 f"  no result at all: {self.no_result_cards_right} of the {self.cards_right} scenes whose "
                 f"layout cards were all read right; scored wrong with no doubt: {self.wrong_without_doubt}"]
        if self.faults:
            lines.append("  the labelled cards' scenes not scored as the scene, by what went wrong: "
                         + ", ".join(f"{why} x{k}" for why, k in self.faults.most_common()))
        return "\n".join(lines)


def layout_only(scenes: list[Scene]) -> int:
    """Layout figures from perfect detections (``labelled_scan``), through every step a scan
    takes after the networks: how often the photo's engine input equals the scene's, how often
    it is complete enough to score, scored as the scene, how often it gives no result or a wrong
    one with no doubt, and why the others are not scored."""
    n = ok = complete = right = none = silent = 0
    faults: Counter = Counter()
    for _, im, anns in scenes:
        if "layout" not in im:
            continue
        sc = labelled_scan(im, anns)
        cols, asm = sc.columns, sc.assembled
        n += 1
        ok += same_layout(asm.layout, im["layout"])
        complete += asm.complete
        scored = same_score(asm.layout, asm.complete, im["layout"])
        right += scored
        none += sc.result is None
        silent += not scored and sc.result is not None and clean(sc)
        if not scored:
            faults[" + ".join(layout_faults(cols, true_cards(anns), {d.kind for d in asm.doubts}))] += 1
    print(f"layout step on the labelled cards of {n} scenes: layout exact {ok / max(1, n):.4f}, "
          f"complete {complete / max(1, n):.4f}, scored as the scene {right / max(1, n):.4f}, "
          f"no result {none / max(1, n):.4f}, scored wrong with no doubt {silent}")
    if faults:
        print("scenes not scored as the scene, by what went wrong:")
        for why, k in faults.most_common():
            print(f"  {k:>4}  {why}")
    return 0


def figures_key(scenes: list[Scene], data: Path) -> str:
    """The manifest key for a split's figures: decorated styles apart, so they never replace style 1's."""
    first = scenes[0][1] if scenes else {}
    split = str(first.get("split", data.name))
    style = first.get("style", 1)
    return split if style in (1, None) else f"{split}_style{style}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zipai eval detector", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, nargs="+",
                   help="rendered COCO folders (annotations.json, images/), pooled")
    p.add_argument("--limit", type=int, default=0, help="only the first N images of each folder")
    p.add_argument("--model", type=Path, default=None, help="manifest.json (default: the shipped model)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--record", action="store_true",
                   help="record the figures in the model's provenance.json (and, with --calibrate-color, "
                        "the ink threshold in its manifest)")
    p.add_argument("--model-card", type=Path, default=None, metavar="PATH",
                   help="write the model card (docs/model-card.md) from the model's provenance and "
                        "these figures")
    p.add_argument("--failures", type=int, default=10, help="list this many imperfect scenes")
    p.add_argument("--calibrate-color", action="store_true",
                   help="fit the red/black ink threshold on this split (and store it with --record)")
    p.add_argument("--why-missed", action="store_true",
                   help="sort the cards with no detection by where they were lost")
    p.add_argument("--why-extra", action="store_true",
                   help="sort the extra detections by what they lie on (a far end, a split glyph, no card)")
    p.add_argument("--reliability", type=Path, default=None, metavar="PNG",
                   help="draw the chance's reliability diagram (the layout cards' chance of being wrong "
                        "against how many were) to this PNG")
    p.add_argument("--labelled-cards", action="store_true",
                   help="skip the networks: give the layout step the labelled cards (its own figures)")
    args = p.parse_args(argv)
    try:
        scenes = labelled_scenes(args.data, args.limit)
    except ValueError as exc:
        print(f"zipai eval detector: {exc}", file=sys.stderr)
        return 2
    if args.labelled_cards:
        return layout_only(scenes)
    if (args.record or args.model_card) and (args.limit or len(args.data) > 1):
        # A part of a split recorded under the split's name once replaced the held-out figures.
        flag = "--record" if args.record else "--model-card"
        print(f"zipai eval detector: {flag} records one whole split; drop --limit and other folders",
              file=sys.stderr)
        return 2
    det = Detector(args.model, threads=args.threads)
    totals = Totals()
    fonts: dict[str, Totals] = {}
    times: list[float] = []
    failures: list[str] = []
    reds: list[tuple[float, bool]] = []
    causes: Counter = Counter()
    extra_kinds: Counter = Counter()
    rereads: Counter = Counter()
    taken: Counter = Counter()  # weak finds the rules took in (layout.take_in): were they cards?
    layouts = layout_ok = complete = scored = n_clean = clean_wrong = 0
    split = LayoutSplit()  # the layout step on the labelled cards, and why the wrong scenes are wrong
    named = [0, 0, 0]  # the layout's cards: wrong and named by a card doubt, right and named, wrong
    by_chance, by_reasons = DoubtFigures(), DoubtFigures()  # the card doubts now and by the rule before
    colour_ok = colour_n = 0
    for n, (folder, im, anns) in enumerate(scenes):
        t0 = time.perf_counter()
        decoded = load(folder / im["file_name"])
        # the seat and win flags the user would give, so that the score can be compared
        sc = scan_decoded(decoded, det, layout_base(im["layout"]) if "layout" in im else None)
        dets = sc.detections
        times.append(time.perf_counter() - t0)
        if args.why_missed:
            why_missed(det, decoded, dets, anns, causes, sc.look)
        if "layout" in im:
            layouts += 1
            layout_ok += same_layout(sc.assembled.layout, im["layout"])
            complete += sc.assembled.complete
            right = same_score(sc.assembled.layout, sc.assembled.complete, im["layout"])
            scored += right
            if clean(sc):
                n_clean += 1
                clean_wrong += not right
        m = match_scene([(d.card, d.box) for d in dets], anns)
        if "layout" in im:
            split.add(sc, m, im["layout"], anns, labelled_scan(im, anns))
        named = [a + b for a, b in zip(named, named_cards(sc, m), strict=True)]
        scored_right = right if "layout" in im else None
        by_chance.add(sc, m, scored_right)
        base = layout_base(im["layout"]) if "layout" in im else None
        by_reasons.add(reasons_scan(sc, base), m, scored_right)
        if args.why_extra:
            why_extra(dets, anns, m, extra_kinds)
        for d in dets:
            if d.taken_in:
                names = {category_name(int(a["category_id"])) for a in anns if inside(d.center, _polygon(a))}
                taken["a card of that class" if d.card in names else
                      "a card of another class" if names else "no card"] += 1
            if d.card == "back":
                continue
            truth = next((a for a in anns if a.get("color") and inside(d.center, _polygon(a))), None)
            if d.read_as:  # the rules took another of the reader's choices: was it right?
                names = {category_name(int(a["category_id"])) for a in anns if inside(d.center, _polygon(a))}
                rereads["to the right card" if d.card in names else
                        "from the right card" if d.read_as in names else "wrong to wrong"] += 1
            if truth is not None:
                reds.append((d.redness, truth["color"] == "red"))
                colour_n += 1
                colour_ok += d.color == truth["color"]
        totals.add(m)
        fonts.setdefault(str(im.get("font", "?")), Totals()).add(m)
        if not m.exact and len(failures) < args.failures:
            failures.append(f"  {im['file_name']} ({im.get('font')}): {m.read}/{m.cards} read, "
                            f"wrong {m.wrong}, missed {m.missed}, extra {m.extra}")
        if (n + 1) % 25 == 0:
            f = totals.figures()
            print(f"  {n + 1}/{len(scenes)} per card {f['per_card_accuracy']:.4f} "
                  f"exact {f['scene_exact_rate']:.3f}", file=sys.stderr)
    fig = totals.figures()
    fig["detect_ms_median"] = round(1000 * statistics.median(times), 1) if times else 0.0
    fig["ink_colour_accuracy"] = round(colour_ok / max(1, colour_n), 4)
    fig["layout_exact_rate"] = round(layout_ok / max(1, layouts), 4)
    fig["layout_complete_rate"] = round(complete / max(1, layouts), 4)
    fig["scored_as_scene_rate"] = round(scored / max(1, layouts), 4)
    fig["clean_rate"] = round(n_clean / max(1, layouts), 4)
    fig["clean_wrong_rate"] = round(clean_wrong / max(1, n_clean), 4)
    fig["wrong_cards_named_rate"] = round(named[0] / max(1, named[0] + named[2]), 4)
    fig["named_cards_wrong_rate"] = round(named[0] / max(1, named[0] + named[1]), 4)
    fig.update(split.figures())
    fig.update({f"doubts_{k}": v for k, v in by_chance.figures().items()})
    fig.update({f"doubts_before_{k}": v for k, v in by_reasons.figures().items()})
    print(f"split {', '.join(str(d) for d in args.data)} ({fig['scenes']} scenes, "
          f"{fig['cards']} labelled cards, "
          f"fonts: {', '.join(sorted(fonts))})")
    for k, v in fig.items():
        print(f"  {k}: {v}")
    for font, t in sorted(fonts.items()):
        ff = t.figures()
        print(f"  font {font}: per card {ff['per_card_accuracy']:.4f}, exact {ff['scene_exact_rate']:.3f} "
              f"({ff['scenes']} scenes)")
    print("  by row: " + ", ".join(f"{row} {r}/{n} ({r / max(1, n):.2%})"
                                   for row, (n, r) in sorted(totals.rows.items())))
    conf = Counter(totals.confusions).most_common(12)
    if conf:
        print("  most common misreads (true -> read): " + ", ".join(f"{a}->{b} x{k}" for (a, b), k in conf))
    if totals.missed:
        print("  missed cards by class: " + ", ".join(f"{k} x{v}" for k, v in
                                                      sorted(totals.missed.items(), key=lambda x: -x[1])))
    if taken:
        print("  weak finds the rules took in, lying on: "
              + ", ".join(f"{k} {v}" for k, v in taken.most_common()))
    if rereads:
        print("  reads the rules changed: " + ", ".join(f"{k} {v}" for k, v in rereads.most_common()))
    if causes:
        print("  cards with no detection, by where they were lost: " + ", ".join(
            f"{kind} {cause} x{k}" for (kind, cause), k in causes.most_common()))
    if extra_kinds:
        print("  extra detections, by what they lie on: " + ", ".join(
            f"{kind} x{k}" for kind, k in extra_kinds.most_common()))
    print(split.summary())
    print("\n".join(doubt_lines(by_chance, by_reasons)))
    if args.reliability:
        from zipai.models.reliability import draw

        draw(by_chance.chances, args.reliability, ", ".join(str(d) for d in args.data))
        print(f"  reliability diagram written to {args.reliability}")
    if failures:
        print("imperfect scenes:")
        print("\n".join(failures))
    if args.calibrate_color:
        t, acc = calibrate(reds)
        print(f"  ink colour: threshold {t:.3f} separates red from black on {acc:.4f} of {len(reds)} glyphs")
    manifest = args.model or default_manifest()
    if args.record:
        if args.calibrate_color:
            update_manifest(manifest, "color", {"red_threshold": t})
        update_provenance(manifest, "figures", {figures_key(scenes, args.data[0]): fig})
    if args.model_card:
        command = shlex.join(["zipai", "eval", "detector", *(argv if argv is not None else sys.argv[1:])])
        write_card(args.model_card, manifest, read_provenance(manifest),
                   {figures_key(scenes, args.data[0]): fig}, command)
        print(f"model card written to {args.model_card}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
