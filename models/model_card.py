"""The model card (docs/model-card.md): what the shipped detector is, how it was trained and what it
measures, written from the model's manifest and provenance and the figures an evaluation computed.

The runtime reads none of this, so it lives apart from the manifest; the card is the one place a
reader finds it in words. ``zipai eval detector DIR --model-card docs/model-card.md`` writes it
(``write_card``), the figures of DIR as that run measured them and the other splits' as recorded.
Nothing in it depends on the machine or the hour, so the same model and scenes give the same file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# the figures the card shows for each split, in this order: (key, label, as a percentage)
SHOWN: tuple[tuple[str, str, bool], ...] = (
    ("scenes", "scenes", False),
    ("cards", "labelled cards", False),
    ("per_card_accuracy", "per card", True),
    ("scene_exact_rate", "whole scene exact", True),
    ("back_precision", "`back` precision", True),
    ("back_recall", "`back` recall", True),
    ("layout_cards_accuracy", "per card, the layout's cards", True),
    ("loose_cards_accuracy", "per card, loose cards", True),
    ("ink_colour_accuracy", "ink colour", True),
    ("layout_exact_rate", "layout exact", True),
    ("scored_as_scene_rate", "scored as the scene", True),
    ("scored_labelled_cards_rate", "scored as the scene, the labelled cards (the layout step alone)", True),
    ("scored_as_scene_winning_rate", "scored as the scene, scenes whose layout is a winning hand", True),
    ("scored_labelled_cards_winning_rate", "the same from the labelled cards", True),
    ("no_result_cards_right_rate", "no result, though every card of the layout was read right", True),
    ("clean_rate", "no doubt raised", True),
    ("clean_wrong_rate", "wrong though no doubt raised", True),
    ("wrong_without_doubt", "scenes scored wrong with no doubt", False),
)
TARGETS = {"per_card_accuracy": "99.5%", "scene_exact_rate": "90%", "scored_as_scene_rate": "80%",
           "scored_labelled_cards_rate": "99%", "no_result_cards_right_rate": "≤ 5%",
           "wrong_without_doubt": "0"}
SPLITS = {  # what each recorded split is, in words
    "heldout": "300 scenes in three typefaces no network trained or was tuned on",
    "heldout_style2": "100 held-out scenes with decorated glyphs (stand-ins for printed decks)",
    "heldout_style3": "100 held-out scenes with decorations never seen in training",
    "val": "400 validation scenes in the training typefaces (the choices were made on them)",
}
RECIPE: tuple[tuple[str, str], ...] = (  # the recipe's top-level facts: (key, label)
    ("data_seed", "scene seed"),
    ("train_scenes", "training scenes"),
    ("train_style2_scenes", "of them decorated (style 2)"),
    ("finder_extra_scenes", "finder's extra scenes"),
    ("reader_extra_scenes", "reader's extra scenes"),
    ("scene_size", "scene size"),
    ("finder_minutes", "finder minutes"),
    ("finder_tune_minutes", "finder backs minutes"),
    ("reader_minutes", "reader minutes"),
    ("reader_crops", "reader crops"),
    ("finder_params", "finder parameters"),
    ("reader_params", "reader parameters"),
)
WARM = ("reader_warm", "finder_warm")  # rounds trained on after the recipe


def _cell(value: Any, percent: bool) -> str:
    if value is None:
        return ""
    if percent:
        return f"{100 * float(value):.2f}%"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _rounds(record: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """A warm record and the ones nested before it, oldest first."""
    out: list[Mapping[str, Any]] = []
    node: Any = record
    while isinstance(node, Mapping):
        out.append(node)
        node = node.get(f"{key}_before")
    return out[::-1]


def render_card(manifest: Mapping[str, Any], provenance: Mapping[str, Any],
                measured: Mapping[str, Mapping[str, Any]], command: str,
                files: Mapping[str, int]) -> str:
    """The card's Markdown. ``measured``: split key -> figures this run computed (they replace the
    recorded ones of that split); ``files``: network file name -> size in bytes."""
    training = provenance.get("training", {})
    figures = {**provenance.get("figures", {}), **measured}
    lines = ["# Model card: the card detector", "",
             f"Written by `{command}` from `models/manifest.json`, `models/provenance.json` and the "
             "figures that run measured. Do not edit by hand: run the command again.", "",
             "## What it is", "",
             "Two small networks and a learnt selector that read the cards of one photo of a Zipai "
             "table, offline, with numpy, Pillow and onnxruntime:", "",
             "- the **finder** marks each card glyph and card back at a quarter of the photo's "
             f"{manifest.get('finder', {}).get('long_side', '?')} px long side;",
             "- the **reader** names each found glyph from a "
             f"{manifest.get('reader', {}).get('size', '?')}² crop of the full photo "
             f"({', '.join(manifest.get('classes', []))});",
             "- the **selector** weighs every find's evidence and keeps those that are cards.", "",
             "| file | bytes | SHA-256 |", "|---|---|---|"]
    for part in ("finder", "reader"):
        entry = manifest.get(part, {})
        for e in (entry, entry.get("int8_file") or {}):
            if e.get("file"):
                digest = str(e.get("sha256", ""))[:16]
                lines.append(f"| `{e['file']}` | {files.get(e['file'], 0):,} | `{digest}…` |")
    int8 = manifest.get("int8") or {}
    if int8:
        lines += ["", f"Quantized: {int8.get('format', '')}; calibrated on {int8.get('calibration', '')}."]
    lines += ["", "Trained on synthetic scenes only (`zipai data render`): no photo of a real deck. "
              "Printed decks differ in typeface and decoration; the decorated held-out splits below "
              "stand in for them, and the figures on real decks are not known.", "",
              "## Figures", "",
              "Counted as `zipai eval detector` counts them: a card is read when a detection of its "
              "class has its centre inside the card's visible outline, one to one; a scene is exact "
              "when every card is read and nothing is extra.", ""]
    splits = [s for s in (*SPLITS, *sorted(set(figures) - set(SPLITS)))
              if isinstance(figures.get(s), Mapping)]
    lines += ["| figure | " + " | ".join(f"`{s}`" for s in splits) + " | target |",
              "|---|" + "---|" * len(splits) + "---|"]
    for key, label, percent in SHOWN:
        cells = [_cell(figures[s].get(key), percent) for s in splits]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {TARGETS.get(key, '')} |")
    lines += [""] + [f"- `{s}`: {SPLITS.get(s, 'recorded split')}"
                     + (" (measured by the run that wrote this card)" if s in measured else "")
                     for s in splits]
    if "reader_val_crop_accuracy" in figures:
        lines += ["", f"The reader alone, on validation crops: "
                  f"{_cell(figures['reader_val_crop_accuracy'], True)}."]
    lines += ["", "## Training", "", "| recipe | |", "|---|---|"]
    lines += [f"| {label} | {_cell(training[key], False)} |" for key, label in RECIPE if key in training]
    if training.get("fonts"):
        lines.append(f"| typefaces | {', '.join(training['fonts'])} |")
    for key in WARM:
        if isinstance(training.get(key), Mapping):
            lines += ["", f"Trained on after the recipe (`{key}`), oldest first:", ""]
            lines += [f"1. `{r.get('command', '(command not recorded)')}`"
                      for r in _rounds(training[key], key)]
    if training.get("recipe_note"):
        lines += ["", "How the shipped files came to be, as recorded:", "", str(training["recipe_note"])]
    return "\n".join(lines) + "\n"


def write_card(path: Path, manifest_path: Path, provenance: Mapping[str, Any],
               measured: Mapping[str, Mapping[str, Any]], command: str) -> None:
    """Render the card for the model of ``manifest_path`` and write it, whole or not at all."""
    manifest = json.loads(Path(manifest_path).read_text(encoding="utf-8"))
    folder = Path(manifest_path).parent
    files = {p.name: p.stat().st_size for p in folder.glob("*.onnx")}
    text = render_card(manifest, provenance, measured, command, files)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    staged = Path(path).with_suffix(".md.new")
    staged.write_text(text, encoding="utf-8")
    staged.replace(path)
