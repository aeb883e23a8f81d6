"""Writing the shipped manifest (models/manifest.json) safely, without torch.

Training and ``scripts/eval_detector.py --write-manifest`` record figures and provenance here
(the tuners write settings through ``zipai.vision.config``); they run where the runtime runs, and
the ``[train]`` extra (torch) must not be needed to store a number.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_manifest(path: Path, data: dict[str, Any]) -> None:
    """The manifest written beside the old one and renamed over it: a run stopped midway
    leaves the old file whole."""
    staged = path.with_suffix(".json.new")
    staged.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    staged.replace(path)


def update_manifest(path: Path, section: str, values: dict[str, Any]) -> None:
    """Merge ``values`` into one section of the manifest (figures, tuned settings, colour
    calibration)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    data.setdefault(section, {}).update(values)
    write_manifest(Path(path), data)
