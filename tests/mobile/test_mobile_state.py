"""The app's state layer without any widget: the draft editor, the flow to the ledger, i18n."""

from __future__ import annotations

import doctest
import sys
from pathlib import Path

import pytest

from zipai.engine import Result, Simultaneous, score
from zipai.mobile import draft as draft_mod
from zipai.mobile import i18n
from zipai.mobile.draft import Draft, DraftError, Editor
from zipai.mobile.state import AppError, AppState
from zipai.vision import Column, Detection

L1_GROUPS = (("open", ("d5", "d5", "d5")), ("concealed", ("x10", "x10", "x10")), ("open", ("x1", "x2", "x3")))
L1_HAND = ("x4", "x5", "x6", "d2", "d7", "d10", "x9", "x9", "x9", "d8", "d8", "x8")


def type_l1(ed: Editor) -> None:
    ed.enter(L1_GROUPS, L1_HAND)


@pytest.fixture
def app_state(tmp_path: Path) -> AppState:
    st = AppState(tmp_path / "data")
    st.new_session("周五", "hunan", ["甲", "乙", "丙"], stake="0.5")
    yield st
    st.close()


def test_doctests() -> None:
    for mod in (draft_mod, i18n):
        res = doctest.testmod(mod)
        assert res.failed == 0 and res.attempted > 0, mod.__name__


def test_every_string_has_three_languages() -> None:
    for key in i18n.keys():
        texts = [i18n.Translator(lang)(key) for lang in i18n.LANGS]
        assert all(texts), key
        assert not texts[0].isascii() and not texts[1].isascii(), key  # Chinese in both scripts
    assert i18n.Translator("zh_Hant").script("贰柒拾 顺子") == "貳柒拾 順子"


def test_every_doubt_the_layout_step_raises_is_worded_for_the_user() -> None:
    from zipai.vision.layout import DoubtKind

    kinds = {k.value for k in DoubtKind}
    assert {"stray_cards", "taken_in", "reread", "deck_limit", "winning_card", "engine"} <= kinds
    assert {k for k in kinds if f"doubt_{k}" not in i18n.keys()} == set()


def test_typed_layout_is_the_engine_input() -> None:
    ed = Editor(Draft.manual())
    type_l1(ed)
    chk = ed.draft.check({"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock"})
    assert chk.ready and chk.cards == 21 and not chk.doubts
    assert chk.layout["groups"] == [{"cards": list(c), "state": s} for s, c in L1_GROUPS]
    assert chk.layout["hand"] == list(L1_HAND)
    assert score(chk.layout)["score"] == 18  # RULINGS section 8, Hunan by stock


def test_editor_corrects_moves_deletes_and_names() -> None:
    ed = Editor(Draft.manual())
    for c in ("x1", "x2", "x4"):
        ed.press(c)
    ed.tap_card(0, 2)
    ed.press("x3")  # a correction replaces the selected card
    assert ed.draft.columns[0].cards == ["x1", "x2", "x3"] and ed.card is None
    ed.tap_card(0, 0)
    ed.start_move()
    ed.tap_column(1)  # the hand row
    assert ed.draft.columns[0].cards == ["x2", "x3"] and ed.draft.columns[1].cards == ["x1"]
    ed.tap_card(0, 0)
    ed.delete()
    ed.tap_card(0, 0)
    ed.delete()  # the emptied group goes, the hand row stays
    assert [c.cards for c in ed.draft.columns] == [["x1"]]
    ed.new_group()
    ed.flip(ed.target)  # open -> concealed
    for _ in range(3):
        ed.press("back")
    chk = ed.draft.check({"rules": "hunan"})
    assert not chk.ready and [d.kind for d in chk.blocking] == ["unnamed_concealed"]
    ed.start_name(ed.target)
    ed.press("d9")
    assert ed.draft.count() == 4
    chk = ed.draft.check({"rules": "hunan"})
    assert chk.ready and chk.layout["groups"] == [{"cards": ["d9", "d9", "d9"], "state": "concealed"}]
    with pytest.raises(DraftError):
        ed.draft.set_card(0, 9, "x1")
    with pytest.raises(DraftError):
        ed.draft.add(0, "x11")
    # vision's refusal of an answer reaches the app as its own refusal of an edit, naming the value
    with pytest.raises(DraftError, match="face card, not 'x11'"):
        ed.draft.name(ed.target, "x11")
    with pytest.raises(DraftError, match="not 'middle'"):
        ed.draft.take_claimed("middle")


@pytest.mark.usefixtures("fixed_chance")
def test_photo_draft_keeps_detections_in_step() -> None:
    dets = [Detection("x1", (0, 0, 10, 10), 0.3, "black", 0.9, 0.3),
            Detection("x2", (0, 20, 10, 30), 0.9, "red"),
            Detection("x9", (50, 0, 60, 10), 0.9, "black")]
    cols = [Column([0, 1], ["x1", "x2"], "table", "open"), Column([2], ["x9"], "hand", "hand")]
    d = Draft.from_scan(cols, dets, "p.jpg", (100, 100))
    assert any(x.kind == "low_confidence" for x in d.check({"rules": "hunan"}).doubts)
    d.set_card(0, 0, "x3")  # the user's word: no more doubt about it
    assert d.detections[0].card == "x3" and not any(x.kind == "low_confidence"
                                                    for x in d.check({"rules": "hunan"}).doubts)
    assert dets[0].card == "x1" and cols[0].cards == ["x1", "x2"]  # the scan stays as vision read it
    trial = d.copy()  # what the review's walk tries a reading on
    trial.set_card(0, 0, "x4")
    assert (d.detections[0].card, d.columns[0].cards[0]) == ("x3", "x3") and trial.detections[0].card == "x4"
    assert d.settled_list() == [True, False, False]  # settled: the review's walk passes it by
    d.delete(0, 1)  # a false detection: removed, later indices shift
    assert len(d.detections) == 2 and d.columns[1].detections == [1] and d.locate(1) == (1, 0)
    d.add(0, "x2")  # a missed card gets a box below its column
    assert d.detections[-1].box[1] > d.detections[0].box[3] and d.columns[0].detections == [0, 2]
    assert d.settled_list() == [True, False, True]  # kept in step; a card added by hand is the player's
    again = Draft.from_json(d.to_json())
    assert again.to_json() == d.to_json() and again.settled == [True, False, True]


def test_a_concealed_group_a_card_short_blocks_until_the_user_adds_its_back() -> None:
    dets = [Detection("x10", (0, 0, 10, 10), 0.9, "red"), Detection("back", (0, 20, 14, 30), 0.9, None)]
    d = Draft.from_scan([Column([0, 1], ["x10", "back"], "table", "concealed")], dets, "p.jpg", (100, 100))
    chk = d.check({"rules": "hunan"})
    assert [x.kind for x in chk.blocking] == ["short_concealed"] and not chk.ready
    d.add(0, "back")  # the back the photo did not show
    chk = d.check({"rules": "hunan"})
    assert not chk.blocking
    assert chk.layout["groups"] == [{"cards": ["x10", "x10", "x10"], "state": "concealed"}]


@pytest.mark.usefixtures("fixed_chance")
def test_every_detector_doubt_about_a_card_goes_when_the_user_sets_it() -> None:
    dets = [Detection("x1", (0, 0, 10, 10), 0.9, "black", 0.9, 0.99, selected=0.4),
            Detection("x2", (0, 20, 10, 30), 0.2, "red", 0.2, 0.99, read_as="x3", taken_in=True),
            Detection("x3", (0, 40, 10, 50), 0.9, "black")]
    d = Draft.from_scan([Column([0, 1, 2], ["x1", "x2", "x3"], "table", "open")], dets, "p.jpg", (100, 100))
    kinds = {x.kind for x in d.check({"rules": "hunan"}).doubts}
    assert {"low_confidence", "reread"} <= kinds  # one doubt a card, by the rules' reason first
    d.set_card(0, 0, "x1")
    d.set_card(0, 1, "x2")
    kinds = {x.kind for x in d.check({"rules": "hunan"}).doubts}
    assert not kinds & {"low_confidence", "reread", "taken_in_find"}


@pytest.mark.usefixtures("fixed_chance")
def test_a_guessed_claimed_row_is_asked_until_a_group_is_flipped_and_a_saved_draft_keeps_it() -> None:
    # the layout tests' hand-built scene, importable whether or not tests/vision was collected first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
    from test_vision_layout import FACE_UP_ROW, HAND_ROW, L1_BASE, _scene

    from zipai.vision.layout import columns, propose_states

    dets = _scene([FACE_UP_ROW, HAND_ROW], side_by_side=True)
    cols = columns(dets)
    propose_states(cols)
    d = Draft.from_scan(cols, dets, "p.jpg", (1600, 1200))
    assert [x.kind for x in d.check(L1_BASE).doubts] == ["claimed_row"]
    again = Draft.from_json(d.to_json())
    assert [x.kind for x in again.check(L1_BASE).doubts] == ["claimed_row"]
    again.flip(0)  # the user says how the first group was laid: the rows are no longer a guess
    assert again.check(L1_BASE).doubts == []


def test_manual_flow_records_draws_undoes_and_settles(app_state: AppState) -> None:
    st = app_state
    type_l1(st.editor)
    st.changed()
    st.win.winner, st.win.won_by, st.win.discarder, st.win.winning_card = 1, "discard", 2, "x9"
    assert st.seven_groups() is True
    r = st.score()
    assert isinstance(r, Result) and r.winning and r.score == 26 and r.payouts == (0, 26, -16)  # RULINGS 8
    e = st.confirm()
    assert e.no == 1 and e.score == 26 and st.draft.count() == 0
    st.record_draw()
    assert st.sstate.history[-1].kind == "draw" and st.sstate.dealer == 1
    assert st.undo().kind == "draw"
    res = st.settle("minimal")
    assert res.locked and sum(res.points) == 0
    with pytest.raises(AppError):
        st.record_draw()  # a settled session is locked
    st.reopen()
    st.record_draw()


def test_pending_draft_and_win_survive_a_restart(tmp_path: Path) -> None:
    st = AppState(tmp_path)
    st.new_session("s", "guangxi", ["a", "b", "c"])
    for c in ("d2", "d7"):
        st.editor.press(c)
    st.win.minimum = 20
    st.changed()
    st.close()
    again = AppState(tmp_path)
    assert again.draft.columns[0].cards == ["d2", "d7"] and again.win.minimum == 20
    assert again.session is not None and again.session.name == "s"
    again.close()


def test_guangxi_minimum_per_hand_and_guilin_xing(tmp_path: Path) -> None:
    st = AppState(tmp_path)
    st.new_session("g", "guangxi", ["a", "b", "c"])
    type_l1(st.editor)
    st.win.winner, st.win.won_by, st.win.minimum = 1, "self_draw", 20
    assert st.hand_options() == {"minimum": 20}
    r = st.score()
    assert isinstance(r, Result) and not r.winning  # 18 < 20 (RULINGS section 8)
    with pytest.raises(AppError):
        st.confirm()
    st.win.minimum = 15
    assert st.score().payouts == (-18, 36, -18)
    st.new_session("l", "guilin", ["a", "b", "c"])
    type_l1(st.editor)
    st.win.winner, st.win.won_by, st.win.xing = 1, "self_draw", "x8"
    assert st.base()["xing"] == ["x8"]
    r = st.score()
    assert isinstance(r, Result) and r.winning and r.extra_value("xing") > 0
    st.close()


def test_edit_a_recorded_hand_and_delete_its_photo(app_state: AppState, tmp_path: Path) -> None:
    st = app_state
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"\xff\xd8 not really a jpeg, only stored")
    type_l1(st.editor)
    st.draft.photo = str(photo)
    st.win.winner, st.win.won_by = 1, "stock"
    e = st.confirm()
    assert e.photo and Path(e.photo).parent == st.data_dir / "photos" and st.photo_of(e)
    st.edit(1)
    assert st.pending.editing == 1 and st.draft.count() == 21
    st.win.won_by = "self_draw"
    e2 = st.confirm()
    assert e2.no == 1 and e2.score == 36 and len(st.sstate.history) == 1
    assert st.delete_photo(st.sstate.history[0]) and st.photo_of(st.sstate.history[0]) is None


def test_backup_restore_and_share_text(app_state: AppState) -> None:
    st = app_state
    st.adjust([5, -5, 0], "更正")
    b = st.backup()
    st.adjust([1, -1, 0], "x")
    assert st.restore_latest() == b
    assert [e.reason for e in st.sstate.history] == ["更正"]
    text = st.share_text().read_text(encoding="utf-8")
    assert "甲" in text and "转账" in text


def test_sample_photo_with_the_shipped_model(tmp_path: Path) -> None:
    """The real detector on models/sample.jpg: the review draft scores like ``zipai scan``."""
    from zipai.mobile.state import sample_photo
    from zipai.vision.detector import default_manifest

    photo = sample_photo()
    if photo is None or not default_manifest().is_file():
        pytest.skip("no shipped model or sample photo yet (models/)")
    from zipai.vision import scan_file

    st = AppState(tmp_path)
    st.new_session("s", "hunan", ["a", "b", "c"])
    d = st.load_photo(photo)
    assert d.is_photo and d.detections and d.count() >= 21
    ref = scan_file(photo, base=st.base())
    chk = st.check()
    assert chk.layout["groups"] == ref.assembled.layout["groups"]
    assert sorted(chk.layout["hand"]) == sorted(ref.assembled.layout["hand"])
    st.close()


def test_live_seven_group_check(app_state: AppState) -> None:
    st = app_state
    assert st.seven_groups() is None  # nothing typed yet
    type_l1(st.editor)
    assert st.seven_groups() is True
    hand = st.draft.hand_column()
    st.editor.tap_card(hand, 0)
    st.editor.press("d1")  # x4 x5 x6 becomes d1 x5 x6: no longer seven groups
    assert st.seven_groups() is False
    for _ in range(4):
        st.editor.tap_column(hand)
        st.editor.press("d5")  # a fifth and more d5: blocked before the engine is asked
    assert st.seven_groups() is None and st.check().blocking[0].kind == "deck_limit"


def test_guangxi_double_instant_win(tmp_path: Path) -> None:
    st = AppState(tmp_path)
    st.new_session("gx", "guangxi", ["a", "b", "c"])
    for c in ["x1"] * 4 + ["x2"] * 4 + ["x3"] * 4 + ["x5", "x6", "x8"]:
        st.editor.press(c)  # typed into the first group, then flipped to hand cards
    st.editor.flip(0)
    st.editor.flip(0)
    st.win.winner, st.win.won_by = 1, "dealt"
    assert st.can_double()
    st.hold_instant()
    assert st.pending.first is not None and st.draft.count() == 0 and st.win.winner is None
    st.close()
    st = AppState(tmp_path)  # the held first layout survives a restart
    assert st.pending.first is not None and not st.can_double()
    for c in ["x4"] * 4 + ["x5"] * 4 + ["x6"] * 4 + ["x8", "x9", "d1"]:
        st.editor.press(c)
    st.editor.flip(0)
    st.editor.flip(0)
    st.win.winner, st.win.won_by = 2, "dealt"
    r = st.score()
    assert isinstance(r, Simultaneous) and r.winners == (1, 2) and r.payouts == (-54, 27, 27)  # equal points
    e = st.confirm()
    assert e.kind == "double" and st.sstate.net == [-54, 27, 27] and st.pending.first is None
    st.close()


# a winning hand laid in two rows with one card hidden under its column: the claimed 伍 伍's third
# (read as 伍, a 碰), or the hand's 四 六's middle (五)
HIDDEN_TABLE = [["d5", "d5", "d5"], ["x6", "x7", "x8"], ["d1", "back", "back"]]
HIDDEN_HAND = [["x10", "x10", "x10"], ["d2", "d7", "d10"], ["x9", "x9", "x9"], ["x4", "x5", "x6"]]


@pytest.mark.parametrize(("row", "col", "pos", "word"), [(0, 0, 2, "伍"), (1, 3, 1, "五")])
def test_a_card_the_rules_put_where_no_find_shows_one_is_named_to_the_player(
        app_state: AppState, row: int, col: int, pos: int, word: str) -> None:
    """The doubt names the card assumed, not the cards around it that were found (the code
    before said 单张算进手牌 and named those)."""
    from layout_cards import rows

    from zipai.vision.scan import scan_detections

    laid = [[list(c) for c in HIDDEN_TABLE], [list(c) for c in HIDDEN_HAND]]
    del laid[row][col][pos]
    sc = scan_detections(1600, 1200, rows(*laid), app_state.base())
    app_state.take_scan("table.jpg", sc)
    taken = [d for d in app_state.check().doubts if d.kind == "taken_in"]
    assert [app_state.doubt_words(d, 21) for d in taken] == [f"照片里看不见，按牌理补上：{word}"]


def test_no_card_is_assumed_in_manual_entry() -> None:
    ed = Editor(Draft.manual())
    type_l1(ed)
    assert ed.draft.assumed([]) == []
