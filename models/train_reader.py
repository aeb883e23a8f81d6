"""The reader's training: its bank of glyph crops (the finder's mined boxes, the reader-only
scenes, printed paper), its stage, and its accuracy on the val crops."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from zipai.engine import CARD_NAMES
from zipai.vision import constants as C

from . import data as D
from .augment import _norm, reader_augment
from .stage import Stage, _training, peak_lr
from .train_figures import confusion_figure

CROP = C.READER_CROP
MARGIN = C.READER_MARGIN
SYMMETRIC = tuple(sorted(CARD_NAMES.index(c) for c in C.SYMMETRIC))  # class indices: x1 x2 x3 x10


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


def read_classes(torch: Any, reader: Any, x: Any) -> Any:
    """The reader's best class for each normalised crop of ``x``, a thousand crops at a time."""
    with torch.no_grad():
        return torch.cat([reader(x[i:i + 1000])[:, :22].argmax(1) for i in range(0, len(x), 1000)])


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
