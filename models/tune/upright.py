"""Choose whether, and how, the reader reads an unsure find a second time with its crop turned
upright (``reader.upright`` in the manifest; ``Reader.upright``), on validation scenes only.

Each setting is tried by the rule of ``zipai tune thresholds`` (the most scenes read exactly, then
the most layouts complete enough to score, then per-card accuracy, then the most scored as the
scene); ties go to the cheaper setting (fewer second reads). Every photo goes through the whole
pipeline once per setting, as the second read changes the reader's probabilities that every
later step weighs; the median time of the second read per look is printed beside each, since
model inference has a budget of its own (20 ms).

    zipai tune upright data/detector/val_tune400 data/detector/val_unseen [--write-manifest]
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import replace
from typing import Any

from zipai.models.evaluate import Tally, labelled_scenes, replay_scenes
from zipai.vision.config import Upright
from zipai.vision.detector import Detector
from zipai.vision.scan import scan_detections

from . import parser, section, write

# (below, floor, margins); None: no second read
SETTINGS: tuple[Upright | None, ...] = (
    None,
    Upright(0.9, 0.15, (1.3,)),
    Upright(0.9, 0.15, (1.3, 1.45)),
    Upright(0.8, 0.15, (1.3, 1.45)),
    Upright(0.95, 0.15, (1.3, 1.45)),
)


def cost(up: Upright | None) -> tuple[float, int]:
    """Cheaper first: no second read, then fewer finds read again, then fewer margins."""
    return (0.0, 0) if up is None else (up.below, len(up.margins))


def name(up: Upright | None) -> str:
    return "off" if up is None else f"below {up.below}, margins {'/'.join(str(m) for m in up.margins)}"


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__, "upright").parse_args(argv)
    shipped = Detector(args.model)
    tallies = {up: Tally() for up in SETTINGS}
    times: dict[Upright | None, list[float]] = {up: [] for up in SETTINGS}

    def timed(up: Upright | None) -> Detector:
        """A detector reading again upright by ``up``, each second read timed."""
        det = shipped.with_config(replace(shipped.config,
                                          reader=section(shipped.config, "reader", upright=up)))
        read_upright = det.reader.upright

        def read(*a: Any) -> Any:
            t0 = time.perf_counter()
            out = read_upright(*a)
            times[up].append(time.perf_counter() - t0)
            return out

        det.reader.upright = read  # type: ignore[method-assign]
        return det

    detectors = {up: timed(up) for up in SETTINGS}
    scenes = labelled_scenes(args.data, args.limit)
    for decoded, anns, truth, base in replay_scenes(scenes):
        for up in SETTINGS:
            found = detectors[up].detect(decoded)
            sc = scan_detections(decoded.width, decoded.height, found.detections, base, spare=found.spare)
            tallies[up].add(sc, anns, truth)
    order = sorted(SETTINGS, key=lambda up: (*tallies[up].rule(), [-c for c in cost(up)]), reverse=True)
    names = ", ".join(str(d) for d in args.data)
    print(f"{len(scenes)} scenes of {names}; best first:")
    print("  setting                          exact   complete  per-card  scored  second read (median ms)")
    for up in order:
        e, c, p, s = tallies[up].rule()
        ms = 1000 * statistics.median(times[up]) if times[up] else 0.0
        print(f"  {name(up):<31}  {e:.4f}  {c:.4f}    {p:.4f}    {s:.4f}  {ms:.1f}")
    best = order[0]
    print(f"chosen: {name(best)}")
    if args.write_manifest:
        write(shipped, args, {"reader": {"upright": {"tuned_on": names}}} if best else None,
              reader=section(shipped.manifest.config, "reader", upright=best))  # None: off
        print(f"manifest: reader.upright {name(best)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
