"""The scorer type-checks under ``mypy --strict`` against the engine's own types.

mypy cannot follow the editable install's package-dir map (``zipai.scorer`` is ``scorer/``), so
the check runs on a tree of links that lays the packages out as installed: ``zipai/engine`` and
``zipai/scorer``. It lives under ``.mypy_cache`` (ignored by git), so mypy's cache stays warm.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINKS = {"__init__.py": ROOT / "cli" / "__init__.py", "engine": ROOT / "engine", "scorer": ROOT / "scorer"}


def installed_tree() -> Path:
    """``<root>/.mypy_cache/tree/zipai``, its entries links into the worktree (made once)."""
    tree = ROOT / ".mypy_cache" / "tree"
    pkg = tree / "zipai"
    pkg.mkdir(parents=True, exist_ok=True)
    for name, target in LINKS.items():
        link = pkg / name
        if link.is_symlink() and link.resolve() == target.resolve():
            continue
        link.unlink(missing_ok=True)
        try:
            link.symlink_to(target)
        except FileExistsError:  # another worker made it at the same moment
            pass
    return tree


def test_the_scorer_passes_mypy_strict() -> None:
    tree = installed_tree()
    env = {**os.environ, "MYPYPATH": str(tree)}
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                          "--cache-dir", str(ROOT / ".mypy_cache" / "tree-cache"), "-p", "zipai.scorer"],
                         cwd=tree, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_scorer_ships_its_type_marker() -> None:
    assert (ROOT / "scorer" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"zipai.scorer" = ["py.typed"]' in pyproject
