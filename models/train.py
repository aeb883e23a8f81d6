"""``zipai train``: the whole recipe that produced the shipped model, on CPU.

render scenes (if missing) -> finder data -> train the finder -> mine its false finds ->
reader crop bank -> train the reader -> export both to ONNX -> manifest (files, SHA-256,
settings) and provenance (data seeds, recipe, figures), training-curve and confusion-matrix PNGs
under models/ -> fit the selector to the new networks' finds (numpy; ``zipai.models.selector``).

Each stage checkpoints to ``--runs`` every minute and on Ctrl-C; running the command again
resumes where it stopped (``--fresh`` starts over). Time budgets are wall-clock minutes, and the
learning rate follows a cosine over the budget, so an interrupted run resumes on schedule.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from zipai.engine import CARD_NAMES
from zipai.vision import constants as C
from zipai.vision.files import models_dir
from zipai.vision.preprocess import MEAN, STD

from . import data as D
from .manifest import PROVENANCE_SECTIONS, read_provenance

DEFAULT_DATA = Path("data/detector")
DEFAULT_RUNS = Path("runs/detector")
LONG_SIDE = C.FINDER_LONG_SIDE
STRIDE = C.FINDER_STRIDE
CROP = C.READER_CROP
MARGIN = C.READER_MARGIN
SYMMETRIC = tuple(sorted(CARD_NAMES.index(c) for c in C.SYMMETRIC))  # class indices: x1 x2 x3 x10
ZOOM = (0.6, 1.7)  # finder window rescaling range
NIB = (0.3, 2.5)  # reader crops drawn as with a nib: share, reach in pixels
WARP = (0.5, 0.08)  # reader crops bent: share, most displacement in half-widths
PEN = (0.3, 2.0)  # finder windows drawn with a pen of one direction: share, reach in pixels


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise SystemExit("zipai train: torch is not installed; pip install -e '.[train]' "
                         "(torch==2.13.0)") from None
    return torch


class TrainError(ValueError):
    """A bad argument or missing data for training."""


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


# ---------------------------------------------------------------- data


def ensure_split(root: Path, split: str, count: int, seed: int, size: str, folder: str = "",
                 style: int = 1, start: int = 0) -> Path:
    """Render ``root/folder`` (default: the split's name) with the scene generator unless it is
    there already. A folder there already must have been rendered as asked (its font split, and
    no composed 伍 from ``zipai data render --compose-five``): folder names repeat from run to
    run, and a mismatch would train on other scenes than the record says."""
    d = root / (folder or split)
    if (d / "annotations.json").exists():
        had, had_five = rendered_as(d)
        if had is not None and had != split:
            raise TrainError(f"{d} holds scenes of font split {had}, not {split}: render into "
                             "another --data folder")
        if had_five:
            raise TrainError(f"{d} holds scenes rendered with --compose-five {had_five:g}, which no "
                             "recipe trains on: render into another --data folder")
        return d
    try:
        from zipai.datasets.cli import main as data_main  # the scene generator (issue 4)
    except ImportError as exc:
        raise TrainError(f"no data in {d} and the scene generator is not available ({exc})") from None
    print(f"rendering {count} {split} scenes into {d} …", file=sys.stderr)
    rc = data_main(["render", "--out", str(d), "--count", str(count), "--seed", str(seed),
                    "--split", split, "--size", size, "--style", str(style), "--start", str(start)])
    if rc or not (d / "annotations.json").exists():
        raise TrainError(f"rendering {split} into {d} failed (exit {rc})")
    return d


def rendered_as(d: Path) -> tuple[str | None, float]:
    """The font split a rendered folder records (None when it records none) and its share of
    composed 伍 (0 when it records none: every render before the option)."""
    try:
        info = json.loads((d / "annotations.json").read_text()).get("info", {})
    except (OSError, ValueError) as exc:
        raise TrainError(f"cannot read {d / 'annotations.json'}: {exc}") from None
    info = info if isinstance(info, dict) else {}
    split = info.get("split")
    five = info.get("compose_five", 0.0)
    return (split if isinstance(split, str) else None,
            float(five) if isinstance(five, (int, float)) and not isinstance(five, bool) else 0.0)


# ---------------------------------------------------------------- augmentation


def stroke_weight(torch: Any, x: Any, thick: float = 0.25, thin: float = 0.15, thin_max: float = 1.0) -> Any:
    """Float [B, 3, H, W] in 0..1: dark ink grows under a 3x3 min filter (a share ``thick`` of
    the batch) or thins under a max filter (a share ``thin``), blended in by 0.3 to 1 (to
    ``thin_max`` when thinning: at the finder's scale a full max filter erases a glyph). Printed
    decks ink heavier than fonts, and a Ming face's 一 is a hairline. Only the chosen images are
    filtered: on the finder's 256-px crops, filtering all of them cost a third of a step."""
    F = torch.nn.functional
    b = x.shape[0]
    r = torch.rand(b, 1, 1, 1, device=x.device).flatten()
    a = (torch.rand(b, 1, 1, 1, device=x.device) * 0.7 + 0.3).flatten()
    grow, shrink = (r < thick).nonzero().flatten(), (r > 1 - thin).nonzero().flatten()
    if len(grow) + len(shrink) == 0:
        return x
    x = x.contiguous()
    if len(grow):
        xs, w = x[grow], a[grow].view(-1, 1, 1, 1)
        x[grow] = xs * (1 - w) - F.max_pool2d(-xs, 3, 1, 1) * w
    if len(shrink):
        xs, w = x[shrink], a[shrink].clamp(max=thin_max).view(-1, 1, 1, 1)
        x[shrink] = xs * (1 - w) + F.max_pool2d(xs, 3, 1, 1) * w
    return x


def binomial_blur(F: Any, x: Any) -> Any:
    """Float [B, C, H, W] blurred by the 3x3 binomial kernel (1 2 1 by 1 2 1, over 16), edges
    replicated: as two passes of shifted sums, which on two cores took a third of the time of
    a grouped convolution on the reader's crops."""
    p = F.pad(x, (1, 1, 1, 1), mode="replicate")
    rows = p[:, :, :-2] + 2 * p[:, :, 1:-1] + p[:, :, 2:]
    return (rows[..., :-2] + 2 * rows[..., 1:-1] + rows[..., 2:]) / 16


def photometric(torch: Any, x: Any, strong: bool = False) -> Any:
    """uint8 [B, H, W, 3] -> normalised float [B, 3, H, W] with light, colour, blur and noise.

    Gain, brightness and contrast about the image's mean are one scale and offset a channel,
    applied in one pass, and grey only touches the images drawn grey: on two cores the plain
    formulas, a pass over the batch each, took about a quarter of a finder step. The random
    draws are the same, in the same order, as the formulas' (see the tests)."""
    F = torch.nn.functional
    b = x.shape[0]
    x = x.permute(0, 3, 1, 2).float().div_(255.0)
    dev = x.device
    gain = 1 + (torch.rand(b, 3, 1, 1, device=dev) - 0.5) * (0.4 if strong else 0.3)
    bright = 0.55 + torch.rand(b, 1, 1, 1, device=dev) * 0.8
    scale = gain * bright
    # the mean of the scaled image, from the mean of each channel (equal pixel counts)
    mean = (x.mean(dim=(2, 3), keepdim=True) * scale).mean(dim=1, keepdim=True)
    contrast = 0.6 + torch.rand(b, 1, 1, 1, device=dev) * 0.7
    x = x.mul(scale * contrast).add_(mean * (1 - contrast))  # keeps x's layout (channels last)
    gray = (torch.rand(b, 1, 1, 1, device=dev) < (0.15 if strong else 0.08)).flatten().nonzero().flatten()
    if len(gray):
        x[gray] = x[gray].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    blur = torch.rand(b, device=dev) < (0.4 if strong else 0.25)
    if blur.any():
        xb = binomial_blur(F, x[blur])
        if strong:
            twice = torch.rand(xb.shape[0], 1, 1, 1, device=dev) < 0.4
            xb = torch.where(twice, binomial_blur(F, xb), xb)
        x[blur] = xb
    sigma = torch.rand(b, 1, 1, 1, device=dev) * (0.06 if strong else 0.04)
    # drawn in (B, 3, H, W) order whatever x's layout, as the formulas drew it
    x.addcmul_(torch.randn(x.shape, device=dev), sigma).clamp_(0, 1)
    m = torch.tensor(MEAN, device=dev).view(1, 3, 1, 1)
    s = torch.tensor(STD, device=dev).view(1, 3, 1, 1)
    return x.sub_(m).div_(s)


def nib(torch: Any, x: Any, share: float = NIB[0], reach: float = NIB[1]) -> Any:
    """Float [B, 3, S, S] in 0..1: on a share of the crops, ink grows along one direction, as
    a flat brush or nib draws it: a stroke across the nib comes out broad and one along it
    thin, the look of brush-written decks that even and round font strokes lack. The darkest
    of the crop and two copies moved up to ``reach`` pixels that way (bilinear, any angle)."""
    F = torch.nn.functional
    b, w = x.shape[0], x.shape[3]
    pick = (torch.rand(b) < share).nonzero().flatten()
    if len(pick) == 0:
        return x
    ang = torch.rand(len(pick)) * math.pi
    dist = (0.5 + torch.rand(len(pick)) * (reach - 0.5)) * 2 / w  # pixels -> grid units
    xs = x[pick]
    out = xs
    for part in (0.5, 1.0):
        tx, ty = torch.cos(ang) * dist * part, torch.sin(ang) * dist * part
        one, zero = torch.ones_like(tx), torch.zeros_like(tx)
        theta = torch.stack([torch.stack([one, zero, tx], 1), torch.stack([zero, one, ty], 1)], 1)
        grid = F.affine_grid(theta, list(xs.shape), align_corners=False)
        out = torch.minimum(out, F.grid_sample(xs, grid, mode="bilinear", padding_mode="border",
                                               align_corners=False))
    x = x.clone()
    x[pick] = out
    return x


def warp(torch: Any, grid: Any, share: float = WARP[0], amount: float = WARP[1]) -> Any:
    """A sampling grid [B, S, S, 2] bent smoothly on a share of the crops, by at most
    ``amount`` of the crop's half-width: a hand-written face bends and tilts strokes that a
    font draws straight, and a reader that learnt fonts alone reads their exact shapes."""
    F = torch.nn.functional
    b, h, w, _ = grid.shape
    coarse = (torch.rand(b, 2, 5, 5) - 0.5) * 2
    amp = torch.rand(b, 1, 1, 1) * amount * (torch.rand(b, 1, 1, 1) < share).float()
    disp = F.interpolate(coarse, size=(h, w), mode="bicubic", align_corners=False) * amp
    return grid + disp.permute(0, 2, 3, 1)


def pen(torch: Any, x: Any, share: float = PEN[0], reach: float = PEN[1]) -> Any:
    """Float [B, 3, H, W] in 0..1, the finder's windows: on a share of them, strokes drawn as
    with a pen held one way (across, down or either diagonal), half grown along it (the
    darkest of the window and copies moved up to ``reach`` pixels: a brush's broad strokes)
    and half worn away across it (the lightest: a Ming face's hairline 一), blended in by 0.3
    to 1 (worn, to 0.7, so that a worn stroke keeps 0.3 of its ink: faint, not gone). Round,
    even font strokes are what the finder learnt; the decks it misses draw neither. Whole-pixel
    moves: at the finder's scale a stroke is a pixel or two wide, and sampling at any angle
    (``nib``) took longer on two cores than the light and colour of the whole batch."""
    F = torch.nn.functional
    b, _, h, w = x.shape
    pick = (torch.rand(b) < share).nonzero().flatten().tolist()
    if not pick:
        return x
    x = x.clone()
    r = max(1, int(reach))
    for i in pick:
        dx, dy = ((1, 0), (0, 1), (1, 1), (1, -1))[int(torch.randint(4, (1,)))]
        k = 1 + int(torch.rand(1) * reach) if reach > 1 else 1
        thin = bool(torch.rand(1) < 0.5)
        a = float(torch.rand(1)) * 0.7 + 0.3
        a = min(a, 0.7) if thin else a
        xi = x[i:i + 1]
        p = F.pad(xi, (r, r, r, r), mode="replicate")
        out = xi
        for step in range(1, min(k, r) + 1):
            ox, oy = dx * step, dy * step
            moved = p[..., r + oy:r + oy + h, r + ox:r + ox + w]
            out = torch.maximum(out, moved) if thin else torch.minimum(out, moved)
        x[i:i + 1] = xi * (1 - a) + out * a
    return x


def reader_augment(torch: Any, x: Any, brush: bool = False) -> Any:
    """Crops uint8 [B, S, S, 3] -> augmented normalised [B, 3, S, S]: stroke weight (and, with
    ``brush``, a nib's strokes and bent shapes), small rotation/scale/shift, then light,
    colour, blur and noise (heavier decks and phone photos)."""
    F = torch.nn.functional
    b = x.shape[0]
    xf = stroke_weight(torch, x.permute(0, 3, 1, 2).float() / 255.0)
    if brush:
        xf = nib(torch, xf)
    # geometry
    ang = (torch.rand(b) - 0.5) * math.radians(20)
    sc = 1 + (torch.rand(b) - 0.5) * 0.2
    tx, ty = (torch.rand(b) - 0.5) * 0.1, (torch.rand(b) - 0.5) * 0.1
    cos, sin = torch.cos(ang) * sc, torch.sin(ang) * sc
    theta = torch.stack([torch.stack([cos, -sin, tx], 1), torch.stack([sin, cos, ty], 1)], 1)
    grid = F.affine_grid(theta, list(xf.shape), align_corners=False)
    if brush:
        grid = warp(torch, grid)
    xf = F.grid_sample(xf, grid, mode="bilinear", padding_mode="border", align_corners=False)
    return photometric(torch, (xf.permute(0, 2, 3, 1) * 255).clamp(0, 255), strong=True)


# ---------------------------------------------------------------- checkpoints


class Stage:
    """A time-budgeted training stage with resumable checkpoints."""

    def __init__(self, torch: Any, name: str, runs: Path, model: Any, opt: Any, budget_s: float,
                 base_lr: float, fresh: bool) -> None:
        self.torch, self.name, self.model, self.opt = torch, name, model, opt
        self.path = runs / f"{name}.ckpt"
        self.done_path = runs / f"{name}.done.pt"
        self.budget, self.base_lr = budget_s, base_lr
        self.elapsed, self.step = 0.0, 0
        self.history: dict[str, list[list[float]]] = {"train": [], "val": []}
        self.stop = False
        if not fresh and self.path.exists():
            ck = torch.load(self.path, map_location="cpu", weights_only=False)
            model.load_state_dict(ck["model"])
            opt.load_state_dict(ck["opt"])
            self.elapsed, self.step, self.history = ck["elapsed"], ck["step"], ck["history"]
            print(f"{name}: resumed at step {self.step}, {self.elapsed / 60:.1f} of "
                  f"{budget_s / 60:.0f} min", file=sys.stderr)
        self._last_save = time.time()
        self._t = time.time()

    @property
    def finished(self) -> bool:
        return self.done_path.exists()

    def lr(self) -> float:
        frac = min(1.0, self.elapsed / max(1.0, self.budget))
        warm = min(1.0, (self.step + 1) / 100)
        return self.base_lr * warm * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * frac)))

    def tick(self) -> bool:
        """Advance the clock; set the learning rate; checkpoint each minute; False when over."""
        now = time.time()
        self.elapsed += now - self._t
        self._t = now
        self.step += 1
        for g in self.opt.param_groups:
            g["lr"] = self.lr()
        if now - self._last_save > 60:
            self.save()
        return self.elapsed < self.budget and not self.stop

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        self.torch.save({"model": self.model.state_dict(), "opt": self.opt.state_dict(),
                         "elapsed": self.elapsed, "step": self.step, "history": self.history}, tmp)
        tmp.replace(self.path)
        self._last_save = time.time()

    def load_finished(self) -> dict[str, list[list[float]]]:
        """Load a finished stage into the model, ready for inference; its history."""
        ck = self.torch.load(self.done_path, map_location="cpu", weights_only=False)
        self.model.load_state_dict(ck["model"])
        self.model.eval()  # inference from here on: BatchNorm must not learn from what it sees
        return ck["history"]

    def finish(self) -> None:
        self.save()
        self.torch.save({"model": self.model.state_dict(), "history": self.history,
                         "elapsed": self.elapsed, "step": self.step}, self.done_path)


# ---------------------------------------------------------------- finder


def finder_batch(fs: D.FinderSet, idx: np.ndarray, crop: int, rng: np.random.Generator,
                 flip: bool = True, zoom: tuple[float, float] = (1.0, 1.0)) -> tuple[np.ndarray, ...]:
    """Random crop windows of the finder images and their targets. With a ``zoom`` range, most
    windows are rescaled by a factor drawn log-uniformly from it: phones are held closer or
    farther than the renders, and glyphs of every size must peak."""
    out = crop // STRIDE
    imgs = np.zeros((len(idx), crop, crop, 3), np.uint8)
    heat = np.zeros((len(idx), 2, out, out), np.float32)
    weight = np.zeros_like(heat)
    reg = np.zeros((len(idx), 4, out, out), np.float32)
    mask = np.zeros((len(idx), out, out), np.float32)
    for n, i in enumerate(idx):
        cw, ch = (int(v) for v in fs.sizes[i])
        z = 1.0
        if zoom != (1.0, 1.0) and rng.random() < 0.7:
            z = float(np.exp(rng.uniform(math.log(zoom[0]), math.log(zoom[1]))))
        ws = max(STRIDE * 4, round(crop / z))
        x0 = int(rng.integers(0, max(1, cw - ws + 1)))
        y0 = int(rng.integers(0, max(1, ch - ws + 1)))
        x0 -= x0 % STRIDE
        y0 -= y0 % STRIDE
        win = fs.images[i, y0:y0 + min(ws, ch - y0), x0:x0 + min(ws, cw - x0)]
        if z != 1.0:
            size = (max(1, round(win.shape[1] * z)), max(1, round(win.shape[0] * z)))
            small = Image.fromarray(np.ascontiguousarray(win))
            win = np.asarray(small.resize(size, Image.Resampling.BILINEAR))
        win = win[:crop, :crop]
        imgs[n, :win.shape[0], :win.shape[1]] = win
        b = (fs.boxes[i] - np.asarray([x0, y0, x0, y0], np.float32)) * z
        vis_w, vis_h = win.shape[1], win.shape[0]
        if flip and rng.random() < 0.5:
            imgs[n, :, :vis_w] = imgs[n, :, :vis_w][:, ::-1]
            b = b[:, [2, 1, 0, 3]] * np.asarray([-1, 1, -1, 1], np.float32) + np.asarray(
                [vis_w, 0, vis_w, 0], np.float32)
        cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
        inside = (cx >= 0) & (cy >= 0) & (cx < vis_w) & (cy < vis_h)
        ign = fs.ignore[i] | ~inside
        # a card cut by the window edge is neither positive nor negative
        touch = (b[:, 2] > 0) & (b[:, 3] > 0) & (b[:, 0] < vis_w) & (b[:, 1] < vis_h)
        edge = touch & ((b[:, 0] < 0) | (b[:, 1] < 0) | (b[:, 2] > vis_w) | (b[:, 3] > vis_h))
        ign = ign | edge
        sel = touch
        h_, w_, r_, m_ = D.finder_targets(b[sel], fs.kinds[i][sel], ign[sel], out, out, STRIDE)
        heat[n], weight[n], reg[n], mask[n] = h_, w_, r_, m_
        # outside the image content: no loss
        if vis_w < crop:
            weight[n, :, :, (vis_w + STRIDE - 1) // STRIDE:] = 0
        if vis_h < crop:
            weight[n, :, (vis_h + STRIDE - 1) // STRIDE:, :] = 0
    return imgs, heat, weight, reg, mask


def finder_loss(torch: Any, out: Any, heat: Any, weight: Any, reg: Any, mask: Any,
                back_weight: float = 1.0) -> tuple[Any, Any, Any]:
    """CenterNet focal loss on the heatmap + L1 on log-size and offset at centres."""
    logit = out[:, :2]
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = (heat >= 0.999).float()
    neg_w = (1 - heat) ** 4
    lp = -torch.log(p) * (1 - p) ** 2 * pos
    ln = -torch.log(1 - p) * p ** 2 * neg_w * (1 - pos)
    npos = pos.sum().clamp(min=1)
    if back_weight != 1.0:
        weight = weight * torch.tensor([1.0, back_weight]).view(1, 2, 1, 1)
    focal = ((lp + ln) * weight).sum() / npos
    m = mask.unsqueeze(1)
    l1 = ((out[:, 2:] - reg).abs() * m).sum() / (m.sum().clamp(min=1) * 4)
    return focal + l1, focal, l1


def peak_lr(args: argparse.Namespace, net: str) -> float:
    """A network's peak learning rate: ``--finder-lr`` / ``--reader-lr``, else lower for a
    network trained on from an exported file (``--finder-from`` / ``--reader-from``) than from
    scratch. Training and the manifest's record both read it here."""
    warm = {"finder": 6e-4, "reader": 5e-4}[net]
    given = getattr(args, f"{net}_lr", None)
    return given or (warm if getattr(args, f"{net}_from", None) is not None else 3e-3)


def _training(torch: Any, model: Any, warm: bool) -> None:
    """Training mode; a network started from an exported file keeps its BatchNorms in eval
    mode, since batch statistics would undo the fold (``export.reader_from_onnx``)."""
    from .export import freeze_batchnorm

    model.train()
    if warm:
        freeze_batchnorm(torch, model)


def train_finder(torch: Any, fs: D.FinderSet, val: D.FinderSet, args: argparse.Namespace) -> Any:
    from .export import finder_from_onnx
    from .nets import Finder

    torch.manual_seed(args.seed)
    warm = getattr(args, "finder_from", None)
    model = (finder_from_onnx(torch, warm) if warm else Finder()).to(
        memory_format=torch.channels_last)  # ~25% faster convolutions on CPU
    lr = peak_lr(args, "finder")
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    st = Stage(torch, "finder", args.runs, model, opt, args.finder_minutes * 60, lr, args.fresh)
    if st.finished:
        return model, st.load_finished()
    rng = np.random.default_rng(args.seed + st.step)
    vrng = np.random.default_rng(0)
    vb = finder_batch(val, np.arange(min(48, len(val.sizes))), 256, vrng, flip=False)
    vt = [torch.from_numpy(a) for a in vb]
    n = len(fs.sizes)
    t0 = time.time()
    run_loss: list[float] = []
    _training(torch, model, bool(warm))
    while True:
        try:
            go = _finder_step(torch, model, opt, fs, rng, n, run_loss, st,
                              drawn=getattr(args, "finder_pen", False))
        except KeyboardInterrupt:
            st.save()
            raise
        if st.step % 50 == 0 or not go:
            model.eval()
            with torch.no_grad():
                vout = model(_norm(torch, vt[0]))
                vl = float(finder_loss(torch, vout, *vt[1:])[0])
            _training(torch, model, bool(warm))
            st.history["train"].append([st.elapsed / 60, float(np.mean(run_loss[-50:]))])
            st.history["val"].append([st.elapsed / 60, vl])
            D.progress("finder", int(min(st.elapsed, st.budget)), int(st.budget), t0 - 0,
                       f"step {st.step} loss {np.mean(run_loss[-50:]):.3f} val {vl:.3f}")
        if not go:
            break
    st.finish()
    model.eval()
    return model, st.history


def _finder_step(torch: Any, model: Any, opt: Any, fs: D.FinderSet, rng: np.random.Generator, n: int,
                 run_loss: list[float], st: Stage, back_weight: float = 1.0, drawn: bool = False) -> bool:
    idx = rng.integers(0, n, 16)
    imgs, heat, weight, reg, mask = (torch.from_numpy(a) for a in finder_batch(fs, idx, 256, rng, zoom=ZOOM))
    if drawn:  # --finder-pen: back to 0..255, channels last, for the light and colour below
        imgs = pen(torch, imgs.permute(0, 3, 1, 2).float() / 255.0).mul(255).permute(0, 2, 3, 1)
    x = photometric(torch, imgs).contiguous(memory_format=torch.channels_last)
    out = model(x)
    loss, _, _ = finder_loss(torch, out, heat, weight, reg, mask, back_weight)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    run_loss.append(float(loss.detach()))
    return st.tick()


def tune_finder(torch: Any, model: Any, fs: D.FinderSet, args: argparse.Namespace) -> Any:
    """A last, gentler finder stage that weighs card backs three times: backs are few, long and
    overlap in concealed groups, and the first stage finds too few of them."""
    if args.finder_tune_minutes <= 0:
        return model
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4, weight_decay=1e-4)
    st = Stage(torch, "finder_tune", args.runs, model, opt, args.finder_tune_minutes * 60, 6e-4, args.fresh)
    if st.finished:
        st.load_finished()
        return model
    st.step = max(st.step, 100)  # no warm-up: this continues a trained network
    rng = np.random.default_rng(args.seed + 17 + st.step)
    run_loss: list[float] = []
    t0 = time.time()
    _training(torch, model, getattr(args, "finder_from", None) is not None)
    while True:
        try:
            go = _finder_step(torch, model, opt, fs, rng, len(fs.sizes), run_loss, st, back_weight=3.0,
                              drawn=getattr(args, "finder_pen", False))
        except KeyboardInterrupt:
            st.save()
            raise
        if st.step % 50 == 0 or not go:
            st.history["train"].append([st.elapsed / 60, float(np.mean(run_loss[-50:]))])
            D.progress("finder (backs)", int(min(st.elapsed, st.budget)), int(st.budget), t0,
                       f"step {st.step} loss {np.mean(run_loss[-50:]):.3f}")
        if not go:
            break
    st.finish()
    model.eval()
    return model


def _norm(torch: Any, imgs: Any) -> Any:
    x = imgs.permute(0, 3, 1, 2).float() / 255.0
    m = torch.tensor(MEAN).view(1, 3, 1, 1)
    s = torch.tensor(STD).view(1, 3, 1, 1)
    return (x - m) / s


def read_classes(torch: Any, reader: Any, x: Any) -> Any:
    """The reader's best class for each normalised crop of ``x``, a thousand crops at a time."""
    with torch.no_grad():
        return torch.cat([reader(x[i:i + 1000])[:, :22].argmax(1) for i in range(0, len(x), 1000)])


def run_finder(torch: Any, model: Any, img: np.ndarray, threshold: float = 0.3) -> tuple[np.ndarray, ...]:
    """The exported finder's decoding, in torch, for mining and checks (canvas pixels). One
    view, not the shipped mirror average: mining is part of the recipe the networks were
    trained by, and the mirror is an export-time choice."""
    from zipai.vision.postprocess import decode_heatmap, nms

    from .nets import FinderExport

    h, w = img.shape[:2]
    ph, pw = -(-h // 32) * 32, -(-w // 32) * 32
    canvas = np.zeros((1, ph, pw, 3), np.uint8)
    canvas[0, :h, :w] = img
    with torch.no_grad():
        heat, reg = FinderExport(model)(_norm(torch, torch.from_numpy(canvas)))
    f = decode_heatmap(heat.numpy(), reg.numpy(), STRIDE, threshold, valid=(w, h))
    keep = nms(f.boxes, f.scores, f.kinds)
    return f.boxes[keep], f.scores[keep], f.kinds[keep]


def label_finds(scene: D.Scene, boxes: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, ...]:
    """Finder boxes on a training scene (photo pixels) labelled for the reader: one on a card
    keeps the card's label (realistic box errors), one on nothing becomes ``none``; finds on
    hidden cards and loose back parts are left out."""
    labels, downs = [], []
    for b, kind in zip(boxes, kinds, strict=True):
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        lab, down = 21, (math.nan, math.nan)
        for a in scene.anns:
            hit = [g for g in a.glyphs if D._inside(cx, cy, g[0])] or (
                [(a.box, 1.0, a.down)] if D._inside(cx, cy, a.box) else [])
            if hit:
                lab = -1 if (a.ignore or hit[0][1] < 0.5) else a.cls
                down = hit[0][2]
                break
        if lab == 21 and kind == 1:
            lab = -1  # a back's visible part is loosely defined; don't teach "none" there
        labels.append(lab)
        downs.append(down)
    lab_a = np.asarray(labels, np.int64)
    sel = lab_a >= 0
    return boxes[sel], lab_a[sel], np.asarray(downs, np.float32).reshape(-1, 2)[sel]


def mine(torch: Any, model: Any, fs: D.FinderSet, scenes: list[D.Scene], count: int) -> dict[int, tuple]:
    """The trained finder's boxes on training scenes, labelled by ``label_finds``."""
    out: dict[int, tuple] = {}
    t0 = time.time()
    count = min(count, len(scenes))
    model.eval()
    for i in range(count):
        cw, ch = fs.sizes[i]
        boxes, _, kinds = run_finder(torch, model, fs.images[i, :ch, :cw], 0.25)
        out[i] = label_finds(scenes[i], boxes * (scenes[i].width / cw), kinds)
        if i % 25 == 0 or i == count - 1:
            D.progress("mining", i + 1, count, t0)
    return out


def mine_shipped(manifest: Path, scenes: list[D.Scene], count: int, threads: int) -> dict[int, tuple]:
    """Like ``mine``, with the exported finder that ships (``--reader-only``): the new reader
    learns the boxes, and the false finds, of the finder it will run behind."""
    from zipai.vision.decode import load
    from zipai.vision.detector import Detector

    det = Detector(manifest, threads=threads)
    out: dict[int, tuple] = {}
    t0 = time.time()
    count = min(count, len(scenes))
    for i in range(count):
        decoded = load(scenes[i].path)
        found, _ = det.finder(decoded, 0.25)
        out[i] = label_finds(scenes[i], found.boxes * decoded.scale, found.kinds)
        if i % 25 == 0 or i == count - 1:
            D.progress("mining", i + 1, count, t0)
    return out


# ---------------------------------------------------------------- reader


def crop_bank(scenes: list[D.Scene], seed: int, mined: dict[int, tuple] | None, turned: bool,
              label: str, copies: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops, labels and down directions of many scenes."""
    rng = np.random.default_rng(seed)
    crops, labels, downs = [], [], []
    t0 = time.time()
    for i, sc in enumerate(scenes):
        eb, el, ed = (mined or {}).get(i, (None, None, None))
        c, lab, dn = D.scene_crops(sc, CROP, MARGIN, rng, copies=copies, negatives=6,
                                   extra_boxes=eb, extra_labels=el, turned=turned, extra_downs=ed)
        crops.append(c)
        labels.append(lab)
        downs.append(dn)
        if i % 25 == 0 or i == len(scenes) - 1:
            D.progress(label, i + 1, len(scenes), t0)
    return np.concatenate(crops), np.concatenate(labels), np.concatenate(downs)


def extra_scenes(args: argparse.Namespace, part: str, split: str, seed: int) -> list[D.Scene]:
    """The scenes only the finder or only the reader learns from (plain, then decorated; render
    seed ``seed`` and ``seed + 1``), rendered at their own size if missing."""
    total, style2 = getattr(args, f"{part}_extra"), getattr(args, f"{part}_extra_style2")
    if not 0 <= style2 <= max(0, total):
        raise TrainError(f"--{part}-extra-style2 {style2} must lie between 0 and --{part}-extra {total}")
    size = getattr(args, f"{part}_extra_size")
    out: list[D.Scene] = []
    for folder, count, s, style in ((f"train_{part}", total - style2, seed, 1),
                                    (f"train_{part}_style2", style2, seed + 1, 2)):
        if count > 0:
            d = ensure_split(args.data, split, count, s, size, folder, style=style)
            out += D.load_coco(d)
    return out


def finder_extra(args: argparse.Namespace) -> list[D.Scene]:
    """The finder-only scenes, in the train faces, rendered small (it sees photos at 416 px)."""
    return extra_scenes(args, "finder", "train", args.seed + 20)


def reader_extra(args: argparse.Namespace) -> list[D.Scene]:
    """The reader-only scenes, in the faces of ``--reader-extra-split`` (none of the finder's
    ten)."""
    return extra_scenes(args, "reader", args.reader_extra_split, args.seed + 30)


def finder_data(args: argparse.Namespace, train_sc: list[D.Scene], extra_sc: list[D.Scene]) -> D.FinderSet:
    """The finder's scenes: the training renders first (mining indexes them), then its own small
    renders. Each part is cached in ``--runs``."""
    fs = D.build_finder_set(train_sc, LONG_SIDE, args.runs / "finder_train.npz", "finder data (train)")
    if extra_sc:
        fs = D.join_finder_sets(fs, D.build_finder_set(extra_sc, LONG_SIDE, args.runs / "finder_extra.npz",
                                                       "finder data (extra)"))
    print(f"finder: {len(fs.sizes)} scenes ({len(fs.sizes) - len(train_sc)} besides the training scenes)",
          file=sys.stderr)
    return fs


def train_reader(torch: Any, bank: tuple[np.ndarray, ...], val: tuple[np.ndarray, ...],
                 args: argparse.Namespace) -> tuple[Any, dict]:
    from .export import reader_from_onnx
    from .nets import Reader

    torch.manual_seed(args.seed + 1)
    warm = getattr(args, "reader_from", None)
    model = (reader_from_onnx(torch, warm) if warm else Reader()).to(memory_format=torch.channels_last)
    lr = peak_lr(args, "reader")
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    st = Stage(torch, "reader", args.runs, model, opt, args.reader_minutes * 60, lr, args.fresh)
    if st.finished:
        return model, st.load_finished()
    X, Y, DN = bank
    has_dn = ~np.isnan(DN[:, 0])
    DN = np.nan_to_num(DN)
    counts = np.bincount(Y, minlength=22).astype(np.float64)
    w = np.where(counts > 0, 1.0 / np.sqrt(np.maximum(counts, 1)), 0.0)
    cls_w = torch.tensor(w / (w[counts > 0].mean()), dtype=torch.float32)
    lossf = torch.nn.CrossEntropyLoss(weight=cls_w, label_smoothing=0.05)
    rng = np.random.default_rng(args.seed + st.step + 7)
    vx = _norm(torch, torch.from_numpy(val[0][:4000]))
    vy = torch.from_numpy(val[1][:4000])
    t0 = time.time()
    run_loss: list[float] = []
    _training(torch, model, bool(warm))
    while True:
        try:
            idx = rng.integers(0, len(Y), 192)
            x = reader_augment(torch, torch.from_numpy(X[idx]), args.brush).contiguous(
                memory_format=torch.channels_last)
            y = torch.from_numpy(Y[idx])
            out = model(x)
            loss = lossf(out[:, :22], y)
            m = torch.from_numpy(has_dn[idx]).float()
            d = torch.nn.functional.normalize(out[:, 22:], dim=1)
            cos = (d * torch.from_numpy(DN[idx])).sum(1)
            # 一二三十 read the same turned round: only their axis is known
            sym = torch.from_numpy(np.isin(Y[idx], SYMMETRIC))
            cos = torch.where(sym, cos.abs(), cos)
            loss = loss + 0.3 * ((1 - cos) * m).sum() / m.sum().clamp(min=1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            run_loss.append(float(loss.detach()))
            go = st.tick()
        except KeyboardInterrupt:
            st.save()
            raise
        if st.step % 100 == 0 or not go:
            model.eval()
            acc = float((read_classes(torch, model, vx) == vy).float().mean())
            _training(torch, model, bool(warm))
            st.history["train"].append([st.elapsed / 60, float(np.mean(run_loss[-100:]))])
            st.history["val"].append([st.elapsed / 60, acc])
            D.progress("reader", int(min(st.elapsed, st.budget)), int(st.budget), t0,
                       f"step {st.step} loss {np.mean(run_loss[-100:]):.3f} val acc {acc:.4f}")
        if not go:
            break
    st.finish()
    model.eval()
    return model, st.history


# ---------------------------------------------------------------- plots


def plot_curves(fh: dict, rh: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    for key, style in (("train", "-"), ("val", "--")):
        if fh.get(key):
            a = np.asarray(fh[key])
            ax[0].plot(a[:, 0], a[:, 1], style, label=f"finder {key} loss")
    ax[0].set_xlabel("minutes")
    if fh:
        ax[0].set_yscale("log")
        ax[0].legend()
    else:
        ax[0].text(0.5, 0.5, "not trained in this run\n(--reader-only: the shipped finder)",
                   ha="center", va="center", transform=ax[0].transAxes)
    ax[0].set_title("finder (heatmap focal + box L1)")
    if rh.get("train"):
        a = np.asarray(rh["train"])
        ax[1].plot(a[:, 0], a[:, 1], "-", label="reader train loss")
    ax[1].set_xlabel("minutes")
    ax2 = ax[1].twinx()
    if rh.get("val"):
        a = np.asarray(rh["val"])
        ax2.plot(a[:, 0], a[:, 1], "r--", label="val accuracy")
        ax2.set_ylim(max(0.0, float(a[:, 1].min()) - 0.02), 1.0)
    if not rh:
        ax[1].text(0.5, 0.5, "not trained in this run\n(--finder-only: the shipped reader)",
                   ha="center", va="center", transform=ax[1].transAxes)
    if rh.get("train"):
        ax[1].legend(loc="center left")
    if rh.get("val"):
        ax2.legend(loc="center right")
    ax[1].set_title("reader (crops)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_confusion(cm: np.ndarray, classes: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    norm = cm / np.maximum(cm.sum(axis=1, keepdims=True), 1)
    fig, ax = plt.subplots(figsize=(7.5, 6.5))
    ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(classes)), classes, rotation=90, fontsize=7)
    ax.set_yticks(range(len(classes)), classes, fontsize=7)
    ax.set_xlabel("read as")
    ax.set_ylabel("true")
    for i in range(len(classes)):
        for j in range(len(classes)):
            if cm[i, j] and (i != j or norm[i, j] < 0.995):
                ax.text(j, i, str(int(cm[i, j])), ha="center", va="center", fontsize=5,
                        color="white" if norm[i, j] > 0.5 else "black")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# ---------------------------------------------------------------- main


def reader_data(args: argparse.Namespace, train_sc: list[D.Scene], val_sc: list[D.Scene],
                more: list[D.Scene], mined: Any) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """The reader's crop bank (training scenes with the finder's mined boxes, the reader-only
    scenes, printed paper) and its val crops, cached in ``--runs``. ``mined`` is called only
    when the cache is missing: mining takes minutes."""
    bank_path = args.runs / "reader_bank.npz"
    if bank_path.exists() and not args.fresh:
        z = np.load(bank_path)
        bank, val_bank = (z["x"], z["y"], z["d"]), (z["vx"], z["vy"], z["vd"])
    else:
        bank, val_bank = _reader_bank(args, train_sc, val_sc, more, mined)
        np.savez(bank_path, x=bank[0], y=bank[1], d=bank[2], vx=val_bank[0], vy=val_bank[1], vd=val_bank[2])
    print(f"reader bank: {len(bank[1])} train crops, {len(val_bank[1])} val crops; per class "
          f"{np.bincount(bank[1], minlength=22).tolist()}", file=sys.stderr)
    return bank, val_bank


def _reader_bank(args: argparse.Namespace, train_sc: list[D.Scene], val_sc: list[D.Scene],
                 more: list[D.Scene], mined: Any) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    bank = crop_bank(train_sc, args.seed, mined(), args.turned, "reader crops (train)")
    if more:
        extra = crop_bank(more, args.seed + 31, None, args.turned, "reader crops (more faces)")
        bank = tuple(np.concatenate([a, b]) for a, b in zip(bank, extra, strict=True))
    if args.paper > 0:
        print(f"rendering {args.paper} printed-paper crops …", file=sys.stderr)
        paper = D.paper_crops(args.paper, CROP, MARGIN, np.random.default_rng(args.seed + 3))
        bank = (np.concatenate([bank[0], paper]), np.concatenate([bank[1], np.full(len(paper), 21)]),
                np.concatenate([bank[2], np.full((len(paper), 2), np.nan, np.float32)]))
    val_bank = crop_bank(val_sc, args.seed + 99, None, args.turned, "reader crops (val)", 1)
    return bank, val_bank


def reader_figures(torch: Any, reader: Any, val_bank: tuple[np.ndarray, ...], out_dir: Path | None) -> float:
    """The reader's accuracy on the val crops, and its confusion-matrix PNG (none without
    ``out_dir``)."""
    pred = read_classes(torch, reader, _norm(torch, torch.from_numpy(val_bank[0]))).numpy()
    return confusion_figure(pred, val_bank[1], out_dir, "reader")


def confusion_figure(pred: np.ndarray, truth: np.ndarray, out_dir: Path | None, who: str) -> float:
    """The share of val crops read right, and the confusion-matrix PNG in ``out_dir``."""
    from .nets import READER_CLASSES

    acc = float((pred == truth).mean())
    if out_dir is not None:
        cm = np.zeros((22, 22), np.int64)
        np.add.at(cm, (truth, pred), 1)
        plot_confusion(cm, list(READER_CLASSES), out_dir / "confusion.png",
                       f"{who} on {len(pred)} val crops (jittered true boxes): accuracy {acc:.4f}")
    return acc


def train_scenes(args: argparse.Namespace) -> tuple[list[D.Scene], list[D.Scene], int]:
    """The training scenes in the finder's faces (plain, then decorated) and the val scenes."""
    if args.reader_only and args.reader_scenes == "own":  # plain ones: the total less the decorated
        style2 = args.reader_train_style2
        if not 0 <= style2 <= args.reader_train:
            raise TrainError(f"--reader-train-style2 {style2} must lie between 0 and --reader-train "
                             f"{args.reader_train}")
        size, count, folder, seed, seed2 = (args.reader_extra_size, args.reader_train - style2,
                                            "train_reader_own", args.seed + 40, args.seed + 41)
    else:
        size, count, style2, folder, seed, seed2 = (args.size, args.train_count, args.style2_count,
                                                    "train", args.seed, args.seed + 8)
    tr_dir = ensure_split(args.data, "train", count, seed, size, folder)
    va_dir = ensure_split(args.data, "val", args.val_count, args.seed + 1, args.size)
    train_sc, val_sc = D.load_coco(tr_dir), D.load_coco(va_dir)
    n_style2 = 0
    if style2 > 0:
        s2_dir = ensure_split(args.data, "train", style2, seed2, size, f"{folder}_style2", style=2)
        s2 = D.load_coco(s2_dir)
        n_style2 = len(s2)
        train_sc = train_sc + s2
    print(f"data: {len(train_sc)} train ({n_style2} decorated), {len(val_sc)} val scenes", file=sys.stderr)
    return train_sc, val_sc, n_style2


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
