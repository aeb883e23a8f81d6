"""``zipai tune NAME``: choose one group of the detector's settings on validation scenes (never on
held-out ones, which are for figures), and with ``--write-manifest`` write the choice into the
manifest through ``zipai.vision.config``. Each tuner is a module here with a ``main(argv)``; they
import only when run.

Every tuner weighs a setting by the same rule (``Tally.rule``): the most scenes read exactly,
then the most layouts complete enough to score, then per-card accuracy, then the most scored as
the scene; ties go to the cheaper or stricter setting, as each tuner says. ``deck-finds`` puts
fewer extra finds second: a rule that takes finds in could else buy a card with extra finds."""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

# name -> (module, one-line help)
TUNERS: dict[str, tuple[str, str]] = {
    "thresholds": ("thresholds", "finder and reader thresholds, far ends, crop margins, second chances"),
    "far-ends": ("far_ends", "when two finds are one card's two ends"),
    "back-doubles": ("back_doubles", "when two back finds are one back"),
    "second-look": ("second_look", "when to look again, closer, at a photo taken from far away"),
    "upright": ("upright", "which unsure reads to read again with the crop turned upright"),
    "take-in": ("take_in", "which weak finds the layout may take in"),
    "selector": ("selector", "the learnt selector's probability threshold"),
    "selected-far-ends": ("selected_far_ends", "far ends looked for among the selector's finds"),
    "selector-bins": ("selector_bins", "the finds on either side of the selector's bar (no writing)"),
    "chance": ("chance", "the chance a card is wrong, and the bar making it a doubt (models/chance.json)"),
    "doubts": ("doubts", "when a scan says it is unsure (layout code defaults; no writing)"),
    "layout": ("layout", "the layout's column limits on labelled cards (code defaults; no writing)"),
    "deck-finds": ("deck_finds", "how near a taught deck a find must lie to be a card, or none (no writing)"),
    "vacant-places": ("vacant_places", "when a teaching photo's missed place holds no card (no writing)"),
}


def _usage() -> str:
    lines = ["usage: zipai tune NAME [FOLDER ...] [--model MANIFEST] [--limit N] [--write-manifest]", "",
             "tuners:"]
    lines += [f"  {name:<18} {help_}" for name, (_, help_) in TUNERS.items()]
    lines += ["", "zipai tune NAME --help shows a tuner's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in TUNERS:
        print(f"zipai tune: no tuner {name!r} (one of {', '.join(TUNERS)})", file=sys.stderr)
        return 2
    module = importlib.import_module(f"{__name__}.{TUNERS[name][0]}")
    return int(module.main(rest) or 0)


def parser(doc: str | None, name: str) -> argparse.ArgumentParser:
    """The arguments every detector tuner takes: validation folders (pooled), the model, a
    scene limit per folder, and whether to write the choice into the manifest."""
    p = argparse.ArgumentParser(prog=f"zipai tune {name}", description=doc,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, nargs="+", help="rendered folders; their scenes are pooled")
    p.add_argument("--model", type=Path, default=None, help="manifest.json (default: the shipped model)")
    p.add_argument("--limit", type=int, default=0, help="only the first N scenes of each folder")
    p.add_argument("--write-manifest", action="store_true", help="write the choice into the manifest")
    return p


def rules_only(det: Any, name: str) -> Any:
    """The detector with the manifest's selector set aside, for a tuner of the rules it learnt
    from: the rules are one of the selector's inputs, so it is trained again after their
    settings change."""
    if det.config.postprocess.selector is None:
        return det
    print(f"zipai tune {name}: tuning the rules alone; the manifest's selector is set aside and must be "
          "trained again after a change (python -m zipai.models.selector)", file=sys.stderr)
    return det.with_config(det.config.rules_only())


def write(det: Any, args: argparse.Namespace, notes: dict[str, dict[str, Any]] | None = None,
          **sections: Any) -> None:
    """Write the manifest's config with ``sections`` replaced (``finder=…``, ``postprocess=…``)
    into ``--model`` (default: the shipped manifest). The config written is the manifest's own,
    not the tuner's working one: a selector the tuner set aside stays."""
    from zipai.vision.config import save_config

    config = det.manifest.config
    save_config(args.model or det.manifest.path, replace(config, **sections), notes)


def section(config: Any, name: str, **changes: Any) -> Any:
    """One section of ``config`` with ``changes``: ``section(cfg, "finder", threshold=0.3)``."""
    return replace(getattr(config, name), **changes)
