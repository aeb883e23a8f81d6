"""The table app's real widgets, headless (SDL offscreen through Mesa): one app per module.

Every tap is a touch at the widget's window position, sent through the Window (``touch.Finger``):
a panel lying over a button makes the tap fail. ``pump`` lets Kivy lay out and draw. The kill test
runs this file as a script in a subprocess, kills it with SIGKILL after a confirmed hand and
starts it again.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

# The app's behaviour over a card doubt, not the fitted weights: a hand-set chance model
# (tests/conftest.py) makes the card these photos misread a doubt whatever the shipped bar.
pytestmark = pytest.mark.usefixtures("fixed_chance")

L1_GROUPS = (("open", ("d5", "d5", "d5")), ("concealed", ("x10", "x10", "x10")), ("open", ("x1", "x2", "x3")))
L1_HAND = ("x4", "x5", "x6", "d2", "d7", "d10", "x9", "x9", "x9", "d8", "d8", "x8")


def kivy_env(home: str) -> None:
    os.environ.update(KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1", KIVY_NO_FILELOG="1", KIVY_HOME=home,
                      SDL_VIDEODRIVER="offscreen", KIVY_CLIPBOARD="sdl2")
    os.environ.pop("DISPLAY", None)
    from kivy.config import Config

    Config.set("graphics", "width", "540")
    Config.set("graphics", "height", "960")
    Config.set("graphics", "maxfps", "0")  # frames as fast as they draw: taps wait on events, not fps


# ------------------------------------------------------------------ a scanner from a rendered scene
_FOUND: dict[tuple[int, bool], int] = {}  # (seed, loose) -> the scene that makes a winning layout
# The scenes an earlier search found first, tried before the search: one render a worker, not the
# 38 (59 with ``loose``) that the search renders up to them. Each is checked like any other scene;
# one that no longer passes (a changed renderer) sends the search through every scene again.
_KNOWN: dict[tuple[int, bool], int] = {(0, False): 37, (0, True): 58}
_RENDERS: dict[tuple[int, int], tuple[Any, list[dict[str, Any]], dict[str, Any]]] = {}  # the scenes used


def _render(seed: int, index: int) -> tuple[Any, list[dict[str, Any]], dict[str, Any]]:
    """The scene's photo, labels and metadata, rendered once a process for the scenes in use
    (a render is seeded: every one of the same scene is the same)."""
    from zipai.datasets import render_scene_full

    if (seed, index) in _RENDERS:
        return _RENDERS[(seed, index)]
    return render_scene_full(seed, "val", index, (800, 600))


def truth_scan(path: Path, seed: int = 0, misread: bool = True, loose: bool = False) -> tuple[Any, list[str]]:
    """A vision ``Scan`` of a synthetic photo, its detections taken from the scene's labels.

    The network is the one part replaced (the shipped model is tested by vision's own tests);
    columns, states, doubts and scoring are vision's and the engine's. A rendered scene whose
    labelled cards make a complete winning layout is used: the one an earlier search found first
    (``_KNOWN``), checked again, else the first that does. With ``misread`` one face is
    read wrong and unsure, as the detector may, so the review must correct it. With ``loose`` the
    cards lying apart (discards) are detected too, and the scene must have some that the layout
    step leaves out.
    """
    from zipai.engine import ALL_CARDS
    from zipai.vision import Assembled, Detection, Scan, columns, propose_states, rescore

    found = _FOUND.get((seed, loose))  # the scene found before: one render, not sixty
    known = _KNOWN.get((seed, loose))
    if found is not None:
        order: list[int] = list(range(found, 60))
    else:
        order = [*([known] if known is not None else []), *range(60)]
    for index in order:
        img, anns, meta = _render(seed, index)
        dets = []
        for a in anns:
            if a.get("ignore") or (a["row"] == "loose" and not loose):
                continue
            x, y, w, h = a["bbox"]
            cid = a["category_id"]
            card = "back" if cid == 21 else str(ALL_CARDS[cid - 1])
            dets.append(Detection(card, (x, y, x + w, y + h), 0.99, a["color"], 0.99, 0.99))
        dets.sort(key=lambda d: (d.box[1], d.box[0]))
        base = {k: v for k, v in meta["layout"].items() if k not in ("groups", "hand")}
        base.update(rules="hunan", winner=1, won_by="self_draw", dealer=0, players=3)
        cols = columns(dets)
        propose_states(cols)
        sc = rescore(Scan(img.width, img.height, dets, cols, Assembled({}, False, [])), base)
        kinds = {d.kind for d in sc.assembled.doubts}
        # with discards beside it, the claimed row may be only a guess, and then says so
        allowed = {"stray_cards", "claimed_row"} if loose else set()
        if (sc.assembled.complete and sc.result and sc.result.winning
                and kinds <= allowed and ("stray_cards" in kinds) == loose):
            _FOUND[(seed, loose)] = index
            _RENDERS[(seed, index)] = img, anns, meta
            break
    else:
        raise AssertionError("no rendered scene makes a complete winning layout")
    img.save(path, quality=85)
    truth = [d.card for d in dets]
    if misread:
        i = next(i for i, d in enumerate(dets) if d.card != "back")
        # as a reader unsure between two faces gives them
        wrong = "d1" if truth[i] != "d1" else "d4"
        sc.detections[i] = dataclasses.replace(sc.detections[i], card=wrong, class_prob=0.41, score=0.41,
                                               alternatives=((truth[i], 0.38),))
        sc = rescore(sc, base)
    return sc, truth


# ------------------------------------------------------------------ driving the widgets
class UI:
    def __init__(self, app: Any) -> None:
        from touch import Finger

        self.app = app
        self.finger = Finger(app)

    def pump(self, n: int = 3) -> None:
        self.finger.pump(n)

    @property
    def screen(self) -> Any:
        return self.app.sm.current_screen

    def press(self, button: Any) -> None:
        """A finger's tap on the button, where the Window draws it."""
        self.finger.tap(button)

    def button(self, text: str, root: Any = None) -> Any:
        """The shown button whose text is ``text``: in an open dialog, else on the screen."""
        if root is not None:
            found = [w for w in root.walk() if hasattr(w, "on_release") and getattr(w, "text", None) == text]
            assert found, f"no button {text!r}"
            return found[0]
        return self.finger.button(text)

    def tap_text(self, key: str, **kw: Any) -> None:
        self.press(self.button(self.app.state.t(key, **kw)))

    def answer(self, key: str, **kw: Any) -> None:
        """Tap the action's own word in the question a destructive action asks first."""
        from kivy.core.window import Window

        from zipai.mobile.widgets import Ask

        asks = [w for w in Window.children if isinstance(w, Ask)]
        assert asks, f"no question open on {self.screen.name}"
        want = self.app.state.t(key, **kw)
        assert asks[-1].yes_button.text == want, (asks[-1].yes_button.text, want)
        self.press(asks[-1].yes_button)

    def tap_at(self, x: float, y: float) -> None:
        self.finger.touch_at(x, y)

    def pad(self, face: str) -> None:
        self.press(self.screen.ids.pad.keys[face])

    def choose(self, choice: Any, value: Any) -> None:
        self.press(choice.buttons[value])

    def type_l1(self) -> None:
        ed = self.screen.ids.editor
        for n, (state, cards) in enumerate(L1_GROUPS):
            if n:
                self.tap_text("new_group")
            for c in cards:
                self.pad(c)
            target = self.app.state.editor.target
            while self.app.state.draft.columns[target].state != state:
                self.press(ed.flips[target])
        hand = self.app.state.draft.hand_column()
        self.press(ed.heads[hand])
        for c in L1_HAND:
            self.pad(c)

    def labels(self) -> str:
        return "\n".join(w.text for w in self.screen.walk() if getattr(w, "text", None))


def start_app(data: Path, scanner: Any = None) -> UI:
    from zipai.mobile.app import ZipaiApp

    app = ZipaiApp(data, scanner=scanner)
    app._run_prepare()
    ui = UI(app)
    ui.pump(5)
    return ui


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Any:
    base = tmp_path_factory.mktemp("mobile_ui")
    kivy_env(str(base / "kivy"))
    scans: dict[str, Any] = {}

    def scanner(path: str) -> Any:
        scans[path] = truth_scan(Path(path))
        return scans[path][0]

    ui = start_app(base / "data", scanner)
    ui.scans = scans  # type: ignore[attr-defined]
    ui.base = base  # type: ignore[attr-defined]
    yield ui
    ui.app.stop()
    ui.pump(2)


def new_session(ui: UI, name: str, preset: str = "hunan",
                players: tuple[str, ...] = ("甲", "乙", "丙")) -> None:
    ui.app.go("start")
    ui.pump()
    scr = ui.screen
    ui.finger.type_text(scr.ids.name, name)
    ui.choose(scr.ids.preset, preset)
    ui.choose(scr.ids.count, len(players))
    for ti, p in zip(scr.name_inputs, players, strict=True):
        ui.finger.type_text(ti, p)
    ui.tap_text("create")
    assert ui.screen.name == "ledger" and ui.app.state.session.name == name


def open_photo(ui: UI, photo: Path, scanner: Any) -> None:
    """Capture → pick ``photo`` → use it, read by ``scanner`` (None: the real detector)."""
    st = ui.app.state
    saved, st._scanner = st._scanner, scanner
    try:
        ui.tap_text("capture")
        ui.screen.ids.chooser.selection = [str(photo)]
        ui.tap_text("use_photo")
    finally:
        st._scanner = saved


def score_self_draw(ui: UI) -> None:
    """From the review: on to the win screen, seat 1 by self-draw, score it."""
    ui.tap_text("next")
    assert ui.screen.name == "win", ui.app.status
    ui.choose(ui.screen.ids.winner, 1)
    ui.choose(ui.screen.ids.won_by, "self_draw")
    ui.tap_text("score_it")


def score_it(ui: UI, card: str | None = None) -> None:
    """Tap 算分; when the engine asks for the winning card, pick ``card`` (or leave 不指定) and
    tap 算分 again."""
    ui.tap_text("score_it")
    if ui.screen.name == "win" and ui.screen.ids.winning_box.shown:
        if card is not None:
            ui.choose(ui.screen.ids.winning, card)
        ui.tap_text("score_it")


# ------------------------------------------------------------------ tests
def test_starts_on_the_start_screen_with_the_cjk_font(ui: UI) -> None:
    assert ui.screen.name == "start" and ui.app.font and Path(ui.app.font).is_file()
    from kivy.core.window import Window

    assert tuple(Window.size) == (540, 960)


def test_manual_entry_score_record_and_settle(ui: UI, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # the desktop share copies into the pictures folder (else home): a folder of the test's own
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".config"))
    new_session(ui, "manual")
    ui.tap_text("manual")
    assert ui.screen.name == "manual"
    ui.type_l1()
    assert "21" in ui.screen.check_text
    ui.tap_text("next")
    assert ui.screen.name == "win"
    ids = ui.screen.ids
    ui.choose(ids.winner, 1)
    ui.choose(ids.won_by, "discard")
    ui.choose(ids.from_seat, 2)
    score_it(ui, "x9")  # the engine says the winning card matters here, and the app asks
    assert ui.screen.name == "result"
    text = ui.labels()
    for needle in ("碰", "坎", "一二三", "贰柒拾", ui.app.state.t("score", n=26), "乙: +26", "丙: -16"):
        assert needle in text, needle
    ui.press(ui.screen.ids.confirm)
    assert ui.screen.name == "ledger"
    hist = ui.app.state.sstate.history
    assert len(hist) == 1 and hist[0].score == 26 and hist[0].payouts == [0, 26, -16]
    ui.tap_text("settle")
    assert ui.screen.name == "settle"
    assert "乙 付" not in ui.labels() and "丙 付 乙" in ui.labels()
    ui.tap_text("share_text")
    ui.tap_text("share_image")
    shared = ui.app.state.data_dir / "shared"
    sid = ui.app.state.session.id
    assert "丙 付 乙" in (shared / f"settlement-{sid}.txt").read_text(encoding="utf-8")
    assert (shared / f"settlement-{sid}.png").read_bytes()[:4] == b"\x89PNG"
    ui.press(ui.screen.ids.lock)
    assert not ui.app.state.sstate.locked  # it asks first
    ui.answer("lock")
    assert ui.app.state.sstate.locked and ui.app.state.t("locked") in ui.labels()
    ui.press(ui.screen.ids.lock)  # reopen, after its question
    ui.answer("reopen")
    assert not ui.app.state.sstate.locked


def test_draw_and_undo_from_the_ledger(ui: UI) -> None:
    new_session(ui, "draws")
    ui.tap_text("draw")
    ui.answer("draw")
    ui.tap_text("draw")
    ui.answer("draw")
    st = ui.app.state
    assert [e.kind for e in st.sstate.history] == ["draw", "draw"]
    assert ui.app.state.t("hand_no", n=2) + " · " + st.t("draw_entry") in ui.labels()
    ui.tap_text("undo")
    assert [e.kind for e in st.sstate.history] == ["draw", "draw"]  # it asks first
    ui.answer("undo")
    assert [e.kind for e in st.sstate.history] == ["draw"]
    ui.tap_text("undo")
    ui.answer("undo")
    ui.tap_text("undo")  # nothing left: a status line in the user's words, no crash
    assert st.sstate.history == [] and ui.app.status == st.t("error", msg=st.t.error("empty"))
    scr = ui.screen
    for ti, v in zip(scr.adjust_inputs, ("5", "-5", ""), strict=True):
        ui.finger.type_text(ti, v)
    ui.finger.type_text(scr.ids.reason, "更正")
    ui.tap_text("apply")
    e = st.sstate.history[-1]
    assert e.kind == "adjust" and e.reason == "更正" and st.sstate.round_totals == [5, -5, 0]


def test_cards_lying_apart_are_named_and_left_out(ui: UI) -> None:
    """Discards in the photo: the doubt names them in the user's language, their rows say left
    out, and the hand still scores without them."""
    new_session(ui, "strays")
    st = ui.app.state
    photo = ui.base / "strays.jpg"  # type: ignore[attr-defined]
    photo.write_bytes(b"")
    open_photo(ui, photo, lambda path: truth_scan(Path(path), misread=False, loose=True)[0])
    assert ui.screen.name == "review"
    ui.pump(2)
    assert "放在一边，不算" in ui.screen.ids.doubts.text and "lies apart" not in ui.screen.ids.doubts.text
    strays = [c for c in st.draft.columns if c.state == "loose"]
    heads = ui.screen.ids.editor.heads
    assert strays and all("不算" in heads[st.draft.columns.index(c)].text for c in strays)
    ui.press(ui.screen.ids.ack)
    score_self_draw(ui)
    assert ui.screen.name == "result" and st.result is not None and st.result.winning


def test_review_corrections_by_tap(ui: UI) -> None:
    new_session(ui, "photo")
    st = ui.app.state
    photo = ui.base / "table.jpg"  # type: ignore[attr-defined]
    ui.tap_text("capture")
    cap = ui.screen
    photo.write_bytes(b"")  # the file the chooser picks; the scanner renders the scene into it
    cap.ids.chooser.selection = [str(photo)]
    ui.tap_text("use_photo")
    assert ui.screen.name == "review"
    _sc, truth = ui.scans[str(photo)]  # type: ignore[attr-defined]
    bad = next(i for i, d in enumerate(st.draft.detections) if d.class_prob < 0.5)
    chk = st.check()
    assert any(bad in d.detections for d in chk.doubts)
    # tap the misread card's box on the photo, then the right face on the pad
    view = ui.screen.ids.photo
    x, y, w, h = view.to_widget_box(st.draft.detections[bad].box)
    ui.tap_at(x + w / 2, y + h / 2)
    assert st.editor.card == st.draft.locate(bad) and view.selected == bad
    ui.pad(truth[bad])
    assert st.draft.detections[bad].card == truth[bad]
    assert not any(bad in d.detections for d in st.check().doubts)
    # zoom in, drag, and a tap on a (moved) box still selects it; zoom back out
    ui.press(ui.button("+"))
    assert view.zoom > 1
    from kivy.tests.common import UnitTestTouch

    t = UnitTestTouch(view.center_x, view.center_y)
    t.touch_down()
    t.touch_move(view.center_x + 30, view.center_y + 20)
    t.touch_up()
    ui.pump()
    assert view.pan != [0.5, 0.5] and st.editor.card is None  # a drag is not a tap
    x, y, w, h = view.to_widget_box(st.draft.detections[bad].box)
    if view.collide_point(x + w / 2, y + h / 2):
        ui.tap_at(x + w / 2, y + h / 2)
        assert st.editor.card == st.draft.locate(bad)
        ui.tap_at(x + w / 2, y + h / 2)  # a second tap lets it go
    while view.zoom > 1:
        ui.press(ui.button("-"))
    assert view.pan == [0.5, 0.5] and st.editor.card is None
    # delete a card, add it back to the same group, flip a group twice and back
    ci, pos = 0, 0
    face = st.draft.columns[ci].cards[pos]
    ui.press(ui.screen.ids.editor.chips[(ci, pos)])
    ui.tap_text("delete")
    n = st.draft.count()
    ui.press(ui.screen.ids.editor.heads[ci])
    ui.pad(face)
    assert st.draft.count() == n + 1
    state0 = st.draft.columns[ci].state
    for _ in range(3):
        ui.press(ui.screen.ids.editor.flips[ci])
    assert st.draft.columns[ci].state == state0
    # move a hand card into a new group and back
    hand = st.draft.hand_column()
    card = st.draft.columns[hand].cards[-1]
    ui.press(ui.screen.ids.editor.chips[(hand, len(st.draft.columns[hand].cards) - 1)])
    ui.tap_text("move")
    ui.tap_text("new_group")
    assert st.editor.mode == "type"
    hand = st.draft.hand_column()
    ui.press(ui.screen.ids.editor.chips[(hand, len(st.draft.columns[hand].cards) - 1)])
    ui.tap_text("move")
    new = st.editor.target
    ui.press(ui.screen.ids.editor.heads[new])
    assert st.draft.columns[new].cards[-1] == card
    ui.press(ui.screen.ids.editor.chips[(new, len(st.draft.columns[new].cards) - 1)])
    ui.tap_text("move")
    ui.press(ui.screen.ids.editor.heads[st.draft.hand_column()])
    assert st.check().ready
    ui.tap_text("next")
    if ui.screen.name == "review":  # doubts left: the first unchecked one is shown, then ticked off
        left = st.open_steps()
        assert left and ui.app.status == st.t("doubts_where", n=len(left), what=ui.screen.step_words(left[0]))
        ui.press(ui.screen.ids.ack)
        ui.tap_text("next")
    assert ui.screen.name == "win"
    ui.choose(ui.screen.ids.winner, 1)
    ui.choose(ui.screen.ids.won_by, "self_draw")
    ui.tap_text("score_it")
    r = st.result
    assert r is not None and r.winning
    ui.press(ui.screen.ids.confirm)
    e = st.sstate.history[-1]
    assert e.photo and Path(e.photo).is_file() and e.score == r.score
    # the hand screen shows it, with its photo; deleting the photo keeps the hand
    ui.press(ui.button(next(w.text for w in ui.screen.ids.history.children)))
    assert ui.screen.name == "hand" and ui.screen.ids.photo.source == e.photo
    ui.press(ui.screen.ids.delphoto)
    assert Path(e.photo).exists()  # it asks first
    ui.answer("delete_photo")
    assert not Path(e.photo).exists() and len(st.sstate.history) == 1
    # edit the hand: won from the stock instead; the ledger replaces it
    ui.press(ui.screen.ids.edit)
    assert ui.screen.name == "manual" and st.pending.editing == 1
    ui.tap_text("next")
    ui.choose(ui.screen.ids.won_by, "stock")
    score_it(ui)
    shown = st.result.score
    ui.press(ui.screen.ids.confirm)
    hist = st.sstate.history
    assert len(hist) == 1 and hist[0].won_by == "stock" and hist[0].score == shown
    # and settle the evening
    ui.tap_text("settle")
    ui.press(ui.screen.ids.lock)
    ui.answer("lock")
    assert st.sstate.locked and sum(st.settlement().points) == 0


def test_sample_photo_to_a_settlement_with_the_shipped_model(ui: UI) -> None:
    """models/sample.jpg read by the shipped detector, reviewed, scored, recorded and settled."""
    from zipai.mobile.state import sample_photo
    from zipai.vision.detector import default_manifest

    photo = sample_photo()
    if photo is None or not default_manifest().is_file():
        pytest.skip("no shipped model or sample photo yet (models/)")
    new_session(ui, "sample")
    st = ui.app.state
    open_photo(ui, photo, None)  # the real detector, as the app runs it
    assert st.draft.detections
    if st.check().doubts:  # walked on the review; else straight on to how it was won
        assert ui.screen.name == "review"
        ui.pump(2)
        assert "lies apart" not in ui.screen.ids.doubts.text  # doubts in the user's language
        ui.press(ui.screen.ids.ack)
        score_self_draw(ui)
    else:
        assert ui.screen.name == "win"
        ui.choose(ui.screen.ids.winner, 1)
        ui.choose(ui.screen.ids.won_by, "self_draw")
        ui.tap_text("score_it")
    r = st.result
    assert ui.screen.name == "result" and r is not None
    assert r.winning, r.reason  # the sample is a winning layout the model reads right
    ui.press(ui.screen.ids.confirm)
    assert ui.screen.name == "ledger" and st.sstate.history[-1].photo
    ui.tap_text("settle")
    ui.press(ui.screen.ids.lock)
    ui.answer("lock")
    assert st.sstate.locked


def test_win_form_follows_the_rule_set_and_seats(ui: UI) -> None:
    new_session(ui, "gx", "guangxi")
    ui.app.go("win")
    ui.pump()
    ids = ui.screen.ids
    assert ids.min_box.shown and not ids.xing_box.shown and ids.minimum.value == 15
    assert not ids.xing_box.children  # hidden panels leave the widget tree
    ui.choose(ids.minimum, 25)
    assert ui.app.state.win.minimum == 25
    new_session(ui, "gl", "guilin")
    ui.app.go("win")
    ui.pump()
    assert not ids.min_box.shown and ids.xing_box.shown and not ids.min_box.children
    new_session(ui, "four", "hunan", ("a", "b", "c", "d"))
    ui.app.go("win")
    ui.pump()
    # four Hunan players: the dealer's opposite sits the hand out (数审) and cannot win
    assert ids.winner.buttons[2].disabled and not ids.winner.buttons[1].disabled
    ui.choose(ids.won_by, "discard")
    assert ids.from_box.shown and ids.from_box.children


def test_guangxi_double_instant_win_by_tap(ui: UI) -> None:
    new_session(ui, "double", "guangxi")
    st = ui.app.state
    for n, (winner, cards) in enumerate(((1, ["x1"] * 4 + ["x2"] * 4 + ["x3"] * 4 + ["x5", "x6", "x8"]),
                                         (2, ["d1"] * 4 + ["d2"] * 4 + ["d3"] * 4 + ["x8", "x9", "d5"]))):
        if n == 0:
            ui.tap_text("manual")
        assert ui.screen.name == "manual"
        ui.press(ui.screen.ids.editor.heads[st.draft.hand_column()])
        for c in cards:
            ui.pad(c)
        ui.tap_text("next")
        ids = ui.screen.ids
        ui.choose(ids.winner, winner)
        ui.choose(ids.won_by, "dealt")
        if n == 0:
            assert ids.double_box.shown
            ui.press(ids.double)
    assert st.t("double_held", name="乙") in ui.labels() and not ui.screen.ids.double_box.shown
    ui.tap_text("score_it")
    assert ui.screen.name == "result" and st.t("double_winners", names="丙") in ui.labels()
    ui.press(ui.screen.ids.confirm)
    e = st.sstate.history[-1]
    assert e.kind == "double" and e.payouts == [-36, -36, 72]  # 36 > 27: the higher wins alone, both pay


def test_name_an_all_back_group(ui: UI) -> None:
    new_session(ui, "backs")
    ui.tap_text("manual")
    ui.press(ui.screen.ids.editor.flips[0])  # open -> concealed
    for _ in range(3):
        ui.pad("back")
    assert not ui.app.state.check().ready
    ui.press(ui.screen.ids.editor.namers[0])
    ui.pad("d6")
    assert ui.app.state.check().layout["groups"] == [{"cards": ["d6"] * 3, "state": "concealed"}]


def test_rotation_portrait_and_landscape(ui: UI) -> None:
    from kivy.core.window import Window

    new_session(ui, "rotate")
    ui.tap_text("manual")
    ui.type_l1()
    for size in ((960, 540), (540, 960), (1280, 800)):
        Window.size = size
        ui.pump(4)
        for name in ("manual", "ledger", "win"):
            ui.app.go(name)
            ui.pump(4)
            scr = ui.screen
            assert tuple(scr.size) == tuple(Window.size)
            pad = scr.ids.get("pad")
            if pad is not None:
                assert pad.cols == (10 if pad.width > 640 else 7)
                keys = list(pad.keys.values())
                assert all(k.right <= Window.width + 1 and k.x >= -1 and k.width >= 40 for k in keys)
        ui.app.go("review")
        ui.pump(3)
        box = ui.screen.children[0].children[0]
        assert box.orientation == ("horizontal" if size[0] > size[1] else "vertical")
    Window.size = (540, 960)
    ui.pump(4)


def test_language_and_script(ui: UI) -> None:
    new_session(ui, "lang")
    ui.app.go("settings")
    ui.pump()
    ui.choose(ui.screen.ids.lang, "en")
    assert ui.button("Back up") and ui.app.state.settings.lang == "en"
    ui.choose(ui.screen.ids.lang, "zh_Hant")
    ui.app.go("manual")
    ui.pump()
    assert ui.screen.ids.pad.keys["d2"].text == "貳" and ui.screen.ids.pad.keys["d6"].text == "陸"
    ui.app.go("settings")
    ui.pump()
    ui.choose(ui.screen.ids.lang, "zh_Hans")
    assert ui.app.state.t("ledger") == "账本"


def test_screenshots_walk_every_screen(tmp_path: Path) -> None:
    """``zipai app --screenshots DIR``: one PNG per screen, drawn (not the black first frame), small."""
    from PIL import Image, ImageStat

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "KIVY_HOME")}
    res = subprocess.run([sys.executable, "-m", "zipai.cli", "app", "--screenshots", str(tmp_path / "shots"),
                          "--size", "540x960"], capture_output=True, text=True, env=env, timeout=240)
    assert res.returncode == 0, res.stderr[-2000:]
    shots = sorted((tmp_path / "shots").glob("*.png"))
    names = [p.stem.split("-", 1)[1] for p in shots]
    for screen in ("start", "settings", "capture", "manual", "win", "result", "ledger", "hand", "settle",
                   "quick", "teach"):
        assert screen in names
    from zipai.mobile.state import sample_photo
    from zipai.vision.detector import default_manifest

    if sample_photo() is not None and default_manifest().is_file():
        assert "review" in names  # the sample photo read by the shipped model
    for p in shots:
        im = Image.open(p).convert("L")
        assert im.size == (540, 960) and p.stat().st_size < 300_000
        assert ImageStat.Stat(im).mean[0] > 60, f"{p.name} looks black"


def test_a_restart_returns_to_the_screen_it_can(ui: UI) -> None:
    new_session(ui, "resume")
    st = ui.app.state
    for last, want in (("manual", "manual"), ("win", "win"), ("result", "win"), ("settle", "settle"),
                       ("hand", "ledger"), ("review", "manual")):
        st.settings.screen = last
        assert ui.app.first_screen() == want, last
    st.draft.photo = str(ui.base / "table.jpg")  # type: ignore[attr-defined]
    Path(st.draft.photo).write_bytes(b"x")
    st.settings.screen = "review"
    assert ui.app.first_screen() == "review"
    st.start_manual()


def test_bad_command_lines_get_one_line(tmp_path: Path) -> None:
    from zipai.mobile.main import main

    assert main(["--size", "10x10"]) == 2 and main(["--size", "wide"]) == 2
    (tmp_path / "file").write_text("x")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "ledger.db").write_text("not a database, only text that is long enough to be read" * 4)
    env = {**os.environ, "SDL_VIDEODRIVER": "offscreen", "KIVY_HOME": str(tmp_path / "kivy")}
    for data, words in ((tmp_path / "file", "not a folder"), (bad, "not a zipai ledger")):
        res = subprocess.run([sys.executable, "-m", "zipai.cli", "app", "--data", str(data)],
                             capture_output=True, text=True, env=env, timeout=120)
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2 and len(lines) == 1 and words in lines[0], res.stderr[-1500:]


# ------------------------------------------------------------------ nothing is lost (subprocess)
def _drive(data: str, mode: str) -> None:
    """The subprocess: ``record`` confirms a hand, starts typing the next, then waits to be killed;
    ``check`` prints what a restarted app shows."""
    kivy_env(str(Path(data) / "kivy"))
    ui = start_app(Path(data))
    st = ui.app.state
    if mode == "record":
        new_session(ui, "kill")
        ui.tap_text("manual")
        ui.type_l1()
        ui.tap_text("next")
        ui.choose(ui.screen.ids.winner, 1)
        ui.choose(ui.screen.ids.won_by, "stock")
        score_it(ui)
        ui.press(ui.screen.ids.confirm)
        print("CONFIRMED", len(st.sstate.history), flush=True)
        ui.tap_text("manual")
        for c in ("d2", "d7", "d10"):
            ui.pad(c)
        print("TYPED", flush=True)
        while True:
            ui.pump(1)
            time.sleep(0.05)
    else:
        hist = st.sstate.history
        print(json.dumps({"screen": ui.screen.name, "hands": [[e.kind, e.score] for e in hist],
                          "draft": [c.cards for c in st.draft.columns],
                          "editor_rows": len(ui.screen.ids.editor.rows)}), flush=True)


def test_a_confirmed_hand_survives_a_kill(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, __file__, str(tmp_path), "record"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.strip())
            if line.startswith("TYPED"):
                break
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    assert "CONFIRMED 1" in lines and "TYPED" in lines, (lines, proc.stderr.read() if proc.stderr else "")
    out = subprocess.run([sys.executable, __file__, str(tmp_path), "check"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    shown = json.loads(out.stdout.strip().splitlines()[-1])
    assert shown["hands"] == [["hand", 18]]  # RULINGS section 8: Hunan, stock
    assert shown["screen"] == "manual" and ["d2", "d7", "d10"] in shown["draft"]
    assert shown["editor_rows"] >= 1


if __name__ == "__main__":
    _drive(sys.argv[1], sys.argv[2])
    sys.exit(0)
