"""Quick score entry by total, driven by touches at window coordinates on three window sizes.

``touch.Finger`` presses and lifts a touch through the Window at a widget's window position, as a
player's finger would (a disabled or covered widget takes the touch as it would on a phone), and
counts the taps: the report's taps per hand come from these counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from touch import Finger

SIZES = ((360, 780), (540, 960), (1280, 800))


def labels(f: Finger) -> str:
    """Every text on the screen, for the words a player would read."""
    return "\n".join(w.text for w in f.screen.walk() if isinstance(getattr(w, "text", None), str))


@pytest.fixture(scope="module")
def finger(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from test_mobile_ui import kivy_env, start_app

    base = tmp_path_factory.mktemp("quick")
    kivy_env(str(base / "kivy"))
    ui = start_app(base / "data")
    f = Finger(ui.app)
    yield f
    ui.app.stop()
    f.pump(2)


def sized(f: Finger, size: tuple[int, int]) -> None:
    from kivy.core.window import Window

    Window.size = size
    f.pump(4)


def session(f: Finger, name: str, preset: str = "hunan",
            players: tuple[str, ...] = ("甲", "乙", "丙")) -> None:
    f.app.state.new_session(name, preset, list(players))
    f.app.go("ledger")
    f.pump(3)


def quick_hand(f: Finger, winner: int, won_by: str | None, total: str, frm: int | None = None) -> int:
    """From the ledger, one hand by total; returns the taps it took."""
    start = f.taps
    f.tap_text("quick")
    assert f.screen.name == "quick"
    ids = f.screen.ids
    f.tap(ids.winner.buttons[winner])
    if won_by is not None:
        f.tap(ids.won_by.buttons[won_by])
    if frm is not None:
        f.tap(ids.from_seat.buttons[frm])
    for d in total:
        f.tap(f.screen.keys[d])
    f.tap(ids.record)
    return f.taps - start


@pytest.mark.parametrize("size", SIZES)
def test_a_discard_and_a_self_draw_by_total(finger: Finger, size: tuple[int, int]) -> None:
    f = finger
    sized(f, size)
    session(f, f"quick-{size[0]}")
    taps = quick_hand(f, 1, "discard", "18", frm=2)
    assert taps == 7
    assert f.screen.name == "ledger", f.app.status
    e = f.app.state.sstate.history[-1]
    assert (e.entered_by, e.score, e.payouts, e.input["total"]) == ("total", 28, [0, 28, -18], 18)
    assert f.app.state.t("by_total") in labels(f)
    taps = quick_hand(f, 2, None, "18")  # 自摸 is the default choice
    assert taps == 5
    e = f.app.state.sstate.history[-1]
    assert (e.won_by, e.score, e.payouts) == ("self_draw", 36, [0, 0, 36])
    assert f.app.state.sstate.round_totals == [0, 28, 18]


def test_the_live_line_shows_the_score_before_recording(finger: Finger) -> None:
    f = finger
    sized(f, (360, 780))
    session(f, "preview")
    f.tap_text("quick")
    scr, ids = f.screen, f.screen.ids
    assert scr.preview_text == f.app.state.t("winner") + "?"
    f.tap(ids.winner.buttons[1])
    f.tap(ids.won_by.buttons["stock"])
    f.tap(scr.keys["0"])  # 飘福
    assert "30" in scr.preview_text and "飘福" in scr.preview_text
    f.tap(scr.keys["del"])
    for d in "144":  # a third digit is refused: no seven groups reach 100
        f.tap(scr.keys[d])
    assert scr.total_text == "14"
    assert scr.preview_text == "14福不到起胡15福，不能胡"  # both numbers, in the player's words
    n = len(f.app.state.sstate.history)
    f.tap(ids.record)
    assert f.screen.name == "quick" and f.app.status == f.app.state.t("error", msg=scr.preview_text)
    assert len(f.app.state.sstate.history) == n  # nothing recorded
    f.tap(scr.keys["clear"])
    assert scr.total_text == "–"


def test_discard_needs_the_discarder_and_hides_it_otherwise(finger: Finger) -> None:
    f = finger
    sized(f, (540, 960))
    session(f, "from")
    f.tap_text("quick")
    ids = f.screen.ids
    assert ids.from_box.height == 0 and not ids.from_box.children
    f.tap(ids.winner.buttons[0])
    f.tap(ids.won_by.buttons["discard"])
    assert ids.from_box.height > 0 and ids.from_box.children
    assert set(ids.from_seat.buttons) == {1, 2}
    for d in "20":
        f.tap(f.screen.keys[d])
    f.tap(ids.record)
    assert f.screen.name == "quick" and f.app.state.t("from_whom") in f.app.status
    f.tap(ids.from_seat.buttons[2])
    f.tap(ids.record)
    assert f.screen.name == "ledger"
    assert f.app.state.sstate.history[-1].payouts == [30, 0, -20]


def test_guilin_counts_xing_and_edit_reopens_the_total(finger: Finger) -> None:
    f = finger
    sized(f, (1280, 800))
    session(f, "guilin", "guilin")
    f.tap_text("quick")
    ids = f.screen.ids
    assert ids.xing_box.height > 0
    f.tap(ids.winner.buttons[1])
    f.tap(ids.xing_more)
    f.tap(ids.xing_more)
    for d in "18":
        f.tap(f.screen.keys[d])
    f.tap(ids.record)
    e = f.app.state.sstate.history[-1]
    assert (e.score, e.payouts, e.input["xing"]) == (10, [-10, 20, -10], 2)
    # the ledger's line opens the hand; its edit opens the quick screen on the same total
    line = next(w for w in f.screen.ids.history.children if f.app.state.t("by_total") in w.text)
    f.tap(line)
    assert f.screen.name == "hand"
    assert f"{f.app.state.t('by_total')}: 18 胡" in labels(f)
    f.tap_text("edit")
    assert f.screen.name == "quick" and f.screen.total_text == "18"
    f.tap(f.screen.keys["del"])
    f.tap(f.screen.keys["3"])  # 13 胡: 2 子
    f.tap(f.screen.ids.record)
    hist = f.app.state.sstate.history
    assert len(hist) == 1 and hist[0].score == (2 + 2) * 2 and hist[0].edited_by is not None


def test_the_recorded_total_survives_a_restart(finger: Finger, tmp_path: Path) -> None:
    from zipai.scorer import Ledger

    data = Path(finger.app.state.data_dir)
    with Ledger(data / "ledger.db") as led:  # a second reader of the same file replays its events
        st = led.state(None)
        assert st.history and all(h.entered_by == "total" for h in st.history)


def test_a_self_drawn_hand_by_total_takes_five_taps(finger: Finger) -> None:
    """RULINGS L1 (18 福, seat 1 by 自摸) by total; the same hand typed card by card is counted
    in the scripted evening (tests/mobile/test_mobile_touch.py)."""
    f = finger
    sized(f, (540, 960))
    session(f, "taps")
    by_total = quick_hand(f, 1, None, "18")
    assert f.app.state.sstate.history[-1].score == 36
    print(f"taps per hand by total: {by_total}")
    assert by_total == 5
