"""``mypy --strict`` on one of our packages as it is installed (``zipai.<name>``).

mypy cannot follow the editable install's package-dir map (``zipai.scorer`` is ``scorer/``), so
the check runs on a tree of links that lays the packages out as installed: ``zipai/engine`` and
``zipai/<name>``. Each package has its own tree and cache under ``.mypy_cache`` (ignored by git),
so the caches stay warm and two test workers never race each other for the same links.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def installed_tree(name: str) -> Path:
    """``<root>/.mypy_cache/<name>-tree/zipai``, its entries links into the worktree (made once)."""
    tree = ROOT / ".mypy_cache" / f"{name}-tree"
    pkg = tree / "zipai"
    pkg.mkdir(parents=True, exist_ok=True)
    links = {"__init__.py": ROOT / "cli" / "__init__.py", "engine": ROOT / "engine", name: ROOT / name}
    for entry, target in links.items():
        link = pkg / entry
        if link.is_symlink() and link.resolve() == target.resolve():
            continue
        link.unlink(missing_ok=True)
        try:
            link.symlink_to(target)
        except FileExistsError:  # another worker made it at the same moment
            pass
    return tree


def strict(name: str) -> subprocess.CompletedProcess[str]:
    """mypy's verdict on ``zipai.<name>`` checked against the engine's own types."""
    tree = installed_tree(name)
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                           "--cache-dir", str(ROOT / ".mypy_cache" / f"{name}-tree-cache"),
                           "-p", f"zipai.{name}"],
                          cwd=tree, env={**os.environ, "MYPYPATH": str(tree)},
                          capture_output=True, text=True, timeout=300)


def ships_marker(name: str) -> bool:
    """The package carries ``py.typed`` and pyproject ships it as package data."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return (ROOT / name / "py.typed").is_file() and f'"zipai.{name}" = ["py.typed"]' in pyproject
