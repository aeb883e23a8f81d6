"""Every labelled scene set the detector's figures, choices and selector rest on, by name.

A render depends only on its seed, split, size, style and index, so this one table says how to
make each set again on any machine: ``zipai data sets`` renders the figures' and
validation sets from it, and ``zipai train`` renders the selector's before fitting it. A folder
that already holds its annotations is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class SceneSet:
    """One ``zipai data render`` folder under a data root (``data/detector``)."""

    folder: str
    count: int
    seed: int
    split: str
    style: int = 1
    start: int = 0

    def argv(self, data: Path) -> list[str]:
        """The arguments of ``zipai data`` that render this set into ``data``."""
        out = ["render", "--out", str(data / self.folder), "--count", str(self.count),
               "--seed", str(self.seed), "--split", self.split]
        if self.start:
            out += ["--start", str(self.start)]
        if self.style != 1:
            out += ["--style", str(self.style)]
        return out

    def command(self, data: Path) -> list[str]:
        return ["zipai", "data", *self.argv(data)]

    def there(self, data: Path) -> bool:
        return (data / self.folder / "annotations.json").exists()


SETS: dict[str, tuple[SceneSet, ...]] = {
    # held-out fonts, never trained or tuned on: the README's figures only
    "figures": (SceneSet("heldout", 300, 7, "heldout"),
                SceneSet("heldout_style2", 100, 11, "heldout", style=2),
                SceneSet("heldout_style3", 100, 11, "heldout", style=3)),
    # the 800 validation scenes every setting and model was chosen on
    "validation": (SceneSet("val_tune400", 400, 6, "val", start=200),
                   SceneSet("val_unseen", 200, 12, "tune"),
                   SceneSet("val_style2", 200, 14, "tune", style=2)),
    # what the selector learns from (zipai.models.selector, the last stage of zipai train): the
    # recipe's val scenes and 950 in the reader's fourteen faces
    "selector": (SceneSet("val", 200, 6, "val"),
                 SceneSet("sel_reader", 300, 60, "reader"),
                 SceneSet("sel_reader3", 200, 62, "reader", style=3),
                 SceneSet("sel_reader2", 150, 61, "reader", style=2),
                 SceneSet("sel_reader4", 300, 63, "reader")),
}


def plan(names: list[str], data: Path) -> list[tuple[SceneSet, bool]]:
    """Each set of the named groups, and whether it still has to be rendered."""
    unknown = [n for n in names if n not in SETS]
    if unknown:
        raise ValueError(f"unknown scene set {unknown[0]!r} (use {', '.join(SETS)})")
    return [(s, not s.there(data)) for n in names for s in SETS[n]]
