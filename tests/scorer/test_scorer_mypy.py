"""The scorer type-checks under ``mypy --strict`` against the engine's own types.

The check runs on the package as installed (``tests/typecheck.py`` says how)."""

from __future__ import annotations

from typecheck import ships_marker, strict


def test_the_scorer_passes_mypy_strict() -> None:
    run = strict("scorer")
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_scorer_ships_its_type_marker() -> None:
    assert ships_marker("scorer")
