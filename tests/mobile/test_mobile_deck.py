"""认牌 in the app, driven by touches through the Window on a 360×780 phone and a 1280×800 tablet:
the first start offers it, a rendered teaching photo (``zipai.datasets.teach``) taught by touch
stores a deck and makes it the deck in use, a refused photo stores nothing, the review shows
the deck, and a card corrected in the review is added to the deck when the hand is recorded.

Learning runs the real learner (``zipai.vision.deck``) on the shipped model; the review's photo
is a rendered scene whose detections come from its labels (as in test_mobile_ui).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_mobile_touch import app_in, create_session, reach_all, set_size
from test_mobile_ui import UI, truth_scan

from zipai.engine import CARD_NAMES, Card

# The app's behaviour over a card doubt, not the fitted weights: a hand-set chance model
# (tests/conftest.py) makes the card these photos misread a doubt whatever the shipped bar.
pytestmark = pytest.mark.usefixtures("fixed_chance")

SIZES = ((360, 780), (1280, 800))
IDS = [f"{w}x{h}" for w, h in SIZES]


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A good teaching photo of one rendered deck, and two it must refuse."""
    from zipai.datasets.teach import DeckRef, render_teach

    out = tmp_path_factory.mktemp("teach")
    got = {}
    for variant in ("good", "missing", "swapped"):
        img, _label = render_teach(DeckRef(0, "val", 0), variant, (1600, 1200))
        got[variant] = out / f"teach-{variant}.jpg"
        img.save(got[variant], quality=88)
    return got


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UI]:
    decks = os.environ.pop("ZIPAI_DECKS", None)  # each data folder keeps its own decks here
    try:
        with app_in(tmp_path_factory.mktemp("mobile_deck")) as ui:
            yield ui
    finally:
        if decks is not None:
            os.environ["ZIPAI_DECKS"] = decks


def fresh(ui: UI, name: str) -> Any:
    """The app as first started on a new phone: a new data folder, no session, no deck."""
    from zipai.mobile.state import AppState

    old = ui.app.state
    st = AppState(ui.base / name, scanner=old._scanner)  # type: ignore[attr-defined]
    st.listeners.append(ui.app._redraw)
    old.close()
    ui.app.state = st
    ui.app.go("start")
    ui.screen.refresh()  # a start screen already shown is drawn again for the new data
    ui.finger.wait(0.2)
    return st


def teach_by_touch(ui: UI, photo: Path) -> None:
    """认牌 → take or pick the photo → the capture screen's file list → use it → back on 认牌."""
    f = ui.finger
    assert ui.screen.name == "teach"
    f.tap_text("teach_photo")
    assert ui.screen.name == "capture" and ui.screen.purpose == "teach"
    ui.screen.ids.chooser.selection = [str(photo)]  # the file chooser is the capture screen's own
    f.tap_text("use_photo")
    assert ui.screen.name == "teach"
    f.wait(60, until=lambda: ui.app.status != ui.app.state.t("teaching"))
    f.wait(0.3)  # the 20 cards laid out, as a player's eye waits for them


# ------------------------------------------------------------------ the first start
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_first_start_offers_teaching_once(ui: UI, size: tuple[int, int]) -> None:
    f = ui.finger
    set_size(ui, size)
    st = fresh(ui, f"first-later-{size[0]}")
    offer = ui.screen.ids.offer
    assert offer.shown and st.t("teach_offer") in ui.labels()
    f.tap_text("later")
    assert not offer.shown and st.settings.teach_offered
    from zipai.mobile.state import AppState

    again = AppState(st.data_dir)  # the next start: asked once is enough
    assert not again.wants_teach_offer()
    again.close()
    # on another first start the offer's own button opens 认牌, which comes back to the start
    st = fresh(ui, f"first-teach-{size[0]}")
    f.tap(ui.screen.ids.offer_teach)
    assert ui.screen.name == "teach" and ui.screen.back_to == "start"
    assert st.settings.teach_offered and not st.shelf.names()
    f.tap_text("ledger")  # no session yet: the top bar's ledger button goes to the start
    assert ui.screen.name == "start" and not ui.screen.ids.offer.shown


# ------------------------------------------------------------------ teaching
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_teaching_by_touch_stores_the_deck_in_use(ui: UI, photos: dict[str, Path],
                                                  size: tuple[int, int]) -> None:
    f = ui.finger
    set_size(ui, size)
    st = fresh(ui, f"teach-{size[0]}")
    f.tap_text("settings")
    assert st.t("no_deck") in ui.labels()
    t0 = f.taps
    f.tap(ui.screen.ids.teach)
    scr = ui.screen
    assert scr.name == "teach" and scr.back_to == "settings"
    cells = scr.ids.guide.cells()
    assert [c for c, _ in cells] == [*CARD_NAMES, "back"]
    assert all(box[1] + box[3] <= scr.ids.guide.top + 1 and box[0] >= scr.ids.guide.x for _, box in cells)
    assert scr.ids.save.disabled and not scr.chips
    teach_by_touch(ui, photos["good"])
    taps = f.taps - t0
    assert scr.taught is not None, ui.app.status
    assert [c.face for c in scr.chips] == list(CARD_NAMES)  # the layout is the label
    assert len(scr.ids.photo.detections) in (20, 21)
    # a tap on a chip opens the card pad; a face there relabels it, and the deck is derived again
    f.tap(scr.chips[2])
    assert scr.picker is not None and scr.picker.parent is not None
    f.tap(scr.picker.pad.keys["d3"])
    assert scr.picker.parent is None and scr.chips[2].face == "d3"
    assert scr.taught.faces[2].card == "d3" and st.t("teach_untaken", cards="三") in scr.info_text
    f.tap(scr.chips[2])
    f.tap(scr.picker.pad.keys["x3"])
    assert [c.face for c in scr.chips] == list(CARD_NAMES) and "teach_untaken" not in scr.info_text
    name = f"周五那副{size[0]}"
    t1 = f.taps
    f.type_text(scr.ids.name, name)
    f.tap(scr.ids.save)
    taps += f.taps - t1
    print(f"taps to teach a deck at {size[0]}x{size[1]}: {taps} (a name typed, no card fixed)")
    assert taps <= 6, taps
    assert ui.screen.name == "settings", ui.app.status
    assert ui.app.status == st.t("deck_saved", name=name)
    assert st.settings.deck == name and st.shelf.names() == [name]
    assert (st.data_dir / "decks" / f"{name}.deck").is_file()
    from zipai.mobile.state import AppState

    again = AppState(st.data_dir)  # persisted as the other settings are
    assert again.settings.deck == name and again.deck().counts()["x3"] == {"teach": 1}
    again.close()
    lit = ui.screen.deck_buttons[name]
    assert lit.background_color[:3] != ui.screen.deck_buttons[""].background_color[:3]
    # the review says which deck reads the photo
    create_session(ui, f"deck-{size[0]}")
    photo = ui.base / f"scene-{size[0]}.jpg"  # type: ignore[attr-defined]
    photo.write_bytes(b"")
    f.tap_text("capture")
    ui.screen.ids.chooser.selection = [str(photo)]
    f.tap_text("use_photo")
    assert ui.screen.name == "review"
    assert ui.screen.ids.deck.text == st.t("deck_in_use", name=name)
    # none chosen in the settings: the review says so
    f.tap_text("settings")
    f.tap(ui.screen.deck_buttons[""])
    assert st.settings.deck == "" and ui.app.status == st.t("deck_chosen", name=st.t("deck_none"))
    ui.app.go("review")
    ui.pump(3)
    assert ui.screen.ids.deck.text == st.t("no_deck")
    st.start_manual()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_refused_photo_stores_nothing(ui: UI, photos: dict[str, Path], size: tuple[int, int]) -> None:
    f = ui.finger
    set_size(ui, size)
    st = fresh(ui, f"refused-{size[0]}")
    ui.app.go("settings")
    ui.pump(2)
    f.tap(ui.screen.ids.teach)
    for variant, words in (("missing", "个位置没有牌"), ("swapped", "两排放反了")):
        teach_by_touch(ui, photos[variant])
        scr = ui.screen
        assert scr.name == "teach" and scr.taught is None
        assert ui.app.status.startswith(st.t("error", msg=st.t("teach_refused", why="")))
        assert words in ui.app.status, ui.app.status
        assert scr.ids.save.disabled and not scr.chips
    assert st.shelf.names() == [] and st.settings.deck == ""
    decks = st.data_dir / "decks"
    assert not decks.exists() or not any(decks.iterdir())


# ------------------------------------------------------------------ corrections that teach
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_correction_in_the_review_teaches_the_deck(ui: UI, photos: dict[str, Path],
                                                     size: tuple[int, int]) -> None:
    f = ui.finger
    set_size(ui, size)
    st = fresh(ui, f"fix-{size[0]}")
    name = "我们的牌"
    st.save_deck(st.learn(photos["good"], name), name)
    before = st.deck().counts()
    create_session(ui, f"fix-{size[0]}")
    photo = ui.base / f"fix-{size[0]}.jpg"  # type: ignore[attr-defined]
    photo.write_bytes(b"")
    f.tap_text("capture")
    ui.screen.ids.chooser.selection = [str(photo)]
    f.tap_text("use_photo")
    assert ui.screen.name == "review" and ui.screen.ids.deck.text == st.t("deck_in_use", name=name)
    bad = next(i for i, d in enumerate(st.draft.detections) if d.class_prob < 0.5)
    _sc, truth = truth_scan(photo)
    ci, _pos = st.draft.locate(bad)
    f.tap(ui.screen.ids.editor.heads[ci])  # zoom to the group, then tap the misread card's box
    view = ui.screen.ids.photo
    x, y, w, h = view.to_widget_box(st.draft.detections[bad].box)
    f.touch_at(*view.to_window(x + w / 2, y + h / 2))
    assert st.editor.card == st.draft.locate(bad)
    f.tap(ui.screen.ids.pad.keys[truth[bad]])
    assert st.draft.fixes() == [(tuple(st.draft.detections[bad].box), truth[bad])]
    if st.check().doubts:
        f.tap(ui.screen.ids.ack)
    f.tap_text("next")
    ids = ui.screen.ids
    f.choose(ids.winner, st.sstate.dealer)
    f.choose(ids.won_by, "self_draw")
    f.tap_text("score_it")
    assert ui.screen.name == "result", ui.app.status
    f.tap(ui.screen.ids.confirm)
    assert ui.screen.name == "ledger"
    assert ui.app.status == st.t("recorded", n=1) + " · " + st.t("deck_learned", n=1)
    after = st.shelf.load(name).counts()
    assert after[truth[bad]].get("review", 0) == before[truth[bad]].get("review", 0) + 1
    assert sum(n for per in after.values() for n in per.values()) == \
        sum(n for per in before.values() for n in per.values()) + 1


# ------------------------------------------------------------------ every button takes a touch
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_every_button_of_teaching_takes_a_touch(ui: UI, photos: dict[str, Path],
                                                size: tuple[int, int]) -> None:
    set_size(ui, size)
    st = fresh(ui, f"probe-{size[0]}")
    missed: list[str] = []
    tag = f"{size[0]}x{size[1]}"
    probed = reach_all(ui, f"{tag} start (offer)", missed)
    from zipai.mobile.teach import open_teach

    open_teach(ui.app, "settings")
    probed += reach_all(ui, f"{tag} teach (guide)", missed)
    scr = ui.screen
    scr.taught, scr.photo = st.learn(photos["good"], "probe"), str(photos["good"])
    scr.refresh()
    probed += reach_all(ui, f"{tag} teach (20 cards)", missed)
    ui.finger.tap(scr.chips[19])
    keys = ui.finger.buttons(scr.picker)  # a touch outside the card pad would close it: its keys only
    missed += [f"{tag} card pad: {b.text}" for b in keys if not ui.finger.reaches(b)]
    probed += len(keys)
    assert len(keys) == 20 and scr.picker.parent is not None
    ui.finger.tap(scr.picker.pad.keys["d10"])
    ui.finger.tap(scr.ids.save)
    assert ui.screen.name == "settings"
    probed += reach_all(ui, f"{tag} settings (decks)", missed)
    assert probed > 60 and not missed, "\n".join(missed)


# ------------------------------------------------------------------ teaching by place
@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The good teaching photo of the ``photos`` deck, with its label (where each card lies)."""
    from zipai.datasets.teach import DeckRef, render_teach

    img, label = render_teach(DeckRef(0, "val", 0), "good", (1600, 1200))
    path = tmp_path_factory.mktemp("places") / "teach-good.jpg"
    img.save(path, quality=88)
    return path, label


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_places_that_disagreed_are_shown_and_a_tap_on_the_photo_fixes_one(
        ui: UI, labelled: tuple[Path, dict[str, Any]], size: tuple[int, int]) -> None:
    """The finder misses 一 and the reader takes 叁 for 肆: all 20 are learnt by place while the
    screen keeps drawing its progress, 叁's place is marked on the photo and among the cards,
    and a tap on its place in the photo opens the card pad that says which card it is."""
    from zipai.models.eval_decks import Blindfold, Misreader
    from zipai.vision.deck import deck_detector

    path, label = labelled
    f = ui.finger
    set_size(ui, size)
    st = fresh(ui, f"places-{size[0]}")
    blind = Misreader(Blindfold(deck_detector(), path.read_bytes(), label, ("x1",)), {"d3": "d4"})
    st.shelf.detector = lambda: blind
    ui.app.go("settings")
    ui.pump(2)
    f.tap(ui.screen.ids.teach)
    scr = ui.screen
    f.tap_text("teach_photo")
    ui.screen.ids.chooser.selection = [str(path)]
    shares: list[float] = []
    scr.bind(progress=lambda _s, v: shares.append(v))
    f.tap_text("use_photo")
    assert ui.screen is scr and scr.learning and scr.ids.progress_box.shown  # drawn at once
    assert scr.ids.take.disabled and scr.ids.save.disabled
    frames = [0]

    def drawing() -> bool:
        frames[0] += scr.learning
        return not scr.learning
    f.wait(60, until=drawing)
    assert scr.taught is not None, ui.app.status
    # the loop drew frames while it learnt, and the bar moved step by step to the end
    assert frames[0] > 3 and len(set(shares)) > 2 and shares == sorted(shares) and shares[-1] == 1.0
    assert not scr.ids.progress_box.shown and not scr.ids.take.disabled
    assert [c.face for c in scr.chips] == list(CARD_NAMES)
    faces = scr.taught.faces
    assert not faces[0].found and faces[12].read_as == "d4"
    assert scr.chips[12].doubt and 12 in scr.ids.photo.doubt_dets
    three = Card.parse("d3").chinese(traditional=st.t.traditional)
    assert st.t("teach_disagreed", n=1, cards=three) in scr.info_text
    view = scr.ids.photo
    f.bring_into_view(view)
    x, y, w, h = view.to_widget_box(faces[12].box)
    f.touch_at(*view.to_window(x + w / 2, y + h / 2))
    assert scr.picker is not None and scr.picker.parent is not None
    f.tap(scr.picker.pad.keys["d5"])
    assert scr.taught.faces[12].card == "d5" and scr.chips[12].face == "d5"
    f.tap(scr.chips[12])
    f.tap(scr.picker.pad.keys["d3"])
    assert [c.face for c in scr.chips] == list(CARD_NAMES)
