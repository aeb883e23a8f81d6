"""``zipai eval decks DIR``: what teaching a deck is worth, untaught against taught on the same scenes.

DIR is a deck set (``zipai data render --decks``): decks no network trained on, each a teaching
photo and table scenes printed with that one deck. Each deck is taught from its photo as a player
would (``zipai deck learn``), then every scene is scanned twice, without the deck and with it, by
the code ``zipai scan`` runs. Per card, scenes exact and scored as the scene are counted as
``zipai eval detector`` counts them (``zipai.models.evaluate``). The table goes to stdout
and, whole, to docs/lab/decks.md.

With ``--evening K`` a deck also gets better as an evening goes: the misreads of its first K
scenes, scanned with the deck, are corrected into it (as a tap in the app's review does), and
untaught, taught and taught-and-corrected are measured on the scenes left.
"""


from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from zipai.datasets.decks import DeckSetError, read_deck_set
from zipai.datasets.teach import VARIANTS
from zipai.models.error_breakdown import sheet
from zipai.vision.detector import Detector

# The command; its parts by job: deck_scans (the scenes read untaught and taught), deck_teaching
# (the teaching photos judged), blindfold (detectors that see less) and deck_report (the tables).
# What this module does not use itself is imported to stay importable from here, where the
# tests and the tuners name it.
from .blindfold import Blindfold, Misreader, blind_cards  # noqa: F401
from .deck_report import (  # noqa: F401
    TARGET_CARD,
    TARGET_EXACT,
    _pct,
    _row,
    cause_lines,
    evening_lines,
    model_before_lines,
    pooled,
    report,
    teaching_lines,
)
from .deck_scans import (  # noqa: F401
    WHOLE,
    DeckResult,
    Side,
    Teacher,
    corrections,
    deck_api,
    evaluate_deck,
    learner_before,
    lost_tiles,
)
from .deck_teaching import (  # noqa: F401
    BLINDED,
    VariantOutcome,
    _centre,
    _deck_ref,
    _judge,
    _photo,
    blind_name,
    teach_blinded,
    teach_variants,
)

DOC = Path(__file__).resolve().parents[1] / "docs" / "lab" / "decks.md"


def write_doc(path: Path, text: str) -> None:
    """Replace the notebook page whole (a reader never finds half a table)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"zipai eval decks: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: list[str] | None = None) -> int:
    p = _Parser(prog="zipai eval decks", description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path, help="a deck set (zipai data render --decks)")
    p.add_argument("--decks", type=int, default=0, help="only the first N decks (0: all)")
    p.add_argument("--scenes", type=int, default=0, help="only the first N scenes of each deck (0: all)")
    p.add_argument("--untaught", action="store_true", help="skip teaching: the untaught half alone")
    p.add_argument("--variants", type=int, default=0,
                   help="also show every teaching photo variant of the first N decks to the learner")
    p.add_argument("--evening", type=int, default=0, metavar="K",
                   help="also correct the misreads of each deck's first K scenes into it, and measure "
                        "untaught, taught and corrected on the scenes after them")
    p.add_argument("--blind", type=int, default=0, metavar="N",
                   help="also show the first N decks' learnable teaching photos with 1 to 3 faces hidden "
                        "from the finder (their finds deleted) to the learner")
    p.add_argument("--before", default=None, metavar="REV",
                   help="also show the teaching photos (--variants, --blind) to the learner as it was at "
                        "git revision REV of this checkout, beside today's")
    p.add_argument("--model", type=Path, default=None, help="manifest.json (default: the shipped model)")
    p.add_argument("--model-before", type=Path, default=None, metavar="MANIFEST",
                   help="also teach and scan every deck with this model (the one before) in the same "
                        "run, and report it beside --model: the figures and, by class, the cards "
                        "missed, misread and found extra")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--sheet", type=Path, default=None, metavar="PNG",
                   help="draw every card the taught scans lost, and every extra find, on one sheet")
    p.add_argument("--reliability", type=Path, default=None, metavar="PNG",
                   help="draw the chance's reliability diagram over the untaught and taught scans")
    p.add_argument("--doc", type=Path, default=DOC, help=f"where the report goes (default {DOC})")
    p.add_argument("--no-doc", action="store_true", help="print the report only")
    try:
        a = p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if a.decks < 0 or a.scenes < 0 or a.variants < 0 or a.evening < 0 or a.blind < 0 or a.threads < 1:
        print("zipai eval decks: --decks, --scenes, --variants, --blind and --evening are 0 or more, "
              "--threads at least 1", file=sys.stderr)
        return 2
    if a.evening and a.untaught:
        print("zipai eval decks: --evening needs the learner: leave --untaught out", file=sys.stderr)
        return 2
    if (a.variants or a.blind or a.before) and a.untaught:
        print("zipai eval decks: --variants, --blind and --before need the learner: leave --untaught out",
              file=sys.stderr)
        return 2
    try:
        entries = read_deck_set(a.dir)[: a.decks or None]
        teacher = None if a.untaught else deck_api(a.model, a.threads)
        old = None
        if a.before and teacher is not None and teacher.detector is not None:
            old = learner_before(a.before, teacher.detector)
        det = Detector(a.model, threads=a.threads)
        then = None
        if a.model_before is not None:
            then = (Detector(a.model_before, threads=a.threads),
                    None if a.untaught else deck_api(a.model_before, a.threads))
        results, old_results = [], []
        lost: list[tuple[Any, str]] | None = [] if a.sheet else None
        for k, entry in enumerate(entries, 1):
            r = evaluate_deck(entry, det, teacher, a.scenes, a.evening, lost)
            results.append(r)
            t = f", taught {_pct(r.taught.per_card)}" if r.taught is not None else ""
            if then is not None:
                o = evaluate_deck(entry, then[0], then[1], a.scenes, a.evening)
                old_results.append(o)
                t += f" (before: untaught {_pct(o.untaught.per_card)}" + (
                    f", taught {_pct(o.taught.per_card)})" if o.taught is not None else ")")
            print(f"  deck {k}/{len(entries)} {entry.id}: per card untaught {_pct(r.untaught.per_card)}{t}",
                  file=sys.stderr)
        outcomes: list[VariantOutcome] = []
        before: list[VariantOutcome] | None = None if old is None else []
        blinded: list[VariantOutcome] = []
        blinded_before: list[VariantOutcome] | None = None if old is None else []
        if a.variants and teacher is not None:
            for entry in entries[: a.variants]:
                outcomes += teach_variants(entry, teacher)
                was = ""
                if old is not None and before is not None:
                    before += teach_variants(entry, old)
                    was = f" (before: {sum(o.right for o in before[-len(VARIANTS):])})"
                print(f"  variants of {entry.id}: {sum(o.right for o in outcomes[-len(VARIANTS):])}/"
                      f"{len(VARIANTS)} handled right{was}", file=sys.stderr)
        if a.blind and teacher is not None:
            for entry in entries[: a.blind]:
                got = teach_blinded(entry, [teacher] + ([old] if old is not None else []))
                blinded += got[0]
                was = ""
                if old is not None and blinded_before is not None:
                    blinded_before += got[1]
                    was = f" (before: {sum(o.right for o in got[1])})"
                print(f"  blinded photos of {entry.id}: {sum(o.right for o in got[0])}/{len(BLINDED)} learnt "
                      f"right{was}", file=sys.stderr)
    except (DeckSetError, ValueError) as exc:
        print(f"zipai eval decks: {exc}", file=sys.stderr)
        return 2
    argv_text = " ".join(["zipai eval decks", *(argv if argv is not None else sys.argv[3:])])
    text = report(results, argv_text, teacher is None and not a.untaught, outcomes, a.evening, before,
                  blinded, blinded_before,
                  None if a.model_before is None else
                  (old_results, str(a.model_before), str(a.model or "the shipped model")))
    print(text)
    if lost is not None:
        try:
            sheet(lost, columns=12).save(a.sheet)
        except (OSError, ValueError) as exc:
            print(f"zipai eval decks: cannot write {a.sheet}: {exc}", file=sys.stderr)
            return 2
        print(f"{len(lost)} errors drawn in {a.sheet}", file=sys.stderr)
    if a.reliability:
        from zipai.models.reliability import draw

        pairs = [pr for r in results for side in (r.untaught, r.taught) if side is not None
                 for pr in side.by_chance.chances]
        draw(pairs, a.reliability, f"{a.dir}, untaught and taught")
        print(f"reliability diagram written to {a.reliability}", file=sys.stderr)
    if not a.no_doc:
        write_doc(a.doc, text + "\n")
        print(f"wrote {a.doc}", file=sys.stderr)
    return 0
