"""The layout step's own figures in ``zipai eval detector``: each scene scored from its labelled
cards (the finder and the reader set aside) beside the scan end to end, why a scene is not
scored as the scene, and the same figures once the player has answered what no photo can tell.

A photo cannot tell which row holds the claimed groups where neither row shows it (a table's
convention, asked once an evening), nor the card of a concealed group laid as backs only (the
player names it; RULINGS section 7). The answers come from the scene's labels, and are applied
with the app's own functions (``zipai.vision.layout.answers``), only where the photo asked them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

from zipai.models.evaluate import (
    LAYOUT_ROWS,
    Scene,
    SceneMatch,
    _polygon,
    clean,
    inside,
    labelled_detections,
    layout_base,
    same_layout,
    same_score,
    true_cards,
    wins,
)
from zipai.vision.detector import Detection
from zipai.vision.layout import (
    BOTTOM,
    HAND,
    LEFT,
    RIGHT,
    TABLE,
    TOP,
    Column,
    all_backs,
    name_group,
    take_claimed,
)
from zipai.vision.layout.answers import guessed_rows
from zipai.vision.scan import Scan, rescore, scan_detections


def layout_faults(cols: list[Column], anns: list[dict], doubts: set[str]) -> tuple[str, ...]:
    """Why the layout step, given a scene's labelled cards, did not score it as the scene: what
    no photo can settle first (an all-back group the user names; a layout card hidden under
    something, labelled but ignored), then how its columns differ from the labelled groups."""
    if "unnamed_concealed" in doubts:
        return ("an all-back group (the user names it)",)
    if any(a.get("ignore") and a.get("row") in LAYOUT_ROWS for a in anns):
        return ("a layout card hidden",)
    keep = [a for a in anns if not a.get("ignore")]
    size = Counter((a.get("row"), a.get("group")) for a in keep)
    faults = set()
    for c in cols:
        groups = {(keep[i].get("row"), keep[i].get("group")) for i in c.detections if i >= 0}
        if not groups:  # a card no find shows, read by the rules
            continue
        if len(groups) > 1:
            faults.add("groups merged in one column")
            continue
        (row, group), = groups
        if row not in LAYOUT_ROWS:
            if c.state != "loose":
                faults.add("a loose card taken in")
        elif c.state == "loose":
            faults.add("a layout card left out")
        else:
            if len(c.detections) < size[(row, group)]:
                faults.add("a group split over columns")
            if c.row != row:
                faults.add("the claimed and revealed rows told apart wrongly")
    return tuple(sorted(faults)) or ("other: " + ", ".join(sorted(doubts)),)


def labelled_scan(im: dict, anns: list[dict], scan: Callable[..., Scan] = scan_detections) -> Scan:
    """The scan of a scene's labelled cards (``true_cards``: the layout's hidden ones too), the
    finder and the reader set aside: every step a scan takes after the networks (``scan``: the
    code now, or the code before's ``scan_detections``), with the scene's seat and win flags."""
    return scan(int(im["width"]), int(im["height"]), labelled_detections(true_cards(anns)),
                layout_base(im["layout"]))


@dataclass(slots=True)
class LayoutSplit:
    """Scenes scored as the scene end to end beside the layout step's own figure (the same
    scenes' labelled cards), and each scene scored wrong put down to the cards or the layout:
    a card error when a card of the layout was misread, missed or found extra and the labelled
    cards score right; a layout error when the labelled cards score wrong too, or when every
    card of the layout was read right."""

    scenes: int = 0
    scored: int = 0
    scored_true: int = 0  # scored as the scene from the labelled cards
    card_errors: int = 0
    layout_errors: int = 0
    layout_errors_cards_right: int = 0  # of the layout errors, scenes whose cards were all read right
    # of those, scenes with a layout card hidden under another: the match leaves it out of "every
    # card read right" (no finder can see it), but the labelled cards hold it (``true_cards``)
    layout_errors_hidden: int = 0
    cards_right: int = 0  # scenes whose layout cards were all read right, nothing extra
    no_result_cards_right: int = 0  # of those, scans with no result at all
    wrong_without_doubt: int = 0  # scans with a result, scored wrong, and no doubt but strays
    faults: Counter = field(default_factory=Counter)  # the labelled cards' wrong scenes, by fault
    # the scenes whose layout is a winning hand (what a player photographs), and of those the
    # scenes scored as the scene end to end and from the labelled cards
    winning: int = 0
    scored_winning: int = 0
    scored_true_winning: int = 0

    def add(self, sc: Scan, m: SceneMatch, truth: dict, anns: list[dict], true_scan: Scan) -> None:
        """One scene: its scan, how its detections match its labels, its layout and annotations,
        and the scan of its labelled cards."""
        right = same_score(sc.assembled.layout, sc.assembled.complete, truth)
        true_right = same_score(true_scan.assembled.layout, true_scan.assembled.complete, truth)
        self.scenes += 1
        self.scored += right
        self.scored_true += true_right
        if wins(truth):
            self.winning += 1
            self.scored_winning += right
            self.scored_true_winning += true_right
        self.cards_right += m.layout_read
        self.no_result_cards_right += m.layout_read and sc.result is None
        self.wrong_without_doubt += not right and sc.result is not None and clean(sc)
        if not true_right:
            doubts = {d.kind for d in true_scan.assembled.doubts}
            self.faults[" + ".join(layout_faults(true_scan.columns, true_cards(anns), doubts))] += 1
        if right:
            return
        if true_right and not m.layout_read:
            self.card_errors += 1
        else:
            self.layout_errors += 1
            self.layout_errors_cards_right += m.layout_read
            self.layout_errors_hidden += m.layout_read and any(
                a.get("ignore") and a.get("row") in LAYOUT_ROWS for a in anns)

    def figures(self) -> dict[str, float | int]:
        n, won = max(1, self.scenes), max(1, self.winning)
        return {"scored_labelled_cards_rate": round(self.scored_true / n, 4),
                "scored_labelled_cards_winning_rate": round(self.scored_true_winning / won, 4),
                "scored_as_scene_winning_rate": round(self.scored_winning / won, 4),
                "wrong_card_errors": self.card_errors, "wrong_layout_errors": self.layout_errors,
                "no_result_cards_right_rate": round(self.no_result_cards_right / max(1, self.cards_right), 4),
                "wrong_without_doubt": self.wrong_without_doubt}

    def summary(self) -> str:
        n, won = max(1, self.scenes), max(1, self.winning)
        lines = [f"  scored as the scene: end to end {self.scored}/{self.scenes} ({self.scored / n:.2%}), "
                 f"the layout step on the labelled cards {self.scored_true}/{self.scenes} "
                 f"({self.scored_true / n:.2%})",
                 f"  of the {self.winning} scenes whose layout is a winning hand: end to end "
                 f"{self.scored_winning} ({self.scored_winning / won:.2%}), the labelled cards "
                 f"{self.scored_true_winning} ({self.scored_true_winning / won:.2%})",
                 f"  scored wrong end to end: {self.card_errors} card errors (the labelled cards score "
                 f"right), {self.layout_errors} layout errors ({self.layout_errors_cards_right} with "
                 f"every card of the layout read right, {self.layout_errors_hidden} of them with a layout "
                 "card hidden under another, which no find shows)",
                 f"  no result at all: {self.no_result_cards_right} of the {self.cards_right} scenes whose "
                 f"layout cards were all read right; scored wrong with no doubt: {self.wrong_without_doubt}"]
        if self.faults:
            lines.append("  the labelled cards' scenes not scored as the scene, by what went wrong: "
                         + ", ".join(f"{why} x{k}" for why, k in self.faults.most_common()))
        return "\n".join(lines)


# ---------------------------------------------------------------- the player's answers

Rescore = Callable[..., Scan]  # ``vision.scan.rescore``, or the code before's


def claimed_from_labels(anns: Sequence[dict]) -> str | None:
    """Where a scene's claimed row lies: its labelled claimed cards' centre above or below its
    hand cards' (``TOP``, ``BOTTOM``), else left or right of them (``LEFT``, ``RIGHT``), as
    ``answers.claimed_place`` places the rows it guessed. None where the scene has no claimed
    or no hand row."""
    rows: dict[str, list[tuple[float, float]]] = {TABLE: [], HAND: []}
    for a in true_cards(anns):
        if not a.get("ignore") and a.get("row") in rows:
            x, y, w, h = a["bbox"]
            rows[a["row"]].append((x + w / 2, y + h / 2))
    if not rows[TABLE] or not rows[HAND]:
        return None
    (tx, ty), (hx, hy) = ((sum(x for x, _ in r) / len(r), sum(y for _, y in r) / len(r))
                          for r in (rows[TABLE], rows[HAND]))
    if abs(ty - hy) > abs(tx - hx):
        return TOP if ty < hy else BOTTOM
    return LEFT if tx < hx else RIGHT


def labels_of(dets: Sequence[Detection], anns: Sequence[dict]) -> list[dict | None]:
    """The labelled layout card each detection lies on (None: on none), by its centre."""
    polys = [(a, _polygon(a)) for a in true_cards(anns) if a.get("row") in LAYOUT_ROWS]
    return [next((a for a, poly in polys if inside(d.center, poly)), None) for d in dets]


def labelled_labels(anns: Sequence[dict]) -> list[dict | None]:
    """The label of each detection of ``labelled_scan``: its cards, in the same order."""
    return [a for a in true_cards(anns) if not a.get("ignore")]


def name_from_labels(c: Column, labels: Sequence[dict | None], groups: Sequence[dict]) -> str | None:
    """The card the player names an all-back column: the card of the labelled group its cards
    lie on; None where they lie on no group or on several (the layout's own error)."""
    found = {a.get("group") for i in c.detections if 0 <= i < len(labels)
             for a in [labels[i]] if a is not None and a.get("row") in LAYOUT_ROWS}
    if len(found) != 1:
        return None
    g = found.pop()
    if not isinstance(g, int) or not 0 <= g < len(groups):
        return None
    cards = set(groups[g].get("cards", []))
    return cards.pop() if len(cards) == 1 else None


@dataclass(slots=True)
class Needed:
    """What one scan asked that only the player could answer."""

    claimed: str = ""  # the rows were a guess: where the evening's claimed row lies, as answered
    unknown: bool = False  # the rows were a guess, and the labels' rows lie the other way (or none)
    named: int = 0  # all-back groups named


def answer_scan(sc: Scan, place: str | None, labels: Sequence[dict | None], groups: Sequence[dict],
                base: dict[str, Any] | None = None, again: Rescore = rescore) -> tuple[Scan, Needed]:
    """``sc`` once the player has answered, as the app applies the answers: the evening's
    claimed row at ``place`` (``take_claimed``) where the rows were a guess lying that way,
    then each all-back group named the card of the labelled group (of ``groups``) that
    ``labels`` (each detection's label) puts it on (``name_group``); rescored (by ``again``:
    the code now's or the code before's ``rescore``) if anything was answered."""
    need = Needed()
    cols: list[Column] = list(sc.columns)
    if any(guessed_rows(cols)):
        taken = None if place is None else take_claimed(cols, sc.detections, place)
        need.claimed, need.unknown = ("", True) if taken is None else (place or "", False)
        cols = taken or cols
    for n in all_backs(cols):
        name = name_from_labels(cols[n], labels, groups)
        if name is not None:
            cols = name_group(cols, n, name)
            need.named += 1
    if not need.claimed and not need.named:
        return sc, need
    return again(replace(sc, columns=cols), base), need


@dataclass(slots=True)
class AnswerCounts:
    """How many scenes asked the player which answer (``Needed``)."""

    scenes: int = 0
    claimed: int = 0  # above and below: top or bottom
    side: int = 0  # side by side: left or right
    unknown: int = 0
    named_scenes: int = 0
    named: int = 0

    def add(self, need: Needed) -> None:
        self.scenes += 1
        self.claimed += need.claimed in (TOP, BOTTOM)
        self.side += need.claimed in (LEFT, RIGHT)
        self.unknown += need.unknown
        self.named_scenes += need.named > 0
        self.named += need.named

    def line(self) -> str:
        return (f"the claimed row in {self.claimed + self.side} of {self.scenes} scenes ({self.claimed} top "
                f"or bottom, {self.side} left or right: rows side by side), an all-back group's card in "
                f"{self.named_scenes} ({self.named} groups); rows guessed that the labels place no claimed "
                f"row for (their rows lie the other way, or none was claimed): {self.unknown}")


def rate(k: int, n: int) -> str:
    return f"{k}/{n} ({k / max(1, n):.2%})"


@dataclass(slots=True)
class Answered:
    """``LayoutSplit``'s figures once the player has answered what the photo cannot tell
    (``answer_scan``, the answers from the labels), end to end and on the labelled cards: what
    is still scored wrong is the layout's own error, or the cards'."""

    split: LayoutSplit = field(default_factory=LayoutSplit)
    end_to_end: AnswerCounts = field(default_factory=AnswerCounts)
    labelled: AnswerCounts = field(default_factory=AnswerCounts)

    def add(self, sc: Scan, m: SceneMatch, im: dict, anns: list[dict], true_scan: Scan,
            again: Rescore = rescore) -> None:
        """One scene, as ``LayoutSplit.add``; ``again``: the rescore of the code that scanned it."""
        place, groups, base = claimed_from_labels(anns), im.get("groups", []), layout_base(im["layout"])
        got, need = answer_scan(sc, place, labels_of(sc.detections, anns), groups, base, again)
        true_got, true_need = answer_scan(true_scan, place, labelled_labels(anns), groups, base, again)
        self.end_to_end.add(need)
        self.labelled.add(true_need)
        self.split.add(got, m, im["layout"], anns, true_got)

    def figures(self) -> dict[str, float]:
        s = self.split
        n, won = max(1, s.scenes), max(1, s.winning)
        return {"scored_answered_rate": round(s.scored / n, 4),
                "scored_answered_labelled_cards_rate": round(s.scored_true / n, 4),
                "scored_answered_winning_rate": round(s.scored_winning / won, 4),
                "scored_answered_labelled_cards_winning_rate": round(s.scored_true_winning / won, 4)}

    def summary(self) -> str:
        s = self.split
        lines = ["  once the player has answered what the photo cannot tell (the evening's claimed row, "
                 "the card of each all-back group): scored as the scene end to end "
                 f"{rate(s.scored, s.scenes)}, the layout step on the labelled cards "
                 f"{rate(s.scored_true, s.scenes)}",
                 f"    of the {s.winning} winning hands: end to end {rate(s.scored_winning, s.winning)}, "
                 f"the labelled cards {rate(s.scored_true_winning, s.winning)}",
                 f"    answers asked end to end: {self.end_to_end.line()}",
                 f"    answers asked on the labelled cards: {self.labelled.line()}",
                 f"    scored wrong end to end once answered: {s.card_errors} card errors, {s.layout_errors} "
                 f"layout errors ({s.layout_errors_cards_right} with every card of the layout read right, "
                 f"{s.layout_errors_hidden} of them with a layout card hidden under another); "
                 f"scored wrong with no doubt: {s.wrong_without_doubt}"]
        if s.faults:
            lines.append("    the labelled cards' scenes still not scored as the scene once answered, by "
                         "what went wrong: " + ", ".join(f"{why} x{k}" for why, k in s.faults.most_common()))
        return "\n".join(lines)


def shown_scan(im: dict, anns: list[dict], scan: Callable[..., Scan] = scan_detections) -> Scan:
    """The scan of the cards a scene shows, each read right (a finder and a reader that make no
    mistake): a layout card hidden under another card or under something lying on the table is
    labelled ``ignore`` and left out, as no find shows it. As far as end to end can go with the
    layout step as it is."""
    return scan(int(im["width"]), int(im["height"]), labelled_detections(anns), layout_base(im["layout"]))


@dataclass(slots=True)
class Shown:
    """Scenes scored as the scene from the cards they show, each read right (``shown_scan``), as
    read and once the player has answered: what end to end would score with no card error, and
    so how much of its gap is the layout's, hidden cards included."""

    scenes: int = 0
    scored: int = 0
    answered: int = 0
    hiding: int = 0  # scenes with a layout card no find shows
    hiding_answered: int = 0  # of those, scored as the scene once answered

    def add(self, sc: Scan, im: dict, anns: list[dict], again: Rescore = rescore) -> None:
        """One scene's ``shown_scan``; ``again``: the rescore of the code that scanned it."""
        truth, base = im["layout"], layout_base(im["layout"])
        self.scenes += 1
        self.scored += same_score(sc.assembled.layout, sc.assembled.complete, truth)
        labels = [a for a in anns if not a.get("ignore")]  # ``labelled_detections``' order
        got, _ = answer_scan(sc, claimed_from_labels(anns), labels, im.get("groups", []), base, again)
        right = same_score(got.assembled.layout, got.assembled.complete, truth)
        self.answered += right
        hides = any(a.get("ignore") and a.get("row") in LAYOUT_ROWS for a in anns)
        self.hiding += hides
        self.hiding_answered += hides and right

    def figures(self) -> dict[str, float]:
        n = max(1, self.scenes)
        return {"scored_shown_cards_rate": round(self.scored / n, 4),
                "scored_answered_shown_cards_rate": round(self.answered / n, 4)}

    def summary(self) -> str:
        return ("  the cards that show, each read right (a layout card hidden under another card or under "
                f"something on the table left out): scored as the scene {rate(self.scored, self.scenes)}, "
                f"once answered {rate(self.answered, self.scenes)}; of the {self.hiding} scenes that hide "
                f"a layout card, {rate(self.hiding_answered, self.hiding)} once answered")


def compare(before: LayoutSplit, now: LayoutSplit, rev: str, answered_before: Answered | None = None,
            answered_now: Answered | None = None, shown_before: Shown | None = None,
            shown_now: Shown | None = None) -> str:
    """The layout step's figures before and now, one line each, for the issue's targets (and
    once the player has answered, and on the cards that show, where both are given)."""
    def rates(s: LayoutSplit) -> list[str]:
        n = max(1, s.scenes)
        return [f"{s.scored / n:.2%}", f"{s.scored_true / n:.2%}",
                f"{s.scored_true_winning / max(1, s.winning):.2%}",
                f"{s.no_result_cards_right}/{s.cards_right}", str(s.wrong_without_doubt)]

    names = ["scored as the scene end to end", "on the labelled cards",
             "on the labelled cards, winning hands", "no result, cards all right",
             "scored wrong with no doubt"]
    rows = list(zip(names, rates(before), rates(now), strict=True))
    if answered_before is not None and answered_now is not None:
        rows += [(f"{k}, once answered", a, b) for k, a, b in
                 zip(names[:3], rates(answered_before.split), rates(answered_now.split), strict=False)]
    if shown_before is not None and shown_now is not None:
        was, now_ = shown_before, shown_now
        rows += [(k, f"{a / max(1, was.scenes):.2%}", f"{b / max(1, now_.scenes):.2%}")
                 for k, a, b in (("on the cards that show, read right", was.scored, now_.scored),
                                 ("on the cards that show, read right, once answered", was.answered,
                                  now_.answered))]
    return "\n".join([f"  before ({rev}) -> now:"] + [f"    {k}: {a} -> {b}" for k, a, b in rows])


def layout_only(scenes: list[Scene], before: ModuleType | None = None, rev: str = "") -> int:
    """Layout figures from perfect detections (``labelled_scan``), through every step a scan
    takes after the networks: how often the photo's engine input equals the scene's, how often
    it is complete enough to score, scored as the scene (on all scenes, and on those whose
    layout is a winning hand), how often it gives no result or a wrong one with no doubt, and
    why the others are not scored; then scored as the scene once the player has answered
    (``answer_scan``), which answers were asked, and why the others are still not scored. With
    ``before`` (``models.before.scan_before``), the code at ``rev`` on the same scenes too, in
    the same run."""
    versions: list[tuple[str, Callable[..., Scan], Rescore]] = [("now", scan_detections, rescore)]
    if before is not None:
        versions.append((f"before ({rev})", before.scan_detections, before.rescore))
    for label, scan, again in versions:
        n = ok = complete = right = none = silent = won = won_right = 0
        faults: Counter = Counter()
        answered, answered_won = 0, 0
        asked, left = AnswerCounts(), Counter()
        for _, im, anns in scenes:
            if "layout" not in im:
                continue
            sc = labelled_scan(im, anns, scan)
            cols, asm = sc.columns, sc.assembled
            n += 1
            ok += same_layout(asm.layout, im["layout"])
            complete += asm.complete
            scored = same_score(asm.layout, asm.complete, im["layout"])
            right += scored
            if wins(im["layout"]):
                won += 1
                won_right += scored
            none += sc.result is None
            silent += not scored and sc.result is not None and clean(sc)
            if not scored:
                faults[" + ".join(layout_faults(cols, true_cards(anns), {d.kind for d in asm.doubts}))] += 1
            got, need = answer_scan(sc, claimed_from_labels(anns), labelled_labels(anns),
                                    im.get("groups", []), layout_base(im["layout"]), again)
            asked.add(need)
            good = same_score(got.assembled.layout, got.assembled.complete, im["layout"])
            answered += good
            answered_won += good and wins(im["layout"])
            if not good:
                kinds = {d.kind for d in got.assembled.doubts}
                left[" + ".join(layout_faults(got.columns, true_cards(anns), kinds))] += 1
        head = "" if before is None else f"{label}: "
        print(f"{head}layout step on the labelled cards of {n} scenes: layout exact {ok / max(1, n):.4f}, "
              f"complete {complete / max(1, n):.4f}, scored as the scene {right / max(1, n):.4f}, "
              f"no result {none / max(1, n):.4f}, scored wrong with no doubt {silent}")
        print(f"{head}  of the {won} scenes whose layout is a winning hand: scored as the scene "
              f"{won_right / max(1, won):.4f} ({won_right})")
        print(f"{head}  once the player has answered what the photo cannot tell (the evening's claimed "
              f"row, the card of each all-back group): scored as the scene {answered / max(1, n):.4f} "
              f"({answered}); of the winning hands {answered_won / max(1, won):.4f} ({answered_won})")
        print(f"{head}  answers asked: {asked.line()}")
        for title, counts in (("scenes not scored as the scene", faults),
                              ("scenes still not scored as the scene once answered", left)):
            if counts:
                print(f"{head}{title}, by what went wrong:")
                for why, k in counts.most_common():
                    print(f"  {k:>4}  {why}")
    return 0
