"""Two models on the same validation scenes, scene by scene: is the difference more than chance?

Every choice of model so far compared one training run with another by how many of 800
validation scenes each read exactly, a few scenes apart. Both models read the same scenes, so
what counts is the scenes where they disagree: McNemar's exact test on the scenes that only one
reads exactly, and a paired bootstrap (scenes resampled, both models together) for the
difference in scenes exact and in per-card accuracy. Models are manifests (default: the shipped
one), run with their own settings.

    zipai eval compare data/detector/val_tune400 data/detector/val_unseen \\
        data/detector/val_style2 --b runs/reader16/model/manifest.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from zipai.models.evaluate import (
    PairedScenes,
    labelled_scenes,
    match_scene,
    paired_bootstrap,
    replay_scenes,
    results_key,
    sign_test_p,
)
from zipai.vision.detector import Detector
from zipai.vision.scan import scan_decoded


def cache_key(det: Detector, folders: list[Path], limit: int) -> str:
    """The key of a model's cached results (``evaluate.results_key``); not its figures, which
    every evaluation rewrites."""
    settings = dict(det.manifest.data)
    settings.pop("figures", None)  # what a model read last time changes nothing it reads now
    return results_key(settings, folders, limit)


def run(det: Detector, scenes: list, label: str, cache: Path | None = None,
        key: str = "") -> list[tuple[bool, int, int]]:
    """(exact, cards read, cards) for each scene; from ``cache`` when it holds this key."""
    print(f"model {label}: {det.manifest.path}", file=sys.stderr)
    hit = cache / f"{key}.json" if cache is not None else None
    if hit is not None and hit.is_file():
        print(f"  results from {hit}", file=sys.stderr)
        return [(bool(e), int(r), int(n)) for e, r, n in json.loads(hit.read_text(encoding="utf-8"))]
    out = []
    for decoded, anns, _truth, base in replay_scenes(scenes):
        sc = scan_decoded(decoded, det, base)
        m = match_scene([(d.card, d.box) for d in sc.detections], anns)
        out.append((m.exact, m.read, m.cards))
    if hit is not None:
        hit.parent.mkdir(parents=True, exist_ok=True)
        tmp = hit.with_suffix(".tmp")
        tmp.write_text(json.dumps(out), encoding="utf-8")
        tmp.replace(hit)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zipai eval compare", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, nargs="+", help="rendered folders; their scenes are pooled")
    p.add_argument("--a", type=Path, default=None, help="manifest.json of model A (default: shipped)")
    p.add_argument("--b", type=Path, default=None, help="manifest.json of model B (default: shipped)")
    p.add_argument("--limit", type=int, default=0, help="only the first N scenes of each folder")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--resamples", type=int, default=10000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cache", type=Path, default=None,
                   help="keep each model's per-scene results here, keyed by its manifest and the scenes")
    args = p.parse_args(argv)
    for m in (args.a, args.b):
        if m is not None and not m.is_file():
            print(f"zipai eval compare: {m}: no such manifest", file=sys.stderr)
            return 2
    try:
        scenes = labelled_scenes(args.data, args.limit)
    except (OSError, ValueError) as exc:
        print(f"zipai eval compare: {exc}", file=sys.stderr)
        return 2
    results = []
    for label, path in (("A", args.a), ("B", args.b)):
        det = Detector(path, threads=args.threads)
        results.append(run(det, scenes, label, args.cache, cache_key(det, args.data, args.limit)))
    a, b = results
    pairs = PairedScenes(a, b)
    only_a, only_b = pairs.discordant()
    print(f"{len(scenes)} scenes ({', '.join(str(d) for d in args.data)})")
    print(f"  A {args.a or 'shipped'}: {pairs.exact('a')} exact, per card {pairs.per_card('a'):.2%}")
    print(f"  B {args.b or 'shipped'}: {pairs.exact('b')} exact, per card {pairs.per_card('b'):.2%}")
    print(f"  exact only with A: {only_a}, only with B: {only_b}; "
          f"McNemar exact two-sided p = {sign_test_p(only_a, only_b):.3f}")
    lo, hi = paired_bootstrap(pairs, "exact", args.resamples, args.seed)
    print(f"  B - A, scenes exact: {pairs.exact('b') - pairs.exact('a'):+d} "
          f"(95% paired bootstrap: {lo:+.1f} to {hi:+.1f} scenes)")
    lo, hi = paired_bootstrap(pairs, "per_card", args.resamples, args.seed)
    print(f"  B - A, per card: {pairs.per_card('b') - pairs.per_card('a'):+.2%} "
          f"(95%: {lo:+.2%} to {hi:+.2%})")
    if len(args.data) > 1:
        for folder, part in by_folder(scenes, a, b).items():
            print(f"  {folder} ({len(part.a)} scenes): A {part.exact('a')} exact, {part.per_card('a'):.2%}; "
                  f"B {part.exact('b')} exact, {part.per_card('b'):.2%}")
    return 0


def by_folder(scenes: list, a: list[tuple[bool, int, int]],
              b: list[tuple[bool, int, int]]) -> dict[str, PairedScenes]:
    """Each folder's scenes apart: a pooled figure can hide a loss on one kind of
    scene (the decorated ones, the stand-ins for printed decks, are a ship rule of their own)."""
    rows: dict[str, tuple[list, list]] = {}
    for (folder, _im, _anns), ra, rb in zip(scenes, a, b, strict=True):
        ka, kb = rows.setdefault(str(folder), ([], []))
        ka.append(ra)
        kb.append(rb)
    return {f: PairedScenes(ka, kb) for f, (ka, kb) in rows.items()}


if __name__ == "__main__":
    sys.exit(main())
