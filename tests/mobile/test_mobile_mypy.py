"""The app type-checks under ``mypy --strict`` against the types of the engine, the ledger and the
vision it calls.

The check runs on the package as installed (``tests/typecheck.py`` says how). Kivy ships no types,
so pyproject's ``[tool.mypy]`` says so for its modules alone, and lets only the app's modules that
define widgets subclass its classes."""

from __future__ import annotations

from typecheck import ships_marker, strict


def test_the_app_passes_mypy_strict() -> None:
    run = strict("mobile")
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_app_ships_its_type_marker() -> None:
    assert ships_marker("mobile")
