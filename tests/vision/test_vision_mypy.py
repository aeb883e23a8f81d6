"""The runtime photo path type-checks under ``mypy --strict`` against the engine's own types.

The check runs on the package as installed (``tests/typecheck.py`` says how)."""

from __future__ import annotations

from typecheck import ships_marker, strict


def test_the_vision_passes_mypy_strict() -> None:
    run = strict("vision")
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_vision_ships_its_type_marker() -> None:
    assert ships_marker("vision")
