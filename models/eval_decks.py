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
import datetime
import io
import json
import os
import platform
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zipai.datasets.decks import DeckEntry, DeckSetError, read_deck_set
from zipai.datasets.teach import LEARNABLE, VARIANTS, DeckRef, render_teach
from zipai.engine import CARD_NAMES
from zipai.models.error_breakdown import CardOutcome, caption, outcomes, sheet, tile
from zipai.models.evaluate import (
    DoubtFigures,
    SceneMatch,
    Totals,
    category_name,
    doubt_lines,
    inside,
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
DOC = Path(__file__).resolve().parents[1] / "docs" / "lab" / "decks.md"
TARGET_CARD, TARGET_EXACT = 0.995, 0.90  # issue 50, with the deck taught


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


@dataclass(frozen=True, slots=True)
class VariantOutcome:
    """One teaching photo variant shown to the learner, and whether it did as a player needs."""

    deck: str
    variant: str
    right: bool
    line: str  # the refusal, or what was learnt


def _deck_ref(entry: DeckEntry) -> tuple[DeckRef, tuple[int, int]]:
    label = json.loads(entry.teach_label.read_text(encoding="utf-8"))
    meta = label["deck"]
    return (DeckRef(int(meta["seed"]), str(meta["split"]), int(meta["index"]), int(meta["style"]),
                    float(meta["compose_five"])), (int(label["width"]), int(label["height"])))


def _photo(ref: DeckRef, variant: str, size: tuple[int, int]) -> tuple[bytes, dict[str, Any]]:
    img, drawn = render_teach(ref, variant, size)
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=92)
    return buf.getvalue(), drawn


def _judge(deck: str, variant: str, teacher: Teacher, photo: bytes, drawn: dict[str, Any],
           det: Any = None, what: str | None = None) -> VariantOutcome:
    """Show one teaching photo to the learner (through ``det`` where given): a photo of
    ``LEARNABLE`` must be learnt, upside-down ones known as such, each face on the card its
    place names; any other refused. ``what`` names the outcome's kind (default ``variant``)."""
    try:
        taught = teacher.learn(photo, deck) if det is None else teacher.learn_with(photo, deck, det)
    except teacher.refused as exc:
        return VariantOutcome(deck, what or variant, variant not in LEARNABLE, f"refused: {exc}")
    turned = bool(getattr(taught, "upside_down", False))
    cards = {f["card"]: f["card_corners"] for f in drawn["faces"]}
    astray = [f.card for f in getattr(taught, "faces", ())
              if f.card not in cards or not inside(_centre(f.box), cards[f.card])]
    right = variant in LEARNABLE and turned == (variant == "upside_down") and not astray
    return VariantOutcome(deck, what or variant, right, "learnt" + (" as upside down" if turned else "")
                          + (f", {astray[0]} found off its card" if astray else ""))


def teach_variants(entry: DeckEntry, teacher: Teacher, variants: Sequence[str] = tuple(VARIANTS)
                   ) -> list[VariantOutcome]:
    """Each teaching photo variant of ``entry``'s deck (``zipai data render --teach --variant``),
    rendered as its set was, shown to the learner: those of ``LEARNABLE`` (good, upside-down,
    slanted, sideways, casual) must be learnt (upside-down ones known as such, each face found
    on the card its place names), every other refused."""
    ref, size = _deck_ref(entry)
    return [_judge(entry.id, v, teacher, *_photo(ref, v, size)) for v in variants]


# (variant, faces hidden from the finder) of ``--blind``: every learnable variant with two hidden,
# the good photo with one to three
BLINDED = (("good", 1), ("good", 2), ("good", 3), ("upside_down", 2), ("slanted", 2), ("sideways", 2),
           ("casual", 2))


def blind_name(variant: str, n: int) -> str:
    return f"{variant}, {n} hidden"


def teach_blinded(entry: DeckEntry, teachers: Sequence[Teacher]) -> list[list[VariantOutcome]]:
    """The learnable teaching photos of ``entry``'s deck with faces hidden from the finder
    (``Blindfold``: the thin 一, the red 七, the faintest print, in that order), each shown to
    every teacher in ``teachers`` (the code now, and the code before): each must be learnt,
    each face on its card. One list per teacher."""
    ref, size = _deck_ref(entry)
    out: list[list[VariantOutcome]] = [[] for _ in teachers]
    photos: dict[str, tuple[bytes, dict[str, Any]]] = {}
    for variant, n in BLINDED:
        if variant not in photos:
            photos[variant] = _photo(ref, variant, size)
        photo, drawn = photos[variant]
        det = teachers[0].detector
        blind = Blindfold(det, photo, drawn, blind_cards(det, photo, drawn, n))
        for mine, teacher in zip(out, teachers, strict=True):
            mine.append(_judge(entry.id, variant, teacher, photo, drawn, blind, blind_name(variant, n)))
    return out


class Blindfold:
    """A detector that does not see some cards of one teaching photo: every find whose centre
    lies on a blinded card (inside its drawn outline, the label's ``card_corners``) is deleted
    from what ``detect`` returns, its face and far end alike, however the learner turns the
    photo (the turn is told by comparing a thumbnail with the photo's, turned each way). The
    reader still reads any box it is given: so a face the finder misses on a real photo (a thin
    一, a red 七, a faint print) is shown to the learner. Everything else is the detector's."""

    def __init__(self, det: Detector, photo: bytes, label: dict[str, Any], cards: Sequence[str]) -> None:
        from zipai.vision.decode import decode

        self._det = det
        self.cards = tuple(cards)
        outlines = {f["card"]: f["card_corners"] for f in label["faces"]}
        self._outlines = [outlines[c] for c in self.cards]
        decoded = decode(photo, "teaching photo")
        image = decoded.image
        self._size = (decoded.width, decoded.height)  # the photo's pixels, which boxes are in
        self._thumbs = [self._thumb(image.rotate(90 * q, expand=True)) for q in range(4)]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._det, name)

    @staticmethod
    def _thumb(image: Any) -> Any:
        import numpy as np

        return np.asarray(image.convert("L").resize((24, 24)), np.float32)

    def _turned(self, q: int, x: float, y: float) -> tuple[float, float]:
        """A point of the photo in the photo turned anticlockwise by ``q`` right angles."""
        w, h = self._size
        return ((x, y), (y, w - x), (w - x, h - y), (h - y, x))[q]

    def detect(self, decoded: Decoded, *args: Any, **kw: Any) -> Any:
        import dataclasses

        import numpy as np

        got = self._det.detect(decoded, *args, **kw)
        thumb = self._thumb(decoded.image)
        q = min(range(4), key=lambda k: float(np.mean((self._thumbs[k] - thumb) ** 2))
                if self._thumbs[k].shape == thumb.shape else np.inf)
        polys = [[self._turned(q, float(x), float(y)) for x, y in poly] for poly in self._outlines]
        kept = [d for d in got.detections if not any(inside(d.center, p) for p in polys)]
        return dataclasses.replace(got, detections=kept)


class Misreader:
    """A detector whose reader takes some faces of a photo for other cards (``reads``: the card
    read -> the card it is taken for, as surely as ``sure``): a brush 叁 read as 肆, a 貳 as 玖."""

    def __init__(self, det: Any, reads: dict[str, str], sure: float = 0.97) -> None:
        self._det, self.reads, self.sure = det, dict(reads), sure

    def __getattr__(self, name: str) -> Any:
        return getattr(self._det, name)

    def detect(self, decoded: Decoded, *args: Any, **kw: Any) -> Any:
        import dataclasses

        got = self._det.detect(decoded, *args, **kw)
        out = [dataclasses.replace(d, card=self.reads[d.card], class_prob=self.sure) if d.card in self.reads
               else d for d in got.detections]
        return dataclasses.replace(got, detections=out)


def blind_cards(det: Detector, photo: bytes, label: dict[str, Any], n: int) -> tuple[str, ...]:
    """The ``n`` faces (1 to 3) a blinded variant hides: the thin 一, the red 七, then the face
    the finder finds most faintly of the others on this photo (its faint print)."""
    from zipai.vision.decode import decode

    picked = ["x1", "x7"][:n]
    if n > 2:
        dets = det.detect(decode(photo, "teaching photo")).detections
        peak = {}
        for f in label["faces"]:
            on = [d.finder_score for d in dets if d.card != "back" and inside(d.center, f["card_corners"])]
            peak[f["card"]] = max(on, default=0.0)
        picked.append(min((c for c in peak if c not in picked), key=lambda c: (peak[c], CARD_NAMES.index(c))))
    return tuple(picked)


def _centre(box: Sequence[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


# ---------------------------------------------------------------- the report

def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def evening_lines(results: Sequence[DeckResult], k: int) -> list[str]:
    """The evening's table: untaught, taught, and taught with the first K scenes' misreads corrected."""
    sides = (Side(), Side(), Side())
    decks = 0
    for r in results:
        if r.evening is not None:
            decks += 1
            for mine, s in zip(sides, r.evening, strict=True):
                mine.merge(s)
    if not decks:
        return []
    return ["## A deck through an evening", "",
            f"The taught decks ({decks}): each misread of its first {k} scenes, scanned with the deck, "
            "corrected into it (`zipai deck add`, a tap in the app's review); the "
            f"{sides[0].totals.scenes} scenes after them read three ways.", "",
            _row(["", "untaught", "taught", "taught and corrected"]), _row(["---", "---:", "---:", "---:"]),
            _row(["per card", *(_pct(s.per_card) for s in sides)]),
            _row(["scenes exact", *(_pct(s.exact) for s in sides)]),
            _row(["scored as the scene", *(_pct(s.scored_rate) for s in sides)]), ""]


def cause_lines(un: Side, ta: Side | None) -> list[str]:
    """Where the errors lie: whole glyphs or covered ones, misread, missed or found where no card
    is. A deck rereads the finds and takes in weak finds of the cards it prints faintly; the
    rest of the misses and every extra find are the finder's."""
    sides = [un] + ([ta] if ta is not None else [])

    def share(s: Side, where: str) -> str:
        n = s.causes[("labelled", where)]
        wrong = s.causes[("misread", where)] + s.causes[("missed", where)]
        return _pct(1 - wrong / n) if n else "—"

    rows = [("misread, whole glyph", ("misread", "whole")),
            ("misread, glyph partly covered", ("misread", "covered")),
            ("missed, whole glyph", ("missed", "whole")),
            ("missed, glyph partly covered", ("missed", "covered")),
            ("extra finds read as a face", ("extra", "face")),
            ("extra finds read as a back", ("extra", "back"))]
    head = ["", "untaught"] + (["taught"] if ta is not None else [])
    out = ["## Where the errors are", "",
           f"A card is whole when its best glyph shows at least {WHOLE:.0%} of its ink (the label's "
           "`visible`), else covered: partly under the card laid on it, as in a hand's fan or a table "
           "column, where the top of 七 is the top of 十. A deck rereads the finds, and takes in weak "
           "finds of the cards its teaching photo showed faintly; the other misses and the extra finds "
           "are the finder's.", "",
           _row(head), _row(["---"] + ["---:"] * (len(head) - 1)),
           _row(["labelled cards, whole / covered",
                 *(f"{s.causes['labelled', 'whole']} / {s.causes['labelled', 'covered']}" for s in sides)])]
    out += [_row([title, *(str(s.causes[key]) for s in sides)]) for title, key in rows]
    out += [_row(["per card, whole glyphs", *(share(s, "whole") for s in sides)]),
            _row(["per card, covered glyphs", *(share(s, "covered") for s in sides)]), ""]
    last = sides[-1]
    for what, counts in (("Missed most", last.missed), ("Extra finds most often read as", last.extras)):
        if counts:
            common = ", ".join(f"{c} ×{k}" for c, k in counts.most_common(8))
            out += [f"{what} ({'taught' if ta is not None else 'untaught'}): {common}.", ""]
    return out


def teaching_lines(variants: Sequence[VariantOutcome], before: Sequence[VariantOutcome] | None,
                   blinded: Sequence[VariantOutcome], blinded_before: Sequence[VariantOutcome] | None
                   ) -> list[str]:
    """The teaching photos' tables: every variant, and the learnable ones with faces hidden from
    the finder; with the code before (``--before``) beside the code now."""
    out: list[str] = []
    then = before is not None or blinded_before is not None

    def table(kinds: Sequence[str], now: Sequence[VariantOutcome], old: Sequence[VariantOutcome] | None,
              must: Callable[[str], str]) -> list[str]:
        head = ["photo", "must be", "handled right", *(["before"] if then else []), "what went wrong (first)"]
        rows = [_row(head), _row(["---", "---", "---:", *(["---:"] if then else []), "---"])]
        for k in kinds:
            mine = [o for o in now if o.variant == k]
            if not mine:
                continue
            wrong = next((f"{o.deck}: {o.line}" for o in mine if not o.right), "")
            cells = [k, must(k), f"{sum(o.right for o in mine)}/{len(mine)}"]
            if then:
                theirs = [o for o in (old or ()) if o.variant == k]
                cells.append(f"{sum(o.right for o in theirs)}/{len(theirs)}" if theirs else "—")
            rows.append(_row([*cells, wrong]))
        return rows

    def learnable(outcomes: Sequence[VariantOutcome]) -> list[VariantOutcome]:
        return [o for o in outcomes if o.variant.split(",")[0] in LEARNABLE]

    if variants:
        decks = len({o.deck for o in variants})
        out += ["## Teaching photos, good and bad", "",
                f"Every variant of the first {decks} decks' teaching photos "
                "(`zipai data render --teach --variant V`) shown to the learner: "
                f"{', '.join(v for v in VARIANTS if v in LEARNABLE).replace('_', '-')} photos must be learnt "
                "(upside-down ones known as such, each face on the card its place names), the others "
                "refused" + ("; before: the learner at `--before`, on the same photos." if then else "."), "",
                *table(list(VARIANTS), variants, before, lambda v: "learnt" if v in LEARNABLE else "refused"),
                ""]
    if blinded:
        decks = len({o.deck for o in blinded})
        out += ["## Teaching photos with faces the finder misses", "",
                f"The learnable teaching photos of the first {decks} decks with 1 to 3 faces hidden from "
                "the finder: every find on a hidden card (inside its drawn outline, far end too) is deleted "
                "from what the finder returns (`Blindfold`), the thin 一 first, then the red 七, then the "
                "face this finder finds most faintly on the photo. The reader still reads any box. Each "
                "must be learnt, each face on its card.", "",
                *table([blind_name(v, n) for v, n in BLINDED], blinded, blinded_before, lambda _v: "learnt"),
                ""]
    good = learnable([*variants, *blinded])
    if good:
        was = learnable([*(before or ()), *(blinded_before or ())])
        right, then_right = sum(o.right for o in good), sum(o.right for o in was)
        out += [f"Good teaching photos learnt right, hidden faces included: **{right} of {len(good)}**"
                + (f" (the code before: {then_right} of {len(was)})" if then else "") + ".", ""]
    return out


def pooled(results: Sequence[DeckResult]) -> tuple[Side, Side | None]:
    """Every deck's untaught scans as one side, and the taught ones (None where none was taught)."""
    un, ta = Side(), Side()
    for r in results:
        un.merge(r.untaught)
        if r.taught is not None:
            ta.merge(r.taught)
    return un, ta if any(r.taught is not None for r in results) else None


def model_before_lines(results: Sequence[DeckResult], old: Sequence[DeckResult], model: str,
                       model_before: str) -> list[str]:
    """The model beside the model before on the same decks and scenes, untaught and taught: the
    figures, the teaching photos refused, and by class the cards missed, misread and found
    extra, so that a finder's gain on one class and loss on another both show."""
    un, ta = pooled(results)
    oun, ota = pooled(old)
    scenes = max(1, un.totals.scenes)
    cards = max(1, un.totals.cards)

    def both(f: Callable[[Side], str], now: Side | None, then: Side | None) -> str:
        return f"{f(then) if then is not None else '—'} → {f(now) if now is not None else '—'}"

    def misses(s: Side) -> int:
        return sum(s.missed.values())

    rows = [("per card", lambda s: _pct(s.per_card)), ("scenes exact", lambda s: _pct(s.exact)),
            ("scored as the scene", lambda s: _pct(s.scored_rate)),
            ("missed cards", lambda s: f"{misses(s)} ({_pct(misses(s) / cards)})"),
            ("misread cards", lambda s: str(sum(s.confusions.values()))),
            ("extra finds a scene", lambda s: f"{s.totals.extra / scenes:.3f}")]
    out = ["## Against the model before", "",
           f"The same decks and scenes, scanned in the same run by the model before (`{model_before}`) "
           f"and by this one (`{model}`); before → now.", "",
           _row(["", "untaught", "taught"]), _row(["---", "---:", "---:"])]
    out += [_row([name, both(f, un, oun), both(f, ta, ota)]) for name, f in rows]
    refused = sum(r.refused is not None for r in results)
    refused_then = sum(r.refused is not None for r in old)
    out += ["", f"Teaching photos refused: {refused_then} → {refused} of {len(results)}.", "",
            "By class (labelled cards; missed and misread by the true card, extra finds by the card "
            "read), before → now:", "",
            _row(["class", "cards", "missed untaught", "taught", "misread untaught", "taught",
                  "extra untaught", "taught"]), _row(["---"] + ["---:"] * 7)]

    def cell(get: Callable[[Side], int], now: Side | None, then: Side | None) -> str:
        return "—" if now is None or then is None else f"{get(then)} → {get(now)}"

    for c in (*CARD_NAMES, "back"):
        if not (un.per_class[c] or un.extras[c] or oun.extras[c]):
            continue
        cells = [cell(lambda s, c=c: s.missed[c], un, oun), cell(lambda s, c=c: s.missed[c], ta, ota),
                 cell(lambda s, c=c: s.wrong_class[c] - s.missed[c], un, oun),
                 cell(lambda s, c=c: s.wrong_class[c] - s.missed[c], ta, ota),
                 cell(lambda s, c=c: s.extras[c], un, oun), cell(lambda s, c=c: s.extras[c], ta, ota)]
        out.append(_row([c, str(un.per_class[c]), *cells]))
    return [*out, ""]


def report(results: Sequence[DeckResult], command: str, learner_missing: bool,
           variants: Sequence[VariantOutcome] = (), evening: int = 0,
           before: Sequence[VariantOutcome] | None = None, blinded: Sequence[VariantOutcome] = (),
           blinded_before: Sequence[VariantOutcome] | None = None,
           model_before: tuple[Sequence[DeckResult], str, str] | None = None) -> str:
    """The markdown table and notes that go to stdout and docs/lab/decks.md; with
    ``model_before`` (its results on the same decks, its manifest and this model's), a section
    with the model before beside this one."""
    un, ta = Side(), Side()
    for r in results:
        un.merge(r.untaught)
        if r.taught is not None:
            ta.merge(r.taught)
    taught_any = any(r.taught is not None for r in results)
    head = ["deck", "font", "style", "scenes", "cards", "per card untaught", "taught", "exact untaught",
            "taught", "scored untaught", "taught", "teach s"]
    lines = [_row(head), _row(["---"] * 3 + ["---:"] * (len(head) - 3))]

    def cells(s: Side | None, key: Callable[[Side], float]) -> str:
        return "—" if s is None else _pct(key(s))

    for r in results:
        u, t = r.untaught, r.taught
        secs = "—" if r.teach_seconds is None else f"{r.teach_seconds:.2f}"
        secs += " refused" if r.refused else ""
        lines.append(_row([r.entry.id, r.entry.font, str(r.entry.style), str(u.totals.scenes),
                           str(u.totals.cards), _pct(u.per_card), cells(t, lambda s: s.per_card),
                           _pct(u.exact), cells(t, lambda s: s.exact), _pct(u.scored_rate),
                           cells(t, lambda s: s.scored_rate), secs]))
    times = [r.teach_seconds for r in results if r.teach_seconds is not None]
    lines.append(_row([f"**all {len(results)} decks**", "", "", str(un.totals.scenes), str(un.totals.cards),
                       f"**{_pct(un.per_card)}**", f"**{_pct(ta.per_card)}**" if taught_any else "—",
                       f"**{_pct(un.exact)}**", f"**{_pct(ta.exact)}**" if taught_any else "—",
                       _pct(un.scored_rate), _pct(ta.scored_rate) if taught_any else "—",
                       f"median {statistics.median(times):.2f}, max {max(times):.2f}" if times else "—"]))
    for style in sorted({r.entry.style for r in results}):
        su, st = Side(), Side()
        for r in results:
            if r.entry.style == style:
                su.merge(r.untaught)
                st.merge(r.taught if r.taught is not None else Side())
        lines.append(_row([f"style {style}", "", "", str(su.totals.scenes), str(su.totals.cards),
                           _pct(su.per_card), _pct(st.per_card) if taught_any else "—", _pct(su.exact),
                           _pct(st.exact) if taught_any else "—", _pct(su.scored_rate),
                           _pct(st.scored_rate) if taught_any else "—", ""]))
    out = [
        "# Taught decks: untaught against taught on the same scenes",
        "",
        f"`{command}` on {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, "
        f"{platform.machine()}, {os.cpu_count()} cores (shared). Each deck is taught from its one "
        "teaching photo (`zipai deck learn`), then each scene is scanned without the deck and with it "
        "(`zipai scan`, `zipai scan --deck`). Per card and scenes exact count as in "
        "[evaluation.md](evaluation.md); scored as the scene: the scan's layout scores as the label's. "
        "Teaching time is the wall time of `learn` in this process, the model already loaded.",
        "",
        *lines,
        "",
    ]
    if learner_missing:
        out += ["Taught: not measured, this build has no `zipai.vision.deck` (the deck API).", ""]
    elif taught_any:
        ok_card, ok_exact = ta.per_card >= TARGET_CARD, ta.exact >= TARGET_EXACT
        out += [f"Targets with the deck taught: per card ≥ {_pct(TARGET_CARD)} "
                f"({'met' if ok_card else 'not met'}), scenes exact ≥ {_pct(TARGET_EXACT)} "
                f"({'met' if ok_exact else 'not met'}).", ""]
    out += ["## By class", "",
            "Classes under 99.5% read right untaught or taught (labelled cards, per card):", ""]
    weak = [c for c in (*CARD_NAMES, "back") if un.per_class[c] and (
        1 - un.wrong_class[c] / un.per_class[c] < TARGET_CARD
        or (taught_any and ta.per_class[c] and 1 - ta.wrong_class[c] / ta.per_class[c] < TARGET_CARD))]
    if weak:
        out += [_row(["class", "cards", "untaught", "taught"]), _row(["---", "---:", "---:", "---:"])]
        for c in weak:
            t_cell = _pct(1 - ta.wrong_class[c] / ta.per_class[c]) if taught_any and ta.per_class[c] else "—"
            out.append(_row([c, str(un.per_class[c]), _pct(1 - un.wrong_class[c] / un.per_class[c]), t_cell]))
    else:
        out.append("none")
    out.append("")
    for title, side in (("untaught", un), ("taught", ta if taught_any else None)):
        if side is not None:
            missed = sum(side.wrong_class.values()) - sum(side.confusions.values())
            out += [f"Errors {title}: {sum(side.confusions.values())} cards misread, {missed} missed, "
                    f"{side.totals.extra} extra detections.", ""]
        if side is not None and side.confusions:
            common = ", ".join(f"{a}→{b} ×{k}" for (a, b), k in side.confusions.most_common(10))
            out += [f"Most common misreads {title} (true→read): {common}.", ""]
    out += cause_lines(un, ta if taught_any else None)
    out += ["## Doubts", "",
            "Of the layout's cards, the wrong ones (misread or extra) and the right ones a card doubt "
            "names; of the scenes, those with no doubt and how many of those score wrong; the rule "
            "before (one doubt per reason) on the same scans:", ""]
    for title, side in (("untaught", un), ("taught", ta if taught_any else None)):
        if side is not None:
            out += [f"- {title}:", *doubt_lines(side.by_chance, side.by_reasons, "  - "), ""]
    if evening:
        out += evening_lines(results, evening)
    refused = [r for r in results if r.refused]
    if refused:
        out += ["Teaching photos refused (these decks play untaught in the taught columns):", ""]
        out += [f"- {r.entry.id}: {r.refused}" for r in refused] + [""]
    out += teaching_lines(variants, before, blinded, blinded_before)
    if model_before is not None:
        out += model_before_lines(results, model_before[0], model_before[2], model_before[1])
    warned = [r for r in results if r.warnings]
    if warned:
        out += ["Confusable pairs the learner warned about:", ""]
        out += [f"- {r.entry.id}: {'; '.join(r.warnings)}" for r in warned] + [""]
    return "\n".join(out)


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

