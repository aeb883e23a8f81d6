"""The chance model's reliability diagram: in bins of the chance a card is wrong, the share of
cards that were (``zipai eval detector --reliability PNG``, ``zipai eval decks --reliability``)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from zipai.models.evaluate import calibration_error

EDGES = (0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0)


def bins(pairs: Sequence[tuple[float, bool]], edges: Sequence[float] = EDGES
         ) -> list[tuple[float, float, float, int]]:
    """Per bin with cards: (lo, mean chance, share wrong, cards)."""
    c = np.asarray([p for p, _ in pairs], np.float64)
    w = np.asarray([b for _, b in pairs], np.float64)
    out = []
    for lo, hi in itertools.pairwise(edges):
        k = (c >= lo) & ((c < hi) if hi < 1.0 else (c <= hi))
        if k.any():
            out.append((lo, float(c[k].mean()), float(w[k].mean()), int(k.sum())))
    return out


def draw(pairs: Sequence[tuple[float, bool]], path: Path, title: str) -> float:
    """Write the diagram (log-scaled axes: most cards are sure; a bin with no wrong card sits on
    the floor, 1e-4) to ``path`` atomically; the ECE."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ece = calibration_error(pairs)
    rows = bins(pairs)
    fig, ax = plt.subplots(figsize=(5, 5), dpi=100)
    floor = 1e-4
    ax.plot([floor, 1], [floor, 1], color="0.6", lw=1, label="perfectly calibrated")
    xs = [max(floor, r[1]) for r in rows]
    ys = [max(floor, r[2]) for r in rows]
    ax.plot(xs, ys, "o-", color="tab:red", label="bins (beside each: its cards)")
    for x, y, r in zip(xs, ys, rows, strict=True):
        ax.annotate(str(r[3]), (x, y), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(floor, 1.2)
    ax.set_ylim(floor, 1.2)
    ax.set_xlabel("chance the card is wrong (bin mean)")
    ax.set_ylabel("share of the bin's cards that were wrong")
    ax.set_title(f"{title}\nECE {ece:.4f}, {len(pairs)} layout cards", fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}.png")
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, path)
    return ece
