"""Fit the chance that a card is wrong (``zipai.vision.layout.chance``) and the bar that makes
it a doubt, on validation scenes only (never on held-out ones, which are for figures).

Each scene is scanned once; every card of its layout (not those lying apart) gives the chance
model's features and a label: wrong when it is misread or no card at all (an extra find), as
``zipai.models.evaluate.match_scene`` judges it. A logistic model is fitted by Newton's method
with a small ridge. The bar is chosen on out-of-fold chances (five folds of whole scenes, so a
scene never weighs its own cards): the highest bar that still flags ``--recall`` of the wrong
cards. The shipped bar flags 80% of them: flagging 98% also flags about two right cards in three
(the last wrong cards, extra finds read with full confidence, look like right ones to every piece
of evidence), and a review that asks about most of the cards is one a player stops reading;
at 80% about one right card in twenty is flagged. The figures printed are those out-of-fold
chances' (wrong and right cards flagged, scenes with no doubt and how many of them score wrong,
the calibration error), beside the rule before (one doubt per reason) on the same scans.
``--write`` writes the model fitted on every scene, with the bar, to ``models/chance.json``
(the manifest's ``chance`` file).

    zipai tune chance data/detector/val_tune400 data/detector/val_unseen data/detector/val_style2 --write
"""

from __future__ import annotations

import itertools
import json
import os
import pickle
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from zipai.models.evaluate import (
    CARD_DOUBTS,
    INFORMATIVE,
    calibration_error,
    labelled_scenes,
    match_scene,
    replay_scenes,
    same_score,
)
from zipai.vision.detector import Detector
from zipai.vision.files import models_dir
from zipai.vision.layout import Params
from zipai.vision.layout.chance import CHANCE_FILE, FEATURES, ChanceModel, evidence
from zipai.vision.scan import scan_detections

from . import parser

RIDGE = 1.0
FOLDS = 5
CURVE = (0.5, 0.8, 0.9, 0.95, 0.98)
# the card doubts the chance replaces: the rule before names a card for each of these reasons
REPLACED = frozenset(CARD_DOUBTS - {"deck_limit"})


@dataclass(slots=True)
class Scene:
    """One validation scene's layout cards: features, labels, and what the scan says besides."""

    x: np.ndarray  # [cards, features]
    wrong: np.ndarray  # [cards] bool
    old_named: np.ndarray  # [cards] bool: named by a card doubt of the rule before
    scene_doubt: bool  # a doubt the chance does not replace (count, layout, engine), but strays
    complete: bool
    right: bool | None  # scored as the scene (None: no layout to score)
    old_clean: bool


def fit(x: np.ndarray, y: np.ndarray, ridge: float = RIDGE, steps: int = 50) -> np.ndarray:
    """Logistic regression by Newton's method; the bias (column 0) is not shrunk."""
    w = np.zeros(x.shape[1])
    pen = np.full(x.shape[1], ridge)
    pen[0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -40, 40)))
        grad = x.T @ (p - y) + pen * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(pen) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return w


def chances(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x @ w, -40, 40)))


def bar_for(c: np.ndarray, wrong: np.ndarray, recall: float) -> float:
    """The highest bar that flags at least ``recall`` of the wrong cards (chance >= bar)."""
    bad = np.sort(c[wrong])[::-1]
    if not len(bad):
        return 1.0
    k = min(len(bad) - 1, int(np.ceil(recall * len(bad))) - 1)
    return float(bad[max(0, k)])


def detections(args: Any) -> list[tuple[Any, Any]]:
    """Every scene's detections and spare finds, the networks run once per folder; with
    ``--cache DIR`` kept there, one file per folder, and replayed on the next run."""
    out: list[tuple[Any, Any]] = []
    det = None
    for folder in args.data:
        cached = Path(args.cache) / f"{Path(folder).resolve().name}-{args.limit}.pkl" if args.cache else None
        if cached is not None and cached.is_file():
            out += pickle.loads(cached.read_bytes())
            continue
        det = det or Detector(args.model)
        found = []
        for decoded, _, _, _ in replay_scenes(labelled_scenes([folder], args.limit)):
            f = det.detect(decoded)
            found.append((f.detections, f.spare))
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_name(f".{cached.name}.tmp{os.getpid()}")
            tmp.write_bytes(pickle.dumps(found))
            os.replace(tmp, cached)
        out += found
    return out


def gather(args: Any) -> list[Scene]:
    """Scan every scene once (the rule before's doubts come with it) and weigh its cards."""
    found = detections(args)
    out: list[Scene] = []
    scenes = labelled_scenes(args.data, args.limit)
    for (decoded, anns, truth, base), (dets, spare) in zip(replay_scenes(scenes), found, strict=True):
        sc = scan_detections(decoded.width, decoded.height, dets, base, Params(doubt_rule="reasons"), spare)
        ev = evidence(sc.columns, sc.detections, base)
        m = match_scene([(d.card, d.box) for d in sc.detections], anns)
        bad = set(m.misreads) | set(m.extras)
        idx = np.flatnonzero(ev.in_layout)
        named = {i for d in sc.assembled.doubts if d.kind in CARD_DOUBTS for i in d.detections}
        doubts = {d.kind.value for d in sc.assembled.doubts}
        right = same_score(sc.assembled.layout, sc.assembled.complete, truth) if truth else None
        out.append(Scene(ev.x[idx], np.asarray([i in bad for i in idx], bool),
                         np.asarray([i in named for i in idx], bool),
                         bool(doubts - REPLACED - INFORMATIVE), sc.assembled.complete, right,
                         sc.assembled.complete and not (doubts - INFORMATIVE)))
    return out


def figures(scenes: list[Scene], flagged: list[np.ndarray]) -> dict[str, float | int]:
    """The issue's figures for one flagging of every scene's layout cards."""
    wrong = sum(int(s.wrong.sum()) for s in scenes)
    right = sum(int((~s.wrong).sum()) for s in scenes)
    wf = sum(int((f & s.wrong).sum()) for s, f in zip(scenes, flagged, strict=True))
    rf = sum(int((f & ~s.wrong).sum()) for s, f in zip(scenes, flagged, strict=True))
    scored = [(s, f) for s, f in zip(scenes, flagged, strict=True) if s.right is not None]
    clean = [s for s, f in scored if s.complete and not s.scene_doubt and not f.any()]
    return {"wrong_cards": wrong, "wrong_flagged_rate": round(wf / max(1, wrong), 4), "right_cards": right,
            "right_flagged_rate": round(rf / max(1, right), 4),
            "no_doubt_wrong_rate": round(sum(not s.right for s in clean) / max(1, len(clean)), 4),
            "no_doubt_rate": round(len(clean) / max(1, len(scored)), 4), "scenes": len(scored)}


def old_figures(scenes: list[Scene]) -> dict[str, float | int]:
    fig = figures(scenes, [s.old_named for s in scenes])
    scored = [s for s in scenes if s.right is not None]
    clean = [s for s in scored if s.old_clean]
    fig["no_doubt_wrong_rate"] = round(sum(not s.right for s in clean) / max(1, len(clean)), 4)
    fig["no_doubt_rate"] = round(len(clean) / max(1, len(scored)), 4)
    return fig


def show(name: str, fig: dict[str, float | int]) -> str:
    return (f"  {name}: wrong cards flagged {fig['wrong_flagged_rate']:.1%} of {fig['wrong_cards']}, "
            f"right cards flagged {fig['right_flagged_rate']:.1%} of {fig['right_cards']}, no-doubt scenes "
            f"wrong {fig['no_doubt_wrong_rate']:.1%}, scenes with no doubt {fig['no_doubt_rate']:.1%} of "
            f"{fig['scenes']}")


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__, "chance")
    p.add_argument("--recall", type=float, default=0.8, help="share of wrong cards the bar flags (0.8)")
    p.add_argument("--write", action="store_true", help=f"write the fitted model to models/{CHANCE_FILE}")
    p.add_argument("--out", type=Path, default=None, help=f"write here instead of models/{CHANCE_FILE}")
    p.add_argument("--cache", default=None, metavar="DIR",
                   help="keep each folder's detections in DIR and replay them on the next run")
    args = p.parse_args(argv)
    if args.write_manifest:
        print("zipai tune chance: the model is its own file; use --write", file=sys.stderr)
        return 2
    if any("heldout" in str(d) for d in args.data):
        print("zipai tune chance: held-out scenes are for figures, not for fitting", file=sys.stderr)
        return 2
    try:
        scenes = gather(args)
    except ValueError as exc:
        print(f"zipai tune chance: {exc}", file=sys.stderr)
        return 2
    x = np.concatenate([s.x for s in scenes]) if scenes else np.zeros((0, len(FEATURES)))
    y = np.concatenate([s.wrong for s in scenes]).astype(np.float64) if scenes else np.zeros(0)
    if not y.any() or y.all():
        print(f"zipai tune chance: {len(y)} layout cards, {int(y.sum())} wrong: nothing to fit",
              file=sys.stderr)
        return 2
    # out of fold: each fold's chances from a model fitted on the other folds' scenes
    fold_of = np.concatenate([np.full(len(s.wrong), k % FOLDS) for k, s in enumerate(scenes)])
    oof = np.zeros(len(y))
    for k in range(FOLDS):
        test = fold_of == k
        if test.any():
            oof[test] = chances(x[test], fit(x[~test], y[~test]))
    bar = bar_for(oof, y.astype(bool), args.recall)
    starts = np.cumsum([0] + [len(s.wrong) for s in scenes])
    flagged = [oof[a:b] >= bar for a, b in itertools.pairwise(starts)]
    new, old = figures(scenes, flagged), old_figures(scenes)
    ece = calibration_error(list(zip(oof.tolist(), y.astype(bool).tolist(), strict=True)))
    w = fit(x, y)
    names = ", ".join(str(d) for d in args.data)
    print(f"{len(scenes)} scenes of {names}: {len(y)} layout cards, {int(y.sum())} wrong (misread or extra)")
    print(f"bar {bar:.4f} flags {args.recall:.0%} of the wrong cards out of fold; calibration error (ECE) "
          f"{ece:.4f} out of fold")
    print(show("doubts by chance (out of fold)", new))
    print(show("doubts by reasons (before)", old))
    print("other bars, out of fold (the share of wrong cards a bar flags, and what it costs):")
    curve = []
    for q in CURVE:
        b = bar_for(oof, y.astype(bool), q)
        f = figures(scenes, [oof[a:c] >= b for a, c in itertools.pairwise(starts)])
        curve.append({"recall": q, "bar": round(b, 6), **f})
        print(f"  flag {q:.0%} of the wrong cards: bar {b:.4f}, right cards flagged "
              f"{f['right_flagged_rate']:.1%}, scenes with no doubt {f['no_doubt_rate']:.1%}, of those "
              f"wrong {f['no_doubt_wrong_rate']:.1%}")
    print("weights (fitted on every scene):")
    for f, v in zip(FEATURES, w, strict=True):
        print(f"  {f:<14} {v:+.4f}")
    if args.write or args.out:
        command = shlex.join(["zipai", "tune", "chance", *(argv if argv is not None else sys.argv[1:])])
        model = ChanceModel(FEATURES, tuple(float(v) for v in w), bar,
                            {"fitted_on": [str(d) for d in args.data], "command": command,
                             "cards": len(y), "wrong": int(y.sum()), "recall": args.recall,
                             "out_of_fold": {"ece": round(ece, 4), "by_chance": new, "by_reasons": old},
                             "curve": curve})
        path = args.out or models_dir() / CHANCE_FILE
        tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(model.to_json(), indent=1) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
