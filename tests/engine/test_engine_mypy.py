"""The engine type-checks under ``mypy --strict`` (the ``[dev]`` extra installs mypy)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_engine_passes_mypy_strict() -> None:
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "engine"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_engine_ships_its_type_marker() -> None:
    assert (ROOT / "engine" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"zipai.engine" = ["py.typed"]' in pyproject
