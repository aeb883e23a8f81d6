"""The selector's bins count every weighed find once, by kind and by what it lies on."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from zipai.models.tune import selector_bins as mod


def test_bins_split_finds_by_kind_and_label() -> None:
    prob = np.array([0.05, 0.15, 0.15, 0.3, 0.45, 0.9, 0.2])
    back = np.array([False, False, False, False, False, False, True])
    right = np.array([True, True, False, False, True, True, False])
    card = np.array([True, True, True, False, True, True, False])
    table = mod.bins(prob, back, right, card, (0.1, 0.4))
    got = {(b.kind, b.lo): (b.right, b.misread, b.none) for b in table}
    # 0.05 lies under the first edge and is not counted; 0.15 twice: one right, one misread
    assert got == {("face", 0.1): (1, 1, 1), ("face", 0.4): (2, 0, 0),
                   ("back", 0.1): (0, 0, 1), ("back", 0.4): (0, 0, 0)}
    assert np.isinf(table[1].hi)


def test_the_script_counts_a_rendered_scene(tuning_setup: tuple[Path, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--edges", "0", "0.35"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if re.match(r"  (face|back) ", line)]
    assert "2 scenes of" in out and [r[0] for r in rows] == ["face", "face", "back", "back"]
    faces_right = sum(int(r[2]) for r in rows if r[0] == "face")
    assert faces_right > 20  # two scenes of some twenty face cards each, nearly all found
    kept = [r for r in rows if r[1].startswith("0.35")]
    assert all(r[-1] == "kept" for r in kept)


def test_edges_that_do_not_rise_are_refused(tuning_setup: tuple[Path, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--edges", "0.4", "0.2"]) == 2
    assert "--edges 0.4 0.2: they must rise" in capsys.readouterr().err
