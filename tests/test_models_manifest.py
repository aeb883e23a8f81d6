"""The manifest writer the tuners use: torch-free, merging one section, never half-written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from zipai.models.manifest import update_manifest


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
