"""胡多少处罚多少 in the app, by touch at window coordinates: a Hunan result offers to record the
hand as its winner's penalty (seed 001); a Guangxi result does not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_mobile_touch import app_in, set_size, win_and_score
from test_mobile_ui import L1_GROUPS, L1_HAND, UI


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UI]:
    with app_in(tmp_path_factory.mktemp("mobile_penalty")) as ui:
        yield ui


def _typed(ui: UI, name: str, preset: str = "hunan") -> None:
    """A new session and the layout L1 in the editor (creating and typing by touch are the
    scripted evening's test), the editor on screen, where a player taps on."""
    st = ui.app.state
    st.new_session(name, preset, ["甲", "乙", "丙"])
    ui.app.go("ledger")
    ui.pump()
    ui.finger.tap_text("manual")
    st.editor.enter(L1_GROUPS, L1_HAND)
    st.changed()
    ui.pump()


@pytest.mark.parametrize("size", [(360, 780), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_hunan_result_records_the_hand_as_its_winners_penalty(ui: UI, size: tuple[int, int]) -> None:
    st, f = ui.app.state, ui.finger
    set_size(ui, size)
    _typed(ui, f"penalty-{size[0]}")
    win_and_score(ui, 2, "self_draw")  # 丙 would have won 18 福 ×2
    assert st.result is not None and st.result.score == 36
    f.tap(f.button(st.t("penalty")))
    assert ui.screen.name == "ledger" and ui.app.status == st.t("penalized", n=1)
    e = st.sstate.history[-1]
    assert e.kind == "adjust" and e.payouts == [0, 0, -36] and e.reason == "胡多少处罚多少"
    assert st.sstate.round_totals == [0, 0, -36] and st.draft.count() == 0


def test_a_guangxi_result_offers_no_penalty(ui: UI) -> None:
    st, f = ui.app.state, ui.finger
    set_size(ui, (360, 780))
    _typed(ui, "penalty-gx", "guangxi")
    win_and_score(ui, 2, "self_draw")
    assert ui.screen.name == "result" and st.result is not None and st.result.winning
    assert st.t("penalty") not in [b.text for b in f.buttons()]
