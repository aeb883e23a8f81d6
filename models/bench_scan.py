"""Speed of the photo path, in-process, with a fixed thread count (2 = this machine's cores):
model inference (finder + reader sessions) and `zipai scan` end to end (read and decode the
JPEG, detect, group, score), median over N photos, after a warm-up. Also the model's size.

    zipai bench scan data/detector/heldout [--count 50] [--threads 2] [--model M]
        [--against M2] [--weights auto|uint8|int8] [--against-weights W] [--deck NAME]

``--weights uint8 --against-weights int8`` runs the model's two sets of files photo by photo (the
int8-weight twins load by default where the CPU sums them exactly: ``Detector``). ``--deck NAME``
runs the model untaught and with a deck taught by ``zipai deck learn`` (``zipai scan --deck``), in turn.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from zipai.vision.deck import Deck, DeckError, DeckStore
from zipai.vision.decode import decode
from zipai.vision.detector import WEIGHTS, Detector, default_manifest
from zipai.vision.errors import ModelError
from zipai.vision.scan import scan_decoded


def measure(det: Detector, f: Path, deck: Deck | None = None) -> dict[str, float]:
    """One photo through ``zipai scan``'s path: seconds for each part."""
    t0 = time.perf_counter()
    img = decode(f.read_bytes(), str(f))
    t1 = time.perf_counter()
    sc = scan_decoded(img, det, deck=deck)
    t2 = time.perf_counter()
    t = sc.timing  # what scan spends besides the detector: columns, the rules' checks, score
    return {"total": t2 - t0, "decode": t1 - t0, "infer": t["finder"] + t["reader"], "finder": t["finder"],
            "reader": t["reader"], "layout": t2 - t1 - sum(t.values()),
            "width": sc.width, "height": sc.height}


def embed_name(det: Detector) -> str:
    """The embedding twin a deck's detector loads."""
    return str((det.manifest.embed_spec(det.int8_files) or {}).get("file"))


def report(det: Detector, runs: list[dict[str, float]], threads: int, deck: Deck | None = None) -> None:
    def ms(key: str) -> str:
        return f"{1000 * statistics.median(r[key] for r in runs):.1f} ms"

    sizes = sorted({(int(r["width"]), int(r["height"])) for r in runs})
    total = sorted(r["total"] for r in runs)
    man, meta = det.manifest.path, det.manifest.data
    entries = [meta[k]["int8_file"] if det.int8_files else meta[k] for k in ("finder", "reader")]
    size = sum((man.parent / e["file"]).stat().st_size for e in entries)
    which = "int8" if det.int8_files else "uint8 (or as exported)"
    print(f"{man}: {len(runs)} photos {', '.join(f'{w}x{h}' for w, h in sizes)}, {threads} threads, "
          f"weights {which}" + ("" if deck is None else f", deck {deck.name!r} (reader: {embed_name(det)})"))
    print(f"  model inference median: {ms('infer')} (finder {ms('finder')}, reader {ms('reader')})")
    print(f"  scan end to end median: {ms('total')} (of which read + decode {ms('decode')}); "
          f"p90 {1000 * total[int(0.9 * (len(total) - 1))]:.1f} ms")
    print(f"  layout, the rules' checks and score: median {ms('layout')}, "
          f"at most {1000 * max(r['layout'] for r in runs):.1f} ms")
    print(f"  model size: {size / 1e6:.2f} MB ({' + '.join(e['file'] for e in entries)})")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zipai bench scan", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("photos", type=Path, help="a folder of JPEGs (searched recursively)")
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--model", type=Path, default=None)
    p.add_argument("--against", type=Path, default=None,
                   help="a second manifest, run on each photo in turn with the first (the order "
                        "alternating), for a paired difference that this machine's drift does not swamp")
    p.add_argument("--weights", choices=WEIGHTS, default="auto",
                   help="which network files --model loads (auto: int8 weights where this CPU sums them "
                        "exactly, else uint8)")
    p.add_argument("--against-weights", choices=WEIGHTS, default=None,
                   help="which files --against loads; without --against, the same model again")
    p.add_argument("--deck", metavar="NAME", default=None,
                   help="also run with this taught deck ($ZIPAI_DECKS), photo by photo against untaught")
    args = p.parse_args(argv)
    files = sorted(args.photos.rglob("*.jpg"))[: args.count]
    if not files:
        print(f"zipai bench scan: no .jpg files under {args.photos}", file=sys.stderr)
        return 2
    models = [(args.model or default_manifest(), args.weights)]
    if args.against or args.against_weights:
        models.append((args.against or models[0][0], args.against_weights or "auto"))
    try:
        dets = [Detector(m, threads=args.threads, weights=w) for m, w in models]
        decks: list[Deck | None] = [None] * len(dets)
        if args.deck:
            dets = [dets[0], Detector(models[0][0], threads=args.threads, weights=models[0][1], embed=True)]
            decks = [None, DeckStore(detector=dets[1]).load(args.deck)]
    except (ModelError, DeckError) as exc:
        print(f"zipai bench scan: {exc}", file=sys.stderr)
        return 2
    for det, deck in zip(dets, decks, strict=True):
        for f in files[:3]:  # warm-up: first runs allocate
            measure(det, f, deck)
    runs: list[list[dict[str, float]]] = [[] for _ in dets]
    for n, f in enumerate(files):
        order = range(len(dets)) if n % 2 == 0 else reversed(range(len(dets)))
        for k in order:
            runs[k].append(measure(dets[k], f, decks[k]))
    for det, r, deck in zip(dets, runs, decks, strict=True):
        report(det, r, args.threads, deck)
    if len(dets) > 1:
        for key, what in (("infer", "model inference"), ("total", "scan end to end")):
            diff = [b[key] - a[key] for a, b in zip(runs[0], runs[1], strict=True)]
            print(f"  {what}, second minus first, photo by photo: "
                  f"median {1000 * statistics.median(diff):+.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
