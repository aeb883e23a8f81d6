"""The layout step as it was at a git revision of this checkout, loaded beside today's.

``zipai eval detector --before REV`` measures the layout step now and at ``REV`` in one run, on
the same detections: the finder and the reader run once, and each scene's detections go through
both versions of what a scan does after the networks (``vision/scan.py`` and ``vision/layout/``).
The rest of ``zipai.vision`` (the detector, its detections, the decoder) is today's, shared by
both, as ``zipai eval decks --before`` shares today's detector with the learner before.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
NAME = "zipai.vision._before"  # the revision's scan module; its layout package is NAME + ".layout"
_RELATIVE = re.compile(r"^\s*from (\.+)(\w+)", re.MULTILINE)


def _git(*args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, check=True, timeout=60).stdout


def scan_before(rev: str) -> ModuleType:
    """``zipai.vision.scan`` as it was at ``rev``, with that revision's ``vision/layout``; its
    ``scan_detections`` runs the old layout step on today's detections. A ValueError names a
    revision git cannot show."""
    for loaded in [m for m in sys.modules if m == NAME or m.startswith(NAME + ".")]:
        del sys.modules[loaded]  # another revision's modules, loaded before
    try:
        files = _git("ls-tree", "--name-only", f"{rev}:vision/layout").decode("utf-8").split()
        sources = {f"layout/{f}": _git("show", f"{rev}:vision/layout/{f}").decode("utf-8")
                   for f in files if f.endswith(".py")}
        sources["scan.py"] = _git("show", f"{rev}:vision/scan.py").decode("utf-8")
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError) as exc:
        raise ValueError(f"--before {rev}: git cannot show vision/scan.py and vision/layout there "
                         f"({exc})") from None
    folder = tempfile.TemporaryDirectory(prefix="zipai-before-")
    root = Path(folder.name)
    (root / "layout").mkdir()
    for path, text in sources.items():
        (root / path).write_text(text, encoding="utf-8")
    (root / "__init__.py").write_text("", encoding="utf-8")
    # every other module the old code imports from zipai.vision is today's: aliased in place
    for path, text in sources.items():
        depth = path.count("/") + 1
        for dots, name in _RELATIVE.findall(text):
            if len(dots) == depth and name not in ("layout", "scan"):
                sys.modules.setdefault(f"{NAME}.{name}", importlib.import_module(f"zipai.vision.{name}"))
    spec = importlib.util.spec_from_file_location(NAME, root / "__init__.py",
                                                  submodule_search_locations=[str(root)])
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    package.__dict__["_folder"] = folder  # kept while the module lives
    sys.modules[NAME] = package
    spec.loader.exec_module(package)
    return importlib.import_module(f"{NAME}.scan")
