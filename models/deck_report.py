"""The report of ``zipai eval decks``: the tables of untaught against taught, the evening's
corrections, where the misses lie, the teaching photos, the model before beside today's, and
whether the targets are met. Text only: the measuring is ``deck_scans``."""

from __future__ import annotations

import datetime
import os
import platform
import statistics
from collections.abc import Callable, Sequence

from zipai.datasets.teach import LEARNABLE, VARIANTS
from zipai.engine import CARD_NAMES
from zipai.models.evaluate import doubt_lines

from .deck_scans import WHOLE, DeckResult, Side
from .deck_teaching import BLINDED, VariantOutcome, blind_name

TARGET_CARD, TARGET_EXACT = 0.995, 0.90  # issue 50, with the deck taught


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
