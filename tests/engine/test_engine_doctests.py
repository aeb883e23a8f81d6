"""The engine's docstring examples are tests too."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["api", "cards", "decompose", "files", "generate", "groups", "notation", "rules", "text", "total",
           "variants", "variants.hunan"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(f"zipai.engine.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
