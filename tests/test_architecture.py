"""Imports point down the layers of docs/architecture.md, and the engine has no import loop.

The sources are read as syntax trees, not imported: every ``import`` counts, at module level
or inside a function (a lazy import still ties one package to another), and one inside
``if TYPE_CHECKING:`` too. Only ``cli`` may reach everything, lazily.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"engine": "zipai.engine", "scorer": "zipai.scorer", "vision": "zipai.vision",
           "datasets": "zipai.datasets", "models": "zipai.models", "mobile": "zipai.mobile",
           "serve": "zipai.serve", "cli": "zipai"}
"""Each source folder and its import name (pyproject's package-dir)."""

MAY_IMPORT = {
    "engine": set(),
    "scorer": {"engine"},
    "vision": {"engine"},
    "datasets": {"vision", "engine"},
    "models": {"vision", "datasets", "engine"},
    "mobile": {"engine", "scorer", "vision"},
    "serve": {"engine", "scorer", "vision"},
    "cli": {"engine", "scorer", "vision", "datasets", "models", "mobile", "serve"},
}
"""Which packages each package may import (its own always)."""

MAY_IMPORT_MODULES = {"serve": {"zipai.mobile.explain", "zipai.mobile.i18n"}}
"""Single modules of a package above: the app's wording, which the table page shares (no Kivy)."""

LAZY = {
    ("zipai.mobile.table_page", "zipai.serve"): "the 同桌看 button starts the table page ([serve] extra)",
    ("zipai.mobile.bench_preview", "zipai.datasets"): "`zipai bench preview` renders its test video",
}
"""Imports up the layers made inside a function, named one by one with why (docs/architecture.md)."""


@dataclass(frozen=True)
class Edge:
    source: str  # the importing module
    target: str  # the imported module (or the package, when a name in it is not a module)
    line: int
    lazy: bool  # inside a function

    def __str__(self) -> str:
        return f"{self.source}:{self.line} imports {self.target}" + (" (in a function)" if self.lazy else "")


def module_name(path: Path) -> str:
    folder, *rest = path.relative_to(ROOT).with_suffix("").parts
    parts = [*FOLDERS[folder].split("."), *rest]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources() -> dict[str, Path]:
    return {module_name(p): p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))}


MODULES = sources()


def layer(module: str) -> str | None:
    """The package a module of ours belongs to; None: not ours."""
    best = None
    for folder, name in FOLDERS.items():
        if (module == name or module.startswith(name + ".")) and (best is None or len(name) > len(
                FOLDERS[best])):
            best = folder
    return best


def _walk(node: ast.AST, lazy: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, lazy
        inside = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from _walk(child, inside)


def edges(module: str, path: Path) -> Iterator[Edge]:
    """Every import of ours in one module, resolved to the module it names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node, lazy in _walk(tree, False):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[:len(up) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        for t in targets:
            if layer(t) is not None:
                yield Edge(module, t, node.lineno, lazy)


ALL_EDGES = [e for m, p in MODULES.items() for e in edges(m, p)]


def upward(edge: Edge) -> bool:
    src, dst = layer(edge.source), layer(edge.target)
    assert src is not None and dst is not None
    if src == dst or dst in MAY_IMPORT[src] or edge.target in MAY_IMPORT_MODULES.get(src, ()):
        return False
    if src == "cli" and edge.lazy:
        return False
    return not (edge.lazy and any(edge.source == a and (edge.target == b or edge.target.startswith(b + "."))
                                  for a, b in LAZY))


def test_the_sources_are_found_and_read() -> None:
    assert {"zipai.engine.api", "zipai.engine.variants.registry", "zipai.vision.files", "zipai",
            "zipai.cli"} <= set(MODULES)
    assert any(e.source == "zipai.engine.rules" and e.target == "zipai.engine.variants" and not e.lazy
               for e in ALL_EDGES)


def test_no_import_points_back_up_the_layers() -> None:
    bad = [str(e) for e in ALL_EDGES if upward(e)]
    assert not bad, "imports against docs/architecture.md:\n" + "\n".join(bad)


def test_the_engine_imports_nothing_of_ours() -> None:
    assert not [str(e) for e in ALL_EDGES if layer(e.source) == "engine" and layer(e.target) != "engine"]


def test_the_named_lazy_imports_are_still_there() -> None:
    """An exception nobody needs any more is dropped from the list, not kept open."""
    for source, target in LAZY:
        assert any(e.source == source and e.target.startswith(target) and e.lazy for e in ALL_EDGES), source


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1 or v in graph.get(v, ()):
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def module_graph(folder: str) -> dict[str, set[str]]:
    """Module-level imports between the modules of one package (a package's ``__init__``
    counts as a module: importing a name from it runs it)."""
    graph: dict[str, set[str]] = {}
    for e in ALL_EDGES:
        if layer(e.source) == folder and layer(e.target) == folder and not e.lazy and e.target != e.source:
            graph.setdefault(e.source, set()).add(e.target)
    return graph


def test_the_engine_has_no_import_loop() -> None:
    found = loops(module_graph("engine"))
    assert not found, "import loops in the engine:\n" + "\n".join(" <-> ".join(p) for p in found)


@pytest.mark.parametrize(("graph", "want"), [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_the_loop_finder_finds_loops(graph: dict[str, set[str]], want: list[list[str]]) -> None:
    assert loops(graph) == want


def test_an_upward_import_is_caught(tmp_path: Path) -> None:
    """The check reads relative and absolute imports alike."""
    assert upward(Edge("zipai.vision.manifest", "zipai.models", 3, True))
    assert upward(Edge("zipai.engine.api", "zipai.scorer.db", 3, False))
    assert not upward(Edge("zipai.serve.view", "zipai.mobile.i18n", 3, False))
    assert upward(Edge("zipai.serve.view", "zipai.mobile.state", 3, False))
    assert not upward(Edge("zipai.cli", "zipai.models.train", 3, True))
    src = tmp_path / "m.py"
    src.write_text("from ...models import tune\ndef f():\n    import zipai.scorer\n", encoding="utf-8")
    got = list(edges("zipai.vision.layout.m", src))
    assert [(e.target, e.lazy) for e in got] == [("zipai.models.tune", False), ("zipai.scorer", True)]
