"""What every training stage of either network shares: a time-budgeted stage that checkpoints
and resumes (a run stopped at any minute goes on where it was), its learning rate, and the
training mode of a network warmed from an exported file."""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any


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
