"""The player's answers on hand-built columns: where the claimed row lies, the table's convention
taking it, an all-back group named; each returns new columns and leaves its input alone. Then
the same answer through the scan API and ``zipai scan --claimed``.

The photo is two rows of face-up triples, neither with a back, a pair or a lone card, so the
geometry can only guess which row was claimed: as guessed (the top row claimed) the hand does
not win; with the bottom row claimed it does.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from zipai.engine import Card
from zipai.vision.detector import Detection
from zipai.vision.layout import (
    BOTTOM,
    CONCEALED,
    FREE,
    HAND,
    LEFT,
    OPEN,
    RIGHT,
    TABLE,
    TOP,
    AnswerError,
    Column,
    all_backs,
    claimed_place,
    name_group,
    take_claimed,
)

TRIPLES = [["d1"] * 3, ["d2"] * 3, ["d3"] * 3]
RUNS = [["x1", "x2", "x3"], ["x4", "x5", "x6"], ["x7", "x8", "x9"], ["d4", "d5", "d6"]]
BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 0, "won_by": "self_draw"}


def _layout(top: list[list[str]] = TRIPLES, bottom: list[list[str]] = RUNS, guess: str = "alike",
            side: bool = False) -> tuple[list[Column], list[Detection]]:
    """``top`` as the claimed row (proposed open), ``bottom`` as the hand, one above the other
    (``side``: the second row to the right of the first), the rows a guess when ``guess``."""
    cols, dets = [], []
    for r, (row, rows) in enumerate(((TABLE, top), (HAND, bottom))):
        for c, cards in enumerate(rows):
            at = []
            for k, card in enumerate(cards):
                x = 40 + c * 70 + (r * 400 if side else 0)
                y = 60 + k * 40 + (0 if side else r * 260)
                ink = None if card == "back" else "red" if Card.parse(card).is_red else "black"
                at.append(len(dets))
                dets.append(Detection(card, (x, y, x + 56, y + 36), 0.99, ink, 0.99, 0.99))
            state = CONCEALED if "back" in cards else OPEN if row == TABLE else FREE
            cols.append(Column(at, list(cards), row, state, row_guess=guess))
    return cols, dets


def test_the_claimed_row_lies_where_its_cards_lie_while_it_is_a_guess() -> None:
    cols, dets = _layout()
    assert claimed_place(cols, dets) == TOP
    cols, dets = _layout(RUNS, TRIPLES)  # the table's row is still the one taken as claimed: the top
    assert claimed_place(cols, dets) == TOP
    swapped = [c.copy(row=HAND if c.row == TABLE else TABLE) for c in cols]
    assert claimed_place(swapped, dets) == BOTTOM
    assert claimed_place(*_layout(guess="")) is None  # told apart: nothing to ask
    cols, dets = _layout(side=True, guess="split")  # one long row split at its widest gap
    assert claimed_place(cols, dets) == LEFT
    assert claimed_place([c.copy(row=HAND if c.row == TABLE else TABLE) for c in cols], dets) == RIGHT


def test_the_convention_takes_the_row_at_its_place_and_ends_the_guess() -> None:
    cols, dets = _layout()
    before = copy.deepcopy(cols)
    out = take_claimed(cols, dets, BOTTOM)
    assert out is not None and cols == before  # the input is left as it was
    assert [(c.row, c.state) for c in out[:3]] == [(HAND, FREE)] * 3  # the triples: revealed hand
    assert [(c.row, c.state) for c in out[3:]] == [(TABLE, OPEN)] * 4  # the runs: claimed
    assert all(c.row_guess == "" for c in out) and claimed_place(out, dets) is None
    same = take_claimed(cols, dets, TOP)  # the guess was right: the rows stay, no longer a guess
    assert same is not None and [(c.row, c.state, c.row_guess) for c in same] == \
        [(c.row, c.state, "") for c in cols]
    assert take_claimed(*_layout(guess=""), BOTTOM) is None
    with pytest.raises(AnswerError, match="the left or the right, not 'middle'"):
        take_claimed(cols, dets, "middle")


def test_rows_side_by_side_take_a_left_or_right_answer_only() -> None:
    cols, dets = _layout(side=True, guess="split")
    assert take_claimed(cols, dets, BOTTOM) is None  # above or below says nothing of rows side by side
    assert take_claimed(*_layout(), LEFT) is None  # nor left or right of rows one above the other
    out = take_claimed(cols, dets, RIGHT)
    assert out is not None and [(c.row, c.state) for c in out[3:]] == [(TABLE, OPEN)] * 4
    assert [(c.row, c.state) for c in out[:3]] == [(HAND, FREE)] * 3 and claimed_place(out, dets) is None


def test_an_all_back_group_is_named_by_the_player() -> None:
    cols, _ = _layout(top=[["back"] * 3, ["x10", "back", "back"], ["d1"] * 3])
    assert all_backs(cols) == [0]  # a face over backs shows its card; backs alone do not
    before = copy.deepcopy(cols)
    out = name_group(cols, 0, "x7")
    assert cols == before and out[0].name == "x7" and out[0] is not cols[0]
    assert all_backs(out) == [] and all(a == b for a, b in zip(out[1:], cols[1:], strict=True))
    assert name_group(out, 0, None)[0].name is None  # the name cleared
    with pytest.raises(AnswerError, match="face card, not 'back'"):
        name_group(cols, 0, "back")
    with pytest.raises(AnswerError, match="no group 9"):
        name_group(cols, 8, "x7")


# ------------------------------------------------------------------ the scan API and the CLI
def _scan() -> Any:
    from zipai.vision import Assembled, Scan, rescore

    cols, dets = _layout()
    return rescore(Scan(800, 600, dets, cols, Assembled({}, False, [])), BASE)


def test_with_claimed_rescores_a_new_scan() -> None:
    from zipai.vision.scan import with_claimed

    sc = _scan()
    assert "claimed_row" in {d.kind.value for d in sc.assembled.doubts} and not sc.result.winning
    got = with_claimed(sc, BOTTOM, BASE)
    assert got.result.winning and "claimed_row" not in {d.kind.value for d in got.assembled.doubts}
    assert sc.columns[0].row == TABLE and not sc.result.winning  # the scan given is left alone
    told = with_claimed(got, TOP, BASE)
    assert told is got  # the rows are no longer a guess: nothing to answer


@pytest.fixture
def cli_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``zipai scan`` with the two rows as what the detector read (no network runs)."""
    from zipai.vision import scan as scan_mod

    monkeypatch.setattr(scan_mod, "default_detector", lambda threads=2: None)
    monkeypatch.setattr(scan_mod, "scan_decoded", lambda img, det, base, deck=None: _scan())
    photo = tmp_path / "rows.jpg"
    Image.new("RGB", (800, 600), (40, 110, 60)).save(photo)
    return photo


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    from zipai.vision.cli import main

    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_scan_takes_the_tables_convention(cli_scan: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flags = [str(cli_scan), "--json", "--winner", "0", "--won-by", "self_draw"]
    plain = _json(flags, capsys)
    assert "claimed_row" in {d["kind"] for d in plain["doubts"]} and not plain["result"]["winning"]
    got = _json([*flags, "--claimed", "bottom"], capsys)
    assert "claimed_row" not in {d["kind"] for d in got["doubts"]} and got["result"]["winning"]
    assert {g["row"] for g in got["groups"] if g["cards"][0] == "d1"} == {HAND}
    top = _json([*flags, "--claimed", "top"], capsys)
    assert "claimed_row" not in {d["kind"] for d in top["doubts"]} and not top["result"]["winning"]
    assert {g["row"] for g in top["groups"] if g["cards"][0] == "d1"} == {TABLE}
    aside = _json([*flags, "--claimed", "right"], capsys)  # the rows lie one above the other: no answer
    assert aside == plain


def test_an_unknown_place_is_one_line_and_exit_2(
        cli_scan: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from zipai.vision.cli import main

    assert main([str(cli_scan), "--claimed", "middle"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--claimed" in err and "'middle'" in err
