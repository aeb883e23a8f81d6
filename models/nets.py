"""The two networks, in plain PyTorch: a class-agnostic glyph/back finder and a crop reader.

Why two: on a 1600x1200 photo a card's glyph is 40–80 px, but a one-stage detector small
enough for 2 CPU threads sees the photo at ~416 px, where the glyph is 10–20 px: enough to
*find* ink blobs, too few pixels to *read* 捌 from 柒 in a typeface it never saw. So the finder
only answers "glyph or back, and where", and the reader classifies a sharp crop cut from the
full-resolution photo around each found glyph.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from zipai.vision.constants import FINDER_CLASSES, FINDER_STRIDE, READER_CLASSES

__all__ = ["FINDER_CLASSES", "FINDER_STRIDE", "READER_CLASSES", "Finder", "Reader"]


def _cbr(cin: int, cout: int, k: int = 3, s: int = 1, groups: int = 1, dil: int = 1) -> nn.Sequential:
    pad = dil * (k // 2)
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, pad, dilation=dil, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class ResBlock(nn.Module):
    """Two full 3x3 convolutions with a residual. Plain convolutions rather than depthwise ones:
    PyTorch's CPU backward pass for depthwise convolutions is slow, so on two cores the finder
    built from these, with four times the weights of the depthwise one, still trains faster per
    step (measured, 16 x 256² crops, channels-last: 114 against 143 ms per batch)."""

    def __init__(self, ch: int, dil: int = 1) -> None:
        super().__init__()
        self.a = _cbr(ch, ch, 3, 1, dil=dil)
        self.b = nn.Sequential(nn.Conv2d(ch, ch, 3, 1, dil, dilation=dil, bias=False), nn.BatchNorm2d(ch))

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x + self.b(self.a(x)))


class Finder(nn.Module):
    """CenterNet-style: a stride-4 heatmap per finder class, box size (log, in stride cells) and
    sub-cell offset. Input: normalised RGB, any H and W that are multiples of 32. The dilated
    blocks at stride 16 see a whole card and its neighbours: whether a glyph is a card's
    identifying end or its far end depends on whether the card runs on past it."""

    def __init__(self, width: int = 24) -> None:
        super().__init__()
        w = width
        self.stem = nn.Sequential(_cbr(3, 16, 3, 2), _cbr(16, w, 3, 2))  # /4
        self.s4 = ResBlock(w)
        self.down8 = _cbr(w, 2 * w, 3, 2)
        self.s8 = ResBlock(2 * w)
        self.down16 = _cbr(2 * w, 4 * w, 3, 2)
        self.s16 = nn.Sequential(ResBlock(4 * w), ResBlock(4 * w, dil=2), ResBlock(4 * w, dil=4))
        self.lat16 = nn.Conv2d(4 * w, 2 * w, 1)
        self.m8 = _cbr(2 * w, 2 * w)
        self.lat8 = nn.Conv2d(2 * w, w, 1)
        self.m4 = _cbr(w, w)
        self.head = nn.Sequential(_cbr(w, w, 3), nn.Conv2d(w, len(FINDER_CLASSES) + 4, 1))
        nn.init.constant_(self.head[-1].bias[: len(FINDER_CLASSES)], -2.2)  # prior ~0.1

    def forward(self, x: Tensor) -> Tensor:
        """Raw outputs [N, 6, H/4, W/4]: 2 heatmap logits, 2 log-sizes, 2 offsets."""
        f4 = self.s4(self.stem(x))
        f8 = self.s8(self.down8(f4))
        f16 = self.s16(self.down16(f8))
        u8 = self.m8(f8 + F.interpolate(self.lat16(f16), scale_factor=2.0, mode="nearest"))
        u4 = self.m4(f4 + F.interpolate(self.lat8(u8), scale_factor=2.0, mode="nearest"))
        return self.head(u4)


class FinderExport(nn.Module):
    """What ships: sigmoid heatmap, with 3x3 peak suppression done in the graph (cheap MaxPool).

    With ``flip`` the graph also runs the mirrored photo and averages both heatmaps (and the box
    regressions, the mirrored x offset reflected) before the peaks are taken: a faint glyph
    whose peak wavers near the threshold in one view is steadier in the mean of two. It costs
    a second finder pass, all inside the one ONNX graph, so the runtime does not change."""

    def __init__(self, finder: Finder, flip: bool = False) -> None:
        super().__init__()
        self.finder = finder
        self.flip = flip

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        k = len(FINDER_CLASSES)
        if self.flip:
            both = self.finder(torch.cat([x, x.flip(3)], 0))
            # stride-aligned: output cell j of the mirror covers input cells W/4-1-j
            n = x.shape[0]
            a, b = both[:n], both[n:].flip(3)
            heat = (torch.sigmoid(a[:, :k]) + torch.sigmoid(b[:, :k])) / 2
            reg = torch.cat([(a[:, k:k + 2] + b[:, k:k + 2]) / 2,          # log w, log h
                             (a[:, k + 2:k + 3] + 1 - b[:, k + 2:k + 3]) / 2,  # dx, mirrored
                             (a[:, k + 3:k + 4] + b[:, k + 3:k + 4]) / 2], 1)  # dy
        else:
            out = self.finder(x)
            heat, reg = torch.sigmoid(out[:, :k]), out[:, k:]
        peaks = F.max_pool2d(heat, 3, 1, 1)
        heat = heat * (peaks == heat).to(heat.dtype)
        return heat, reg


class Reader(nn.Module):
    """A small crop classifier (~0.45 M parameters) for 48x48 colour crops. Besides the class it
    predicts the card's "down" direction in the photo (a unit vector), which tells the layout
    step which way the columns run when the photo is turned."""

    def __init__(self, n_classes: int = len(READER_CLASSES)) -> None:
        super().__init__()
        self.features = nn.Sequential(
            _cbr(3, 32, 3, 2),   # 24
            _cbr(32, 32, 3),
            _cbr(32, 64, 3, 2),  # 12
            _cbr(64, 64, 3),
            _cbr(64, 128, 3, 2),  # 6
            _cbr(128, 128, 3),
            _cbr(128, 128, 3),
        )
        self.drop = nn.Dropout(0.2)
        self.n_classes = n_classes
        self.fc = nn.Linear(128, n_classes + 2)

    def forward(self, x: Tensor) -> Tensor:
        """[N, classes + 2]: class logits, then the down direction (unnormalised)."""
        f = self.features(x)
        return self.fc(self.drop(f.mean(dim=(2, 3))))


class ReaderExport(nn.Module):
    """What ships: class probabilities and the unit down direction (dx, dy)."""

    def __init__(self, reader: Reader) -> None:
        super().__init__()
        self.reader = reader

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        out = self.reader(x)
        k = self.reader.n_classes
        return torch.softmax(out[:, :k], dim=1), F.normalize(out[:, k:], dim=1)


def n_params(m: nn.Module) -> int:
    return sum(p.numel() for p in m.parameters())
