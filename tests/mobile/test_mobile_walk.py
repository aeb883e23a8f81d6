"""The review walks the player through a photo's doubts, by touch on a 360×780 phone and a
1280×800 tablet: one flagged card at a time, most money first, each zoomed in with its answers
as big buttons; a photo with no doubt goes straight on to how the hand was won; every fix
re-scores the hand at once; 下一步 over an unchecked doubt shows that doubt.

The photos are one rendered scene (its labels read as the detector would), rendered once per
module; each test's photo is that scene with chosen cards misread."""

from __future__ import annotations

import copy
import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_mobile_table import pick_photo
from test_mobile_touch import answer, app_in, create_session, set_size
from test_mobile_ui import UI, truth_scan

from zipai.mobile.draft import FACES, Draft
from zipai.mobile.walk import Scorer, other_case, swapped

# The app's behaviour over a card doubt, not the fitted weights: a hand-set chance model
# (tests/conftest.py) makes the card these photos misread a doubt whatever the shipped bar.
pytestmark = pytest.mark.usefixtures("fixed_chance")

SIZES = ((360, 780), (1280, 800))
IDS = [f"{w}x{h}" for w, h in SIZES]
BASE = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 0, "won_by": "self_draw"}
TAP_BUDGET = 6  # from 拍照 to a confirmed hand, for a photo with one doubt
TAPS: dict[str, int] = {}


def misread(scan: Any, reads: list[tuple[int, str, list[tuple[str, float]]]]) -> Any:
    """The scan with each ``(detection, card, runner-ups)`` read wrong and unsure, the way the
    reader gets a card wrong: its column shows the wrong card too."""
    sc = copy.deepcopy(scan)
    for i, card, alts in reads:
        sc.detections[i] = dataclasses.replace(sc.detections[i], card=card, class_prob=0.41, score=0.41,
                                               alternatives=tuple(alts))
        for col in sc.columns:
            if i in col.detections:
                col.cards[col.detections.index(i)] = card
    return sc


class Scene:
    """The rendered scene and the cards its tests misread."""

    def __init__(self, base: Path) -> None:
        from zipai.engine import get_rules

        self.image = base / "scene.jpg"
        self.clean, self.truth = truth_scan(self.image, misread=False)
        draft = Draft.from_scan(self.clean.columns, self.clean.detections, str(self.image),
                                (self.clean.width, self.clean.height))
        score = Scorer(BASE, get_rules("hunan"))
        self.score = score(draft)
        assert self.score is not None and self.score[0] > 0
        faces = [(i, d.card) for i, d in enumerate(draft.detections) if d.card in FACES]
        # a card whose misread in the other script (六 as 陆) loses the win: it moves money
        self.money = next(i for i, c in faces if score(swapped(draft, i, other_case(c))) != self.score)
        # a card read right but unsure, whose runner-up would score the same: it moves nothing
        self.same, self.same_alt = next((i, f) for i, c in faces if i != self.money for f in FACES
                                        if f != c and score(swapped(draft, i, f)) == self.score)
        right = self.truth[self.money]
        wrong = other_case(right)
        assert wrong is not None
        self.one = misread(self.clean, [(self.money, wrong, [(right, 0.37)])])
        self.two = misread(self.one, [(self.same, self.truth[self.same], [(self.same_alt, 0.3)])])

    def scan(self, path: str) -> Any:
        """Each photo is a copy of the scene; its name says how it is read."""
        if Path(path) != self.image:
            shutil.copyfile(self.image, path)
        name = Path(path).name
        return self.two if name.startswith("two") else self.one if name.startswith("one") else self.clean


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Scene:
    return Scene(tmp_path_factory.mktemp("walk_scene"))


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory, scene: Scene) -> Iterator[UI]:
    with app_in(tmp_path_factory.mktemp("mobile_walk")) as ui:
        ui.app.state._scanner = scene.scan
        yield ui


def shoot(ui: UI, name: str, asked: bool = False) -> None:
    """拍照 → the photo → 用这张 (the desktop's shutter): the scan reads the scene."""
    pick_photo(ui, name)
    if asked:  # a hand is being entered: the photo replaces it only when asked
        answer(ui, "use_photo")


def back(ui: UI) -> None:
    bar = next(w for w in ui.screen.walk() if type(w).__name__ == "TopBar")
    ui.finger.tap(next(b for b in bar.children if getattr(b, "text", "") == "<"))


def card_width(ui: UI, det: int) -> float:
    view = ui.screen.ids.photo
    return view.to_widget_box(ui.app.state.draft.detections[det].box)[2]


# ------------------------------------------------------------------ the ranking, no window
def test_the_walk_ranks_money_first_and_says_when_a_card_changes_nothing(tmp_path: Path,
                                                                         scene: Scene) -> None:
    from zipai.mobile.state import AppState

    st = AppState(tmp_path / "data", scanner=scene.scan)
    try:
        st.new_session("rank", "hunan", ["甲", "乙", "丙"])
        st.load_photo(tmp_path / "two.jpg")
        steps = st.review_steps()
        cards = [s for s in steps if s.det is not None]
        assert [s.det for s in cards] == [scene.money, scene.same]
        first, last = cards
        assert first.options[0].face == other_case(scene.truth[scene.money])  # as read, first
        assert first.options[1].face == scene.truth[scene.money]  # the runner-up next
        assert first.change == scene.score[0] and first.matters  # the misread loses the win
        assert last.change == 0 and last.matters is False and steps[-1] is last  # changes nothing: last
        assert [o.score for o in last.options[:2]] == [0, 0]  # not winning until the first is fixed
        # the scene doubt the misread raises comes between, and is settled by a look
        scenes = [s for s in steps if s.det is None]
        assert scenes and steps.index(scenes[0]) == 1
        st.settle_scene(scenes[0].key)
        assert scenes[0].key not in [s.key for s in st.open_steps()]
        # the fix re-scores: the unsure card now shows what each answer would pay
        st.settle_card(scene.money, scene.truth[scene.money])
        assert st.running_score() == scene.score
        (left,) = st.open_steps()
        assert left.det == scene.same and [o.score for o in left.options[:2]] == [scene.score[0]] * 2
        assert not st.pending.ack
        st.settle_card(scene.same, scene.truth[scene.same])
        assert st.open_steps() == [] and st.pending.ack  # the last one ticks 已核对存疑
        # a restart keeps what was settled, and the next photo starts over, unticked
        again = AppState(tmp_path / "data", scanner=scene.scan)
        assert again.pending.ack and again.open_steps() == []
        again.load_photo(tmp_path / "two-b.jpg")
        assert not again.pending.ack and len(again.open_steps()) == len(steps)
        again.close()
    finally:
        st.close()


# ------------------------------------------------------------------ by touch
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_one_doubt_from_the_shutter_to_the_ledger_in_six_taps(ui: UI, scene: Scene,
                                                             size: tuple[int, int]) -> None:
    from kivy.metrics import dp

    st, f = ui.app.state, ui.finger
    set_size(ui, size)
    create_session(ui, f"walk-{size[0]}")
    t0 = f.taps
    shoot(ui, f"one-{size[0]}.jpg")
    scr = ui.screen
    assert scr.name == "review" and scr.ids.walk.shown
    step = scr.step
    assert step.det == scene.money and scr.ids.photo.selected == scene.money
    assert card_width(ui, scene.money) >= dp(64) - 0.5  # zoomed to fingertip size
    right = scene.truth[scene.money]
    assert st.t("walk_change", card=st.glyphs([right]), d=scene.score[0]) in scr.ids.walk_head.text
    f.tap(scr.walk_buttons[right])  # one tap settles it: no doubt left, on to how it was won
    assert ui.screen.name == "win" and st.pending.ack
    f.choose(ui.screen.ids.winner, 1)
    f.tap_text("score_it")
    assert ui.screen.name == "result" and st.result.score == scene.score[0]
    f.tap(ui.screen.ids.confirm)
    assert ui.screen.name == "ledger"
    e = st.sstate.history[-1]
    assert e.score == scene.score[0] and e.photo and Path(e.photo).is_file()
    TAPS[f"{size[0]}x{size[1]}"] = f.taps - t0
    print(f"one doubt, {size[0]}x{size[1]}: {f.taps - t0} taps from 拍照 to the ledger")
    assert f.taps - t0 <= TAP_BUDGET


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_every_new_photo_starts_unticked_and_walks_again(ui: UI, size: tuple[int, int]) -> None:
    st, f = ui.app.state, ui.finger
    set_size(ui, size)
    create_session(ui, f"tick-{size[0]}")
    shoot(ui, f"two-a-{size[0]}.jpg")
    assert ui.screen.name == "review" and ui.screen.ids.ack.state == "normal"
    f.tap(ui.screen.ids.ack)  # the player's own tick: the walk steps aside
    assert st.pending.ack and not ui.screen.ids.walk.shown
    back(ui)
    shoot(ui, f"two-b-{size[0]}.jpg", asked=True)
    assert ui.screen.name == "review" and st.draft.photo.endswith(f"two-b-{size[0]}.jpg")
    assert ui.screen.ids.ack.state == "normal" and not st.pending.ack and ui.screen.ids.walk.shown
    assert ui.screen.ids.walk_head.text.startswith(st.t("walk_step", i=1, n=len(st.review_steps()), what=""))
    # a new session: its first photo is walked from the start too
    create_session(ui, f"tick2-{size[0]}")
    shoot(ui, f"two-c-{size[0]}.jpg")
    assert ui.screen.ids.ack.state == "normal" and not st.pending.ack and ui.screen.ids.walk.shown


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_photo_without_doubts_goes_straight_to_how_it_was_won(ui: UI, scene: Scene,
                                                                size: tuple[int, int]) -> None:
    st = ui.app.state
    set_size(ui, size)
    create_session(ui, f"clean-{size[0]}")
    shoot(ui, f"clean-{size[0]}.jpg")
    assert ui.screen.name == "win" and not st.check().doubts
    back(ui)  # the review is one tap back, with nothing to walk
    assert ui.screen.name == "review" and not ui.screen.ids.walk.shown
    assert st.t("score", n=scene.score[0]) in ui.screen.check_text


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_fix_rescores_at_once_and_next_points_at_the_doubt_left(ui: UI, scene: Scene,
                                                                  size: tuple[int, int]) -> None:
    st, f = ui.app.state, ui.finger
    set_size(ui, size)
    create_session(ui, f"fix-{size[0]}")
    shoot(ui, f"two-{size[0]}.jpg")
    scr = ui.screen
    assert scr.step.det == scene.money and st.t("walk_lose") in scr.check_text
    # 别的牌… opens the whole pad on that card; its key fixes it, and the score follows at once
    f.tap(scr.walk_buttons["other"])
    assert st.editor.card == st.draft.locate(scene.money) and ui.app.status == st.t("walk_pick")
    f.tap(scr.ids.pad.keys[scene.truth[scene.money]])
    assert st.t("score", n=scene.score[0]) in scr.check_text and st.t("walk_lose") not in scr.check_text
    # on to the scene doubt the misread raised, if it outlived the fix, then the card that moves nothing
    while scr.step is not None and scr.step.det is None:
        f.tap(scr.walk_buttons["seen"])
    assert scr.step.det == scene.same and st.t("walk_same") in scr.ids.walk_head.text
    # 下一步 with it unchecked: refused with where, and the photo shows that card
    scr.ids.photo.zoom, scr.ids.photo.pan = 1.0, [0.5, 0.5]
    f.tap_text("next")
    assert ui.screen.name == "review"
    assert ui.app.status == st.t("doubts_where", n=1, what=scr.step_words(scr.step))
    assert scr.ids.photo.selected == scene.same and scr.ids.photo.zoom > 1
    f.tap(scr.walk_buttons[scene.truth[scene.same]])
    assert ui.screen.name == "win"
