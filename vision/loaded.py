"""The shipped model's detectors, loaded once per process for each way they differ: with or
without the reader's embedding twin, how many threads its sessions run on, and which session
factory made them (onnxruntime's Python package, or Android's Java API).

Every caller that wants the shipped model (``zipai scan``, the deck commands, the app) asks
here, so a process holds one detector per key and a second ``threads`` gets its own sessions
instead of the first call's. A ``Detector`` keeps nothing between photos (``detect`` is
stateless), so threads share one freely.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from .detector import Detector
from .session import SessionFactory


@dataclass(frozen=True, slots=True)
class Key:
    """What makes two loaded detectors differ."""

    embed: bool = False  # the reader's embedding twin, which a taught deck reads with
    threads: int = 2
    factory: SessionFactory | None = None  # None: onnxruntime's own (fused or not, as the CPU allows)


_LOADED: dict[Key, Detector] = {}
_LOCK = threading.Lock()  # one load at a time: two callers of one key never load it twice


def loaded_detector(*, embed: bool = False, threads: int = 2,
                    factory: SessionFactory | None = None) -> Detector:
    """The shipped model's detector for this key, loaded on first use and kept for the process."""
    key = Key(embed, threads, factory)
    with _LOCK:
        det = _LOADED.get(key)
        if det is None:
            det = _LOADED[key] = Detector(threads=threads, factory=factory, embed=embed)
    return det


def loaded_keys() -> tuple[Key, ...]:
    """The keys loaded so far, in load order (for tests and diagnostics)."""
    with _LOCK:
        return tuple(_LOADED)
