"""Shared helpers: engine input objects from the text notation; the repo's scripts as modules."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from zipai.engine.notation import parse_layout

# Torch's OpenMP pool runs a thread a core and spins between ops. The suite runs two workers on
# two cores (scripts/test.sh), so two pools fight for them: a 40-step overfit of the finder took
# 48 s on two threads and 2.7 s on one on this machine under load. One thread a worker, set
# before any test imports torch; an explicit OMP_NUM_THREADS still wins, and the training CLI
# sets its own count (--threads).
os.environ.setdefault("OMP_NUM_THREADS", "1")


def layout(text: str, rules: str = "hunan", **fields: Any) -> dict[str, Any]:
    """An engine input object from notation plus fields (``from_`` for ``from``)."""
    lay = parse_layout(text)
    obj: dict[str, Any] = {
        "rules": rules, "players": 3, "dealer": 0, "winner": 1, "won_by": "stock",
        "groups": [{"cards": [str(c) for c in g.cards], "state": g.state.value} for g in lay.groups],
        "hand": [str(c) for c in lay.hand],
    }
    if lay.winning_card is not None:
        obj["winning_card"] = str(lay.winning_card)
    if "from_" in fields:
        fields["from"] = fields.pop("from_")
    obj.update(fields)
    return obj


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ledger file for the CLI, named to every command through ``ZIPAI_DB``."""
    path = tmp_path / "cli.db"
    monkeypatch.setenv("ZIPAI_DB", str(path))
    return path


def copy_model(dest: Path) -> Path:
    """A copy of the shipped model in ``dest``: its manifest and every network file it names
    (the int8-weight twins too, which a CPU with VNNI loads, and the reader's embedding twin,
    which decks load); the copied manifest."""
    import json
    import shutil

    from zipai.vision.detector import models_dir

    man = json.loads((models_dir() / "manifest.json").read_text(encoding="utf-8"))
    files = [man[p]["file"] for p in ("finder", "reader")]
    files += [man[p]["int8_file"]["file"] for p in ("finder", "reader") if "int8_file" in man[p]]
    files += [e["embed_file"]["file"] for e in (man["reader"], man["reader"].get("int8_file") or {})
              if "embed_file" in e]
    dest.mkdir(parents=True, exist_ok=True)
    for f in ("manifest.json", *files):
        shutil.copy(models_dir() / f, dest / f)
    return dest / "manifest.json"


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` as a module: the scripts are not a package, but their helpers are
    worth testing."""
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up while the script is being run
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def make_layout():
    return layout


@pytest.fixture(scope="session")
def tuning_scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small validation scenes, rendered once a worker (seeded: every render is the same);
    ``tuning_setup`` gives each test its own copy."""
    from zipai.datasets.cli import main as data_main

    data = tmp_path_factory.mktemp("tuning") / "val"
    assert data_main(["render", "--out", str(data), "--count", "2", "--seed", "6", "--split", "val",
                      "--size", "800x600", "--quiet"]) == 0
    return data


@pytest.fixture
def tuning_setup(tmp_path: Path, tuning_scenes: Path) -> tuple[Path, Path]:
    """Two small validation scenes and a copy of the shipped model for a tuner to write into:
    (scene folder, manifest path)."""
    import shutil

    data = tmp_path / "val"
    shutil.copytree(tuning_scenes, data)
    return data, copy_model(tmp_path / "model")


# A chance model set by hand for the tests of the layout's logic: a card is a doubt when the
# reader, the selector or the finder was unsure of it, its ink contradicts it, or the rules took
# it in or read it again, so their expectations do not move with each refit of the shipped model
# (fitted on validation scenes by ``zipai tune chance``; tests/vision/test_vision_chance.py).
FIXED_CHANCE = {"features": ["bias", "reader_doubt", "select_doubt", "finder_doubt", "colour_off", "taken_in",
                             "reread"],
                "weights": [-6.0, 8.0, 12.0, 4.0, 5.0, 8.0, 8.0], "bar": 0.5}


@pytest.fixture
def fixed_chance(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Weigh the cards with ``FIXED_CHANCE`` in place of the shipped chance model."""
    from zipai.vision.layout import chance

    model = chance.ChanceModel.from_json(FIXED_CHANCE)
    monkeypatch.setattr(chance, "shipped_chance", lambda: model)
    return model
