"""``mypy --strict`` on one of our packages as it is installed (``zipai.<name>``).

mypy cannot follow the editable install's package-dir map (``zipai.scorer`` is ``scorer/``), so
the check runs on a tree of links that lays the packages out as installed: ``zipai/<name>`` and
every package of ours it imports, directly or through another (the app: the engine, the ledger,
the vision, the table page it serves and the scenes its preview bench renders), so each import is
checked against the types it names. Packages that reach the same set (the app and the table page
import each other) share one tree and one cache under ``.mypy_cache`` (ignored by git), and their
checks take turns on it (a file lock), so the second finds the cache warm instead of checking the
same six packages again, and two test workers never race each other for the same links or cache.
The configuration is pyproject's ``[tool.mypy]`` (which third-party modules ship no types).
"""

from __future__ import annotations

import ast
import fcntl
import functools
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported(name: str) -> set[str]:
    """Our packages that ``zipai.<name>``'s modules import (lazy imports inside functions too)."""
    found: set[str] = set()
    for source in (ROOT / name).rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"), str(source))):
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0
                       and node.module else [])
            found.update(m.split(".")[1] for m in modules if m.startswith("zipai.") and m != "zipai")
    return found - {name}


@functools.cache
def packages(name: str) -> frozenset[str]:
    """``name`` and every package of ours it reaches through imports (parsed once a process:
    each check asks for its tree, its links, its cache and its lock)."""
    seen, todo = {name}, [name]
    while todo:
        for other in imported(todo.pop()) - seen:
            seen.add(other)
            todo.append(other)
    return frozenset(seen)


def tree_name(name: str) -> str:
    """The tree ``zipai.<name>`` is checked in: named by the packages it links."""
    return "-".join(sorted(packages(name)))


def installed_tree(name: str) -> Path:
    """``<root>/.mypy_cache/<packages>-tree/zipai``, its entries links into the worktree (made once)."""
    tree = ROOT / ".mypy_cache" / f"{tree_name(name)}-tree"
    pkg = tree / "zipai"
    pkg.mkdir(parents=True, exist_ok=True)
    links = {"__init__.py": ROOT / "cli" / "__init__.py"} | {p: ROOT / p for p in packages(name)}
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
    """mypy's verdict on ``zipai.<name>`` checked against the types of the packages it imports."""
    tree = installed_tree(name)
    cache = ROOT / ".mypy_cache" / f"{tree_name(name)}-tree-cache"
    with (ROOT / ".mypy_cache" / f"{tree_name(name)}-tree.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one check at a time on a shared tree and cache
        return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                               "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache),
                               "-p", f"zipai.{name}"],
                              cwd=tree, env={**os.environ, "MYPYPATH": str(tree)},
                              capture_output=True, text=True, timeout=300)


def ships_marker(name: str) -> bool:
    """The package carries ``py.typed`` and pyproject ships it as package data."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        data = tomllib.load(f)["tool"]["setuptools"]["package-data"].get(f"zipai.{name}", [])
    return (ROOT / name / "py.typed").is_file() and "py.typed" in data
