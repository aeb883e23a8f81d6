"""The deck in use without any widget: what a draft remembers of the detector's reading, the
settings, scans read with the deck, a hand that the deck cannot learn from, refusals worded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_mobile_ui import truth_scan

from zipai.engine import CARD_NAMES
from zipai.mobile.decks import refusal_words
from zipai.mobile.draft import Draft
from zipai.mobile.i18n import Translator
from zipai.mobile.state import AppState, Settings
from zipai.vision import Column, Detection
from zipai.vision.deck import TeachRefused


@pytest.fixture(autouse=True)
def own_decks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each data folder keeps its decks in ``<data>/decks``, whatever the shell says."""
    monkeypatch.delenv("ZIPAI_DECKS", raising=False)


def test_zipai_decks_moves_the_apps_decks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZIPAI_DECKS", str(tmp_path / "shared"))
    st = AppState(tmp_path / "data")
    assert st.shelf.root == tmp_path / "shared"
    st.close()
    monkeypatch.delenv("ZIPAI_DECKS")
    st = AppState(tmp_path / "data")
    assert st.shelf.root == tmp_path / "data" / "decks"
    st.close()


def photo_draft() -> Draft:
    read = ("x1", "x2", "d3")
    dets = [Detection(c, (10.0 * i, 0.0, 10.0 * i + 8, 12.0), 0.9, None) for i, c in enumerate(read)]
    return Draft.from_scan([Column([0, 1, 2], ["x1", "x2", "d3"], "table", "open")], dets, "p.jpg", (100, 50))


def test_a_draft_remembers_what_the_detector_read() -> None:
    d = photo_draft()
    assert d.fixes() == []
    d.set_card(0, 2, "x3")  # the detector read 叁, the player says 三
    assert d.fixes() == [((20.0, 0.0, 28.0, 12.0), "x3")]
    d.add(0, "x4")  # a missed card has no crop the detector read
    d.set_card(0, 3, "x5")
    assert d.fixes() == [((20.0, 0.0, 28.0, 12.0), "x3")]
    d.delete(0, 0)  # the indices shift; the fix keeps its box
    assert d.fixes() == [((20.0, 0.0, 28.0, 12.0), "x3")]
    back = Draft.from_json(json.loads(json.dumps(d.to_json())))  # a kill and a restart keep it
    assert back.fixes() == d.fixes() and back.reads == d.reads
    back.set_card(0, 1, "d3")  # corrected back to what was read: nothing to learn
    assert back.fixes() == []
    d.set_card(0, 0, "back")  # a back is not a face of the deck
    assert d.fixes() == [((20.0, 0.0, 28.0, 12.0), "x3")]
    # a draft saved before reads were kept knows no reads: no fixes, and no error
    old = d.to_json()
    del old["reads"]
    assert Draft.from_json(old).fixes() == []


def test_settings_keep_the_deck_in_use_and_the_answered_offer(tmp_path: Path) -> None:
    p = tmp_path / "settings.json"
    p.write_text(json.dumps({"deck": "家里的", "teach_offered": True}), encoding="utf-8")
    s = Settings.load(p)
    assert (s.deck, s.teach_offered) == ("家里的", True)
    p.write_text(json.dumps({"deck": 3, "teach_offered": "yes"}), encoding="utf-8")
    s = Settings.load(p)
    assert (s.deck, s.teach_offered) == ("", False)


def test_the_offer_is_made_until_answered_or_a_session_begins(tmp_path: Path) -> None:
    st = AppState(tmp_path / "a")
    assert st.wants_teach_offer()
    st.new_session("一", "hunan", ["甲", "乙", "丙"])
    assert not st.wants_teach_offer()
    st.close()
    st = AppState(tmp_path / "b")
    st.answer_teach_offer()
    st.close()
    assert not AppState(tmp_path / "b").wants_teach_offer()


def record_photo_hand(st: AppState, photo: Path) -> tuple[Any, int, str]:
    """The rendered scene as the review shows it, its misread card corrected, recorded."""
    st.load_photo(photo)
    bad = next(i for i, d in enumerate(st.draft.detections) if d.class_prob < 0.5)
    _sc, truth = truth_scan(photo)
    st.editor.tap_detection(bad)
    st.editor.press(truth[bad])
    st.win.winner, st.win.won_by = st.sstate.dealer, "self_draw"
    return st.confirm(), bad, truth[bad]


def test_a_hand_is_kept_when_the_deck_cannot_learn_from_it(tmp_path: Path) -> None:
    photo = tmp_path / "scene.jpg"
    truth_scan(photo)
    st = AppState(tmp_path / "data", scanner=lambda _p: truth_scan(photo)[0])
    st.new_session("一", "hunan", ["甲", "乙", "丙"])
    st.settings.deck = "不在了"
    e, _bad, _card = record_photo_hand(st, photo)
    assert e.no == 1 and len(st.sstate.history) == 1 and st.deck_taught == 0
    assert st.deck_problem == st.t.error("no_deck")
    assert st.deck_line() == st.t("deck_unreadable", name="不在了", why=st.t.error("no_deck"))
    st.close()


def test_scans_read_with_the_deck_in_use_and_learn_its_fixes(tmp_path: Path) -> None:
    """The real learner and detector: a scan says which deck it read with, and a recorded
    hand's correction becomes the deck's review example."""
    from zipai.datasets.teach import DeckRef, render_teach

    img, _ = render_teach(DeckRef(0, "val", 0), "good", (1600, 1200))
    teach = tmp_path / "teach.jpg"
    img.save(teach, quality=88)
    scene = tmp_path / "scene.jpg"
    truth_scan(scene)
    st = AppState(tmp_path / "data")
    st.new_session("一", "hunan", ["甲", "乙", "丙"])
    taught = st.learn(teach, "周五")
    assert [f.card for f in taught.faces] == list(CARD_NAMES)
    st.save_deck(taught, "我们的")  # the name typed after teaching wins
    assert st.settings.deck == "我们的" and st.shelf.names() == ["我们的"]
    assert st.deck().name == "我们的"
    st.load_photo(scene)
    assert st.scan.deck == "我们的" and st.scan.to_json()["deck"] == "我们的"
    st.use_deck("")
    st.load_photo(scene)
    assert st.scan.deck is None
    # a correction recorded with the deck in use: read by the scanner below, fixed by the player
    st.use_deck("我们的")
    before = st.deck().counts()
    st._scanner = lambda _p: truth_scan(scene)[0]
    _e, _bad, card = record_photo_hand(st, scene)
    assert st.deck_taught == 1 and st.deck_problem == ""
    after = st.shelf.load("我们的").counts()
    assert after[card]["review"] == before.get(card, {}).get("review", 0) + 1
    with pytest.raises(ValueError) as err:
        st.save_deck(taught, "a/b")
    assert str(err.value) == st.t.error("bad_deck_name")
    st.close()


@pytest.mark.parametrize(("kind", "fields", "zh"), [
    ("teach_found", {"n": 18, "rows": "18"}, "找到18张正面，要20张、两排各十张"),
    ("teach_found_rows", {"n": 20, "rows": "11,9"}, "找到20张正面，排成11、9张，要两排各十张"),
    ("teach_misread", {"row": 2, "col": 4, "read": "d5", "want": "d4"},
     "第2排第4张读成伍，应该是肆：顺序对吗？"),
    ("teach_misread", {"row": 1, "col": 2, "read": "d2", "want": "x2"},
     "第1排第2张读成贰，应该是二：顺序对吗？"),
    ("teach_misreads", {"n": 5, "row": 1, "col": 1, "read": "d1", "want": "x1"},
     "5张牌和位置对不上（第1排第1张读成壹，应该是一）：顺序对吗？照片清楚吗？"),
    ("teach_twice", {"row": 1, "col": 3, "row2": 1, "col2": 4, "read": "x4", "want": "x3"},
     "第1排第3张读成四，和第1排第4张一样：有一张放了两次吗？（这里应该是三）"),
    ("teach_alike", {"row": 2, "col": 3, "row2": 2, "col2": 5, "want": "d3", "want2": "d5"},
     "第2排第3张和第2排第5张像是同一张牌：有一张放了两次吗？（这两处应该是叁和伍）"),
    ("teach_swapped", {}, "两排放反了：小字一到十放上排，大字壹到拾放下排"),
    ("teach_empty", {"n": 1, "row": 1, "col": 10, "places": "1-10"},
     "第1排第10个位置没有牌：二十张都摆上，上排小字一到十，下排大字壹到拾"),
    ("teach_crossed", {"row": 2, "col": 3, "row2": 2, "col2": 4, "want": "d3", "want2": "d4"},
     "第2排第3张和第2排第4张像是互相放错了位置（应该是叁和肆）"),
    ("teach_blurred", {"s": "0.12", "need": "0.3"}, "照片太模糊（清晰度 0.12，要 0.3）：拿稳手机再拍一张"),
    ("teach_from_a_newer_learner", {}, "the learner's own line"),
])
def test_the_learners_refusals_in_the_players_words(kind: str, fields: dict, zh: str) -> None:
    assert refusal_words(TeachRefused("the learner's own line", kind, **fields), Translator("zh_Hans")) == zh
    assert "貳" in refusal_words(TeachRefused("row 1, card 2 …", "teach_misread", row=1, col=2, read="d2",
                                              want="x2"), Translator("zh_Hant"))
