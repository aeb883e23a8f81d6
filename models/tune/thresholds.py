"""Choose the detector's thresholds on validation scenes (never on held-out fonts): the scenes in
the training faces, and scenes in faces that no network trains on and no figure reports (font
split ``tune``), since only those show what helps with an unseen typeface. It sets the finder's
score threshold, the reader's "none" threshold, whether to drop the far ends of fully shown
cards, and the reader's crop margins (one read of each glyph, or the mean of reads at two
margins); then, those fixed, the second chance for weak finder peaks (faces first, then backs,
each with its own floor and reader probability), then the least probability the reader must
give a face's best class. Runs the networks once per scene and margin set at a
low threshold, then replays every setting.

The rule: the most scenes read exactly; among settings that tie, the most layouts complete
enough to score (a false back among hand cards, or a stray extra card, stops a photo from being
scored, which costs the player more than one card missed elsewhere); then per-card accuracy;
then fewer reads per glyph (they cost reader time).

    zipai tune thresholds data/detector/val_tune400 data/detector/val_unseen [--write-manifest]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import replace

from zipai.models.evaluate import Tally, Totals, labelled_scenes, match_scene
from zipai.vision.config import RESCUE_OFF, Config
from zipai.vision.decode import load
from zipai.vision.detection import Finds, Look
from zipai.vision.detector import Detector
from zipai.vision.scan import scan_detections

from . import parser, rules_only, section, write

THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
BACKS = (0.15, 0.2, 0.3, 0.4, 0.5, 0.6)
NONE = (0.5, 0.7, 0.9)
MARGINS = ((1.3,), (1.3, 1.45))  # 1.3 is the training crop margin
# second chances for weak finder peaks that the reader reads with confidence (floor, probability),
# tried once the rest is chosen, faces and backs apart; None is none. The int8 reader's
# probabilities come in steps of 1/255 and stop short of 0.995, so the grid stops at 0.98.
RESCUES = (None, *itertools.product((0.1, 0.15, 0.2, 0.25, 0.3), (0.7, 0.8, 0.9, 0.95, 0.98)))
BACK_RESCUES = (None, *itertools.product((0.1, 0.15, 0.2, 0.3), (0.8, 0.9, 0.95, 0.98)))
LOWEST = min(THRESHOLDS + BACKS + tuple(r[0] for r in RESCUES + BACK_RESCUES if r))
# the least probability of a face's best class (0: none), tried last
FACE_FLOORS = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)
Rescue = tuple[float, float]  # a second chance: peak floor, reader probability


def setting(base: Config, thr: float, none: float, far: bool, back: float, rescue: Rescue = RESCUE_OFF,
            floor: float = 0.0, back_rescue: Rescue = RESCUE_OFF) -> Config:
    """``base`` (the rules alone) with these thresholds, far ends, second chances and face floor."""
    return replace(base,
                   finder=section(base, "finder", threshold=thr, back_threshold=back,
                                  rescue_threshold=rescue[0], back_rescue_threshold=back_rescue[0]),
                   reader=section(base, "reader", none_threshold=none, rescue_prob=rescue[1],
                                  back_rescue_prob=back_rescue[1], face_floor=floor),
                   postprocess=section(base, "postprocess", drop_far_ends=far))


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__, "thresholds")
    p.add_argument("--finish-only", action="store_true",
                   help="keep the manifest's thresholds and margins and choose only the second "
                        "chance for weak peaks and the face floor (minutes, not the grid's twenty)")
    args = p.parse_args(argv)
    images = labelled_scenes(args.data, args.limit)
    det = rules_only(Detector(args.model), "thresholds")
    base = det.config
    sets = (base.reader.margins,) if args.finish_only else MARGINS

    def with_margins(margins: tuple[float, ...]) -> Config:
        return replace(base, reader=section(base, "reader", margins=margins))

    raws: dict[tuple[float, ...], list] = {m: [] for m in sets}
    for n, (folder, im, anns) in enumerate(images):
        raw = det.look(load(folder / im["file_name"]), with_margins(sets[0]), threshold=LOWEST)
        for margins in sets:
            if margins != sets[0]:
                reading, _ = det.reader_for(with_margins(margins))(raw.arr, raw.boxes)
                raw = Look(raw.arr, raw.scale, Finds(raw.boxes, raw.scores, raw.kinds, reading.probs,
                                                     reading.downs))
            # the photo stays: dropping far ends looks at the card body between two glyphs
            # the last: the scene's layouts by its detections, built once (``replay``)
            raws[margins].append((raw, anns, (int(im["width"]), int(im["height"])), {}))
        if (n + 1) % 50 == 0:
            print(f"  {n + 1}/{len(images)} scenes run", file=sys.stderr)
    if args.finish_only:
        return finish_only(det, raws[base.reader.margins], args)
    rows = []
    for margins, thr, back, none, far in itertools.product(MARGINS, THRESHOLDS, BACKS, NONE, (False, True)):
        t = Totals()
        for raw, anns, _, _ in raws[margins]:
            # nor the manifest's late choices
            dets = det.build(raw, setting(base, thr, none, far, back)).detections
            t.add(match_scene([(d.card, d.box) for d in dets], anns))
        f = t.figures()
        rows.append([f["scene_exact_rate"], -1.0, f["per_card_accuracy"], -len(margins), thr, none, far,
                     f["extra_detections"], back, margins])
    # layout completeness only for the settings that tie on exact scenes (it is the slow part)
    top = max(r[0] for r in rows)
    for r in rows:
        if r[0] == top:
            r[1] = replay(det, raws[r[9]], setting(base, r[4], r[5], r[6], r[8]))[1]
    rows.sort(reverse=True)
    names = " + ".join(str(f) for f in args.data)
    print(f"{len(images)} scenes of {names}; best settings first:")
    print("  exact  complete  per-card  glyph>=  back>=  none>=  far-ends  extra  margins")
    for r in rows[:12]:
        print(f"  {r[0]:.3f}  {r[1]:.3f}     {r[2]:.4f}    {r[4]:.2f}    {r[8]:.2f}    {r[5]:.2f}   "
              f"{r[6]!s:5}     {r[7]:<5}  {list(r[9])}")
    for margins in MARGINS:
        best = max(r for r in rows if r[9] == margins)
        print(f"  best with margins {list(margins)}: exact {best[0]:.3f}, per card {best[2]:.4f}")
    _, _, _, _, thr, none, far, _, back, margins = rows[0]
    rescue, back_rescue = choose_rescues(det, raws[margins], thr, none, far, back)
    floor = choose_face_floor(det, raws[margins], thr, none, far, back, rescue, back_rescue)
    if args.write_manifest:
        shipped = det.manifest.config
        chosen = replace(shipped, finder=section(shipped, "finder", threshold=thr, back_threshold=back),
                         reader=section(shipped, "reader", none_threshold=none, margins=margins),
                         postprocess=section(shipped, "postprocess", drop_far_ends=far))
        tuned_on = " + ".join(f.name for f in args.data)
        write_finish(det, args, chosen, rescue, back_rescue, floor, min(thr, back), tuned_on)
        print(f"manifest: finder threshold {thr} (backs {back}), none threshold {none}, "
              f"drop_far_ends {far}, reader margins {list(margins)}, rescue {rescue}, "
              f"back rescue {back_rescue}, face floor {floor}")
    return 0


def finish_only(det: Detector, raws: list, args: argparse.Namespace) -> int:
    """Choose the second chance and the face floor alone, the manifest's other settings fixed."""
    f, r = det.config.finder, det.config.reader
    print(f"{len(raws)} scenes; glyph>= {f.threshold}, back>= {f.back_threshold}, "
          f"none>= {r.none_threshold}, far ends dropped {det.config.postprocess.drop_far_ends}, "
          f"margins {list(r.margins)}")
    fixed = (f.threshold, r.none_threshold, det.config.postprocess.drop_far_ends, f.back_threshold)
    rescue, back_rescue = choose_rescues(det, raws, *fixed)
    floor = choose_face_floor(det, raws, *fixed, rescue, back_rescue)
    if args.write_manifest:
        write_finish(det, args, det.manifest.config, rescue, back_rescue, floor,
                     min(f.threshold, f.back_threshold))
        print(f"manifest: rescue {rescue}, back rescue {back_rescue}, face floor {floor}")
    return 0


def write_finish(det: Detector, args: argparse.Namespace, chosen: Config, rescue: Rescue | None,
                 back_rescue: Rescue | None, floor: float, low: float, tuned_on: str | None = None) -> None:
    """``chosen`` with the second chances and the face floor into the manifest; no second chance
    is a floor at the lower threshold (``low``) and no probability (null, which for backs also
    means none)."""
    finder = section(chosen, "finder", rescue_threshold=rescue[0] if rescue else low,
                     back_rescue_threshold=back_rescue[0] if back_rescue else low)
    reader = section(chosen, "reader", rescue_prob=rescue[1] if rescue else None,
                     back_rescue_prob=back_rescue[1] if back_rescue else None, face_floor=floor)
    write(det, args, {"postprocess": {"tuned_on": tuned_on}} if tuned_on else None, finder=finder,
          reader=reader, postprocess=chosen.postprocess)


def replay(det: Detector, raws: list, config: Config) -> tuple[dict[str, float | int], float]:
    """The figures and the complete-layout rate of one config; one build per scene serves both.
    Many settings build the same detections of a scene, and the layout of the same detections
    is the same: each scene keeps its layouts by their detections, so each is assembled once."""
    t = Tally()
    for raw, anns, (w, h), layouts in raws:
        dets = det.build(raw, config).detections
        key = tuple(dets)
        if key not in layouts:
            layouts[key] = scan_detections(w, h, dets)
        t.add(layouts[key], anns)
    return t.totals.figures(), round(t.complete / max(1, len(raws)), 4)


def _pick(rows: list[tuple], grid: tuple, title: str) -> tuple[float, float] | None:
    rows.sort(reverse=True)
    print(f"  {title} (peak >=, reader >=): exact  complete  per-card")
    for r in rows[:6]:
        print(f"    {grid[r[-1]] or 'none'!s:<14}  {r[0]:.3f}  {r[1]:.3f}     {r[2]:.4f}")
    return grid[rows[0][-1]]


def choose_rescues(det: Detector, raws: list, thr: float, none: float, far: bool,
                   back: float) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """The second chances for weak peaks (for faces, then for backs
    with the faces' chosen) that the same rule prefers, the other settings
    fixed; None when none does better than none. Weak back peaks are mostly card edges and
    slivers the reader also calls backs, so backs get their own. Ties go to no second chance,
    then to the higher floor, then the surer reader: fewer weak finds to cut and read per photo."""
    rows = []
    for k, rescue in enumerate(RESCUES):
        f, complete = replay(det, raws, setting(det.config, thr, none, far, back, rescue or RESCUE_OFF))
        rows.append((f["scene_exact_rate"], complete, f["per_card_accuracy"], rescue is None,
                     *(rescue or (1.0, 1.0)), k))
    faces = _pick(rows, RESCUES, "second chance for weak peaks, faces")
    rows = []
    for k, rescue in enumerate(BACK_RESCUES):
        f, complete = replay(det, raws, setting(det.config, thr, none, far, back, faces or RESCUE_OFF, 0.0,
                                                 rescue or RESCUE_OFF))
        rows.append((f["scene_exact_rate"], complete, f["per_card_accuracy"], rescue is None,
                     *(rescue or (1.0, 1.0)), k))
    return faces, _pick(rows, BACK_RESCUES, "second chance for weak peaks, backs")


def choose_face_floor(det: Detector, raws: list, thr: float, none: float, far: bool, back: float,
                      rescue: tuple[float, float] | None, back_rescue: tuple[float, float] | None) -> float:
    """The least probability of a face's best class that the same rule prefers, everything else
    fixed. Ties go to the lower floor: it drops fewer reads."""
    rows = []
    for floor in FACE_FLOORS:
        f, complete = replay(det, raws, setting(det.config, thr, none, far, back, rescue or RESCUE_OFF, floor,
                                                 back_rescue or RESCUE_OFF))
        rows.append((f["scene_exact_rate"], complete, f["per_card_accuracy"], -floor, f["extra_detections"]))
    rows.sort(reverse=True)
    print("  face floor (reader's best face >=): exact  complete  per-card  extra")
    for r in rows[:5]:
        print(f"    {-r[3]:<13.2f}  {r[0]:.3f}  {r[1]:.3f}     {r[2]:.4f}    {r[4]}")
    return -rows[0][3]


if __name__ == "__main__":
    sys.exit(main())
