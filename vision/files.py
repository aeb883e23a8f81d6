"""The one owner of where the shipped model files lie: the networks, their manifest and the
sample photo are package data of ``zipai.models`` (models/), found here without importing it.

The photo path never runs the training package: ``find_spec`` reads where the package is,
it does not execute it, so vision and the app need no import up the layers.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from .errors import ModelError

MODELS_PACKAGE = "zipai.models"


def models_dir() -> Path:
    """The folder of the shipped model files (models/ in a checkout, zipai/models when installed)."""
    spec = importlib.util.find_spec(MODELS_PACKAGE)
    places = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not places:
        raise ModelError(f"the shipped model files are missing: no {MODELS_PACKAGE} package is installed")
    return Path(places[0]).resolve()


def sample_photo() -> Path | None:
    """models/sample.jpg, the photo the app and the table page offer, when it is there."""
    p = models_dir() / "sample.jpg"
    return p if p.is_file() else None
