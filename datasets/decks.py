"""The held-out deck set: decks no network trained on, each a teaching photo and table scenes.

A real table plays an evening with one deck, so the figure that says what teaching a deck is
worth needs decks, not scenes: deck k is ``DeckRef(seed, split, k, style)`` with the styles taken
in turn (plain, the decorations training saw, those it never saw) on the held-out faces, and its
teaching photo and its scenes print that one deck. One folder per deck::

    DIR/decks.json                      the manifest (below)
    DIR/deck-000/teach.jpg, teach.json  the teaching photo and its label (datasets/LABELS.md)
    DIR/deck-000/scenes/                a ``zipai data render`` folder (images/, annotations.json)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .teach import DECK_STYLES, DeckRef

MANIFEST = "decks.json"
COMPOSE_FIVE = 0.3  # a printed deck's 伍 is often drawn from its own 亻 and 五 (cards.random_deck)


class DeckSetError(ValueError):
    """A deck set folder that is missing, incomplete or not one."""


def deck_refs(seed: int, count: int, split: str = "heldout") -> list[DeckRef]:
    """The decks of a set: styles 1, 2, 3 in turn, each one whose faces can all be read."""
    return [DeckRef.readable(seed, split, k, DECK_STYLES[k % len(DECK_STYLES)], COMPOSE_FIVE)
            for k in range(count)]


def folder(k: int) -> str:
    return f"deck-{k:03d}"


def scene_index(k: int, j: int) -> int:
    """The (seed, split, index) scene index of deck k's scene j: apart from every other deck's."""
    return k * 1000 + j


@dataclass(frozen=True, slots=True)
class DeckEntry:
    """One deck of a rendered set, as its manifest names it."""

    id: str
    root: Path
    font: str
    style: int

    @property
    def teach(self) -> Path:
        return self.root / "teach.jpg"

    @property
    def teach_label(self) -> Path:
        return self.root / "teach.json"

    @property
    def scenes(self) -> Path:
        return self.root / "scenes"


def read_deck_set(root: Path) -> list[DeckEntry]:
    """The decks of a folder written by ``zipai data render --decks``, each checked to be there."""
    path = root / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        decks = data["decks"]
        entries = [DeckEntry(str(d["id"]), root / _plain(str(d["folder"]), path), str(d["font"]),
                             int(d["style"])) for d in decks]
    except FileNotFoundError:
        raise DeckSetError(f"{root} is not a deck set: no {MANIFEST} (zipai data render --decks)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, DeckSetError):
            raise
        raise DeckSetError(f"{path} is not a deck set manifest ({type(exc).__name__}: {exc})") from None
    for e in entries:
        for need in (e.teach, e.teach_label, e.scenes / "annotations.json"):
            if not need.is_file():
                raise DeckSetError(f"deck {e.id}: {need} is missing (render the set again)")
    return entries


def _plain(name: str, manifest: Path) -> str:
    """A deck folder name from a manifest: one plain name, never a path out of the set."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise DeckSetError(f"{manifest}: deck folder {name!r} is not a plain folder name")
    return name


# ---------------------------------------------------------------- rendering

# kind ("teach" or "scene"), out, deck ref, scene number, size, quality
DeckJob = tuple[str, str, DeckRef, int, tuple[int, int], int]


def render_job(job: DeckJob) -> tuple[int, dict[str, Any], list]:
    """One teaching photo or one scene of a deck; returns (result key, image entry, annotations)."""
    kind, out, ref, j, size, quality = job
    from .cli import write_json

    root = os.path.join(out, folder(ref.index))
    if kind == "teach":
        from .teach import render_teach

        img, label = render_teach(ref, "good", size)
        img.save(os.path.join(root, "teach.jpg"), "JPEG", quality=quality)
        anns = label.pop("annotations")
        write_json(os.path.join(root, "teach.json"), {"file_name": "teach.jpg", **label})
        return -1 - ref.index, {}, anns
    from .scene import render_scene_full

    index = scene_index(ref.index, j)
    img, anns, meta = render_scene_full(ref.seed, ref.split, index, size, style=ref.style, deck=ref.deck())
    name = f"images/{j:06d}.jpg"
    img.save(os.path.join(root, "scenes", name), "JPEG", quality=quality)
    return index, {"file_name": name, "width": img.width, "height": img.height, **meta, "deck": ref.id}, anns


def render_decks(out: str, count: int, seed: int, scenes: int = 5, split: str = "heldout",
                 size: tuple[int, int] = (1600, 1200), workers: int = 2, quiet: bool = False,
                 quality: int = 92) -> dict[str, Any]:
    """Render ``count`` decks of ``scenes`` scenes each into ``out`` and write the manifest last, so a
    set cut short by an interrupt is never read as whole."""
    from .cli import coco_file, run_jobs, write_json
    from .fonts import faces

    faces(split)
    refs = deck_refs(seed, count, split)
    for ref in refs:
        os.makedirs(os.path.join(out, folder(ref.index), "scenes", "images"), exist_ok=True)
    jobs: list[DeckJob] = [("teach", out, ref, 0, size, quality) for ref in refs]
    jobs += [("scene", out, ref, j, size, quality) for ref in refs for j in range(scenes)]
    results = run_jobs(render_job, jobs, workers, quiet)
    manifest: dict[str, Any] = {"seed": seed, "split": split, "count": count, "scenes": scenes,
                                "size": list(size), "spec": "datasets/decks.py", "decks": []}
    for ref in refs:
        mine = {j: results[scene_index(ref.index, j)] for j in range(scenes)}
        info = {"description": f"Zipai table scenes of deck {ref.id}", "version": "1", "seed": seed,
                "split": split, "style": ref.style, "deck": ref.id, "size": list(size),
                "spec": "datasets/LABELS.md"}
        write_json(os.path.join(out, folder(ref.index), "scenes", "annotations.json"), coco_file(mine, info))
        meta = ref.meta()
        manifest["decks"].append({"id": ref.id, "folder": folder(ref.index), "font": meta["font"],
                                  "font_style": meta["font_style"], "style": ref.style,
                                  "scenes": scenes, "back_in_teach": _has_back(results[-1 - ref.index])})
    write_json(os.path.join(out, MANIFEST), manifest)
    return manifest


def _has_back(result: tuple[dict[str, Any], list]) -> bool:
    return any(a["category_id"] == 21 for a in result[1])
