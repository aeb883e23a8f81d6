"""Writing the shipped manifest (models/manifest.json) and its provenance (models/provenance.json)
safely, without torch.

The manifest holds what the runtime reads: the files, their hashes and the settings that turn
the networks' outputs into cards. How the model was trained and what it measured is provenance:
the runtime never reads it, so it lives in ``provenance.json`` beside the manifest, and the model
card (docs/model-card.md, written by ``zipai eval detector --model-card``) is made from it. The
tuners and ``zipai eval detector --record`` store their choices here; they run where the runtime
runs, and the ``[train]`` extra (torch) must not be needed to store a number.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PROVENANCE_FILE = "provenance.json"
PROVENANCE_SECTIONS = ("training", "figures")  # how the model was made; what it measured


def write_manifest(path: Path, data: dict[str, Any]) -> None:
    """The manifest written beside the old one and renamed over it: a run stopped midway
    leaves the old file whole."""
    staged = path.with_suffix(".json.new")
    staged.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    staged.replace(path)


def update_manifest(path: Path, section: str, values: dict[str, Any]) -> None:
    """Merge ``values`` into one section of the manifest (tuned settings, colour calibration)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    data.setdefault(section, {}).update(values)
    write_manifest(Path(path), data)


def provenance_path(manifest: Path) -> Path:
    """The provenance that goes with a manifest: the file beside it."""
    return Path(manifest).with_name(PROVENANCE_FILE)


def read_provenance(manifest: Path) -> dict[str, Any]:
    """A model's provenance, one dict per section (empty where none was recorded). A manifest
    written before the provenance moved out still carries its sections, and they are read from it."""
    path = provenance_path(manifest)
    data: dict[str, Any] = {}
    if Path(manifest).is_file():
        old = json.loads(Path(manifest).read_text(encoding="utf-8"))
        data.update({k: old[k] for k in PROVENANCE_SECTIONS if isinstance(old.get(k), dict)})
    if path.is_file():
        data.update(json.loads(path.read_text(encoding="utf-8")))
    return {k: dict(data.get(k) or {}) for k in PROVENANCE_SECTIONS}


def update_provenance(manifest: Path, section: str, values: dict[str, Any]) -> None:
    """Merge ``values`` into one section of a model's provenance (``training`` or ``figures``)."""
    if section not in PROVENANCE_SECTIONS:
        raise ValueError(f"provenance has no section {section!r} (one of {', '.join(PROVENANCE_SECTIONS)})")
    data = read_provenance(manifest)
    data[section].update(values)
    write_manifest(provenance_path(manifest), data)
