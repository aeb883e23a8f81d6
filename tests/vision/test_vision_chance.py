"""The chance that a card is wrong, and the card doubts it chooses, on hand-made detections."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest
from test_vision_layout import HAND_ROW, TABLE_ROW, _scene

from zipai.models.evaluate import calibration_error
from zipai.models.tune.chance import bar_for, fit
from zipai.vision.errors import ModelError
from zipai.vision.layout import DoubtKind, Params, assemble, columns, propose_states
from zipai.vision.layout.chance import FEATURES, ChanceModel, evidence, load_chance, shipped_chance

BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"}
# a model that weighs the reader's doubt alone: a card read with probability q is wrong with
# chance 1 / (1 + e^(4 + 5 log q))
READER = ChanceModel(("bias", "reader_doubt"), (-4.0, 5.0), 0.5)


def _unsure(dets: list, card: str, prob: float, runner_up: str, k: int = 0) -> int:
    """Make the ``k``-th detection of ``card`` unsure, with ``runner_up`` as the reader's second
    choice; its index."""
    i = [n for n, d in enumerate(dets) if d.card == card][k]
    dets[i] = dataclasses.replace(dets[i], class_prob=prob, alternatives=((runner_up, 1 - prob), ("x1", 0.0)))
    return i


def _cols(dets: list) -> list:
    cols = columns(dets)
    propose_states(cols)
    return cols


def test_a_chance_is_the_logistic_of_the_weighed_evidence() -> None:
    x = np.zeros((2, len(FEATURES)))
    x[:, FEATURES.index("bias")] = 1.0
    x[1, FEATURES.index("reader_doubt")] = 1.0
    got = READER.chances(x)
    assert got == pytest.approx([1 / (1 + math.exp(4.0)), 1 / (1 + math.exp(-1.0))])


def test_a_chance_model_that_names_an_unknown_feature_or_no_bar_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="unknown features"):
        ChanceModel(("bias", "moon_phase"), (0.0, 1.0), 0.5)
    with pytest.raises(ModelError, match="not a probability"):
        ChanceModel(("bias",), (0.0,), 1.5)
    bad = tmp_path / "chance.json"
    bad.write_text('{"features": ["bias"]}', encoding="utf-8")
    with pytest.raises(ModelError, match="unreadable"):
        load_chance(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(READER.to_json()), encoding="utf-8")
    assert load_chance(good) == READER


def test_the_shipped_model_knows_its_features_and_was_fitted_on_validation_scenes() -> None:
    m = shipped_chance()
    assert set(m.features) <= set(FEATURES) and 0.0 < m.bar < 1.0
    assert m.notes["fitted_on"] and not any("heldout" in f for f in m.notes["fitted_on"])


def test_the_engine_is_asked_what_the_hand_makes_with_each_cards_runner_up() -> None:
    dets = _scene([TABLE_ROW, HAND_ROW])
    # x5 of the hand's x4 x5 x6 read as x5, runner-up x7: with x7 the hand makes no seven groups
    i = _unsure(dets, "x5", 0.6, "x7")
    ev = evidence(_cols(dets), dets, BASE)
    f = {name: ev.x[i, k] for k, name in enumerate(FEATURES)}
    assert ev.now.splits and ev.now.winning and ev.in_layout.all()
    assert f["splits"] == 1.0 and f["alt_splits"] == 0.0 and f["alt_only"] == 0.0
    assert f["reader_doubt"] == pytest.approx(-math.log(0.6)) and f["runner_up"] == pytest.approx(0.4)
    # without x5 the hand has a card too few for seven groups
    assert f["drop_splits"] == 0.0


def test_a_card_past_the_bar_is_a_doubt_with_its_alternatives_scored() -> None:
    dets = _scene([TABLE_ROW, HAND_ROW])
    i = _unsure(dets, "x5", 0.3, "x7")
    given = list(dets)
    asm = assemble(_cols(dets), dets, BASE, Params(chance_model=READER))
    assert dets == given and all(d.chance == 0.0 for d in dets)  # the chances come back, new values
    weighed = asm.detections
    assert [dataclasses.replace(d, chance=0.0) for d in weighed] == dets
    card = [d for d in asm.doubts if d.chance is not None]
    assert [d.detections for d in card] == [[i]]
    doubt = card[0]
    assert doubt.kind == DoubtKind.LOW_CONFIDENCE and doubt.card == "x5" and doubt.changes_pay
    assert doubt.chance == pytest.approx(weighed[i].chance) and weighed[i].chance > READER.bar
    # every other card is sure, and below the bar
    assert all(d.chance < READER.bar for n, d in enumerate(weighed) if n != i)
    j = doubt.to_json()
    assert j["total"] is not None and j["total"] > 0
    assert [a["card"] for a in j["alternatives"]] == ["x7", "x1", None]
    assert all(a["changes_pay"] and not a["splits"] and a["payouts"] == [0, 0, 0] for a in j["alternatives"])
    assert "x7" in doubt.message and "no other reading" not in doubt.message


def test_a_doubt_that_cannot_change_the_pay_says_so_and_comes_last() -> None:
    # the hand's d2 d7 d10 read as d2 d7 d9: no seven groups, nobody pays
    rows = [TABLE_ROW, [HAND_ROW[0], ["d2", "d7", "d9"], *HAND_ROW[2:]]]
    dets = _scene(rows)
    fixes = _unsure(dets, "d9", 0.3, "d10")  # its runner-up makes the win
    idle = _unsure(dets, "x4", 0.2, "x1")  # x4 is surer wrong, but no reading of it makes a win
    asm = assemble(_cols(dets), dets, BASE, Params(chance_model=READER))
    card = [d for d in asm.doubts if d.chance is not None]
    assert [d.detections[0] for d in card] == [fixes, idle]
    assert asm.detections[idle].chance > asm.detections[fixes].chance
    assert card[0].changes_pay and not card[1].changes_pay
    assert "no other reading changes what anyone pays" in card[1].message
    assert asm.doubts[-1] is card[1]  # after every other doubt, scene doubts too


def test_the_rule_before_names_a_card_for_each_reason_and_gives_no_chance() -> None:
    dets = _scene([TABLE_ROW, HAND_ROW])
    i = _unsure(dets, "x5", 0.5, "x7")
    asm = assemble(_cols(dets), dets, BASE, Params(doubt_rule="reasons", chance_model=READER))
    cards = [d for d in asm.doubts if d.kind != DoubtKind.CLAIMED_ROW]  # the rows: only a back told them
    assert [(d.kind, d.detections, d.chance) for d in cards] == [(DoubtKind.LOW_CONFIDENCE, [i], None)]
    assert "chance" not in cards[0].to_json()


def test_the_bar_flags_the_share_of_wrong_cards_asked_for() -> None:
    c = np.asarray([0.9, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.01])
    wrong = np.asarray([True, True, False, True, False, True, False, False])
    assert bar_for(c, wrong, 1.0) == 0.1
    assert bar_for(c, wrong, 0.75) == 0.3
    assert bar_for(c, np.zeros(8, bool), 0.98) == 1.0


def test_the_fit_finds_the_evidence_that_tells_wrong_cards_apart() -> None:
    rng = np.random.default_rng(0)
    doubt = rng.uniform(0, 3, 4000)
    y = (rng.uniform(0, 1, 4000) < 1 / (1 + np.exp(-(-3 + 2 * doubt)))).astype(float)
    w = fit(np.stack([np.ones(4000), doubt, rng.normal(size=4000)], axis=1), y)
    assert w[0] == pytest.approx(-3, abs=0.4) and w[1] == pytest.approx(2, abs=0.3) and abs(w[2]) < 0.2


def test_the_calibration_error_is_the_weighed_gap_between_chance_and_share_wrong() -> None:
    assert calibration_error([(0.05, False)] * 19 + [(0.05, True)]) == pytest.approx(0.0)
    assert calibration_error([(0.95, False)] * 10) == pytest.approx(0.95)


def test_the_tuner_never_fits_on_held_out_scenes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from zipai.models.tune import main as tune

    assert tune(["chance", str(tmp_path / "heldout"), "--out", str(tmp_path / "c.json")]) == 2
    assert "held-out scenes are for figures" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()
