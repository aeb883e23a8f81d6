"""The table page type-checks under ``mypy --strict`` against the types of the ledger and the app's
words it serves.

The check runs on the package as installed (``tests/typecheck.py`` says how)."""

from __future__ import annotations

from typecheck import ships_marker, strict


def test_the_table_page_passes_mypy_strict() -> None:
    run = strict("serve")
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_table_page_ships_its_type_marker() -> None:
    assert ships_marker("serve")
