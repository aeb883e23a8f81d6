"""Per-card accuracy, whole-scene exact rate and back precision/recall of the shipped detector
on a rendered, labelled split (the held-out-font split for the README figures).

A card counts as read when a detection of the right class has its box centre inside the card's
visible polygon, matched one to one (zipai.models.evaluate). Runs the same code as `zipai scan`.

    zipai data render --out data/detector/heldout --count 300 --seed 7 --split heldout
    zipai eval detector data/detector/heldout [--limit N] [--record] [--model-card docs/model-card.md]
    zipai eval detector data/detector/heldout --before REV   # the layout step at git REV beside today's
    zipai eval detector data/layout/val_dev --labelled-cards [--before REV]   # the layout step alone
    zipai eval detector data/detector/heldout --model-before MANIFEST   # the model before, side by side

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
from types import ModuleType

import numpy as np

from zipai.models.before import scan_before
from zipai.models.eval_layout import (  # the layout's own figures; importable from here as before
    Answered,
    LayoutSplit,
    Shown,
    compare,
    labelled_scan,
    layout_only,
    shown_scan,
)
from zipai.models.eval_layout import layout_faults as layout_faults
from zipai.models.evaluate import (
    DoubtFigures,
    Scene,
    SceneMatch,
    Totals,
    _polygon,
    category_name,
    clean,
    doubt_lines,
    inside,
    labelled_scenes,
    layout_base,
    match_scene,
    named_cards,
    reasons_scan,
    same_layout,
    same_score,
)
from zipai.models.manifest import read_provenance, update_manifest, update_provenance
from zipai.models.model_card import write_card
from zipai.vision.constants import SYMMETRIC
from zipai.vision.decode import Decoded, load
from zipai.vision.detector import Detected, Detection, Detector, default_manifest
from zipai.vision.scan import scan_decoded


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


class SameFinds:
    """A detector that runs the networks once a photo (until ``found`` is reset), so that the
    code now and the code before (``--before``) lay out the same detections."""

    def __init__(self, det: Detector) -> None:
        self.det = det
        self.found: Detected | None = None

    def detect(self, decoded: Decoded) -> Detected:
        if self.found is None:
            self.found = self.det.detect(decoded)
        return self.found


@dataclass(slots=True)
class Measure:
    """One model's figures over scenes, scene by scene: what ``zipai eval detector`` prints,
    and the per-class tallies and exact scenes that the comparison with a model before uses."""

    det: Detector
    why_missed: bool = False
    why_extra: bool = False
    failures_wanted: int = 10
    totals: Totals = field(default_factory=Totals)
    fonts: dict[str, Totals] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    reds: list[tuple[float, bool]] = field(default_factory=list)
    causes: Counter = field(default_factory=Counter)
    extra_kinds: Counter = field(default_factory=Counter)
    rereads: Counter = field(default_factory=Counter)
    taken: Counter = field(default_factory=Counter)  # weak finds the rules took in: were they cards?
    cards_by: Counter = field(default_factory=Counter)  # labelled cards by class
    extras_by: Counter = field(default_factory=Counter)  # extra detections by the class they read
    exact: list[bool] = field(default_factory=list)  # scene by scene
    layouts: int = 0
    layout_ok: int = 0
    complete: int = 0
    scored: int = 0
    n_clean: int = 0
    clean_wrong: int = 0
    split: LayoutSplit = field(default_factory=LayoutSplit)
    named: list[int] = field(default_factory=lambda: [0, 0, 0])  # wrong and named, right and named, wrong
    colour_ok: int = 0
    colour_n: int = 0
    before: ModuleType | None = None  # the layout step at a git revision (--before, models.before)
    before_rev: str = ""
    split_before: LayoutSplit = field(default_factory=LayoutSplit)  # the same, with the code before
    answered: Answered = field(default_factory=Answered)  # the split once the player has answered
    answered_before: Answered = field(default_factory=Answered)
    shown: Shown = field(default_factory=Shown)  # the cards that show, each read right
    shown_before: Shown = field(default_factory=Shown)
    by_chance: DoubtFigures = field(default_factory=DoubtFigures)  # the card doubts now
    by_reasons: DoubtFigures = field(default_factory=DoubtFigures)  # and by the rule before

    def scene(self, folder: Path, im: dict, anns: list[dict]) -> None:
        """Scan one labelled scene as ``zipai scan`` would and count it."""
        t0 = time.perf_counter()
        decoded = load(folder / im["file_name"])
        finds = SameFinds(self.det)  # the networks run once a photo, for the code now and the code before
        # the seat and win flags the user would give, so that the score can be compared
        sc = scan_decoded(decoded, finds, layout_base(im["layout"]) if "layout" in im else None)
        dets = sc.detections
        self.times.append(time.perf_counter() - t0)
        if self.why_missed:
            why_missed(self.det, decoded, dets, anns, self.causes, sc.look)
        if "layout" in im:
            self.layouts += 1
            self.layout_ok += same_layout(sc.assembled.layout, im["layout"])
            self.complete += sc.assembled.complete
            right = same_score(sc.assembled.layout, sc.assembled.complete, im["layout"])
            self.scored += right
            if clean(sc):
                self.n_clean += 1
                self.clean_wrong += not right
        m = match_scene([(d.card, d.box) for d in dets], anns)
        if "layout" in im:
            true_scan = labelled_scan(im, anns)
            self.split.add(sc, m, im["layout"], anns, true_scan)
            self.answered.add(sc, m, im, anns, true_scan)
            self.shown.add(shown_scan(im, anns), im, anns)
            if self.before is not None:
                was = self.before.scan_decoded(decoded, finds, layout_base(im["layout"]))
                got = match_scene([(d.card, d.box) for d in was.detections], anns)
                true_was = labelled_scan(im, anns, self.before.scan_detections)
                self.split_before.add(was, got, im["layout"], anns, true_was)
                self.answered_before.add(was, got, im, anns, true_was, self.before.rescore)
                self.shown_before.add(shown_scan(im, anns, self.before.scan_detections), im, anns,
                                      self.before.rescore)
        self.named = [a + b for a, b in zip(self.named, named_cards(sc, m), strict=True)]
        scored_right = right if "layout" in im else None
        self.by_chance.add(sc, m, scored_right)
        base = layout_base(im["layout"]) if "layout" in im else None
        self.by_reasons.add(reasons_scan(sc, base), m, scored_right)
        if self.why_extra:
            why_extra(dets, anns, m, self.extra_kinds)
        self.cards_by.update(category_name(int(a["category_id"])) for a in anns if not a.get("ignore"))
        self.extras_by.update(dets[i].card for i in m.extras)
        for d in dets:
            if d.taken_in:
                names = {category_name(int(a["category_id"])) for a in anns if inside(d.center, _polygon(a))}
                self.taken["a card of that class" if d.card in names else
                           "a card of another class" if names else "no card"] += 1
            if d.card == "back":
                continue
            truth = next((a for a in anns if a.get("color") and inside(d.center, _polygon(a))), None)
            if d.read_as:  # the rules took another of the reader's choices: was it right?
                names = {category_name(int(a["category_id"])) for a in anns if inside(d.center, _polygon(a))}
                self.rereads["to the right card" if d.card in names else
                             "from the right card" if d.read_as in names else "wrong to wrong"] += 1
            if truth is not None:
                self.reds.append((d.redness, truth["color"] == "red"))
                self.colour_n += 1
                self.colour_ok += d.color == truth["color"]
        self.totals.add(m)
        self.exact.append(m.exact)
        self.fonts.setdefault(str(im.get("font", "?")), Totals()).add(m)
        if not m.exact and len(self.failures) < self.failures_wanted:
            self.failures.append(f"  {im['file_name']} ({im.get('font')}): {m.read}/{m.cards} read, "
                                 f"wrong {m.wrong}, missed {m.missed}, extra {m.extra}")

    def figures(self) -> dict[str, float | int]:
        fig = self.totals.figures()
        n = max(1, self.layouts)
        fig["detect_ms_median"] = round(1000 * statistics.median(self.times), 1) if self.times else 0.0
        fig["ink_colour_accuracy"] = round(self.colour_ok / max(1, self.colour_n), 4)
        fig["layout_exact_rate"] = round(self.layout_ok / n, 4)
        fig["layout_complete_rate"] = round(self.complete / n, 4)
        fig["scored_as_scene_rate"] = round(self.scored / n, 4)
        fig["clean_rate"] = round(self.n_clean / n, 4)
        fig["clean_wrong_rate"] = round(self.clean_wrong / max(1, self.n_clean), 4)
        fig["wrong_cards_named_rate"] = round(self.named[0] / max(1, self.named[0] + self.named[2]), 4)
        fig["named_cards_wrong_rate"] = round(self.named[0] / max(1, self.named[0] + self.named[1]), 4)
        fig.update(self.split.figures())
        fig.update(self.answered.figures())
        if self.shown.scenes:
            fig.update(self.shown.figures())
        fig.update({f"doubts_{k}": v for k, v in self.by_chance.figures().items()})
        fig.update({f"doubts_before_{k}": v for k, v in self.by_reasons.figures().items()})
        return fig

    def report(self, fig: dict[str, float | int], data: list[Path]) -> None:
        totals = self.totals
        print(f"split {', '.join(str(d) for d in data)} ({fig['scenes']} scenes, "
              f"{fig['cards']} labelled cards, "
              f"fonts: {', '.join(sorted(self.fonts))})")
        for k, v in fig.items():
            print(f"  {k}: {v}")
        for font, t in sorted(self.fonts.items()):
            ff = t.figures()
            print(f"  font {font}: per card {ff['per_card_accuracy']:.4f}, "
                  f"exact {ff['scene_exact_rate']:.3f} ({ff['scenes']} scenes)")
        print("  by row: " + ", ".join(f"{row} {r}/{n} ({r / max(1, n):.2%})"
                                       for row, (n, r) in sorted(totals.rows.items())))
        conf = Counter(totals.confusions).most_common(12)
        if conf:
            print("  most common misreads (true -> read): "
                  + ", ".join(f"{a}->{b} x{k}" for (a, b), k in conf))
        if totals.missed:
            print("  missed cards by class: " + ", ".join(f"{k} x{v}" for k, v in
                                                          sorted(totals.missed.items(), key=lambda x: -x[1])))
        if self.extras_by:
            most = sorted(self.extras_by.items(), key=lambda x: (-x[1], class_order(x[0])))
            print("  extra detections by the card read: " + ", ".join(f"{k} x{v}" for k, v in most))
        if self.taken:
            print("  weak finds the rules took in, lying on: "
                  + ", ".join(f"{k} {v}" for k, v in self.taken.most_common()))
        if self.rereads:
            print("  reads the rules changed: "
                  + ", ".join(f"{k} {v}" for k, v in self.rereads.most_common()))
        if self.causes:
            print("  cards with no detection, by where they were lost: " + ", ".join(
                f"{kind} {cause} x{k}" for (kind, cause), k in self.causes.most_common()))
        if self.extra_kinds:
            print("  extra detections, by what they lie on: " + ", ".join(
                f"{kind} x{k}" for kind, k in self.extra_kinds.most_common()))
        print(self.split.summary())
        print(self.answered.summary())
        if self.shown.scenes:
            print(self.shown.summary())
        if self.before is not None:
            print(f"the layout step before ({self.before_rev}), on the same detections:")
            print(self.split_before.summary())
            print(self.answered_before.summary())
            print(self.shown_before.summary())
            print(compare(self.split_before, self.split, self.before_rev, self.answered_before,
                          self.answered, self.shown_before, self.shown))
        print("\n".join(doubt_lines(self.by_chance, self.by_reasons)))
        if self.failures:
            print("imperfect scenes:")
            print("\n".join(self.failures))


BESIDE = (("per_card_accuracy", "per card"), ("scene_exact_rate", "scenes exact"),
          ("extra_detections", "extra detections"), ("back_precision", "back precision"),
          ("back_recall", "back recall"), ("layout_cards_accuracy", "layout cards read"),
          ("loose_cards_accuracy", "loose cards read"), ("scored_as_scene_rate", "scored as the scene"),
          ("detect_ms_median", "scan ms (median)"))


def against_before(now: Measure, before: Measure, model: Path, model_before: Path) -> str:
    """The model beside the model before on the same scenes, scanned in the same run: the main
    figures, missed cards and extra finds a scene, the scenes only one of them read exactly,
    and by class the cards missed, misread and found extra."""
    a, b = now.figures(), before.figures()
    scenes = max(1, int(a["scenes"]))
    lines = [f"against the model before ({model_before}), the same {a['scenes']} scenes, this model {model}:",
             f"  {'':<22} {'before':>10} {'now':>10}"]
    for key, name in BESIDE:
        lines.append(f"  {name:<22} {b[key]:>10} {a[key]:>10}")
    for name, t in (("missed cards", "missed"), ("misread cards", "confusions")):
        nb, na = sum(getattr(before.totals, t).values()), sum(getattr(now.totals, t).values())
        cards = max(1, int(a["cards"]))
        lines.append(f"  {name:<22} {f'{nb} ({nb / cards:.2%})':>10} {f'{na} ({na / cards:.2%})':>10}")
    lines.append(f"  {'extra finds a scene':<22} {int(b['extra_detections']) / scenes:>10.3f} "
                 f"{int(a['extra_detections']) / scenes:>10.3f}")
    only_before = sum(x and not y for x, y in zip(before.exact, now.exact, strict=True))
    only_now = sum(y and not x for x, y in zip(before.exact, now.exact, strict=True))
    lines.append(f"  scenes exact with the model before only: {only_before}, "
                 f"with this model only: {only_now}")
    misread_b, misread_a = by_true(before.totals.confusions), by_true(now.totals.confusions)
    lines.append("  by class: labelled cards; missed, misread (by the true card) and extra finds "
                 "(by the card read), before -> now")
    lines.append(f"  {'class':<6} {'cards':>6} {'missed':>11} {'misread':>11} {'extra':>11}")
    for c in sorted(set(now.cards_by) | set(now.extras_by) | set(before.extras_by), key=class_order):
        cells = [f"{before.totals.missed.get(c, 0)} -> {now.totals.missed.get(c, 0)}",
                 f"{misread_b[c]} -> {misread_a[c]}", f"{before.extras_by[c]} -> {now.extras_by[c]}"]
        lines.append(f"  {c:<6} {now.cards_by[c]:>6} " + " ".join(f"{x:>11}" for x in cells))
    return "\n".join(lines)


def by_true(confusions: dict[tuple[str, str], int]) -> Counter:
    """Misreads counted by the true card."""
    out: Counter = Counter()
    for (t, _), k in confusions.items():
        out[t] += k
    return out


def class_order(name: str) -> tuple[int, str]:
    """The classes in the engine's order (x1..x10, d1..d10), back last."""
    from zipai.engine import CARD_NAMES

    return (CARD_NAMES.index(name), name) if name in CARD_NAMES else (len(CARD_NAMES), name)


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
    p.add_argument("--model-before", type=Path, default=None, metavar="MANIFEST",
                   help="also scan every scene with this model (the one before), scene by scene in "
                        "the same run, and print it beside --model: the figures, and the cards "
                        "missed, misread and found extra by class")
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
    p.add_argument("--before", default=None, metavar="REV",
                   help="also run the layout step (vision/scan.py and vision/layout/) as it was at git "
                        "revision REV of this checkout, on the same detections, and print its figures beside "
                        "today's")
    args = p.parse_args(argv)
    try:
        scenes = labelled_scenes(args.data, args.limit)
        old = None if args.before is None else scan_before(args.before)
    except ValueError as exc:
        print(f"zipai eval detector: {exc}", file=sys.stderr)
        return 2
    if args.labelled_cards:
        return layout_only(scenes, old, args.before or "")
    if (args.record or args.model_card) and (args.limit or len(args.data) > 1):
        # A part of a split recorded under the split's name once replaced the held-out figures.
        flag = "--record" if args.record else "--model-card"
        print(f"zipai eval detector: {flag} records one whole split; drop --limit and other folders",
              file=sys.stderr)
        return 2
    try:
        now = Measure(Detector(args.model, threads=args.threads), args.why_missed, args.why_extra,
                      args.failures, before=old, before_rev=args.before or "")
        runs = [now]
        if args.model_before is not None:
            runs.append(Measure(Detector(args.model_before, threads=args.threads), False, False, 0))
    except ValueError as exc:  # a missing or broken model (vision.errors.ModelError)
        print(f"zipai eval detector: {exc}", file=sys.stderr)
        return 2
    for n, (folder, im, anns) in enumerate(scenes):
        for r in runs:  # scene by scene, so that both models' times meet the same load
            r.scene(folder, im, anns)
        if (n + 1) % 25 == 0:
            f = now.totals.figures()
            print(f"  {n + 1}/{len(scenes)} per card {f['per_card_accuracy']:.4f} "
                  f"exact {f['scene_exact_rate']:.3f}", file=sys.stderr)
    fig = now.figures()
    now.report(fig, args.data)
    if args.reliability:
        from zipai.models.reliability import draw

        draw(now.by_chance.chances, args.reliability, ", ".join(str(d) for d in args.data))
        print(f"  reliability diagram written to {args.reliability}")
    if args.model_before is not None:
        print(against_before(now, runs[1], args.model or default_manifest(), args.model_before))
    if args.calibrate_color:
        t, acc = calibrate(now.reds)
        print(f"  ink colour: threshold {t:.3f} separates red from black on {acc:.4f} "
              f"of {len(now.reds)} glyphs")
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
