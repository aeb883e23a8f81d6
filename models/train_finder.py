"""The finder's training: its windows and heatmap targets, its loss, its two stages (then the
backs weighed up), and its finds on the training scenes mined as the reader's realistic boxes
and false finds."""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from zipai.vision import constants as C

from . import data as D
from .augment import ZOOM, _norm, pen, photometric
from .stage import Stage, _training, peak_lr

LONG_SIDE = C.FINDER_LONG_SIDE
STRIDE = C.FINDER_STRIDE


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
