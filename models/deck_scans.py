"""A deck's scenes read untaught and taught (and, with ``--evening``, corrected as the review's
taps would), counted as ``zipai eval detector`` counts them; and the learner the decks are
taught with, today's or the one at an earlier revision. The measuring half of ``zipai eval
decks``, apart from the command and its report."""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zipai.datasets.decks import DeckEntry
from zipai.models.error_breakdown import CardOutcome, caption, outcomes, tile
from zipai.models.evaluate import (
    DoubtFigures,
    SceneMatch,
    Totals,
    category_name,
    labelled_scenes,
    layout_base,
    match_scene,
    reasons_scan,
    same_score,
)
from zipai.vision.decode import Decoded, load
from zipai.vision.detector import Detector
from zipai.vision.scan import Scan, scan_decoded

WHOLE = 0.95  # a card whose best glyph shows at least this share of its ink is whole; else covered


@dataclass(slots=True)
class Side:
    """One way of reading a deck's scenes (untaught or taught): the detector's figures and the score."""

    totals: Totals = field(default_factory=Totals)
    layouts: int = 0
    scored: int = 0
    per_class: Counter = field(default_factory=Counter)  # card -> labelled
    wrong_class: Counter = field(default_factory=Counter)  # card -> misread or missed
    confusions: Counter = field(default_factory=Counter)  # (true, read) -> n
    # (misread | missed | labelled, whole | covered) -> n, and extra finds by what they were read as
    causes: Counter = field(default_factory=Counter)
    missed: Counter = field(default_factory=Counter)  # card -> missed
    extras: Counter = field(default_factory=Counter)  # what extra finds were read as -> n
    by_chance: DoubtFigures = field(default_factory=DoubtFigures)  # the card doubts now
    by_reasons: DoubtFigures = field(default_factory=DoubtFigures)  # and by the rule before

    def add(self, m: SceneMatch, anns: Sequence[dict[str, Any]], scored: bool | None,
            cards: Sequence[str] = ()) -> None:
        """One scene's match; ``cards``: the detections' cards, in the order ``m`` indexes them."""
        self.totals.add(m)
        if scored is not None:
            self.layouts += 1
            self.scored += scored
        for c in outcomes(anns, m):
            self.per_class[c.name] += 1
            where = "whole" if c.visible >= WHOLE else "covered"
            self.causes[("labelled", where)] += 1
            if c.outcome != "read":
                self.causes[(c.outcome, where)] += 1
        for i in m.extras:
            if i < len(cards):
                self.causes[("extra", "back" if cards[i] == "back" else "face")] += 1
                self.extras[cards[i]] += 1
        self.missed.update(m.missed)
        for true, read in m.wrong:
            self.wrong_class[true] += 1
            self.confusions[(true, read)] += 1
        for name in m.missed:
            self.wrong_class[name] += 1

    def merge(self, other: Side) -> None:
        for m_field in ("scenes", "exact", "cards", "read", "extra"):
            setattr(self.totals, m_field, getattr(self.totals, m_field) + getattr(other.totals, m_field))
        self.layouts += other.layouts
        self.scored += other.scored
        self.per_class.update(other.per_class)
        self.wrong_class.update(other.wrong_class)
        self.confusions.update(other.confusions)
        self.causes.update(other.causes)
        self.missed.update(other.missed)
        self.extras.update(other.extras)
        self.by_chance.merge(other.by_chance)
        self.by_reasons.merge(other.by_reasons)

    @property
    def per_card(self) -> float:
        return self.totals.read / max(1, self.totals.cards)

    @property
    def exact(self) -> float:
        return self.totals.exact / max(1, self.totals.scenes)

    @property
    def scored_rate(self) -> float:
        return self.scored / max(1, self.layouts)


@dataclass(slots=True)
class DeckResult:
    """One deck: its scenes read untaught and taught, and how teaching went."""

    entry: DeckEntry
    untaught: Side = field(default_factory=Side)
    taught: Side | None = None
    teach_seconds: float | None = None
    refused: str | None = None  # the learner's line when it refused the deck's (good) teaching photo
    warnings: tuple[str, ...] = ()
    # with --evening K, on the scenes after the first K: untaught, taught, taught and corrected
    evening: tuple[Side, Side, Side] | None = None


@dataclass(frozen=True, slots=True)
class Teacher:
    """What teaching needs from the deck API (``zipai.vision.deck``): photo bytes and a name in, an
    object with ``.deck`` out, a refusal as ``refused`` with the player's line; and the detector
    the taught scans read with (it carries the reader's embedding the deck was derived with)."""

    learn: Callable[[bytes, str], Any]
    refused: type[ValueError]
    detector: Detector | None
    # the learner with another detector in place of ``detector`` (a ``Blindfold`` round it)
    learn_with: Callable[[bytes, str, Any], Any] = lambda photo, name, det: None


def deck_api(model: Path | None = None, threads: int = 2) -> Teacher | None:
    """The deck API's learner on the model, or None where ``zipai.vision.deck`` is absent."""
    try:
        from zipai.vision import deck
    except ImportError:
        return None
    det = Detector(model, threads=threads, embed=True)
    return Teacher(lambda photo, name: deck.learn(photo, name, detector=det), deck.TeachRefused, det,
                   lambda photo, name, other: deck.learn(photo, name, detector=other))


def learner_before(rev: str, det: Detector) -> Teacher:
    """The learner as ``zipai.vision.deck`` was at git revision ``rev`` of this checkout, loaded
    beside today's (its own module, today's detector), to measure teaching against the code
    before in the same run. A ValueError names a revision git cannot show."""
    import importlib.util
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parents[1]

    def show(path: str) -> str:
        return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, capture_output=True, check=True,
                              timeout=60).stdout.decode("utf-8")

    name = "zipai.vision._deck_before"
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]  # another revision's modules, loaded before
    try:  # the package (vision/deck/: model, lens, learn, store), or the one file it was before
        files = subprocess.run(["git", "ls-tree", "--name-only", f"{rev}:vision/deck"], cwd=root,
                               capture_output=True, check=True, timeout=60).stdout.decode("utf-8").split()
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        files = []
    try:
        if files:
            folder = tempfile.TemporaryDirectory(prefix="zipai-deck-before-")
            for f in files:
                if f.endswith(".py"):
                    (Path(folder.name) / f).write_text(show(f"vision/deck/{f}"), encoding="utf-8")
            package = importlib.util.spec_from_file_location(name, Path(folder.name) / "__init__.py",
                                                             submodule_search_locations=[folder.name])
            assert package is not None and package.loader is not None
            mod = importlib.util.module_from_spec(package)
            mod.__dict__["_folder"] = folder  # kept while the module lives: its files are read lazily
            sys.modules[name] = mod
            package.loader.exec_module(mod)
        else:
            source = show("vision/deck.py")
            spec = importlib.util.spec_from_loader(name, loader=None)
            assert spec is not None
            mod = importlib.util.module_from_spec(spec)
            mod.__package__ = "zipai.vision"
            sys.modules[spec.name] = mod  # dataclasses look their module up by name
            exec(compile(source, f"{rev}:vision/deck.py", "exec"), mod.__dict__)
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError) as exc:
        raise ValueError(f"--before {rev}: git cannot show vision/deck there ({exc})") from None
    return Teacher(lambda photo, name: mod.learn(photo, name, detector=det), mod.TeachRefused, det,
                   lambda photo, name, other: mod.learn(photo, name, detector=other))


def corrections(decoded: Decoded, sc: Scan, anns: Sequence[dict[str, Any]]) -> list[Any]:
    """The examples a player's taps in the review add: each misread card's crop, its true card."""
    import numpy as np

    from zipai.vision.deck import CROP, CROP_MARGIN, Example
    from zipai.vision.preprocess import cut_crops

    m = match_scene([(d.card, d.box) for d in sc.detections], anns)
    arr = np.asarray(decoded.image, np.uint8)
    out = []
    for i, a in zip(m.misreads, m.misread_at, strict=True):
        box = np.asarray([sc.detections[i].box], np.float32) / decoded.scale
        out.append(Example(category_name(int(anns[a]["category_id"])), "review",
                           cut_crops(arr, box, CROP, CROP_MARGIN)[0]))
    return out


def lost_tiles(decoded: Decoded, sc: Scan, m: SceneMatch, anns: Sequence[dict[str, Any]]
               ) -> list[tuple[Any, str]]:
    """Pictures of a scan's errors for ``--sheet``: each card lost (``x7>x10 0.62 hand``, a miss
    ``x1>-``) and each extra find (``extra x2``), cut from the photo around it."""
    out = [(tile(decoded.image, c, decoded.scale), caption(c))
           for c in outcomes(anns, m) if c.outcome != "read"]
    for i in m.extras:
        d = sc.detections[i]
        x0, y0, x1, y1 = d.box
        extra = CardOutcome("-", "", 1.0, 0, "extra", d.card, (x0, y0, x1 - x0, y1 - y0))
        out.append((tile(decoded.image, extra, decoded.scale), f"extra {d.card}"))
    return out


def evaluate_deck(entry: DeckEntry, det: Detector, teacher: Teacher | None, limit: int = 0,
                  evening: int = 0, lost: list[tuple[Any, str]] | None = None) -> DeckResult:
    """Teach ``entry`` (when a teacher is given), then scan each of its scenes untaught and taught;
    with ``evening`` K, correct the taught misreads of the first K scenes into the deck and
    measure all three ways on the scenes after them. ``lost`` gathers pictures of the taught
    scans' errors (the untaught ones' where no deck was taught)."""
    res = DeckResult(entry)
    deck = None
    if teacher is not None:
        photo = entry.teach.read_bytes()
        t0 = time.perf_counter()
        try:
            taught = teacher.learn(photo, entry.id)
        except teacher.refused as exc:
            res.refused = str(exc)
        else:
            deck = taught.deck
            res.warnings = tuple(getattr(taught, "warnings", ()))
        res.teach_seconds = time.perf_counter() - t0
        res.taught = Side()
    fixed: list[Any] = []
    corrected = None
    if evening and deck is not None:
        res.evening = (Side(), Side(), Side())
    for n, (folder, im, anns) in enumerate(labelled_scenes([entry.scenes], limit)):
        decoded = load(folder / im["file_name"])
        truth = im.get("layout")
        base = layout_base(truth) if truth else None
        scans = [(res.untaught, scan_decoded(decoded, det, base))]
        if res.taught is not None:
            # a refused deck plays untaught, as the player would
            scans.append((res.taught, scans[0][1] if deck is None else
                          scan_decoded(decoded, teacher.detector if teacher else None, base,
                                       deck=deck)))
        if res.evening is not None and teacher is not None and teacher.detector is not None:
            if n < evening:
                fixed += corrections(decoded, scans[1][1], anns)
            else:
                if corrected is None:
                    from zipai.vision.deck import derive

                    corrected = derive(teacher.detector, deck.name, [*deck.examples, *fixed],
                                       deck.created, deck.peaks) if fixed else deck
                late = scan_decoded(decoded, teacher.detector, base, deck=corrected)
                three = (scans[0][1], scans[1][1], late)
                scans += list(zip(res.evening, three, strict=True))
        for side, sc in scans:
            m = match_scene([(d.card, d.box) for d in sc.detections], anns)
            scored = same_score(sc.assembled.layout, sc.assembled.complete, truth) if truth else None
            side.add(m, anns, scored, [d.card for d in sc.detections])
            side.by_chance.add(sc, m, scored)
            side.by_reasons.add(reasons_scan(sc, base), m, scored)
            if lost is not None and side is (res.taught or res.untaught):
                lost += lost_tiles(decoded, sc, m, anns)
    return res
