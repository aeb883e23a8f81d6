"""Which row holds the claimed groups is a table's convention: asked once an evening, by touch on
a 360×780 phone and a 1280×800 tablet, the answer re-scores the photo, later photos that evening
are read with it and not asked, it outlives a restart, and a new evening asks again.

The photo is two rows of face-up triples, neither with a back, a pair or a lone card, so the
geometry can only guess which row was claimed: as guessed (the top row claimed) the hand does
not win; with the bottom row claimed it does."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from test_mobile_touch import app_in, create_session, set_size
from test_mobile_ui import UI
from test_mobile_walk import IDS, SIZES, shoot

from zipai.mobile.draft import BOTTOM, LEFT, RIGHT, TOP, Draft

TOP_ROW = [["d1"] * 3, ["d2"] * 3, ["d3"] * 3]
BOTTOM_ROW = [["x1", "x2", "x3"], ["x4", "x5", "x6"], ["x7", "x8", "x9"], ["d4", "d5", "d6"]]
BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 0, "won_by": "self_draw"}


def two_rows(swap: bool = False, side: bool = False) -> Any:
    """A vision scan of the two rows, laid out as a photo would show them (``swap``: the
    triples of sequences on top; ``side``: the two side by side in one long row, the triples
    on the left)."""
    from zipai.engine import Card
    from zipai.vision import Assembled, Detection, Scan, columns, propose_states, rescore

    dets = []
    for r, row in enumerate((BOTTOM_ROW, TOP_ROW) if swap else (TOP_ROW, BOTTOM_ROW)):
        for c, col in enumerate(row):
            for k, card in enumerate(col):
                x, y = (40 + c * 70 + r * 300, 60 + k * 40) if side else (40 + c * 70, 60 + r * 260 + k * 40)
                ink = "red" if Card.parse(card).is_red else "black"
                dets.append(Detection(card, (x, y, x + 56, y + 76), 0.99, ink, 0.99, 0.99))
    cols = columns(dets)
    propose_states(cols)
    return rescore(Scan(800, 600, dets, cols, Assembled({}, False, [])), BASE)


class Photos:
    def __init__(self, base: Path) -> None:
        self.image = base / "rows.jpg"
        Image.new("RGB", (800, 600), (40, 110, 60)).save(self.image)
        self.scan_ = two_rows()
        kinds = [str(d.kind.value) for d in self.scan_.assembled.doubts]
        assert "claimed_row" in kinds and not self.scan_.result.winning  # the guess loses the win

    def scan(self, path: str) -> Any:
        Path(path).write_bytes(self.image.read_bytes())
        return copy.deepcopy(self.scan_)


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Photos:
    return Photos(tmp_path_factory.mktemp("claimed_rows"))


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory, photos: Photos) -> Iterator[UI]:
    with app_in(tmp_path_factory.mktemp("mobile_claimed")) as ui:
        ui.app.state._scanner = photos.scan
        yield ui


def winning_score(side: bool = False) -> int:
    """The hand's score with the bottom (``side``: the right) row claimed, from the engine, not
    from this test."""
    from zipai.engine import get_rules
    from zipai.mobile.walk import Scorer

    s = two_rows(side=side)
    d = Draft.from_scan(s.columns, s.detections, "x.jpg", (800, 600))
    assert d.take_claimed(RIGHT if side else BOTTOM)
    now = Scorer(BASE, get_rules("hunan"))(d)
    assert now is not None and now[0] > 0
    return now[0]


# ------------------------------------------------------------------ the draft, no window
def test_the_answer_takes_the_row_where_it_lies_and_ends_the_guess() -> None:
    s = two_rows()
    d = Draft.from_scan(s.columns, s.detections, "x.jpg", (800, 600))
    assert d.claimed_place() == TOP
    assert d.take_claimed(BOTTOM)
    rows = {c.row for c in d.columns if c.cards and c.cards[0] == "d1"}
    assert rows == {"hand"} and d.claimed_place() is None  # no longer a guess: vision asks no more
    assert "claimed_row" not in {str(x.kind.value) for x in d.check(BASE).doubts}
    # the same table photographed the other way up: the answer names where, not which cards
    s = two_rows(swap=True)
    d = Draft.from_scan(s.columns, s.detections, "x.jpg", (800, 600))
    triples = [c for c in d.columns if c.cards and c.cards[0] == "d1"]
    assert d.claimed_place() == TOP and {c.row for c in triples} == {"hand"}
    assert d.take_claimed(BOTTOM)
    assert {(c.row, c.state) for c in triples} == {("table", "open")}


# ------------------------------------------------------------------ by touch
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_asked_once_an_evening_and_the_answer_rescores(ui: UI, size: tuple[int, int]) -> None:
    from zipai.mobile.state import AppState

    st, f = ui.app.state, ui.finger
    set_size(ui, size)
    won = winning_score()
    create_session(ui, f"rows-{size[0]}")
    shoot(ui, f"a-{size[0]}.jpg")
    scr = ui.screen
    assert scr.name == "review" and scr.ids.walk.shown and st.claimed_rule is None
    assert st.t("claimed_ask") in scr.ids.walk_head.text
    assert set(scr.walk_buttons) == {TOP, BOTTOM}
    assert st.running_score() is not None and st.running_score()[0] == 0  # as guessed: no win
    assert st.t("score", n=won) in scr.walk_buttons[BOTTOM].text  # each answer shows its score
    f.tap(scr.walk_buttons[BOTTOM])
    assert st.claimed_rule == BOTTOM and st.running_score()[0] == won  # the answer re-scored it
    assert ui.app.status == st.t("claimed_kept", row=st.t("claimed_bottom"))
    assert not st.open_steps() and ui.screen.name == "win"  # nothing left to walk
    f.choose(ui.screen.ids.winner, 0)  # recorded as the answer scored it
    f.tap_text("score_it")
    if ui.screen.name == "win":  # the engine asks which card won: any of them
        f.choose(ui.screen.ids.winning, next(iter(ui.screen.ids.winning.buttons)))
        f.tap_text("score_it")
    assert ui.screen.name == "result" and st.result.score == won
    f.tap(ui.screen.ids.confirm)
    assert ui.screen.name == "ledger" and st.sstate.history[-1].score == won
    # the evening's second photo: read the table's way, not asked
    shoot(ui, f"b-{size[0]}.jpg")
    assert st.draft.photo.endswith(f"b-{size[0]}.jpg") and st.running_score()[0] == won
    assert ui.screen.name == "win"
    # kept through a restart, with the evening
    again = AppState(st.data_dir, scanner=ui.app.state._scanner)
    try:
        assert again.claimed_rule == BOTTOM
    finally:
        again.close()
    # a new evening asks again
    create_session(ui, f"rows2-{size[0]}")
    shoot(ui, f"c-{size[0]}.jpg")
    assert ui.screen.name == "review" and set(ui.screen.walk_buttons) == {TOP, BOTTOM}
    assert st.running_score()[0] == 0


def test_the_evenings_answer_changes_in_settings(ui: UI) -> None:
    st, f = ui.app.state, ui.finger
    set_size(ui, (360, 780))
    create_session(ui, "rows-settings")
    shoot(ui, "s-1.jpg")
    f.tap(ui.screen.walk_buttons[TOP])  # the guess confirmed: still no win, and kept
    assert st.claimed_rule == TOP and st.running_score()[0] == 0
    ui.app.go("settings")
    ui.pump()
    choice = ui.screen.ids.claimed
    assert choice.value == TOP
    f.choose(choice, "")  # ask again at the next photo
    assert st.claimed_rule is None
    ui.app.go("ledger")
    ui.pump()
    shoot(ui, "s-2.jpg", asked=True)
    assert ui.screen.name == "review" and set(ui.screen.walk_buttons) == {TOP, BOTTOM}


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_rows_side_by_side_are_asked_left_or_right(ui: UI, photos: Photos, size: tuple[int, int]) -> None:
    """One long row split in two: the question offers the left and the right row, each with its
    score; the answer re-scores the photo and is the evening's, shown in the settings."""
    st, f = ui.app.state, ui.finger
    set_size(ui, size)
    side = two_rows(side=True)
    assert "claimed_row" in {str(d.kind.value) for d in side.assembled.doubts} and not side.result.winning
    won = winning_score(side=True)

    def scan(path: str) -> Any:
        Path(path).write_bytes(photos.image.read_bytes())
        return copy.deepcopy(side)

    st._scanner = scan
    try:
        create_session(ui, f"side-{size[0]}")
        shoot(ui, f"side-{size[0]}.jpg")
        scr = ui.screen
        assert scr.name == "review" and set(scr.walk_buttons) == {LEFT, RIGHT}
        assert st.t("claimed_right") in scr.walk_buttons[RIGHT].text
        assert st.t("score", n=won) in scr.walk_buttons[RIGHT].text
        f.tap(scr.walk_buttons[RIGHT])
        assert st.claimed_rule == RIGHT and st.running_score()[0] == won
        assert ui.app.status == st.t("claimed_kept", row=st.t("claimed_right"))
        ui.app.go("settings")
        ui.pump()
        choice = ui.screen.ids.claimed
        assert choice.value == RIGHT and set(choice.buttons) == {TOP, BOTTOM, LEFT, RIGHT, ""}
    finally:
        st._scanner = photos.scan
