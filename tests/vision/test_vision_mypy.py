"""The runtime photo path type-checks under ``mypy --strict`` against the engine's own types.

mypy cannot follow the editable install's package-dir map (``zipai.vision`` is ``vision/``), so
the check runs on a tree of links that lays the packages out as installed: ``zipai/engine`` and
``zipai/vision``. It lives under ``.mypy_cache`` (ignored by git), so mypy's cache stays warm; the
tree is the vision's own, so it never races the scorer's check for its links.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINKS = {"__init__.py": ROOT / "cli" / "__init__.py", "engine": ROOT / "engine", "vision": ROOT / "vision"}


def installed_tree() -> Path:
    """``<root>/.mypy_cache/vision-tree/zipai``, its entries links into the worktree (made once)."""
    tree = ROOT / ".mypy_cache" / "vision-tree"
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


def test_the_vision_passes_mypy_strict() -> None:
    tree = installed_tree()
    env = {**os.environ, "MYPYPATH": str(tree)}
    cache = ROOT / ".mypy_cache" / "vision-tree-cache"
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                          "--cache-dir", str(cache), "-p", "zipai.vision"],
                         cwd=tree, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_vision_ships_its_type_marker() -> None:
    assert (ROOT / "vision" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"zipai.vision" = ["py.typed"]' in pyproject
