"""The scene-set table renders what the README's figures were measured on, and skips what is there."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from zipai.datasets import render_sets as mod
from zipai.datasets.sets import SceneSet

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_render_commands_are_the_table() -> None:
    """Every set the README tells a reader to render is one row of the table, seed for seed."""
    text = README.read_text(encoding="utf-8")
    shown = {" ".join(m.split()) for m in re.findall(r"zipai data render --out data/detector/[^\n`]+", text)}
    table = {" ".join(s.command(Path("data/detector"))) for group in ("figures", "validation")
             for s in mod.SETS[group]}
    assert shown and shown <= table


def test_it_renders_a_missing_set_and_skips_one_that_is_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(mod.SETS, "tiny", (SceneSet("one", 1, 3, "val", style=2),))
    assert mod.main(["--sets", "tiny", "--data", str(tmp_path)]) == 0
    coco = json.loads((tmp_path / "one" / "annotations.json").read_text())
    assert len(coco["images"]) == 1 and coco["images"][0]["style"] == 2
    before = (tmp_path / "one" / "annotations.json").stat().st_mtime_ns
    assert mod.main(["--sets", "tiny", "--data", str(tmp_path)]) == 0
    assert (tmp_path / "one" / "annotations.json").stat().st_mtime_ns == before
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("# there already: zipai data render --out")


def test_dry_run_renders_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main(["--sets", "figures", "--data", str(tmp_path), "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split("--out ")[1].split()[0] for line in out] == [
        str(tmp_path / f) for f in ("heldout", "heldout_style2", "heldout_style3")]
    assert not any(tmp_path.iterdir())


def test_an_unknown_set_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main(["--sets", "nonsense"]) == 2
    assert "unknown scene set 'nonsense'" in capsys.readouterr().err
