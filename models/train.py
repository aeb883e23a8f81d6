"""``zipai train``: the whole recipe that produced the shipped model, on CPU.

render scenes (if missing) -> finder data -> train the finder -> mine its false finds ->
reader crop bank -> train the reader -> export both to ONNX -> manifest (files, SHA-256,
settings) and provenance (data seeds, recipe, figures), training-curve and confusion-matrix PNGs
under models/ -> fit the selector to the new networks' finds (numpy; ``zipai.models.selector``).

Each stage checkpoints to ``--runs`` every minute and on Ctrl-C; running the command again
resumes where it stopped (``--fresh`` starts over). Time budgets are wall-clock minutes, and the
learning rate follows a cosine over the budget, so an interrupted run resumes on schedule.

The recipe's parts live by job: ``renders`` (the scenes), ``augment``, ``stage`` (resumable
time-budgeted stages), ``train_finder``, ``train_reader`` and ``train_figures``; this module is
the command, and every name they define stays importable from here.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from zipai.vision.files import models_dir
from zipai.vision.preprocess import MEAN, STD  # noqa: F401 (the tests read them here)

from . import data as D

# the recipe's parts; what this module does not use itself is imported to stay importable from
# here, where the tests, `zipai bench train-step` and the lab notes name it
from .augment import (  # noqa: F401
    NIB,
    PEN,
    WARP,
    ZOOM,
    _norm,
    binomial_blur,
    nib,
    pen,
    photometric,
    reader_augment,
    stroke_weight,
    warp,
)
from .manifest import PROVENANCE_SECTIONS, read_provenance
from .renders import (  # noqa: F401
    TrainError,
    ensure_split,
    extra_scenes,
    finder_extra,
    reader_extra,
    rendered_as,
    train_scenes,
)
from .stage import Stage, _training, peak_lr  # noqa: F401
from .train_figures import confusion_figure, plot_confusion, plot_curves  # noqa: F401
from .train_finder import (  # noqa: F401
    LONG_SIDE,
    STRIDE,
    _finder_step,
    finder_batch,
    finder_data,
    finder_loss,
    label_finds,
    mine,
    mine_shipped,
    run_finder,
    train_finder,
    tune_finder,
)
from .train_reader import (  # noqa: F401
    CROP,
    MARGIN,
    SYMMETRIC,
    _reader_bank,
    crop_bank,
    read_classes,
    reader_data,
    reader_figures,
    train_reader,
)

DEFAULT_DATA = Path("data/detector")
DEFAULT_RUNS = Path("runs/detector")


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise SystemExit("zipai train: torch is not installed; pip install -e '.[train]' "
                         "(torch==2.13.0)") from None
    return torch


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="zipai train", description=__doc__.split("\n\n")[0])
    g = p.add_argument_group("where things go")
    g.add_argument("--data", type=Path, default=DEFAULT_DATA,
                   help="the rendered scene folders, rendered here where missing")
    g.add_argument("--runs", type=Path, default=DEFAULT_RUNS,
                   help="checkpoints, data caches and curves; a run resumes from what is here")
    g.add_argument("--out", type=Path, default=None, help="where the model goes (default: models/)")
    g.add_argument("--fresh", action="store_true", help="ignore the checkpoints in --runs and start over")
    g.add_argument("--threads", type=int, default=2, help="CPU threads for training and mining")

    g = p.add_argument_group("the scenes")
    g.add_argument("--seed", type=int, default=5,
                   help="the render seed of the training scenes; the val scenes use seed + 1, the "
                        "other sets further offsets")
    g.add_argument("--train-count", type=int, default=2400,
                   help="plain training scenes, which both networks learn from")
    g.add_argument("--style2-count", type=int, default=600,
                   help="more training scenes, with decorated glyphs (render style 2, seed + 8)")
    g.add_argument("--val-count", type=int, default=200,
                   help="val scenes: the curves and the int8 calibration")
    g.add_argument("--size", default="1600x1200", help="the training and val scenes' size WxH")
    g.add_argument("--finder-extra", type=int, default=6000,
                   help="scenes only the finder learns from (seed + 20), rendered small")
    g.add_argument("--finder-extra-style2", type=int, default=1200,
                   help="of those, decorated (render style 2, seed + 21)")
    g.add_argument("--finder-extra-size", default="640x480",
                   help="their size WxH: the finder sees a photo at 416 px, so small renders serve it")
    g.add_argument("--reader-extra", type=int, default=1600,
                   help="scenes only the reader learns from (seed + 30), in typefaces the finder's "
                        "scenes do not use")
    g.add_argument("--reader-extra-style2", type=int, default=400,
                   help="of those, decorated (render style 2, seed + 31)")
    g.add_argument("--reader-extra-split", choices=("reader", "wide", "wider"), default="reader",
                   help="their font split (datasets/fonts.py): reader, wide (reader and MORE) or "
                        "wider (wide and SELECT)")
    g.add_argument("--reader-extra-size", default="1200x900",
                   help="their size WxH: the reader sees glyph crops, which need no larger scene")

    g = p.add_argument_group("the stages (wall-clock minutes; a stopped run resumes)")
    g.add_argument("--finder-minutes", type=float, default=60.0, help="the finder")
    g.add_argument("--reader-minutes", type=float, default=32.0, help="the reader")
    g.add_argument("--finder-tune-minutes", type=float, default=8.0,
                   help="last: the finder again, with card backs weighted up")
    g.add_argument("--mine", type=int, default=3000,
                   help="training scenes the finder's false finds are mined from (the reader's "
                        "\"none\" class)")
    g.add_argument("--paper", type=int, default=24000,
                   help="reader crops of printed text that is no rank (the \"none\" class)")
    g.add_argument("--turned", action=argparse.BooleanOptionalAction, default=True,
                   help="reader crops turned a quarter or half round too")
    g.add_argument("--brush", action=argparse.BooleanOptionalAction, default=False,
                   help="reader crops also drawn as with a nib and bent smoothly (NIB, WARP), for "
                        "brush-written decks")
    g.add_argument("--finder-pen", action=argparse.BooleanOptionalAction, default=False,
                   help="a share of the finder's windows drawn as with a pen of one direction (PEN): "
                        "ink grown along it, as a brush draws, or worn away across it, as a Ming "
                        "face draws hairline strokes, blended in by 0.3 to 1")

    g = p.add_argument_group("one network behind a shipped one")
    g.add_argument("--reader-only", action="store_true",
                   help="train only a new reader, behind the finder in --out (its false finds "
                        "mined with that finder); every tuned setting stays")
    g.add_argument("--reader-scenes", choices=("own", "recipe"), default="own",
                   help="with --reader-only: its own scenes (--reader-train at --reader-extra-size) "
                        "or the recipe's training scenes (--train-count and --style2-count at --size)")
    g.add_argument("--reader-train", type=int, default=2400,
                   help="with --reader-only --reader-scenes own: scenes in the finder's typefaces "
                        "(seed + 40)")
    g.add_argument("--reader-train-style2", type=int, default=600,
                   help="of those, decorated (render style 2, seed + 41)")
    g.add_argument("--reader-from", type=Path, default=None,
                   help="with --reader-only: start from this exported reader.onnx (int8 weights "
                        "dequantized, BatchNorms kept as exported) instead of from scratch")
    g.add_argument("--reader-lr", type=float, default=None,
                   help="the reader's peak learning rate (default 3e-3 from scratch, 5e-4 with "
                        "--reader-from)")
    g.add_argument("--finder-only", action="store_true",
                   help="train only the finder, on from --finder-from, behind the reader in --out "
                        "on the recipe's finder scenes; every tuned setting stays")
    g.add_argument("--finder-from", type=Path, default=None,
                   help="with --finder-only: start from this exported finder.onnx")
    g.add_argument("--finder-lr", type=float, default=None,
                   help="the finder's peak learning rate (default 3e-3 from scratch, 6e-4 with "
                        "--finder-from)")

    g = p.add_argument_group("export")
    g.add_argument("--mirror", action=argparse.BooleanOptionalAction, default=True,
                   help="the exported finder averages the photo and its mirror image")
    g.add_argument("--int8", action=argparse.BooleanOptionalAction, default=True,
                   help="quantize both networks to int8, calibrated on val photos and crops, each "
                        "also as its int8-weight twin")
    g.add_argument("--selector", action=argparse.BooleanOptionalAction, default=None,
                   help="last, fit the selector (which finds are cards) to the new networks' finds "
                        "on the selector scenes under --selector-data, rendered where missing; its "
                        "threshold stays the manifest's. Default: on for the whole recipe, off for "
                        "--reader-only and --finder-only, which keep the selector in --out")
    g.add_argument("--selector-data", type=Path, default=DEFAULT_DATA,
                   help="where the selector's scene sets live (zipai.datasets.sets)")
    return p


def run(args: argparse.Namespace) -> int:
    torch = _torch()
    torch.set_num_threads(max(1, args.threads))
    from . import export as E
    from .nets import n_params

    out_dir = args.out or models_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    args.runs.mkdir(parents=True, exist_ok=True)
    if args.fresh:
        for f in args.runs.glob("*.ckpt"):
            f.unlink()
        for f in args.runs.glob("*.done.pt"):
            f.unlink()
    if args.reader_only and args.finder_only:
        raise TrainError("--reader-only and --finder-only: one network at a time")
    if args.reader_only:
        return run_reader_only(torch, args, out_dir)
    if args.finder_only:
        return run_finder_only(torch, args, out_dir)
    if args.finder_from is not None:
        raise TrainError("--finder-from goes with --finder-only: the whole recipe trains its finder "
                         "from scratch")
    if args.reader_from is not None:
        raise TrainError("--reader-from goes with --reader-only: the whole recipe trains its reader "
                         "behind its own new finder")
    t_start = time.time()
    train_sc, val_sc, n_style2 = train_scenes(args)
    extra_sc = finder_extra(args)
    more = reader_extra(args)  # rendered now, so that training runs unattended
    if more:
        print(f"reader: {len(more)} more scenes in the faces of font split {args.reader_extra_split}",
              file=sys.stderr)
    fs = finder_data(args, train_sc, extra_sc)
    fv = D.build_finder_set(val_sc, LONG_SIDE, args.runs / "finder_val.npz", "finder data (val)")
    finder, fh = train_finder(torch, fs, fv, args)
    bank, val_bank = reader_data(args, train_sc, val_sc, more,
                                 lambda: mine(torch, finder, fs, train_sc, args.mine))
    reader, rh = train_reader(torch, bank, val_bank, args)
    finder = tune_finder(torch, finder, fs, args)
    acc = reader_figures(torch, reader, val_bank, out_dir)
    plot_curves(fh, rh, out_dir / "training_curve.png")
    info = {"data_seed": args.seed, "val_seed": args.seed + 1, "train_scenes": len(train_sc),
            "train_style2_scenes": n_style2, "style2_seed": args.seed + 8 if n_style2 else None,
            "val_scenes": len(val_sc), "finder_extra_scenes": len(extra_sc),
            "finder_extra_size": args.finder_extra_size if extra_sc else None,
            "scene_size": args.size, "finder_minutes": round(args.finder_minutes, 1),
            "reader_minutes": round(args.reader_minutes, 1),
            "finder_tune_minutes": round(args.finder_tune_minutes, 1), "reader_crops": len(bank[1]),
            "turned_crops": bool(args.turned), "paper_crops": int(args.paper), "finder_zoom": list(ZOOM),
            "reader_brush": brush_info(args), "finder_pen": pen_info(args),
            "recipe_minutes": round((time.time() - t_start) / 60, 1),
            "finder_params": n_params(finder), "reader_params": n_params(reader),
            "fonts": sorted({str(s.info.get("font")) for s in train_sc if s.info.get("font")}),
            "reader_extra_scenes": len(more),
            "reader_extra_size": args.reader_extra_size if more else None,
            "reader_extra_split": args.reader_extra_split if more else None,
            "reader_fonts": sorted({str(s.info.get("font")) for s in more if s.info.get("font")})}
    figures = {"reader_val_crop_accuracy": round(acc, 4)}
    calibration = None
    if args.int8:
        photos = [fv.images[i, :h, :w] for i, (w, h) in enumerate(fv.sizes[:64])]
        calibration = (photos, calibration_crops(args, val_bank))
    E.export_all(torch, finder, reader, out_dir, info, figures, flip=args.mirror, calibration=calibration)
    print(f"model written to {out_dir} (reader val crop accuracy {acc:.4f})", file=sys.stderr)
    fit_selector(args, out_dir)
    return 0


def fit_selector(args: argparse.Namespace, out_dir: Path) -> None:
    """The last stage: a selector fitted to the finds of the networks just written (the whole
    recipe's new manifest has none; ``--selector`` refits the one a one-network run keeps). The
    examples are cached in ``--runs`` under the networks' and settings' hash: a run that
    resumes fits again at once."""
    manifest = out_dir / "manifest.json"
    one_network = args.reader_only or args.finder_only
    if args.selector is False or (args.selector is None and one_network):
        print("selector: not fitted again (--selector fits one); the manifest keeps the one it had",
              file=sys.stderr)
        return
    import json

    from zipai.datasets.sets import SETS
    from zipai.models.evaluate import results_key

    from .selector import fit_into

    # at the size `zipai data render` gives by default, as zipai data sets renders them
    folders = [ensure_split(args.selector_data, s.split, s.count, s.seed, "1600x1200", s.folder,
                            s.style, s.start) for s in SETS["selector"]]
    data = json.loads(manifest.read_text(encoding="utf-8"))
    for section in PROVENANCE_SECTIONS:  # a manifest from before provenance moved out: no find changes
        data.pop(section, None)
    data.get("postprocess", {}).pop("selector", None)
    # the examples are finds: the code that makes them (zipai.vision) is in the key too
    cache = args.runs / f"selector_examples_{results_key(data, folders)[:16]}.npz"
    print(f"selector: fitting to the finds in {len(folders)} folders …", file=sys.stderr)
    try:
        summary = fit_into(manifest, folders, manifest, cache=cache)
    except (OSError, ValueError) as exc:
        raise TrainError(f"fitting the selector: {exc}") from None
    print(f"selector written to {manifest} (held-back scenes' log loss {summary['held_back_log_loss']})",
          file=sys.stderr)


def brush_info(args: argparse.Namespace) -> dict[str, list[float]] | None:
    return {"nib": list(NIB), "warp": list(WARP)} if args.brush else None


def pen_info(args: argparse.Namespace) -> dict[str, list[float]] | None:
    return {"pen": list(PEN)} if getattr(args, "finder_pen", False) else None


def calibration_crops(args: argparse.Namespace, val_bank: tuple[np.ndarray, ...]) -> np.ndarray:
    """2,048 val crops, the same for every run of a seed, to calibrate the int8 reader on."""
    pick = np.random.default_rng(args.seed + 41).permutation(len(val_bank[1]))[:2048]
    return val_bank[0][np.sort(pick)]


def _check_start(torch: Any, path: Path | None, flag: str, load: Any) -> str:
    """The start file of a warm run, loaded once before the minutes of rendering and mining
    (a wrong file fails now, not after them); its SHA-256 for the manifest."""
    from . import export as E

    if path is None:
        raise TrainError(f"{flag} names the exported file to start from")
    if not path.is_file():
        raise TrainError(f"{flag} {path}: no such file")
    try:
        load(torch, path)
    except ValueError as e:
        raise TrainError(f"{flag} {e}") from e
    return E.sha256(path)


def on_record(info: dict[str, Any], manifest: Path, key: str, args: argparse.Namespace) -> dict[str, Any]:
    """A warm run's record with the command that made it, and the record of the warm run before
    it (``training[key]`` of the manifest's provenance) kept under ``{key}_before``, so that a model trained
    on round after round still says every round it came from."""
    import shlex

    out = dict(info)
    if getattr(args, "argv", None) is not None:
        out["command"] = shlex.join(["zipai", "train", *args.argv])
    before = read_provenance(manifest)["training"].get(key)
    if before:
        out[f"{key}_before"] = before
    return out


def run_finder_only(torch: Any, args: argparse.Namespace, out_dir: Path) -> int:
    """``--finder-only``: the finder trained on from ``--finder-from`` on the recipe's finder
    scenes (the training renders and the finder's own small ones, cached in ``--runs``), written
    behind the reader already in ``out_dir``. The manifest keeps the reader and every tuned
    setting; compare and re-tune before trusting them."""
    from . import export as E
    from .nets import n_params

    manifest = out_dir / "manifest.json"
    if not (out_dir / E.READER_FILE).exists() or not manifest.exists():
        raise TrainError(f"--finder-only trains behind a shipped reader, and {out_dir} has no "
                         f"{E.READER_FILE} and manifest.json")
    start_sha = _check_start(torch, args.finder_from, "--finder-from", E.finder_from_onnx)
    t_start = time.time()
    train_sc, val_sc, n_style2 = train_scenes(args)
    extra_sc = finder_extra(args)
    fs = finder_data(args, train_sc, extra_sc)
    fv = D.build_finder_set(val_sc, LONG_SIDE, args.runs / "finder_val.npz", "finder data (val)")
    finder, fh = train_finder(torch, fs, fv, args)
    finder = tune_finder(torch, finder, fs, args)
    plot_curves(fh, {}, out_dir / "training_curve.png")
    info = {"finder_only": True, "finder_from_sha256": start_sha,
            "finder_lr": peak_lr(args, "finder"), "finder_minutes": round(args.finder_minutes, 1),
            "finder_tune_minutes": round(args.finder_tune_minutes, 1),
            "finder_train_scenes": len(train_sc),
            "finder_train_style2_scenes": n_style2, "finder_extra_scenes": len(extra_sc),
            "finder_recipe_minutes": round((time.time() - t_start) / 60, 1),
            "finder_params": n_params(finder), "finder_pen": pen_info(args)}
    photos = [fv.images[i, :h, :w] for i, (w, h) in enumerate(fv.sizes[:64])] if args.int8 else None
    E.export_finder(torch, finder, out_dir, {"finder_warm": on_record(info, manifest, "finder_warm", args)},
                    {}, photos)
    print(f"finder written to {out_dir}; the reader is unchanged", file=sys.stderr)
    fit_selector(args, out_dir)
    return 0


def run_reader_only(torch: Any, args: argparse.Namespace, out_dir: Path) -> int:
    """``--reader-only``: a new reader behind the finder that ships in ``out_dir``, trained on
    scenes of its own (the finder's are rendered at 1600x1200 and take an hour) or, with
    ``--reader-scenes recipe``, on the finder's training renders, and on the reader-only
    scenes, with that finder's mined boxes. The manifest keeps the finder and
    every tuned setting; re-tune them (zipai tune thresholds) before trusting the figures."""
    from . import export as E
    from .nets import n_params

    manifest = out_dir / "manifest.json"
    if not (out_dir / E.FINDER_FILE).exists() or not manifest.exists():
        raise TrainError(f"--reader-only trains behind a shipped finder, and {out_dir} has no "
                         f"{E.FINDER_FILE} and manifest.json")
    start_sha = (_check_start(torch, args.reader_from, "--reader-from", E.reader_from_onnx)
                 if args.reader_from is not None else None)
    t_start = time.time()
    train_sc, val_sc, n_style2 = train_scenes(args)
    more = reader_extra(args)
    bank, val_bank = reader_data(args, train_sc, val_sc, more,
                                 lambda: mine_shipped(manifest, train_sc, args.mine, args.threads))
    reader, rh = train_reader(torch, bank, val_bank, args)
    acc = reader_figures(torch, reader, val_bank, out_dir)
    plot_curves({}, rh, out_dir / "training_curve.png")
    own = args.reader_scenes == "own"
    info = {"reader_only": True, "reader_scenes": args.reader_scenes, "reader_train_scenes": len(train_sc),
            "reader_train_style2_scenes": n_style2, "reader_train_seed": args.seed + 40 if own else args.seed,
            "reader_train_size": args.reader_extra_size if own else args.size,
            "reader_minutes": round(args.reader_minutes, 1),
            "reader_from_sha256": start_sha,
            "reader_lr": peak_lr(args, "reader"),
            "reader_crops": len(bank[1]), "mined_scenes": min(args.mine, len(train_sc)),
            "mined_with_finder": E.sha256(out_dir / E.FINDER_FILE), "reader_brush": brush_info(args),
            "reader_recipe_minutes": round((time.time() - t_start) / 60, 1),
            "reader_params": n_params(reader), "reader_extra_scenes": len(more),
            "reader_extra_split": args.reader_extra_split,
            "reader_fonts": sorted({str(s.info.get("font")) for s in more if s.info.get("font")}),
            "reader_train_fonts": sorted({str(s.info.get("font")) for s in train_sc if s.info.get("font")})}
    crops = calibration_crops(args, val_bank) if args.int8 else None
    if args.reader_from is not None:  # the reader's first training stays on record beside it
        info = {"reader_warm": on_record(info, manifest, "reader_warm", args)}
    E.export_reader(torch, reader, out_dir, info, {"reader_val_crop_accuracy": round(acc, 4)}, crops)
    print(f"reader written to {out_dir} (val crop accuracy {acc:.4f}); the finder is unchanged",
          file=sys.stderr)
    fit_selector(args, out_dir)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv

    def _stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    try:
        return run(args)
    except TrainError as exc:
        print(f"zipai train: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nzipai train: interrupted; run it again to resume from the last checkpoint", file=sys.stderr)
        return 130
