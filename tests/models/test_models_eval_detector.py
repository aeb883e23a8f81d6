"""The held-out evaluation sorts missed cards by where they were lost, pile tops on their own."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from zipai.models import eval_detector as mod
from zipai.models.evaluate import match_scene
from zipai.vision.decode import load
from zipai.vision.detector import Detection, Detector, models_dir

SAMPLE = models_dir() / "sample.jpg"
if not SAMPLE.exists():
    pytest.skip("the shipped model has not landed yet", allow_module_level=True)


def _back(row: str, x: float) -> dict:
    square = [[x, 10], [x + 40, 10], [x + 40, 50], [x, 50]]
    return {"category_id": 21, "card_polygon": square, "bbox": [x, 10, 40, 40], "row": row}


def test_a_missed_pile_top_is_counted_apart_from_backs_in_groups() -> None:
    causes: Counter = Counter()
    cards = [_back("loose", 10), _back("hand", 100), {**_back("loose", 200), "ignore": True}]
    mod.why_missed(Detector(threads=1), load(SAMPLE), [], cards, causes)
    assert sum(causes.values()) == 2  # the ignored card is neither credit nor blame
    assert {what for what, _ in causes} == {"back lying apart", "back"}


def _face(row: str, group: int, x: float, y: float, cid: int = 5, ignore: bool = False) -> dict:
    square = [[x, y], [x + 40, y], [x + 40, y + 40], [x, y + 40]]
    return {"category_id": cid, "card_polygon": square, "bbox": [x, y, 40, 40], "row": row,
            "group": group, "ignore": ignore}


def test_layout_faults_name_what_went_wrong() -> None:
    """Given labelled cards, a scene that is not scored is put down to what no photo settles
    (an all-back group, a hidden layout card) or to how the columns differ from the groups."""
    from zipai.vision.layout import Column

    anns = [_face("table", 0, 0, 0), _face("table", 0, 0, 50), _face("table", 0, 0, 100),
            _face("hand", 1, 200, 0), _face("loose", -1, 400, 0)]
    split = [Column([0, 1], ["x5", "x5"], "table", "open"), Column([2], ["x5"], "table", "hand"),
             Column([3], ["x5"], "hand", "hand"), Column([4], ["x5"], "hand", "hand")]
    assert mod.layout_faults(split, anns, set()) == ("a group split over columns", "a loose card taken in")
    swapped = [Column([0, 1, 2], ["x5"] * 3, "hand", "hand"), Column([3], ["x5"], "table", "hand"),
               Column([4], ["x5"], "loose", "loose")]
    assert mod.layout_faults(swapped, anns, set()) == ("the claimed and revealed rows told apart wrongly",)
    named = mod.layout_faults(swapped, anns, {"unnamed_concealed"})
    assert named == ("an all-back group (the user names it)",)
    hidden = [*anns, _face("hand", 1, 200, 50, ignore=True)]
    assert mod.layout_faults(swapped, hidden, set()) == ("a layout card hidden",)
    merged = [Column([0, 1, 2, 3], ["x5"] * 4, "table", "open"), Column([4], ["x5"], "loose", "loose")]
    assert mod.layout_faults(merged, anns, {"bad_group"}) == ("groups merged in one column",)


def _det(card: str, x: float, y: float, down: tuple[float, float] = (0.0, 1.0),
         size: float = 20) -> Detection:
    box = (x - size / 2, y - size / 2, x + size / 2, y + size / 2)
    return Detection(card, box, 0.9, None if card == "back" else "black", down=down)


def _long(cat: int, x: float) -> dict:
    """A card lying fully in view: 40 wide, 160 long, its glyph near the top."""
    poly = [[x, 0], [x + 40, 0], [x + 40, 160], [x, 160]]
    return {"category_id": cat, "card_polygon": poly, "bbox": [x + 10, 10, 20, 20], "row": "hand"}


def test_extra_detections_are_sorted_by_what_they_lie_on() -> None:
    """A far end (turned round, apart), a split glyph (the same face, close), a part of a glyph
    read as another face, one back found twice and a find on the table each get their name."""
    anns = [_long(5, 0), _long(2, 100), _long(7, 200), _long(21, 300), _long(9, 400)]
    dets = [_det("x5", 20, 20), _det("x5", 20, 140, down=(0.0, -1.0)),  # a far end
            _det("x2", 120, 20), _det("x2", 120, 40),  # 二 found as its two strokes
            _det("x7", 220, 20), _det("x1", 220, 35),  # a part of 七 read as 一
            _det("back", 320, 80, size=60), _det("back", 320, 120, size=30),  # one back found twice
            _det("x9", 420, 20), _det("x9", 420, 110),  # the same face apart, facing one way
            _det("x4", 700, 700)]  # on the table
    m = match_scene([(d.card, d.box) for d in dets], anns)
    assert (m.read, m.extra) == (5, 6)
    kinds: Counter = Counter()
    mod.why_extra(dets, anns, m, kinds)
    assert kinds == Counter({"the same face at the card's far end": 1,
                             "the same face found twice close (a split glyph)": 1,
                             "part of a glyph read as another face": 1, "a back found twice": 1,
                             "the same face found twice apart, facing one way": 1, "on no card": 1})


def test_decorated_figures_are_kept_apart_from_the_plain_held_out_figures(tmp_path) -> None:
    """Style 3's held-out scenes once replaced the plain held-out figures in the manifest."""
    plain = [(tmp_path, {"split": "heldout", "style": 1}, [])]
    decorated = [(tmp_path, {"split": "heldout", "style": 3}, [])]
    assert mod.figures_key(plain, tmp_path / "heldout") == "heldout"
    assert mod.figures_key(decorated, tmp_path / "heldout_style3") == "heldout_style3"
    assert mod.figures_key([], tmp_path / "val") == "val"


def test_a_part_of_a_split_is_not_recorded(tmp_path, capsys) -> None:
    (tmp_path / "annotations.json").write_text('{"images": [], "annotations": []}', encoding="utf-8")
    assert mod.main([str(tmp_path), "--limit", "5", "--record"]) == 2
    assert "drop --limit" in capsys.readouterr().err
    card = tmp_path / "c.md"
    assert mod.main([str(tmp_path), str(tmp_path), "--model-card", str(card)]) == 2  # two splits pooled
    assert "one whole split" in capsys.readouterr().err


def test_folders_are_pooled_into_one_set_of_figures(tuning_setup, capsys) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--failures", "0"]) == 0
    one = capsys.readouterr().out
    assert mod.main([str(data), str(data), "--model", str(manifest), "--failures", "0"]) == 0
    two = capsys.readouterr().out
    assert "(2 scenes" in one and "(4 scenes" in two
    assert [ln for ln in one.splitlines() if "per_card_accuracy" in ln] == \
        [ln for ln in two.splitlines() if "per_card_accuracy" in ln]
    assert mod.main([str(data), str(data), "--labelled-cards"]) == 0
    assert "labelled cards of 4 scenes" in capsys.readouterr().out


def test_a_missed_card_with_a_strong_find_was_turned_away_by_the_selector() -> None:
    """With a selector, finds from its floor up are weighed by it: a card lost there was turned
    away by it, not lost under the finder's threshold, which the selector does not use."""
    det = Detector(threads=1)
    decoded = load(SAMPLE)
    raw = det.look(decoded)
    strong = int(np.argmax(np.where(raw.kinds == 0, raw.scores, 0)))
    x0, y0, x1, y1 = (float(v) * raw.scale for v in raw.boxes[strong])
    card = _face("hand", 0, x0, y0)
    card["card_polygon"] = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    causes: Counter = Counter()
    mod.why_missed(det, decoded, [], [card], causes)
    assert causes == Counter({("face", "found, then turned away by the selector"): 1})
    det = det.with_config(det.config.rules_only())
    causes.clear()
    mod.why_missed(det, decoded, [], [card], causes)
    assert causes == Counter({("face", "found, then dropped by the reader or a duplicate"): 1})


def test_record_and_model_card(tuning_setup, capsys) -> None:
    """--record puts the split's figures in the model's provenance and leaves its manifest as it
    was; --model-card writes the card from the provenance and the figures just measured, the same
    file for the same model and scenes."""
    import json
    import shutil

    from zipai.models.manifest import read_provenance

    data, manifest = tuning_setup
    shutil.copy(models_dir() / "provenance.json", manifest.parent / "provenance.json")
    before = manifest.read_bytes()
    card = manifest.parent / "card.md"
    argv = [str(data), "--model", str(manifest), "--failures", "0", "--record", "--model-card", str(card)]
    assert mod.main(argv) == 0
    out = capsys.readouterr().out
    assert manifest.read_bytes() == before
    recorded = read_provenance(manifest)["figures"]
    shipped = json.loads((models_dir() / "provenance.json").read_text(encoding="utf-8"))["figures"]
    assert recorded["heldout"] == shipped["heldout"]  # other splits kept
    per_card = recorded["val"]["per_card_accuracy"]
    assert f"  per_card_accuracy: {per_card}" in out
    text = card.read_text(encoding="utf-8")
    row = next(ln for ln in text.splitlines() if ln.startswith("| per card |"))
    held_out = f"{100 * shipped['heldout']['per_card_accuracy']:.2f}%"  # the shipped model's held-out figure
    assert row.split(" | ")[1] == held_out and f"{100 * per_card:.2f}%" in row and row.endswith("99.5% |")
    assert "`val`: 400 validation scenes" in text and "(measured by the run that wrote this card)" in text
    assert f"`zipai eval detector {' '.join(argv)}`" in text
    first = card.read_bytes()
    assert mod.main(argv) == 0
    assert card.read_bytes() == first


L1 = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "self_draw",
      "groups": [{"cards": ["d5", "d5", "d5"], "state": "open"}, {"cards": ["x10"] * 3, "state": "concealed"},
                 {"cards": ["x1", "x2", "x3"], "state": "open"}],
      "hand": ["x4", "x5", "x6", "d2", "d7", "d10", "x9", "x9", "x9", "d8", "d8", "x8"]}


def _scan(layout: dict, complete: bool = True, doubts: tuple[str, ...] = ()):
    from zipai.engine import score
    from zipai.vision.layout import Assembled, Doubt
    from zipai.vision.scan import Scan

    asm = Assembled(layout, complete, [Doubt(k, k) for k in doubts])
    return Scan(100, 100, [], [], asm, score(layout) if complete else None)


def test_each_scene_scored_wrong_is_put_down_to_the_cards_or_the_layout() -> None:
    """A misread that the labelled cards do not make is a card error; a scene the labelled
    cards score wrong too, or one whose cards were all read right, is a layout error; a scan
    with a result, scored wrong and no doubt, is counted apart."""
    from zipai.models.evaluate import SceneMatch

    read = SceneMatch(cards=21, read=21, rows={"hand": [12, 12], "table": [9, 9]})
    misread = SceneMatch(cards=21, read=20, rows={"hand": [12, 11], "table": [9, 9]})
    swapped = {**L1, "groups": [{**g, "state": "concealed"} if g["cards"][0] == "d5" else g
                                for g in L1["groups"]]}
    right, wrong = _scan(L1), _scan(swapped, doubts=("claimed_row",))
    split = mod.LayoutSplit()
    split.add(right, read, L1, [], right)  # scored as the scene
    split.add(wrong, misread, L1, [], right)  # a card error: the labelled cards score right
    split.add(wrong, misread, L1, [], wrong)  # a layout error: the labelled cards score wrong too
    split.add(_scan(swapped), read, L1, [], right)  # a layout error with every card right, and no doubt
    split.add(_scan(L1, complete=False), read, L1, [], right)  # no result though every card is right
    f = split.figures()
    assert (split.scored, split.scored_true) == (1, 4)
    assert (f["wrong_card_errors"], f["wrong_layout_errors"], split.layout_errors_cards_right) == (1, 3, 2)
    assert f["wrong_without_doubt"] == 1 and f["no_result_cards_right_rate"] == round(1 / 3, 4)
    assert "1 card errors" in split.summary() and "3 layout errors (2 with every card" in split.summary()


def test_the_layout_step_before_runs_beside_today_s_on_the_same_detections(tuning_setup, capsys) -> None:
    """``--before REV`` lays out each photo's detections with the code at REV too, in one run."""
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--failures", "0", "--before", "HEAD"]) == 0
    out = capsys.readouterr().out
    assert "the layout step before (HEAD), on the same detections:" in out
    assert "before (HEAD) -> now:" in out and "on the labelled cards, winning hands:" in out
    # the figures once the player has answered, for the code before and now
    assert out.count("once the player has answered what the photo cannot tell") == 2
    assert "on the labelled cards, once answered:" in out
    assert mod.main([str(data), "--labelled-cards", "--before", "HEAD"]) == 0
    out = capsys.readouterr().out
    assert "now: layout step on the labelled cards of 2 scenes" in out
    assert "before (HEAD): layout step on the labelled cards of 2 scenes" in out
    assert "now:   once the player has answered" in out and "before (HEAD):   answers asked:" in out


def test_a_revision_git_cannot_show_is_one_line_and_exit_2(tuning_setup, capsys) -> None:
    data, _ = tuning_setup
    assert mod.main([str(data), "--labelled-cards", "--before", "no-such-revision"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zipai eval detector: --before no-such-revision: git cannot show")
    assert err.count("\n") == 1


def test_the_code_before_is_its_own_module_with_its_own_layout_package() -> None:
    import sys

    from zipai.models.before import scan_before
    from zipai.vision import scan

    old = scan_before("HEAD")
    assert old.scan_detections is not scan.scan_detections
    assert old.repair.__module__.startswith("zipai.vision._before.layout.")  # its own layout package
    assert sys.modules["zipai.vision._before.detector"] is sys.modules["zipai.vision.detector"]  # today's
    dets = [Detection("x1", (10, 10 + 30 * k, 40, 40 + 30 * k), 0.9, "black") for k in range(3)]
    assert [c.cards for c in old.scan_detections(200, 200, dets).columns] == \
        [c.cards for c in scan.scan_detections(200, 200, dets).columns]


def _measured(missed: dict[str, int], misread: dict[tuple[str, str], int], extras: dict[str, int],
              exact: list[bool]) -> mod.Measure:
    m = mod.Measure(None)  # type: ignore[arg-type]  # counted by hand: no scans
    m.cards_by.update({"x1": 10, "d7": 5, "back": 5})
    m.totals.scenes, m.totals.cards, m.exact, m.times = len(exact), 20, exact, [0.01] * len(exact)
    m.totals.missed, m.totals.confusions = dict(missed), dict(misread)
    m.totals.read = 20 - sum(missed.values()) - sum(misread.values())
    m.totals.extra, m.totals.exact = sum(extras.values()), sum(exact)
    m.extras_by.update(extras)
    return m


def test_the_model_before_is_printed_beside_this_one_by_class() -> None:
    """Missed and misread by the true card, extra finds by the card read, before -> now; the
    scenes only one model reads exactly are counted each way."""
    now = _measured({"back": 1}, {("d7", "x7"): 1}, {"x1": 2}, [True, True, False, True])
    before = _measured({"x1": 3}, {}, {}, [True, False, True, False])
    text = mod.against_before(now, before, Path("new.json"), Path("old.json"))
    rows = {ln.split()[0]: ln.split()[1:] for ln in text.splitlines()[1:] if ln.strip()}
    assert rows["x1"] == ["10", "3", "->", "0", "0", "->", "0", "0", "->", "2"]
    assert rows["d7"] == ["5", "0", "->", "0", "0", "->", "1", "0", "->", "0"]
    assert rows["back"] == ["5", "0", "->", "1", "0", "->", "0", "0", "->", "0"]
    assert next(ln for ln in text.splitlines() if "missed cards" in ln).split()[2:] == \
        ["3", "(15.00%)", "1", "(5.00%)"]
    assert "scenes exact with the model before only: 1, with this model only: 2" in text
    assert text.splitlines()[0].startswith("against the model before (old.json)")


def test_eval_detector_scans_with_the_model_before_in_the_same_run(tuning_setup, capsys) -> None:
    data, manifest = tuning_setup
    argv = [str(data), "--model", str(manifest), "--model-before", str(manifest), "--failures", "0"]
    assert mod.main(argv) == 0
    out = capsys.readouterr().out
    part = out[out.index("against the model before"):].splitlines()
    per_card = next(ln for ln in part if ln.strip().startswith("per card")).split()
    assert per_card[-1] == per_card[-2]  # the same model twice reads the same
    assert "scenes exact with the model before only: 0, with this model only: 0" in out
    extra = int(next(ln for ln in out.splitlines() if "extra_detections:" in ln).split()[-1])
    by_class = next((ln for ln in out.splitlines() if "extra detections by the card read" in ln), "")
    assert sum(int(w.split(" x")[-1]) for w in by_class.split(": ")[-1].split(", ") if " x" in w) == extra
    assert mod.main([str(data), "--model-before", str(data / "none.json")]) == 2
    assert "none.json" in capsys.readouterr().err


def test_the_layout_step_before_and_the_model_before_run_together(tuning_setup, capsys) -> None:
    """``--before REV`` and ``--model-before`` in one run: the layout step before lies beside
    this model's figures, and the model before beside this model."""
    data, manifest = tuning_setup
    argv = [str(data), "--model", str(manifest), "--model-before", str(manifest), "--before", "HEAD",
            "--failures", "0"]
    assert mod.main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("the layout step before (HEAD), on the same detections:") == 1
    assert "before (HEAD) -> now:" in out
    assert out.index("before (HEAD) -> now:") < out.index("against the model before")
    assert "scenes exact with the model before only: 0, with this model only: 0" in out
