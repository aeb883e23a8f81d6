"""Teaching by place: the layout's order is the truth, so a face the finder misses is read where
its place lies, a face the reader misreads is learnt as its place's card, and only a broken
order or a bare place refuses the photo, naming the places.

A face is hidden from the finder by deleting every find on its card (``Blindfold``: the finds
whose centre lies inside the card's drawn outline, its far end too), the way the finder misses
a thin 一, a red 七 or a faint print; the reader still reads whatever box it is given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from deckphotos import teach

from zipai.engine import CARD_NAMES
from zipai.models.eval_decks import Blindfold, Misreader, blind_cards
from zipai.vision import deck as D
from zipai.vision.deck.cli import _learned


@pytest.fixture(scope="module")
def det() -> D.Detector:
    return D.deck_detector()


def _inside(box: tuple[float, ...], card_box: list[float]) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return card_box[0] <= cx <= card_box[2] and card_box[1] <= cy <= card_box[3]


def _each_face_on_its_card(t: D.Taught, label: dict[str, Any]) -> None:
    assert [f.card for f in t.faces] == list(CARD_NAMES)
    truth = {f["card"]: f["card_box"] for f in label["faces"]}
    off = [f.card for f in t.faces if not _inside(f.box, truth[f.card])]
    assert not off, f"found off their cards: {off}"


@pytest.mark.parametrize(("variant", "n"), [("good", 3), ("upside_down", 2), ("casual", 2), ("slanted", 1)])
def test_faces_the_finder_misses_are_read_at_their_places(det: D.Detector, variant: str, n: int) -> None:
    photo, label = teach(variant)
    hidden = blind_cards(det, photo, label, n)
    assert hidden[:2] == ("x1", "x7")[:n]
    blind = Blindfold(det, photo, label, hidden)
    t = D.learn(photo, "blind", blind)
    _each_face_on_its_card(t, label)
    assert t.upside_down == (variant == "upside_down")
    assert {f.card for f in t.faces if not f.found} == set(hidden)
    assert all(f.peak == 0.0 for f in t.faces if not f.found)
    assert all(per == {"teach": 1} for c, per in t.deck.counts().items() if c != "back")


def test_blinding_hides_the_faces_from_the_old_learner_too(det: D.Detector) -> None:
    """The blindfold deletes the finds: without them the layout shows 17 faces."""
    from zipai.vision.decode import decode

    photo, label = teach("good")
    blind = Blindfold(det, photo, label, blind_cards(det, photo, label, 3))
    q, _, shown = D.locate(blind, decode(photo, "p"))
    assert q == 0 and shown[2] == 17 and shown[4] is not None and len(shown[4].missed) == 3


MISREADS = [{"d3": "d4"}, {"d2": "d9", "d3": "d4"}, {"x1": "x3", "d7": "x7", "d9": "d2"}]


@pytest.mark.parametrize("reads", MISREADS)
def test_faces_the_reader_misreads_are_learnt_by_their_places(det: D.Detector, reads: dict[str, str]) -> None:
    """Sure misreads (叁 for 肆 while 肆 reads as 肆, 貳 for 玖, a red 柒 for a black 七) are learnt
    as their places say, and the places that disagreed are shown."""
    photo, label = teach("good")
    t = D.learn(photo, "misread", Misreader(det, reads))
    _each_face_on_its_card(t, label)
    assert {CARD_NAMES[i] for i in t.disagreed} >= set(reads)
    lines = t.disagreements()
    assert any(line.startswith("row 2, place 3: 參, read as 肆") for line in lines) == ("d3" in reads)
    # zipai deck learn prints them, and its JSON lists them
    printed = _learned(t, Path("d.deck"))
    n = len(t.disagreed)
    assert f"{n} place{'s' if n > 1 else ''} disagreed with the order, learnt as the order names" in printed
    assert "; ".join(lines) in printed
    assert t.to_json()["disagreed"] == t.disagreed


def test_two_cards_in_each_others_places_are_refused_naming_both(det: D.Detector) -> None:
    with pytest.raises(D.TeachRefused) as e:
        D.learn(teach("good")[0], "crossed", Misreader(det, {"d3": "d4", "d4": "d3"}))
    assert e.value.kind == "teach_crossed"
    assert "row 2, place 3 and row 2, place 4 read as each other's cards" in str(e.value)


def test_a_shuffled_order_is_refused_naming_the_places(det: D.Detector) -> None:
    shuffled = {"x2": "x5", "x5": "x9", "x9": "x2", "d6": "d8", "d8": "d1", "d1": "d6"}
    with pytest.raises(D.TeachRefused) as e:
        D.learn(teach("good")[0], "shuffled", Misreader(det, shuffled))
    assert e.value.kind == "teach_misreads" and e.value.fields["n"] >= 6
    assert "row 1, place 2 reads as 五" in str(e.value)


def test_a_bare_place_is_refused_even_with_a_face_hidden(det: D.Detector) -> None:
    """One card left out (the row closes up, its last place bare), another hidden from the finder:
    the hidden one is read at its place, the bare one refuses the photo."""
    photo, label = teach("missing")
    hidden = next(f["card"] for f in label["faces"] if f["row"] == 2 and f["col"] == 5)
    with pytest.raises(D.TeachRefused) as e:
        D.learn(photo, "bare", Blindfold(det, photo, label, (hidden,)))
    assert e.value.kind == "teach_empty" and str(e.value).startswith("row 1, place 10: no card there")
    assert e.value.fields["n"] == 1 and "\n" not in str(e.value)


def test_swapped_rows_are_refused_with_a_face_hidden(det: D.Detector) -> None:
    photo, label = teach("swapped")
    with pytest.raises(D.TeachRefused) as e:
        D.learn(photo, "swapped", Blindfold(det, photo, label, ("x1",)))
    assert e.value.kind == "teach_swapped"


def _face(card: str, u: float, v: float) -> D.Detection:
    return D.Detection(card, (u - 20, v - 20, u + 20, v + 20), 0.8, "black")


def test_places_are_fitted_from_the_gaps_and_the_other_row() -> None:
    top = [_face(c, 100 * k, 100) for k, c in enumerate(CARD_NAMES[:10], start=1)]
    big = [_face(c, 100 * k, 400) for k, c in enumerate(CARD_NAMES[10:], start=1)]
    # 一 and 壹 both missed: the rows' columns line up either way; the reads say where they start
    p = D._fit_places([top[1:], big[1:]], D.UPRIGHT)
    assert p is not None and p.missed == [0, 10]
    assert np.allclose(p.boxes[0], (80, 80, 120, 120)) and np.allclose(p.boxes[10], (80, 380, 120, 420))
    # 五 missed in the middle: the gap holds it; 拾 missed at the end: the row's step carries on
    p = D._fit_places([top[:4] + top[5:], big[:9]], D.UPRIGHT)
    assert p is not None and p.missed == [4, 19]
    assert np.allclose(p.boxes[4], (480, 80, 520, 120)) and np.allclose(p.boxes[19], (980, 380, 1020, 420))
    # a row of eleven, or too few faces, is not the layout
    assert D._fit_places([[*top, _face("x3", 1100, 100)], big], D.UPRIGHT) is None
    assert D._fit_places([top[:6], big[:8]], D.UPRIGHT) is None
