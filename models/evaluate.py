"""Scoring detections against labelled scenes (the COCO files of ``zipai data render``).

A card counts as read when a detection of the right class has its box centre inside the card's
visible polygon, matched one to one. A scene is exact when every labelled card is read and no
detection is left over (detections on cards labelled ``ignore`` are neither credit nor blame).
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zipai.engine import ZipaiError, score
from zipai.vision.constants import category_name
from zipai.vision.decode import Decoded, load
from zipai.vision.detection import Detection

if TYPE_CHECKING:
    from zipai.vision.scan import Scan

# the label rows that make up the winner's layout; "loose" cards are distractors around it
LAYOUT_ROWS = frozenset({"hand", "table"})


def annotations_by_image(coco: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """A COCO file's annotations grouped under their image id (an image with none is absent)."""
    by_img: dict[int, list[dict[str, Any]]] = {}
    for a in coco["annotations"]:
        by_img.setdefault(int(a["image_id"]), []).append(a)
    return by_img


Scene = tuple[Path, dict[str, Any], list[dict[str, Any]]]  # folder, COCO image, its annotations


def read_labels(folder: Path) -> dict[str, Any]:
    """A rendered folder's COCO labels, or a ValueError that names the folder and the problem
    (the scripts print it as their one line)."""
    try:
        return json.loads((Path(folder) / "annotations.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{folder}: no readable annotations.json ({exc})") from None


def labelled_scenes(folders: Sequence[Path], limit: int = 0) -> list[Scene]:
    """The scenes of rendered folders, pooled: (folder, COCO image, its annotations), the first
    ``limit`` of each folder (0: all). What the tuning scripts replay their settings on."""
    out = []
    for folder in folders:
        coco = read_labels(folder)
        by_img = annotations_by_image(coco)
        out += [(folder, im, by_img.get(int(im["id"]), [])) for im in coco["images"][: limit or None]]
    return out


Replayed = tuple[Decoded, list[dict[str, Any]], dict[str, Any] | None, dict[str, Any] | None]


def replay_scenes(scenes: Sequence[Scene]) -> Iterator[Replayed]:
    """The tuners' pass over ``labelled_scenes``: each photo decoded, with its annotations, its
    layout (None if the scene has none) and that layout's engine input (``layout_base``); a
    line on stderr every 50 scenes."""
    for n, (folder, im, anns) in enumerate(scenes, 1):
        truth = im.get("layout")
        yield load(folder / im["file_name"]), anns, truth, layout_base(truth) if truth else None
        if n % 50 == 0:
            print(f"  {n} scenes run", file=sys.stderr)


def inside(pt: tuple[float, float], poly: Sequence[Sequence[float]]) -> bool:
    """Ray casting: is the point inside (or on the edge of) the polygon?"""
    x, y = pt
    hit = False
    n = len(poly)
    for i in range(n):
        x0, y0 = poly[i][0], poly[i][1]
        x1, y1 = poly[(i + 1) % n][0], poly[(i + 1) % n][1]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            hit = not hit
    return hit


def _polygon(ann: dict[str, Any]) -> list[list[float]]:
    poly = ann.get("card_polygon") or []
    if poly and isinstance(poly[0], (int, float)):
        poly = [list(p) for p in zip(poly[0::2], poly[1::2], strict=False)]
    if not poly:  # no polygon: the labelled box stands in for the card
        x, y, w, h = ann["bbox"]
        poly = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
    return poly


def card_down(corners: Sequence[Sequence[float]] | None) -> tuple[float, float]:
    """Unit vector from a card's top edge to its bottom edge (``card_corners``, clockwise from
    its top-left); straight down when the corners are missing."""
    if not corners or len(corners) != 4:
        return (0.0, 1.0)
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = corners
    dx, dy = (x2 + x3 - x0 - x1) / 2, (y2 + y3 - y0 - y1) / 2
    n = math.hypot(dx, dy) or 1.0
    return (dx / n, dy / n)


def labelled_detections(annotations: Sequence[dict[str, Any]]) -> list[Detection]:
    """A scene's labelled cards as perfect detections (glyph box, class, ink colour and the
    glyph's own down direction), to measure the layout step apart from the networks."""
    out = []
    for a in annotations:
        if a.get("ignore"):
            continue
        x, y, w, h = a["bbox"]
        dx, dy = card_down(a.get("card_corners"))
        which = next((g.get("which") for g in a.get("glyphs") or [] if g.get("bbox") == a["bbox"]), "top")
        if which == "bottom":  # the far end of the card, turned round
            dx, dy = -dx, -dy
        out.append(Detection(category_name(int(a["category_id"])), (x, y, x + w, y + h), 1.0,
                             a.get("color"), down=(dx, dy)))
    return out


def true_cards(annotations: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A scene's cards as the layout step's yardstick sees them: every card of the winner's
    layout, those too hidden to read included (a hidden card is the reader's loss, not the
    layout's), and the loose cards that show (a stock pile's hidden slivers are no card to read)."""
    return [{**a, "ignore": False} if a.get("ignore") and a.get("row") in LAYOUT_ROWS else a
            for a in annotations]


def same_layout(got: dict[str, Any], truth: dict[str, Any]) -> bool:
    """The engine input from a photo equals a scene's: the same groups (cards and state) and the
    same free hand cards, in any order."""
    def groups(lay: dict[str, Any]) -> list[tuple[list[str], str]]:
        return sorted((sorted(g["cards"]), g.get("state", "open")) for g in lay.get("groups", []))

    return groups(got) == groups(truth) and sorted(got.get("hand", [])) == sorted(truth.get("hand", []))


def layout_base(truth: dict[str, Any]) -> dict[str, Any]:
    """A scene's seat and win flags (what the user gives ``zipai scan``), without its cards."""
    return {k: v for k, v in truth.items() if k not in ("groups", "hand")}


def same_score(got: dict[str, Any], complete: bool, truth: dict[str, Any]) -> bool:
    """The photo's layout scores as the scene's does: complete, and the engine gives the same
    win, points and payouts (two layouts that differ only in how the hand is split agree)."""
    if not complete:
        return False
    try:
        a, b = score(got), score(truth)
    except ZipaiError:
        return False
    return all(a.get(k) == b.get(k) for k in ("winning", "points", "score", "payouts"))


def wins(truth: dict[str, Any]) -> bool:
    """Whether a scene's layout is a winning hand under its rules. Most rendered scenes are not
    (a near miss short of the rule set's points, a hand spoiled by one card, random columns: the
    detector's data wants every card), and what a player photographs is; the figures give these
    scenes apart."""
    try:
        return bool(score(truth).get("winning"))
    except ZipaiError:
        return False


def results_key(settings: dict[str, Any], folders: Sequence[Path], *extra: object) -> str:
    """What results replayed from a cache depend on: the manifest ``settings`` (the caller
    strips what changes no find, such as its figures), the code that turns the networks' outputs
    into detections (this package: a change here with the same manifest once replayed stale
    results), the scenes (each folder's path and annotations) and ``extra``."""
    from zipai import vision

    h = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    root = Path(vision.__file__).parent
    for source in sorted(root.rglob("*.py"), key=lambda f: f.relative_to(root).parts):
        h.update(source.read_bytes())
    for folder in folders:
        h.update(str(Path(folder).resolve()).encode())
        h.update(hashlib.sha256((Path(folder) / "annotations.json").read_bytes()).digest())
    for e in extra:
        h.update(str(e).encode())
    return h.hexdigest()[:24]


@dataclass(slots=True)
class SceneMatch:
    """How the detections of one scene compare with its labels."""

    cards: int = 0  # labelled cards (not ignored)
    read: int = 0  # of those, read right
    extra: int = 0  # detections matched to no labelled card (nor an ignored one)
    extras: list[int] = field(default_factory=list)  # their indices in the detections
    wrong: list[tuple[str, str]] = field(default_factory=list)  # (true, read) for misreads
    misreads: list[int] = field(default_factory=list)  # their indices in the detections
    misread_at: list[int] = field(default_factory=list)  # the misread cards' indices in the annotations
    missed: list[str] = field(default_factory=list)  # labelled cards with no detection at all
    missed_at: list[int] = field(default_factory=list)  # their indices in the annotations
    back_true: int = 0  # labelled backs
    back_found: int = 0  # labelled backs read as back
    back_detections: int = 0  # detections of class back
    back_correct: int = 0  # of those, matched to a labelled back
    # per label row ("hand", "table": the winner's layout; "loose": distractors around it):
    # [labelled cards, read right]
    rows: dict[str, list[int]] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return self.read == self.cards and self.extra == 0

    @property
    def layout_read(self) -> bool:
        """Every card of the winner's layout (hand and table rows) read right and nothing extra:
        what scoring the hand needs, whatever happens to the loose cards around it."""
        return all(read == n for row, (n, read) in self.rows.items() if row in LAYOUT_ROWS) \
            and self.extra == 0


def _bipartite(n_left: int, n_right: int, edges: list[list[int]]) -> list[int]:
    """Maximum matching (augmenting paths); returns right -> left (or -1)."""
    match_r = [-1] * n_right

    def augment(u: int, seen: set[int]) -> bool:
        for v in edges[u]:
            if v in seen:
                continue
            seen.add(v)
            if match_r[v] < 0 or augment(match_r[v], seen):
                match_r[v] = u
                return True
        return False

    for u in range(n_left):
        augment(u, set())
    return match_r


def match_scene(detections: Sequence[tuple[str, Sequence[float]]],
                annotations: Sequence[dict[str, Any]]) -> SceneMatch:
    """Compare ``(card, [x0, y0, x1, y1])`` detections with a scene's COCO annotations."""
    at = [k for k, a in enumerate(annotations) if not a.get("ignore")]
    cards = [annotations[k] for k in at]
    ignored = [a for a in annotations if a.get("ignore")]
    polys = [_polygon(a) for a in cards]
    names = [category_name(int(a["category_id"])) for a in cards]
    centres = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for _, b in detections]
    inside_of = [[j for j, p in enumerate(polys) if inside(c, p)] for c in centres]
    # 1) as many right-class matches as possible, 2) then any remaining det-card pairs
    right = [[j for j in inside_of[i] if names[j] == detections[i][0]] for i in range(len(detections))]
    match_r = _bipartite(len(detections), len(cards), right)
    # cards -> detection; extend with wrong-class pairs for unmatched cards and detections
    used = {m for m in match_r if m >= 0}
    for i in range(len(detections)):
        if i in used:
            continue
        for j in inside_of[i]:
            if match_r[j] < 0:
                match_r[j] = i
                used.add(i)
                break
    m = SceneMatch(cards=len(cards))
    for j, i in enumerate(match_r):
        tally = m.rows.setdefault(str(cards[j].get("row", "?")), [0, 0])
        tally[0] += 1
        if i < 0:
            m.missed.append(names[j])
            m.missed_at.append(at[j])
        elif names[j] == detections[i][0]:
            m.read += 1
            tally[1] += 1
        else:
            m.wrong.append((names[j], detections[i][0]))
            m.misreads.append(i)
            m.misread_at.append(at[j])
    ign_polys = [_polygon(a) for a in ignored]
    for i, c in enumerate(centres):
        if i in used:
            continue
        if any(inside(c, p) for p in ign_polys):
            continue
        m.extra += 1
        m.extras.append(i)
    m.back_true = sum(1 for n in names if n == "back")
    m.back_found = sum(1 for j, i in enumerate(match_r) if i >= 0 and names[j] == "back"
                       and detections[i][0] == "back")
    back_dets = [i for i, (card, _) in enumerate(detections) if card == "back"]
    m.back_detections = len(back_dets)
    on_ignored_back = 0
    for i in back_dets:
        if i not in used and any(inside(centres[i], p) for p, a in zip(ign_polys, ignored, strict=True)
                                 if int(a["category_id"]) == 21):
            on_ignored_back += 1
    m.back_detections -= on_ignored_back
    m.back_correct = sum(1 for j, i in enumerate(match_r) if i >= 0 and names[j] == "back"
                         and detections[i][0] == "back")
    return m


# doubts that say a card may be misread or no card at all (the others are about groups and rows)
CARD_DOUBTS = frozenset({"low_confidence", "colour", "reread", "taken_in_find", "deck_limit"})
# doubts that only say what was left out (cards lying apart): a scan with no other is clean
INFORMATIVE = frozenset({"stray_cards"})


def clean(sc: Scan) -> bool:
    """A complete layout and no doubt but cards lying apart: the scan the app's review has
    nothing to ask about, so the one that had better be right."""
    return sc.assembled.complete and all(d.kind in INFORMATIVE for d in sc.assembled.doubts)


def named_cards(sc: Scan, m: SceneMatch) -> tuple[int, int, int]:
    """Of the layout's detections (not those lying apart, which do not count), how many are
    wrong (misread or extra) and named by a card doubt, right and named, and wrong but unnamed:
    a doubt is worth the user's look when it points at the cards that are wrong."""
    wrong = set(m.misreads) | set(m.extras)
    named = {i for d in sc.assembled.doubts if d.kind in CARD_DOUBTS for i in d.detections}
    used = [i for c in sc.columns if c.state != "loose" for i in c.detections]
    return (sum(i in named and i in wrong for i in used), sum(i in named and i not in wrong for i in used),
            sum(i not in named and i in wrong for i in used))


@dataclass(slots=True)
class Totals:
    """Figures over many scenes."""

    scenes: int = 0
    exact: int = 0
    cards: int = 0
    read: int = 0
    extra: int = 0
    back_true: int = 0
    back_found: int = 0
    back_detections: int = 0
    back_correct: int = 0
    confusions: dict[tuple[str, str], int] = field(default_factory=dict)
    missed: dict[str, int] = field(default_factory=dict)
    rows: dict[str, list[int]] = field(default_factory=dict)  # row -> [cards, read]
    layout_exact: int = 0  # scenes whose layout cards were all read, nothing extra

    def add(self, m: SceneMatch) -> None:
        self.scenes += 1
        self.exact += int(m.exact)
        self.layout_exact += int(m.layout_read)
        for row, (n, read) in m.rows.items():
            tally = self.rows.setdefault(row, [0, 0])
            tally[0] += n
            tally[1] += read
        self.cards += m.cards
        self.read += m.read
        self.extra += m.extra
        self.back_true += m.back_true
        self.back_found += m.back_found
        self.back_detections += m.back_detections
        self.back_correct += m.back_correct
        for pair in m.wrong:
            self.confusions[pair] = self.confusions.get(pair, 0) + 1
        for name in m.missed:
            self.missed[name] = self.missed.get(name, 0) + 1

    def figures(self) -> dict[str, float | int]:
        return {
            "scenes": self.scenes,
            "cards": self.cards,
            "per_card_accuracy": round(self.read / max(1, self.cards), 4),
            "scene_exact_rate": round(self.exact / max(1, self.scenes), 4),
            "extra_detections": self.extra,
            "back_precision": round(self.back_correct / max(1, self.back_detections), 4),
            "back_recall": round(self.back_found / max(1, self.back_true), 4),
            "layout_cards_accuracy": round(sum(r for row, (_, r) in self.rows.items() if row in LAYOUT_ROWS)
                                           / max(1, sum(n for row, (n, _) in self.rows.items()
                                                        if row in LAYOUT_ROWS)), 4),
            "loose_cards_accuracy": round(self.rows.get("loose", [0, 0])[1]
                                          / max(1, self.rows.get("loose", [0, 0])[0]), 4),
            "layout_cards_exact_rate": round(self.layout_exact / max(1, self.scenes), 4),
        }


@dataclass(slots=True)
class Tally:
    """One tuning setting over many scenes: the detections' figures, and how often the layout
    was complete enough to score and scored as the scene."""

    totals: Totals = field(default_factory=Totals)
    complete: int = 0
    scored: int = 0

    def add(self, sc: Scan, annotations: Sequence[dict[str, Any]],
            truth: dict[str, Any] | None = None) -> None:
        """One scanned scene; ``truth`` is its layout (scored as the scene counts only with it)."""
        self.totals.add(match_scene([(d.card, d.box) for d in sc.detections], annotations))
        self.complete += sc.assembled.complete
        if truth is not None:
            self.scored += same_score(sc.assembled.layout, sc.assembled.complete, truth)

    def rule(self) -> tuple[float, float, float, float]:
        """What the tuners maximise, in order: scenes exact, layouts complete, per-card accuracy,
        then scored as the scene."""
        f = self.totals.figures()
        n = max(1, self.totals.scenes)
        return f["scene_exact_rate"], self.complete / n, f["per_card_accuracy"], self.scored / n


@dataclass(frozen=True, slots=True)
class PairedScenes:
    """Two models' results on the same scenes, in the same order: (exact, cards read, cards)."""

    a: Sequence[tuple[bool, int, int]]
    b: Sequence[tuple[bool, int, int]]

    def __post_init__(self) -> None:
        if len(self.a) != len(self.b):
            raise ValueError(f"paired scenes: {len(self.a)} results against {len(self.b)}")
        if any(ra[2] != rb[2] for ra, rb in zip(self.a, self.b, strict=True)):
            raise ValueError("paired scenes: the two runs did not see the same cards")

    def exact(self, which: str) -> int:
        return sum(r[0] for r in getattr(self, which))

    def per_card(self, which: str) -> float:
        rows = getattr(self, which)
        return sum(r[1] for r in rows) / max(1, sum(r[2] for r in rows))

    def discordant(self) -> tuple[int, int]:
        """Scenes exact with A only, and with B only: all the evidence McNemar's test uses."""
        only_a = sum(ra[0] and not rb[0] for ra, rb in zip(self.a, self.b, strict=True))
        only_b = sum(rb[0] and not ra[0] for ra, rb in zip(self.a, self.b, strict=True))
        return only_a, only_b


def sign_test_p(k: int, n_other: int) -> float:
    """Two-sided exact binomial test of ``k`` against ``n_other`` at even odds (McNemar's exact
    test on the discordant scenes).

    >>> sign_test_p(0, 0)
    1.0
    >>> round(sign_test_p(2, 8), 4)
    0.1094
    >>> round(sign_test_p(0, 10), 4)
    0.002
    """
    n = k + n_other
    if n == 0:
        return 1.0
    lo = min(k, n_other)
    tail = sum(math.comb(n, i) for i in range(lo + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def paired_bootstrap(pairs: PairedScenes, figure: str, resamples: int = 10000,
                     seed: int = 0) -> tuple[float, float]:
    """95% interval of B minus A by resampling scenes with both models' results together:
    ``figure`` "exact" (in scenes) or "per_card" (a fraction)."""
    import numpy as np

    if figure not in ("exact", "per_card"):
        raise ValueError(f"paired_bootstrap: no figure {figure!r} (exact or per_card)")
    a = np.asarray(pairs.a, np.float64).reshape(-1, 3)
    b = np.asarray(pairs.b, np.float64).reshape(-1, 3)
    n = len(a)
    if n == 0:
        return 0.0, 0.0
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    if figure == "exact":
        diff = (b[:, 0] - a[:, 0])[idx].sum(axis=1)
    else:
        cards = a[:, 2][idx].sum(axis=1)
        diff = ((b[:, 1] - a[:, 1])[idx].sum(axis=1)) / np.maximum(cards, 1)
    lo, hi = np.percentile(diff, [2.5, 97.5])
    return float(lo), float(hi)


def reasons_scan(sc: Scan, base: dict[str, Any] | None) -> Scan:
    """The same scan's doubts by the rule before the chance (``Params(doubt_rule="reasons")``:
    one doubt per reason the networks or the rules were unsure), from the same columns and
    detections, for the evaluations' comparison."""
    from zipai.vision.layout import Assembled, Params
    from zipai.vision.scan import Scan as ScanType
    from zipai.vision.scan import rescore

    old = ScanType(sc.width, sc.height, sc.detections, sc.columns, Assembled({}, False, []))
    return rescore(old, base, Params(doubt_rule="reasons"))


@dataclass(slots=True)
class DoubtFigures:
    """What one doubt rule flags: of the layout's cards (not those lying apart), the wrong ones
    (misread or extra) and the right ones named by a card doubt; of the scenes with a layout,
    those with no doubt (``clean``) and of those the ones scored wrong. ``chances`` keeps each
    layout card's chance of being wrong beside whether it was (the reliability diagram)."""

    wrong: int = 0
    wrong_flagged: int = 0
    right: int = 0
    right_flagged: int = 0
    scenes: int = 0
    no_doubt: int = 0
    no_doubt_wrong: int = 0
    chances: list[tuple[float, bool]] = field(default_factory=list)

    def add(self, sc: Scan, m: SceneMatch, right: bool | None) -> None:
        wrong = set(m.misreads) | set(m.extras)
        named = {i for d in sc.assembled.doubts if d.kind in CARD_DOUBTS for i in d.detections}
        for i in {i for c in sc.columns if c.state != "loose" for i in c.detections if i >= 0}:
            bad = i in wrong
            self.wrong += bad
            self.right += not bad
            self.wrong_flagged += bad and i in named
            self.right_flagged += not bad and i in named
            self.chances.append((sc.detections[i].chance, bad))
        if right is None:
            return
        self.scenes += 1
        if clean(sc):
            self.no_doubt += 1
            self.no_doubt_wrong += not right

    def merge(self, other: DoubtFigures) -> None:
        for name in ("wrong", "wrong_flagged", "right", "right_flagged", "scenes", "no_doubt",
                     "no_doubt_wrong"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.chances += other.chances

    def figures(self) -> dict[str, float | int]:
        return {"wrong_cards": self.wrong,
                "wrong_flagged_rate": round(self.wrong_flagged / max(1, self.wrong), 4),
                "right_cards": self.right,
                "right_flagged_rate": round(self.right_flagged / max(1, self.right), 4),
                "no_doubt_wrong_rate": round(self.no_doubt_wrong / max(1, self.no_doubt), 4),
                "no_doubt_rate": round(self.no_doubt / max(1, self.scenes), 4)}

    def line(self) -> str:
        def share(k: int, n: int) -> str:
            return f"{k}/{n} ({k / max(1, n):.1%})"

        return (f"wrong cards flagged {share(self.wrong_flagged, self.wrong)}, right cards flagged "
                f"{share(self.right_flagged, self.right)}, no-doubt scenes wrong "
                f"{share(self.no_doubt_wrong, self.no_doubt)}, scenes with no doubt "
                f"{share(self.no_doubt, self.scenes)}")


# the targets for the card doubts
DOUBT_TARGETS = {"wrong_flagged_rate": 0.98, "right_flagged_rate": 0.05, "no_doubt_wrong_rate": 0.01}


def doubt_lines(new: DoubtFigures, old: DoubtFigures, indent: str = "  ") -> list[str]:
    """The two rules side by side against the targets, the chance's calibration error, and the
    cards the other bars the tuner weighed would flag here (``zipai tune chance``: the bar
    flagging each share of the validation scenes' wrong cards)."""
    from zipai.vision.layout.chance import shipped_chance

    ece = calibration_error(new.chances)
    lines = [f"{indent}doubts by chance: {new.line()}",
             f"{indent}doubts by reasons (before): {old.line()}",
             f"{indent}targets: wrong flagged >= 98%, right flagged <= 5%, no-doubt scenes wrong <= 1%; "
             f"chance calibration error (ECE, 10 bins) {ece:.4f} over {len(new.chances)} layout cards"]
    bars = [(float(c["recall"]), float(c["bar"])) for c in shipped_chance().notes.get("curve", [])]
    if bars and new.chances:
        wrong = [c for c, bad in new.chances if bad]
        right = [c for c, bad in new.chances if not bad]
        def share(cs: list[float], b: float) -> str:
            return f"{sum(c >= b for c in cs) / max(1, len(cs)):.1%}"

        cells = [f"bar {b:.4f} ({q:.0%} on validation): wrong {share(wrong, b)}, right {share(right, b)}"
                 for q, b in bars]
        lines.append(f"{indent}cards flagged at other bars: " + "; ".join(cells))
    return lines


def calibration_error(pairs: Sequence[tuple[float, bool]], bins: int = 10) -> float:
    """Expected calibration error: the cards' mean |chance - wrong share| over equal-width bins,
    each weighed by its cards."""
    if not pairs:
        return 0.0
    p = [min(bins - 1, int(c * bins)) for c, _ in pairs]
    total = 0.0
    for b in range(bins):
        inb = [(c, w) for (c, w), k in zip(pairs, p, strict=True) if k == b]
        if inb:
            total += abs(sum(c for c, _ in inb) - sum(w for _, w in inb))
    return total / len(pairs)
