"""``zipai eval decks``: the harness reads a deck set, scans its scenes, and reports what it found,
a refused teaching photo included."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from zipai.cli import main as zipai_main
from zipai.datasets.decks import read_deck_set, render_decks
from zipai.models.eval_decks import (
    BLINDED,
    Blindfold,
    DeckResult,
    Side,
    Teacher,
    VariantOutcome,
    _deck_ref,
    _judge,
    _photo,
    blind_cards,
    blind_name,
    deck_api,
    evaluate_deck,
    learner_before,
    model_before_lines,
    report,
    teach_variants,
)
from zipai.vision.detector import Detector


@pytest.fixture(scope="module")
def deck_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("decks")
    render_decks(str(root), 1, 21, scenes=2, workers=1, quiet=True)
    return root


def test_untaught_table_and_notebook_page(deck_set: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture) -> None:
    doc = tmp_path / "lab" / "decks.md"
    assert zipai_main(["eval", "decks", str(deck_set), "--untaught", "--doc", str(doc)]) == 0
    out = capsys.readouterr().out
    entry = read_deck_set(deck_set)[0]
    row = next(line for line in out.splitlines() if line.startswith(f"| {entry.id} "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:5] == [entry.font, str(entry.style), "2", cells[4]] and int(cells[4]) > 10
    assert cells[5].endswith("%") and cells[6] == "—"  # untaught measured, taught not asked for
    assert doc.read_text(encoding="utf-8").strip() == out.strip()


def test_a_deck_through_an_evening_is_measured_three_ways(deck_set: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture) -> None:
    doc = tmp_path / "decks.md"
    assert zipai_main(["eval", "decks", str(deck_set), "--evening", "1", "--doc", str(doc)]) == 0
    out = capsys.readouterr().out
    assert "## A deck through an evening" in out
    at = out.splitlines().index("## A deck through an evening")
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.strip("|").split("|")[1:]]
            for r in out.splitlines()[at:] if r.startswith("| ") and "%" in r}
    assert set(rows) == {"per card", "scenes exact", "scored as the scene"}
    assert all(len(v) == 3 and all(c.endswith("%") for c in v) for v in rows.values())
    assert "1 scenes after them" in out  # 2 scenes, the first corrected into the deck


class Refused(ValueError):
    """What a learner raises for a photo it will not learn from."""


def test_a_refused_deck_plays_untaught(deck_set: Path) -> None:
    entry = read_deck_set(deck_set)[0]

    def refuse(photo: bytes, name: str) -> None:
        assert photo[:2] == b"\xff\xd8" and name == entry.id  # the teaching photo, by the deck's name
        raise Refused("found 18 faces, need 20 in two rows of ten")

    r = evaluate_deck(entry, Detector(), Teacher(refuse, Refused, None), limit=1)
    assert r.refused == "found 18 faces, need 20 in two rows of ten"
    assert r.taught is not None and r.taught.totals.read == r.untaught.totals.read
    assert r.taught.totals.scenes == r.untaught.totals.scenes == 1
    text = report([r], "zipai eval decks X", learner_missing=False)
    assert "refused" in text and "found 18 faces" in text


@pytest.mark.parametrize(("argv", "problem"), [
    (["eval", "decks", "/nonexistent/set"], "is not a deck set"),
    (["eval", "decks"], "the following arguments are required: dir"),
    (["eval", "sideways"], "unknown eval command 'sideways'"),
])
def test_bad_input_gets_a_clear_line(argv: list[str], problem: str, capsys: pytest.CaptureFixture) -> None:
    assert zipai_main(argv) == 2
    assert problem in capsys.readouterr().err


def test_a_good_teaching_photo_is_learnt_and_read_with(deck_set: Path) -> None:
    """Through the deck API: the set's first deck is learnt from its photo, and its scenes are
    read with it at least as well as without."""
    teacher = deck_api()
    assert teacher is not None
    entry = read_deck_set(deck_set)[0]
    r = evaluate_deck(entry, Detector(), teacher)
    assert r.refused is None and r.teach_seconds is not None and r.teach_seconds > 0
    assert r.taught is not None and r.taught.totals.scenes == r.untaught.totals.scenes == 2
    assert r.taught.totals.cards == r.untaught.totals.cards > 10
    assert r.taught.per_card >= r.untaught.per_card


def test_teaching_variants_are_judged_by_what_they_must_be(deck_set: Path) -> None:
    """A good photo must be learnt and a photo with a card left out refused; a learner that
    learns from anything gets the bad photo wrong."""
    teacher = deck_api()
    assert teacher is not None
    entry = read_deck_set(deck_set)[0]
    outcomes = teach_variants(entry, teacher, ("good", "missing"))
    assert [(o.variant, o.right) for o in outcomes] == [("good", True), ("missing", True)]
    assert outcomes[1].line.startswith("refused: row ") and "no card there" in outcomes[1].line

    class Taught:
        deck = None
        upside_down = False

    gullible = Teacher(lambda photo, name: Taught(), Refused, None)
    outcomes = teach_variants(entry, gullible, ("good", "upside_down", "blurred"))
    assert [o.right for o in outcomes] == [True, False, False]
    text = report([], "zipai eval decks X", learner_missing=False, variants=outcomes)
    assert "| blurred | refused | 0/1 |" in text and "| good | learnt | 1/1 |" in text

    # a learner that puts each card on its neighbour's place learns the good photo wrong
    drawn = json.loads(entry.teach_label.read_text(encoding="utf-8"))["faces"]
    boxes = [f["card_box"] for f in drawn]

    faces = [SimpleNamespace(card=f["card"], box=boxes[(k + 1) % len(boxes)]) for k, f in enumerate(drawn)]
    shifted = Teacher(lambda photo, name: SimpleNamespace(deck=None, upside_down=False, faces=faces),
                      Refused, None)
    [good] = teach_variants(entry, shifted, ("good",))
    assert not good.right and good.line == f"learnt, {drawn[0]['card']} found off its card"


def test_the_errors_add_up_by_cause_and_are_drawn(deck_set: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    sheet = tmp_path / "lost.png"
    assert zipai_main(["eval", "decks", str(deck_set), "--untaught", "--no-doc", "--sheet", str(sheet)]) == 0
    got = capsys.readouterr()
    lines = got.out.splitlines()
    at = lines.index("## Where the errors are")
    cause = {r.split("|")[1].strip(): r.split("|")[2].strip() for r in lines[at:]
             if r.startswith("| ") and r.count("|") == 3}
    errors = next(x for x in lines if x.startswith("Errors untaught:"))
    misread, missed, extra = (int(w) for w in errors.replace(",", "").split() if w.isdigit())
    assert int(cause["misread, whole glyph"]) + int(cause["misread, glyph partly covered"]) == misread
    assert int(cause["missed, whole glyph"]) + int(cause["missed, glyph partly covered"]) == missed
    assert int(cause["extra finds read as a face"]) + int(cause["extra finds read as a back"]) == extra
    whole, covered = (int(v) for v in cause["labelled cards, whole / covered"].split(" / "))
    total = next(x for x in lines if x.startswith("| **all 1 decks**")).split("|")[5].strip()
    assert whole + covered == int(total)
    for title, n in (("Missed most (untaught): ", missed),
                     ("Extra finds most often read as (untaught): ", extra)):
        said = [x for x in lines if x.startswith(title)]
        assert bool(said) == bool(n)
        if said:  # the commonest eight, each "card ×k"
            assert sum(int(part.split("×")[1]) for part in said[0][len(title):-1].split(", ")) <= n
    drawn = misread + missed + extra
    assert f"{drawn} errors drawn in {sheet}" in got.err
    from PIL import Image

    with Image.open(sheet) as im:
        assert im.width == 12 * 130 and im.height == max(1, -(-drawn // 12)) * 144


def test_a_blinded_photo_is_judged_and_reported_beside_the_learner_before(deck_set: Path) -> None:
    """A good photo with 一 and 七 hidden from the finder is learnt right; the learner of another
    revision loads beside today's; the report puts the two side by side and sums the good photos."""
    teacher = deck_api()
    assert teacher is not None and teacher.detector is not None
    entry = read_deck_set(deck_set)[0]
    ref, size = _deck_ref(entry)
    photo, drawn = _photo(ref, "good", size)
    hidden = blind_cards(teacher.detector, photo, drawn, 2)
    assert hidden == ("x1", "x7")
    blind = Blindfold(teacher.detector, photo, drawn, hidden)
    got = _judge(entry.id, "good", teacher, photo, drawn, blind, blind_name("good", 2))
    assert got.right and got.variant == "good, 2 hidden" and got.line == "learnt"
    then = learner_before("HEAD", teacher.detector)  # today's committed learner, loaded apart
    assert then.refused is not teacher.refused and then.learn(photo, entry.id).deck.name == entry.id
    with pytest.raises(ValueError, match="--before no-such-rev"):
        learner_before("no-such-rev", teacher.detector)
    now = [VariantOutcome("d", blind_name(v, n), True, "learnt") for v, n in BLINDED]
    old = [VariantOutcome("d", blind_name(v, n), False, "refused: found 18 faces") for v, n in BLINDED]
    good = [VariantOutcome("d", "good", True, "learnt")]
    text = report([], "zipai eval decks X", learner_missing=False, variants=good, before=good, blinded=now,
                  blinded_before=old)
    assert "| good, 3 hidden | learnt | 1/1 | 0/1 |  |" in text
    assert f"hidden faces included: **{len(BLINDED) + 1} of {len(BLINDED) + 1}** (the code before: 1 of " \
           f"{len(BLINDED) + 1})" in text


def _side(labelled: dict[str, int], missed: dict[str, int], misread: dict[tuple[str, str], int],
          extras: dict[str, int], scenes: int = 4) -> Side:
    s = Side()
    s.per_class.update(labelled)
    s.missed.update(missed)
    s.confusions.update(misread)
    s.wrong_class.update(missed)
    s.wrong_class.update({t: k for (t, _), k in misread.items()})
    s.extras.update(extras)
    s.totals.scenes, s.totals.cards = scenes, sum(labelled.values())
    s.totals.read = s.totals.cards - sum(missed.values()) - sum(misread.values())
    s.totals.extra = sum(extras.values())
    return s


def test_the_model_before_is_set_beside_this_one_by_class() -> None:
    """Missed and misread cards count by the true card, extra finds by the card read, before →
    now, untaught and taught apart; a refused teaching photo is counted for each model."""
    entry = SimpleNamespace(id="deck-x", font="f", style=1)
    labelled = {"x1": 6, "d7": 4, "back": 2}
    now = DeckResult(entry, _side(labelled, {}, {("d7", "x7"): 1}, {"x1": 2}),
                     _side(labelled, {}, {}, {"x1": 1}))
    then = DeckResult(entry, _side(labelled, {"x1": 3, "back": 1}, {}, {}),
                      _side(labelled, {"x1": 2}, {}, {}), refused="found 19 faces")
    text = "\n".join(model_before_lines([now], [then], "new/manifest.json", "old/manifest.json"))
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.strip("|").split("|")[1:]]
            for r in text.splitlines() if r.startswith("| ")}
    assert rows["x1"] == ["6", "3 → 0", "2 → 0", "0 → 0", "0 → 0", "0 → 2", "0 → 1"]
    assert rows["d7"] == ["4", "0 → 0", "0 → 0", "0 → 1", "0 → 0", "0 → 0", "0 → 0"]
    assert rows["back"] == ["2", "1 → 0", "0 → 0", "0 → 0", "0 → 0", "0 → 0", "0 → 0"]
    assert rows["missed cards"] == ["4 (33.33%) → 0 (0.00%)", "2 (16.67%) → 0 (0.00%)"]
    assert rows["extra finds a scene"] == ["0.000 → 0.500", "0.000 → 0.250"]
    assert "Teaching photos refused: 1 → 0 of 1." in text and "`old/manifest.json`" in text
    assert "x2" not in rows  # a class with no card and no extra find has no row


def test_eval_decks_scans_with_the_model_before_in_the_same_run(deck_set: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    from zipai.vision.detector import default_manifest

    argv = ["eval", "decks", str(deck_set), "--untaught", "--scenes", "1", "--no-doc",
            "--model-before", str(default_manifest())]
    assert zipai_main(argv) == 0
    out = capsys.readouterr().out
    assert "## Against the model before" in out
    part = out[out.index("## Against the model before"):]
    per_card = next(r for r in part.splitlines() if r.startswith("| per card |"))
    before, now = per_card.split("|")[2].strip().split(" → ")
    assert before == now  # the same model twice reads the same
    assert zipai_main([*argv[:-1], str(tmp_path / "none.json")]) == 2
    assert "none.json" in capsys.readouterr().err
