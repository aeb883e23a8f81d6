"""Synthetic table photos of Zipai layouts with COCO labels (see datasets/README.md, LABELS.md).

Heavy imports (numpy, Pillow, the fonts) happen when a function is first used, so importing the
package stays cheap for the ``zipai`` command.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CATEGORIES", "render_scene", "render_scene_full"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import scene

        return getattr(scene, name)
    raise AttributeError(f"module 'zipai.datasets' has no attribute {name!r}")
