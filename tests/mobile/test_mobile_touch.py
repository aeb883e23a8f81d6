"""The table app driven the way a player drives it: touches at window coordinates, through the
Window, on a 360×780 phone, a 540×960 phone and a 1280×800 tablet (issue 47).

* every shown button on every screen, for each rule set, is probed: a touch at its centre
  must reach it (a hidden panel lying over it fails the probe);
* a scripted evening (4 hands, one 点炮, one from a photo and one entered by its total, one
  undone and redone, a draw, then settle and lock) passes on each window size, and counts the
  taps per hand;
* no English sentence reaches a Chinese screen; the score is explained line by line.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_mobile_ui import L1_GROUPS, L1_HAND, UI, kivy_env, start_app, truth_scan

from zipai.engine import Result

# The app's behaviour over a card doubt, not the fitted weights: a hand-set chance model
# (tests/conftest.py) makes the card these photos misread a doubt whatever the shipped bar.
pytestmark = pytest.mark.usefixtures("fixed_chance")

SIZES = ((360, 780), (540, 960), (1280, 800))
PRESETS = ("hunan", "guangxi", "guilin")
ENGLISH = re.compile(r"[A-Za-z]{2,}[ ,.'’]+[A-Za-z]{2,}")


@contextlib.contextmanager
def app_in(base: Path) -> Iterator[UI]:
    """The app on a data folder under ``base``, its scans read from the photos' labels; stopped
    at the phone size it started at."""
    kivy_env(str(base / "kivy"))

    def scanner(path: str) -> Any:
        return truth_scan(Path(path))[0]

    ui = start_app(base / "data", scanner)
    ui.base = base  # type: ignore[attr-defined]
    try:
        yield ui
    finally:
        set_size(ui, (540, 960))
        ui.app.stop()
        ui.pump(2)


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UI]:
    with app_in(tmp_path_factory.mktemp("mobile_touch")) as ui:
        yield ui


def set_size(ui: UI, size: tuple[int, int]) -> None:
    from kivy.core.window import Window

    ui.finger.settle()
    Window.size = size
    ui.finger.wait(0.2)
    assert tuple(Window.size) == size


# ------------------------------------------------------------------ a player's steps
def create_session(ui: UI, name: str, preset: str = "hunan",
                   players: tuple[str, ...] = ("甲", "乙", "丙")) -> None:
    f = ui.finger
    ui.app.go("start")
    ui.pump()
    scr = ui.screen
    f.type_text(scr.ids.name, name)
    f.choose(scr.ids.preset, preset)
    f.choose(scr.ids.count, len(players))
    for ti, p in zip(scr.name_inputs, players, strict=True):
        f.type_text(ti, p)
    f.tap_text("create")
    assert ui.screen.name == "ledger" and ui.app.state.session.name == name


def type_layout(ui: UI, groups: Any = L1_GROUPS, hand: Any = L1_HAND) -> None:
    """On the editor: each group's cards on the pad, its label flipped to open/concealed, then
    the hand row's label and its cards."""
    st, f = ui.app.state, ui.finger
    ed = ui.screen.ids.editor
    for n, (state, cards) in enumerate(groups):
        if n:
            f.tap_text("new_group")
        for c in cards:
            f.tap(ui.screen.ids.pad.keys[c])
        target = st.editor.target
        while st.draft.columns[target].state != state:
            f.tap(ed.flips[target])
    f.tap(ed.heads[st.draft.hand_column()])
    for c in hand:
        f.tap(ui.screen.ids.pad.keys[c])


def win_and_score(ui: UI, winner: int, won_by: str, discarder: int | None = None,
                  card: str | None = None) -> None:
    f = ui.finger
    f.tap_text("next")
    assert ui.screen.name == "win", ui.app.status
    ids = ui.screen.ids
    f.choose(ids.winner, winner)
    f.choose(ids.won_by, won_by)
    if discarder is not None:
        f.choose(ids.from_seat, discarder)
    if card is not None and ids.winning_box.shown:
        f.choose(ids.winning, card)
    f.tap_text("score_it")
    if ui.screen.name == "win" and ids.winning_box.shown:  # the engine asks: the card matters
        if card is not None and card in ids.winning.buttons:
            f.choose(ids.winning, card)
        f.tap_text("score_it")
    assert ui.screen.name == "result", ui.app.status


def answer(ui: UI, key: str) -> None:
    ui.answer(key)


# ------------------------------------------------------------------ the finger itself
def test_the_probe_fails_under_a_disabled_transparent_panel(ui: UI) -> None:
    """What issue 47 found: a panel at opacity 0, disabled, over a button takes its touches."""
    from kivy.uix.widget import Widget

    ui.app.go("settings")
    ui.pump()
    f = ui.finger
    target = f.button(ui.app.state.t("backup"))
    assert f.reaches(target)
    from kivy.core.window import Window

    f.bring_into_view(target)
    lid = Widget(opacity=0, disabled=True, size_hint=(None, None), size=target.size,
                 pos=target.to_window(*target.pos))
    Window.add_widget(lid)
    ui.pump()
    try:
        assert not f.reaches(target)
    finally:
        Window.remove_widget(lid)


# ------------------------------------------------------------------ every button, every screen
def reach_all(ui: UI, where: str, missed: list[str]) -> int:
    f = ui.finger
    ui.pump(3)
    buttons = f.buttons()
    for b in buttons:
        # a busy machine lays a screen out over several frames (a CI run missed one button of
        # 690 once): a button that misses is probed again once the screen has drawn some more;
        # one under a lid or off the screen misses both times
        if f.reaches(b):
            continue
        ui.pump(10)
        if not f.reaches(b):
            missed.append(f"{where}: {type(b).__name__}({getattr(b, 'text', '')!r})")
    f.settle()
    return len(buttons)


@pytest.mark.parametrize("preset", PRESETS)
def test_every_shown_button_takes_a_touch(ui: UI, preset: str) -> None:
    st = ui.app.state
    missed: list[str] = []
    probed = 0
    for size in SIZES:
        set_size(ui, size)
        tag = f"{preset} {size[0]}x{size[1]}"
        create_session(ui, f"probe-{preset}-{size[0]}", preset)
        st.start_manual()
        st.editor.enter(L1_GROUPS, L1_HAND)
        st.changed()
        for name in ("manual", "win"):
            ui.app.go(name)
            probed += reach_all(ui, f"{tag} {name}", missed)
        for won_by in ("self_draw", "stock", "discard", "dealt"):
            st.win.winner, st.win.won_by = 1, won_by
            st.win.discarder = 2 if won_by == "discard" else None
            st.changed()
            ui.app.go("win")
            probed += reach_all(ui, f"{tag} win/{won_by}", missed)
        st.win.won_by, st.win.discarder = "stock", None
        st.changed()
        if st.score().winning:
            ui.app.go("result")
            probed += reach_all(ui, f"{tag} result", missed)
            st.confirm()
        st.record_draw()
        for name in ("ledger", "settle", "settings", "start", "capture", "teach"):
            ui.app.go(name)
            probed += reach_all(ui, f"{tag} {name}", missed)
        ui.app.sm.get_screen("hand").no = 1
        ui.app.go("hand")
        probed += reach_all(ui, f"{tag} hand", missed)
        if preset == "hunan":
            photo = ui.base / f"probe-{size[0]}.jpg"  # type: ignore[attr-defined]
            photo.write_bytes(b"")
            st.load_photo(photo)
            ui.app.go("review")
            probed += reach_all(ui, f"{tag} review", missed)
            st.start_manual()
    set_size(ui, (540, 960))
    assert probed > 150 and not missed, "\n".join(missed)


# ------------------------------------------------------------------ the scripted evening
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_scripted_evening_by_touch(ui: UI, size: tuple[int, int]) -> None:
    st, f = ui.app.state, ui.finger
    set_size(ui, size)
    create_session(ui, f"evening-{size[0]}")
    taps: dict[str, int] = {}

    def count(label: str, start: int) -> None:
        taps[label] = f.taps - start

    # hand 1: typed, won from the stock by 乙 (RULINGS section 8: 18)
    t0 = f.taps
    f.tap_text("manual")
    type_layout(ui)
    win_and_score(ui, 1, "stock")
    f.tap(ui.screen.ids.confirm)
    count("typed, stock", t0)
    assert ui.screen.name == "ledger" and ui.app.status == st.t("recorded", n=1)
    # hand 2: typed, 点炮: 丙 wins on 甲's discard of 九 (RULINGS section 8: 26 with x9)
    t0 = f.taps
    f.tap_text("manual")
    type_layout(ui)
    win_and_score(ui, 2, "discard", discarder=0, card="x9")
    result = st.result
    assert isinstance(result, Result) and result.winning and result.payouts[0] < 0
    assert st.t("score", n=result.score) in ui.labels()
    f.tap(ui.screen.ids.confirm)
    count("typed, discard", t0)
    assert st.sstate.history[-1].discarder == 0
    # hand 3: from a photo, one misread card corrected on the photo; self-drawn by the dealer.
    # Two cards were typed first: the photo replaces them only when asked, and is read on a
    # worker thread while the screen keeps drawing
    f.tap_text("manual")
    for c in ("d2", "d7"):
        f.tap(ui.screen.ids.pad.keys[c])
    f.tap_text("ledger")
    t0 = f.taps
    f.tap_text("capture")
    photo = ui.base / f"evening-{size[0]}.jpg"  # type: ignore[attr-defined]
    photo.write_bytes(b"")
    ui.screen.ids.chooser.selection = [str(photo)]  # the file chooser is the capture screen's own
    f.tap_text("use_photo")
    assert ui.screen.name == "capture" and st.draft.count() == 2  # asked first
    from kivy.clock import Clock

    frames = Clock.frames_displayed
    yes = ui.app.root.get_parent_window().children[0].yes_button
    f.touch_at(*f.centre(yes), settle=False)
    f.taps += 1
    f.wait(0.3)
    assert ui.screen.name == "review" or ui.screen.progress is not None  # read, or being read
    f.settle()
    assert Clock.frames_displayed > frames + 3  # drawn while the photo was read
    assert ui.screen.name == "review"
    bad = next(i for i, d in enumerate(st.draft.detections) if d.class_prob < 0.5)
    ci, _pos = st.draft.locate(bad)
    view = ui.screen.ids.photo
    f.tap(ui.screen.ids.editor.heads[ci])  # a tap on the group's label zooms the photo to it
    x, y, w, h = view.to_widget_box(st.draft.detections[bad].box)
    assert w >= 48 - 0.5, f"card box {w:.0f} dp wide after the zoom"
    wx, wy = view.to_window(x + w / 2, y + h / 2)
    f.touch_at(wx, wy)
    f.taps += 1
    assert st.editor.card == st.draft.locate(bad)
    _sc, truth = truth_scan(photo)
    f.tap(ui.screen.ids.pad.keys[truth[bad]])
    if st.check().doubts:
        f.tap(ui.screen.ids.ack)
    dealer = st.sstate.dealer
    win_and_score(ui, dealer, "self_draw")
    f.tap(ui.screen.ids.confirm)
    count("photo, self-drawn", t0)
    hist = st.sstate.history
    assert len(hist) == 3 and hist[-1].photo
    # undo hand 3, then redo it: the same totals come back
    totals = list(st.sstate.round_totals), list(st.sstate.net)
    f.tap_text("undo")
    assert len(st.sstate.history) == 3  # asked first: a stray tap costs nothing
    answer(ui, "undo")
    assert len(st.sstate.history) == 2 and ui.app.status.startswith(st.t("undone", what="")[:3])
    assert st.t("recorded", n=3) not in ui.app.status  # no stale status
    f.tap(ui.screen.ids.redo)
    assert len(st.sstate.history) == 3 and (list(st.sstate.round_totals), list(st.sstate.net)) == totals
    assert not ui.screen.ids.redo_box.shown
    # a drawn hand, asked first
    f.tap_text("draw")
    assert len(st.sstate.history) == 3
    answer(ui, "draw")
    assert st.sstate.history[-1].kind == "draw" and ui.app.status == st.t("draw_recorded", n=4)
    # hand 4: entered by its total on the ledger: 甲 self-draws 18 福 (RULINGS section 8: 36)
    t0 = f.taps
    assert ui.screen.name == "ledger"
    f.tap_text("quick")
    assert ui.screen.name == "quick"
    f.tap(ui.screen.ids.winner.buttons[0])  # 自摸 is chosen already
    for d in "18":
        f.tap(ui.screen.keys[d])
    f.tap(ui.screen.ids.record)
    count("by total, self-drawn", t0)
    last = st.sstate.history[-1]
    assert (last.entered_by, last.score, last.payouts) == ("total", 36, [36, 0, 0])
    kinds = [e.kind for e in st.sstate.history]
    assert kinds == ["hand", "hand", "hand", "draw", "hand"]
    # settle and lock, asked first; the ledger then shows the lock and offers no entry
    f.tap_text("settle")
    f.tap(ui.screen.ids.lock)
    answer(ui, "lock")
    assert st.sstate.locked and sum(st.settlement().points) == 0
    f.tap_text("ledger")
    ids = ui.screen.ids
    assert all(ids[k].disabled for k in ("capture_btn", "manual_btn", "quick_btn", "draw_btn", "undo_btn"))
    assert ids.locked_box.shown and st.t("locked_banner") in ui.labels()
    from zipai.mobile.quick import QuickEntry, record

    ui.app.guard(record, st, QuickEntry(1, "stock", digits="20"))  # 按总数记, were it reached
    assert ui.app.status == st.t("error", msg=st.t("quick_locked")) and len(st.sstate.history) == 5
    # Esc (Android's back) on the ledger goes back to the start screen; the app stays open
    from kivy.core.window import Window

    Window.dispatch("on_keyboard", 27, 41, "", [])
    f.settle()
    assert ui.screen.name == "start"
    f.tap(next(b for b in f.buttons() if b.text.startswith(st.t("continue"))))
    assert ui.screen.name == "ledger"
    ids = ui.screen.ids
    # one tap reopens it, after a question
    f.tap(ids.reopen)
    answer(ui, "reopen")
    assert not st.sstate.locked and not ids.manual_btn.disabled
    print(f"taps per hand at {size[0]}x{size[1]}: {taps}")
    assert 25 <= taps["typed, stock"] <= 45, taps
    set_size(ui, (540, 960))


# ------------------------------------------------------------------ words and explanations
def walk_labels(ui: UI) -> list[str]:
    from kivy.core.window import Window

    return [w.text for r in Window.children for w in r.walk(restrict=True)
            if isinstance(getattr(w, "text", None), str) and w.text and w.opacity > 0]


def test_no_english_reaches_a_chinese_screen(ui: UI) -> None:
    st, f = ui.app.state, ui.finger
    create_session(ui, "lang-check")
    seen: dict[str, list[str]] = {}
    f.tap_text("undo")  # nothing to undo: the ledger's refusal, worded by its code
    seen["ledger/undo"] = [ui.app.status]
    st.start_manual()
    st.editor.enter(L1_GROUPS, L1_HAND)
    st.changed()
    for name in ("start", "manual", "win", "ledger", "settle", "settings"):
        ui.app.go(name)
        ui.pump(3)
        seen[name] = walk_labels(ui)
    ui.app.go("win")
    ui.pump()
    f.tap_text("score_it")  # no winner yet
    seen["win/no winner"] = [ui.app.status]
    st.settle()
    ui.app.go("win")
    st.win.winner, st.win.won_by = 1, "stock"
    st.changed()
    st.score()
    ui.app.go("result")
    ui.pump()
    seen["result"] = walk_labels(ui)
    ui.app.guard(st.record_draw)  # refused: the session is locked
    seen["locked"] = [ui.app.status]
    assert st.t.error("locked") in ui.app.status and "reopen" not in ui.app.status
    from zipai.mobile.quick import QuickEntry, record

    ui.app.guard(record, st, QuickEntry(1, "stock", digits="20"))  # 按总数记 in a locked session
    seen["quick/locked"] = [ui.app.status]
    st.reopen()
    # 按总数记: a total below the minimum, previewed and refused, in a Guangxi session
    create_session(ui, "lang-quick", "guangxi", ("甲", "乙"))
    f.tap_text("quick")
    f.tap(ui.screen.ids.winner.buttons[1])
    f.tap(ui.screen.keys["1"])
    f.tap(ui.screen.keys["0"])
    seen["quick/below"] = walk_labels(ui)
    f.tap(ui.screen.ids.record)
    seen["quick/refused"] = [ui.app.status]
    assert "10油" in ui.app.status
    # the camera: a device that cannot be opened, a setting that names nothing
    st.settings.camera_source = "97"
    f.tap_text("ledger")
    f.tap_text("capture")
    seen["capture/no camera"] = walk_labels(ui)
    st.settings.camera_source = "0"
    ui.app.go("settings")
    ui.pump()
    if "camera_source" in ui.screen.ids:
        ui.screen.ids.camera_source.text = "后面的摄像头"
        f.tap(f.button(st.t("set")))
        seen["settings/camera"] = [ui.app.status]
        assert ui.app.status
    bad = {k: [t for t in v if ENGLISH.search(t)] for k, v in seen.items()}
    assert not any(bad.values()), bad


def test_the_score_is_explained_line_by_line(ui: UI) -> None:
    """The engine's steps for L1 won on a discard of x9 (RULINGS section 8): every step worded,
    the one winning card marked."""
    st = ui.app.state
    create_session(ui, "explained")
    st.start_manual()
    st.editor.enter(L1_GROUPS, L1_HAND)
    st.win.winner, st.win.won_by, st.win.discarder, st.win.winning_card = 1, "discard", 2, "x9"
    st.changed()
    st.score()
    ui.app.go("result")
    ui.pump(3)
    text = ui.labels()
    for line in ("七组合计 16福", "起胡 15：16够了", "点炮 +10 → 26", "得分 26（按平胡）", "丙 放炮：-16"):
        assert line in text, line
    from zipai.mobile.widgets import CardFace  # the result shows its cards, it does not take presses

    marked = [w for w in ui.screen.walk() if isinstance(w, CardFace) and w.selected]
    assert len(marked) == 1 and marked[0].face == "x9"
    # the other ways to split the hand, one tap away: this one splits for 24 福 or for 9 (no win)
    st.start_manual()
    st.editor.enter((), "d1 d2 d3 d8 d9 d10 x5 x5 x5 x1 x2 x3 x2 x3 x4 d7 d7 d7 d1 d2 d3".split())
    st.win.winner, st.win.won_by = 1, "stock"
    st.changed()
    r = st.score()
    assert isinstance(r, Result) and [a.points for a in r.alternatives] == [24, 9]
    ui.screen.refresh()
    ui.pump()
    other = st.t("alternative_n", n=1, points=9, unit="福", score=0)
    assert other not in ui.labels()
    ui.finger.tap_text("show_alternatives", n=1)
    assert other in ui.labels()
    ui.finger.tap_text("hide_alternatives", n=1)
    assert other not in ui.labels()


def test_the_typed_hand_survives_and_the_start_screen_offers_it(ui: UI) -> None:
    st, f = ui.app.state, ui.finger
    create_session(ui, "keep")
    f.tap_text("manual")
    for c in ("d2", "d7", "d10"):
        f.tap(ui.screen.ids.pad.keys[c])
    f.tap_text("settings")
    ui.app.go("start")
    ui.pump()
    f.tap_text("continue_hand", n=3)
    assert ui.screen.name == "manual" and st.draft.count() == 3
    f.tap_text("clear")
    assert st.draft.count() == 3  # it asks first
    answer(ui, "clear")
    assert st.draft.count() == 0


def test_restore_keeps_the_ledger_it_replaces(ui: UI) -> None:
    st, f = ui.app.state, ui.finger
    create_session(ui, "restore")
    ui.app.go("settings")
    ui.pump()
    f.tap_text("backup")
    st.record_draw()
    st.record_draw()
    ui.app.go("settings")
    f.tap_text("restore_hint")
    assert len(st.sstate.history) == 2  # it asks first
    answer(ui, "restore")
    kept = st.replaced
    assert kept is not None and kept.is_file() and str(kept) in ui.app.status
    assert st.sstate.history == []
    from zipai.scorer import Ledger

    with Ledger(kept) as old:
        assert len(old.state("restore").history) == 2


def test_phone_review_and_editor_fit(ui: UI) -> None:
    """At 360 dp: the editor shows several groups at once, the doubts are not clipped, and a
    tapped group's cards are drawn at least 48 dp wide."""
    st, f = ui.app.state, ui.finger
    set_size(ui, (360, 780))
    create_session(ui, "phone")
    photo = ui.base / "phone.jpg"  # type: ignore[attr-defined]
    photo.write_bytes(b"")
    st.load_photo(photo)
    ui.app.go("review")
    ui.pump(4)
    ed = ui.screen.ids.editor
    sv = ed.parent.parent
    visible = [r for r in ed.rows if sv.to_window(sv.x, sv.y)[1] <= r.to_window(r.x, r.y)[1] + r.height / 2
               <= sv.to_window(sv.x, sv.y)[1] + sv.height]
    assert len(visible) >= 3, f"{len(visible)} of {len(ed.rows)} groups visible"
    doubts = ui.screen.ids.doubts
    assert doubts.height >= doubts.texture_size[1]
    for ci, col in enumerate(st.draft.columns):
        if not col.detections or min(col.detections) < 0:
            continue
        f.tap(ed.heads[ci])
        view = ui.screen.ids.photo
        widths = [view.to_widget_box(st.draft.detections[i].box)[2] for i in col.detections]
        assert min(widths) >= 48 - 0.5, (ci, widths)
        break
    set_size(ui, (540, 960))


def test_the_winning_card_is_asked_only_when_it_matters(ui: UI) -> None:
    """The engine names the cards whose placement changes the score (L1 won on a discard: the
    x9s); the win screen asks for the winning card only after a score that needs it, and offers
    only those cards."""
    st, f = ui.app.state, ui.finger
    create_session(ui, "matters")
    st.start_manual()
    st.editor.enter(L1_GROUPS, L1_HAND)
    st.changed()
    ui.app.go("win")
    ui.pump()
    ids = ui.screen.ids
    f.choose(ids.winner, 1)
    f.choose(ids.won_by, "self_draw")
    assert not ids.winning_box.shown
    f.choose(ids.won_by, "discard")
    f.choose(ids.from_seat, 2)
    assert not ids.winning_box.shown  # not asked before the engine says it matters
    f.tap_text("score_it")
    assert ui.screen.name == "win" and ids.winning_box.shown and ui.app.status == st.t("which_card")
    assert set(ids.winning.buttons) == {None, "x9"}
    f.choose(ids.winning, "x9")
    f.tap_text("score_it")
    assert ui.screen.name == "result" and isinstance(st.result, Result) and st.result.score == 26
