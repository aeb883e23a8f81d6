"""Font splits are explicit, disjoint, complete, and a missing file is a clear error."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

import zipai.datasets.fonts as fonts
from zipai.datasets.cards import glyph_mask, glyph_text, random_deck, render_back, render_face
from zipai.engine import ALL_CARDS, Card
from zipai.engine.cards import BIG_VARIANTS, SMALL_CHARS


def test_heldout_faces_never_train() -> None:
    train = {f.path for f in fonts.faces("train")}
    held = {f.path for f in fonts.faces("heldout")}
    assert not train & held
    assert {f.style for f in fonts.faces("heldout")} >= {"ming", "brush"}
    assert {f.path for f in fonts.faces("val")} <= train


def test_the_tuning_faces_are_in_no_other_split() -> None:
    tune = {f.path for f in fonts.faces("tune")}
    others = {f.path for split in ("train", "reader", "heldout") for f in fonts.faces(split)}
    assert tune and not tune & others
    for face in fonts.faces("tune"):  # every rank in some form, so no deck borrows a face
        for rank, forms in BIG_VARIANTS.items():
            assert any(fonts.has_glyph(face, ch) for ch in forms), (face.name, rank)


def test_the_reader_faces_are_new_and_none_is_held_out() -> None:
    """The reader split adds faces: none of the finder's ten, none of the held-out three, and no
    other weight of a held-out family (wqy-zenhei, uming, aoyagi)."""
    reader = {f.path for f in fonts.faces("reader")}
    assert not reader & {f.path for f in fonts.faces("train")}
    held = {f.path for f in fonts.faces("heldout")}
    assert not reader & held
    for path in reader:
        assert not any(family in path for family in ("zenhei", "uming", "aoyagi"))
    assert {f.style for f in fonts.faces("reader")} >= {"kai", "ming", "sans", "hand"}


def test_the_wide_split_is_the_reader_faces_and_more_none_held_out_or_tuning() -> None:
    """Split wide adds faces from other packages to the reader's: none of the finder's, the
    held-out or the tuning faces, and none of a held-out family."""
    wide = [f.path for f in fonts.faces("wide")]
    assert len(wide) == len(set(wide)) and set(wide) >= {f.path for f in fonts.faces("reader")}
    more = set(wide) - {f.path for f in fonts.faces("reader")}
    assert len(more) == len(fonts.MORE) >= 10
    for split in ("train", "heldout", "tune"):
        assert not more & {f.path for f in fonts.faces(split)}, split
    assert not any(family in path for path in more for family in ("zenhei", "uming", "aoyagi"))
    assert fonts.FALLBACK["wide"] == fonts.MORE[0]
    for forms in BIG_VARIANTS.values():  # the face decks borrow from draws every form
        assert all(fonts.has_glyph(fonts.MORE[0], ch) for ch in forms)


def test_the_wider_split_is_wide_and_eight_faces_none_held_out_or_tuning() -> None:
    """Split wider is split wide and the eight faces of split select: none of them the finder's, a
    held-out or a tuning face, nor of a held-out design (the brush face is Aoyagi Kouzan's hand,
    like the training face kouzan-mouhitsu, not the held-out Aoyagi Soseki's); the face decks of
    split select borrow from draws every form a deck falls back on."""
    wider = [f.path for f in fonts.faces("wider")]
    wide = [f.path for f in fonts.faces("wide")]
    assert len(wider) == len(set(wider)) and wider[:len(wide)] == wide
    more = set(wider) - set(wide)
    assert more == {f.path for f in fonts.faces("select")} and len(more) == 8
    for split in ("train", "heldout", "tune"):
        assert not more & {f.path for f in fonts.faces(split)}, split
    assert not any(family in path for path in more for family in ("zenhei", "uming", "soseki"))
    assert fonts.FALLBACK["wider"] == fonts.MORE[0]
    for forms in BIG_VARIANTS.values():
        assert fonts.has_glyph(fonts.FALLBACK["select"], forms[-1])


def test_unknown_split_and_missing_font(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(fonts.FontError, match="unknown split"):
        fonts.faces("test")
    ghost = fonts.Face("/usr/share/fonts/none/ghost.ttf", 0, "brush")
    monkeypatch.setitem(fonts.SPLITS, "train", (*fonts.TRAIN, ghost))
    with pytest.raises(fonts.FontError, match=r"ghost\.ttf.*missing"):
        fonts.faces("train")
    with pytest.raises(fonts.FontError):
        random_deck(random.Random(0), "train")


@pytest.mark.parametrize("split", ["train", "heldout", "reader", "wide", "wider"])
def test_every_variant_form_is_drawn_by_some_face(split: str) -> None:
    """叁 叄 參, 贰 貳, 陆 陸 and every other form has ink in at least one face of the split."""
    faces = fonts.faces(split)
    for forms in BIG_VARIANTS.values():
        for ch in forms:
            assert any(fonts.has_glyph(f, ch) for f in faces), f"no {split} face draws {ch}"
    for ch in SMALL_CHARS + "大":
        assert all(fonts.has_glyph(f, ch) for f in faces), ch


def test_empty_cmap_glyphs_are_detected() -> None:
    kiloji = next(f for f in fonts.TRAIN if "kiloji" in f.path)
    assert not fonts.has_glyph(kiloji, "柒")      # mapped but empty or .notdef in this face
    assert fonts.has_glyph(kiloji, "捌")


@pytest.mark.parametrize("split", ["train", "heldout", "wide", "wider"])
def test_every_face_renders_every_card_with_ink(split: str) -> None:
    rng = random.Random(3)
    for face in fonts.faces(split):
        deck = dataclasses.replace(random_deck(rng, split), face=face, stroke=0.0)
        deck = dataclasses.replace(deck, big_variant={r: next((c for c in forms if fonts.has_glyph(face, c)),
                                                            forms[-1]) for r, forms in BIG_VARIANTS.items()})
        for card in ALL_CARDS:
            m = np.asarray(glyph_mask(deck, card, 40))
            assert (m > 128).sum() > 20, f"{face.name} draws no ink for {glyph_text(deck, card)}"


def test_heavy_strokes_add_ink() -> None:
    rng = random.Random(5)
    deck = dataclasses.replace(random_deck(rng, "train"), stroke=0.0, face=fonts.TRAIN[1])
    thin = (np.asarray(glyph_mask(deck, Card.parse("x8"), 60)) > 128).sum()
    heavy = (np.asarray(glyph_mask(dataclasses.replace(deck, stroke=0.08), Card.parse("x8"), 60)) > 128).sum()
    assert heavy > thin * 1.3


def test_composed_big_three_holds_both_characters() -> None:
    rng = random.Random(1)
    deck = dataclasses.replace(random_deck(rng, "train"), face=fonts.TRAIN[6], compose_big3=True, stroke=0.0)
    m = np.asarray(glyph_mask(deck, Card.parse("d3"), 60)) > 128
    plain = np.asarray(glyph_mask(dataclasses.replace(deck, compose_big3=False), Card.parse("x3"), 60)) > 128
    assert m.sum() > plain.sum()
    assert m[int(m.shape[0] * 0.62):].any()     # 三 sits low, between the legs of 大


def test_face_and_back_shapes() -> None:
    rng = random.Random(2)
    deck = random_deck(rng, "train")
    face, flags = render_face(deck, Card.parse("d10"), 50, rng)
    back = render_back(deck, 50, rng)
    assert face.size == back.size == flags.size
    assert face.height / face.width == pytest.approx(deck.ratio, rel=0.05)
    f = np.asarray(flags)
    h = f.shape[0]
    assert (f[: h // 2] == 1).any() and (f[h // 2:] == 2).any() and not (f[h // 2:] == 1).any()


@pytest.mark.parametrize("split", ["train", "heldout", "wide", "wider"])
def test_any_deck_draws_any_card_at_any_width(split: str) -> None:
    """Random decks (slant, weight, frames) never overflow a card, even a tiny one."""
    rng = random.Random(11)
    for _ in range(120):
        deck = random_deck(rng, split)
        card = rng.choice(ALL_CARDS)
        width = rng.choice((6, 9, 14, 25, 48, 90))
        face, flags = render_face(deck, card, width, rng)
        assert face.size == flags.size and face.width == width
