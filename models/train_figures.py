"""The figures a training run writes beside the model: the training curves and the reader's
confusion matrix (matplotlib, the [train] extra, imported only when drawing)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


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
