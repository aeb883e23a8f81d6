"""The manifest writer the tuners use (torch-free, merging one section, never half-written), and
the provenance beside the manifest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from zipai.models.manifest import provenance_path, read_provenance, update_manifest, update_provenance


def test_update_merges_one_section(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"finder": {"threshold": 0.35, "file": "finder.onnx"}, "figures": {}}))
    update_manifest(path, "finder", {"threshold": 0.4})
    update_manifest(path, "postprocess", {"far_ends": {"max_sin": 0.3}})
    data = json.loads(path.read_text())
    assert data["finder"] == {"threshold": 0.4, "file": "finder.onnx"}
    assert data["postprocess"] == {"far_ends": {"max_sin": 0.3}}
    assert not (tmp_path / "manifest.json.new").exists()


def test_failed_write_leaves_the_old_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    before = json.dumps({"finder": {"threshold": 0.35}})
    path.write_text(before)
    with pytest.raises(TypeError):
        update_manifest(path, "finder", {"threshold": object()})  # not JSON
    assert path.read_text() == before


def test_tuners_store_settings_without_torch(tmp_path: Path) -> None:
    """Tuning runs where the runtime runs: recording a threshold must not need the [train] extra."""
    path = tmp_path / "manifest.json"
    path.write_text("{}")
    code = ("import sys; from pathlib import Path; from zipai.models.manifest import update_manifest; "
            f"update_manifest(Path({str(path)!r}), 'figures', {{'x': 1}}); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    assert json.loads(path.read_text()) == {"figures": {"x": 1}}


def test_provenance_lives_beside_the_manifest(tmp_path: Path) -> None:
    """How a model was trained and what it measured go to provenance.json; the manifest, which the
    runtime reads, is left as it was."""
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"finder": {"threshold": 0.35}}))
    update_provenance(path, "figures", {"heldout": {"per_card_accuracy": 0.9}})
    update_provenance(path, "training", {"data_seed": 5})
    update_provenance(path, "figures", {"val": {"per_card_accuracy": 0.8}})
    assert json.loads(path.read_text()) == {"finder": {"threshold": 0.35}}
    assert provenance_path(path) == tmp_path / "provenance.json"
    assert read_provenance(path) == {"training": {"data_seed": 5},
                                     "figures": {"heldout": {"per_card_accuracy": 0.9},
                                                 "val": {"per_card_accuracy": 0.8}}}


def test_provenance_of_an_older_manifest_is_read_from_it(tmp_path: Path) -> None:
    """A model exported before provenance moved out keeps its record: read from the manifest, and
    merged under what provenance.json adds."""
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"training": {"data_seed": 3}, "figures": {"heldout": {"x": 1}}}))
    assert read_provenance(path) == {"training": {"data_seed": 3}, "figures": {"heldout": {"x": 1}}}
    update_provenance(path, "training", {"reader_warm": {"lr": 1}})
    assert read_provenance(path)["training"] == {"data_seed": 3, "reader_warm": {"lr": 1}}


def test_provenance_has_two_sections(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no section 'finder'"):
        update_provenance(tmp_path / "manifest.json", "finder", {"threshold": 0.4})
    assert not (tmp_path / "provenance.json").exists()


def test_the_shipped_provenance_names_the_recipe() -> None:
    """The shipped model's record: its training data seed and the held-out figures the README
    table gives, and none of it in the manifest."""
    from zipai.vision.detector import default_manifest

    shipped = read_provenance(default_manifest())
    assert shipped["training"]["data_seed"] == 5
    per_card = shipped["figures"]["heldout"]["per_card_accuracy"]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert f"| per card, held-out fonts (300 scenes) | {per_card:.2%} |" in readme
    data = json.loads(default_manifest().read_text(encoding="utf-8"))
    assert "training" not in data and "figures" not in data
