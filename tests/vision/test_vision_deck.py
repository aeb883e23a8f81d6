"""Learning a deck from a teaching photo, reading with it, and the deck store and file."""

from __future__ import annotations

import dataclasses
import io
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from deckphotos import SPLIT_GLYPHS, scene, teach

from zipai.engine import CARD_NAMES
from zipai.vision import deck as D
from zipai.vision.decode import decode
from zipai.vision.scan import scan_bytes


@pytest.fixture(scope="module")
def det() -> D.Detector:
    return D.deck_detector()


@pytest.fixture(scope="module")
def taught(det: D.Detector) -> D.Taught:
    return D.learn(teach("good")[0], "home", det)


def _inside(box: tuple[float, ...], card_box: list[float]) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return card_box[0] <= cx <= card_box[2] and card_box[1] <= cy <= card_box[3]


def test_a_good_photo_teaches_all_twenty_faces_by_their_places(taught: D.Taught) -> None:
    label = teach("good")[1]
    assert [f.card for f in taught.faces] == list(CARD_NAMES)
    assert not taught.upside_down
    truth = {f["card"]: f["card_box"] for f in label["faces"]}
    assert all(_inside(f.box, truth[f.card]) for f in taught.faces)
    counts = taught.deck.counts()
    assert all(counts[c] == {"teach": 1} for c in CARD_NAMES)
    assert set(taught.separations) == set(CARD_NAMES)
    assert all(0.0 < d <= 2.0 and near != c for c, (near, d) in taught.separations.items())
    protos = taught.deck.prototypes
    assert protos.shape[0] == 20 and np.allclose(np.linalg.norm(protos, axis=1), 1.0, atol=1e-4)
    if label["back"] is not None:
        assert taught.back is not None and _inside(taught.back, label["back"]["card_box"])
        assert counts["back"] == {"teach": 1}


def test_a_glyph_the_finder_splits_is_one_card(det: D.Detector) -> None:
    """二's two strokes and 叁's 三 found apart are one card each, not 22 faces."""
    photo, label = teach("good", SPLIT_GLYPHS)
    raw = [d for d in det.detect(decode(photo, "p")).detections if d.card != "back" and not D._turned(d)]
    assert len(D._far_ends(raw)) > 20  # the pieces are there to be joined
    t = D.learn(photo, "split", det)
    assert [f.card for f in t.faces] == list(CARD_NAMES)
    truth = {f["card"]: f["card_box"] for f in label["faces"]}
    assert all(_inside(f.box, truth[f.card]) for f in t.faces)


def test_a_slanted_photo_is_read_along_its_rows_and_kept_upright(det: D.Detector,
                                                                   taught: D.Taught) -> None:
    """A phone held 12 to 25 degrees off level: rows are found along the layout, and the crops
    are turned upright, so the deck learnt is the deck a level photo teaches."""
    photo, label = teach("slanted")
    t = D.learn(photo, "slanted", det)
    assert [f.card for f in t.faces] == list(CARD_NAMES) and not t.upside_down
    truth = {f["card"]: f["card_box"] for f in label["faces"]}
    assert all(_inside(f.box, truth[f.card]) for f in t.faces)
    alike = np.sum(t.deck.prototypes * taught.deck.prototypes, axis=1)
    assert alike.min() > 0.93  # crops cut as they lie give 0.89 for the least alike card


def test_faces_laid_by_hand_are_learnt_by_their_places(det: D.Detector, taught: D.Taught) -> None:
    """Uneven gaps, rows that wander, each card turned its own way: still two rows of ten."""
    photo, label = teach("casual")
    t = D.learn(photo, "casual", det)
    assert [f.card for f in t.faces] == list(CARD_NAMES) and not t.upside_down
    truth = {f["card"]: f["card_box"] for f in label["faces"]}
    assert all(_inside(f.box, truth[f.card]) for f in t.faces)
    assert np.sum(t.deck.prototypes * taught.deck.prototypes, axis=1).min() > 0.9


@pytest.mark.parametrize("quarters", [1, 3])
def test_a_photo_on_its_side_is_turned_and_its_boxes_turned_back(det: D.Detector, taught: D.Taught,
                                                                 quarters: int) -> None:
    """A photo whose orientation was lost (the rows run up the photo) is read a right angle round;
    the faces' boxes are given in the photo as it came."""
    from PIL import Image

    photo, label = teach("good")
    img = Image.open(io.BytesIO(photo))
    w, h = img.size
    buf = io.BytesIO()
    side = Image.Transpose.ROTATE_90 if quarters == 1 else Image.Transpose.ROTATE_270
    img.transpose(side).save(buf, "JPEG", quality=90)
    t = D.learn(buf.getvalue(), "side", det)
    assert [f.card for f in t.faces] == list(CARD_NAMES) and not t.upside_down

    def turned(b: list[float]) -> list[float]:  # a box of the photo in the photo turned
        return [b[1], w - b[2], b[3], w - b[0]] if quarters == 1 else [h - b[3], b[0], h - b[1], b[2]]

    truth = {f["card"]: turned(f["card_box"]) for f in label["faces"]}
    assert all(_inside(f.box, truth[f.card]) for f in t.faces)
    assert np.sum(t.deck.prototypes * taught.deck.prototypes, axis=1).min() > 0.93


def test_a_card_laid_twice_is_refused_however_the_reader_reads_it(det: D.Detector) -> None:
    """A deck whose 伍 the reader reads as 陸 where it belongs: laid again in 參's place it reads as
    伍 there, so no two faces read alike, but the two faces' embeddings are near one."""
    from zipai.datasets.teach import DeckRef, render_teach

    img, _ = render_teach(DeckRef(21, "heldout", 19, 2, 0.3), "duplicate", (1600, 1200))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=92)
    with pytest.raises(D.TeachRefused) as e:
        D.learn(buf.getvalue(), "twice", det)
    assert e.value.kind == "teach_alike" and "look like one card: is a card laid twice?" in str(e.value)
    assert {e.value.fields["want"], e.value.fields["want2"]} == {"d3", "d5"}


def test_a_far_end_below_a_gap_stands_in_for_its_card() -> None:
    """一's near end missed, its far end found: it fills the gap; a far end below a card found
    is set aside as before."""
    def face(card: str, u: float, v: float) -> D.Detection:
        return D.Detection(card, (u - 20, v - 20, u + 20, v + 20), 0.8, "black")

    small = [face(c, 100 * k, 100) for k, c in enumerate(CARD_NAMES[:10], start=1)]
    big = [face(c, 100 * k, 500) for k, c in enumerate(CARD_NAMES[10:], start=1)]
    far_one, far_two = face("x1", 100, 260), face("x2", 200, 260)
    rows = D._far_rows(D._rows([*small[1:], far_one, *big]))
    assert [[d.card for d in r] for r in rows] == [list(CARD_NAMES[:10]), list(CARD_NAMES[10:])]
    rows = D._far_rows(D._rows([*small, far_two, *big]))  # a card's far end below it: dropped
    assert [len(r) for r in rows] == [10, 10] and far_two not in rows[0]
    rows = D._far_rows(D._rows([*small[1:], face("x5", 100, 260), *big]))  # 伍 reads turned: no stand-in
    assert [len(r) for r in rows] == [9, 1, 10]


def test_pieces_of_one_glyph_join_and_neighbours_stay_apart() -> None:
    def face(card: str, box: tuple[float, float, float, float], score: float) -> D.Detection:
        return D.Detection(card, box, score, "black")

    two = [face("x2", (100, 100, 140, 112), 0.6), face("x2", (100, 126, 140, 138), 0.45)]
    row = [face("x1", (40, 100, 80, 140), 0.8), *two, face("x3", (160, 100, 200, 140), 0.7)]
    kept = D._one_glyph(row)
    assert sorted(d.card for d in kept) == ["x1", "x2", "x3"]
    joined = next(d for d in kept if d.card == "x2")
    assert joined.box == (100, 100, 140, 138) and joined.score == 0.6
    assert D._one_glyph(row[:1]) == row[:1]


def test_an_upside_down_photo_is_recognised_and_labelled_right(det: D.Detector) -> None:
    photo, label = teach("upside_down")
    t = D.learn(photo, "turned", det)
    assert t.upside_down
    assert [f.card for f in t.faces] == list(CARD_NAMES)
    truth = {f["card"]: f["card_box"] for f in label["faces"]}
    assert all(_inside(f.box, truth[f.card]) for f in t.faces)


@pytest.mark.parametrize(("variant", "words", "kind"), [
    ("missing", "row 1, place 10: no card there", "teach_empty"),
    ("extra", "found 21 faces, need 20 in two rows of ten", "teach_found"),
    ("duplicate", "is a card laid twice?", "teach_twice"),
    ("swapped", "the rows are swapped", "teach_swapped"),
    ("blurred", "too blurred", "teach_blurred"),
    ("scene", "need 20 in two rows of ten", "teach_found"),
])
def test_a_bad_teaching_photo_is_refused_with_one_line(det: D.Detector, variant: str, words: str,
                                                       kind: str) -> None:
    with pytest.raises(D.TeachRefused) as e:
        D.learn(teach(variant)[0], "bad", det)
    assert words in str(e.value) and "\n" not in str(e.value)
    assert isinstance(e.value, ValueError)
    assert e.value.kind == kind  # what an app words the refusal by
    if kind == "teach_found":
        assert str(e.value.fields["n"]) in str(e.value)


def test_not_a_photo_is_an_image_error(det: D.Detector) -> None:
    with pytest.raises(ValueError, match="not an image"):
        D.learn(b"hello", "x", det)


def test_relabel_moves_one_face_and_warns_of_the_card_left_untaught(taught: D.Taught) -> None:
    t = taught.relabel(0, "x2")
    assert t.faces[0].card == "x2" and t.deck.examples[0].card == "x2"
    assert t.deck.counts()["x2"] == {"teach": 2} and "x1" not in t.deck.counts()
    assert not np.linalg.norm(t.deck.prototypes[0]) and any("一" in w for w in t.warnings)
    with pytest.raises(D.DeckError, match="not a card"):
        taught.relabel(0, "x11")
    with pytest.raises(D.DeckError, match="no face 20"):
        taught.relabel(20, "x1")


def test_the_deck_rereads_only_the_split_among_faces(det: D.Detector, taught: D.Taught) -> None:
    again = D.reread(taught.deck, det)
    classes = det.config.classes
    n = len(classes)
    probs = np.full((2, n), 0.5 / (n - 2), np.float32)
    probs[:, classes.index("x3")] = 0.3  # the reader leans to 三 ...
    probs[:, classes.index("d3")] = 0.2
    emb = np.stack([taught.deck.prototypes[CARD_NAMES.index("d3")]] * 2)  # ... the deck sees 參
    out = again(probs, emb)
    face = [i for i, c in enumerate(classes) if c in CARD_NAMES]
    assert classes[face[int(np.argmax(out[0, face]))]] == "d3"
    # the reader's confidence is kept, only handed to other cards: the same values, reordered
    assert np.array_equal(np.sort(out[:, face], axis=1), np.sort(probs[:, face], axis=1))
    others = [i for i in range(n) if i not in face]
    assert np.array_equal(out[:, others], probs[:, others])
    far = np.zeros_like(emb)  # a find alike to every card of the deck: the reader's order stands
    assert classes[face[int(np.argmax(again(probs, far)[0, face]))]] == "x3"


def test_the_reread_names_the_cards_but_never_changes_which_finds_are_cards(det: D.Detector,
                                                                             taught: D.Taught) -> None:
    # a deck that sees each card's face as the next card's: it rereads every face it is sure of
    rolled = dataclasses.replace(taught.deck, prototypes=np.roll(taught.deck.prototypes, 1, axis=0))
    photo = decode(scene(), "scene.jpg")
    plain = det.detect(photo)
    again = det.detect(photo, lens=D.reread(rolled, det, D.Admit()))  # the reread alone, no admitting
    # the selector pairs finds of one card (a far end, a second peak): were it shown the deck's
    # cards it would keep other finds; it is shown the reader's, and the deck names them after
    assert [d.box for d in again.detections] == [d.box for d in plain.detections]
    assert [d.selected for d in again.detections] == [d.selected for d in plain.detections]
    assert [d.box for d in again.spare] == [d.box for d in plain.spare]
    pairs = list(zip(plain.detections, again.detections, strict=True))
    faces = [(a.card, b.card) for a, b in pairs if a.card != "back"]
    assert sum(x != y for x, y in faces) >= len(faces) // 2
    assert all(a.card == b.card for a, b in pairs if a.card == "back")


def test_the_deck_admits_finds_near_it_and_turns_away_finds_far_from_it(det: D.Detector,
                                                                      taught: D.Taught) -> None:
    assert taught.deck.back is None  # this teaching photo shows no back
    crop = taught.deck.examples[0].crop  # a stand-in for a back's crop
    deck = D.with_back(det, dataclasses.replace(taught.deck, examples=(
        *taught.deck.examples, D.Example("back", "teach", crop))))
    assert deck.back is not None and abs(float(np.linalg.norm(deck.back)) - 1) < 1e-5
    assert float(deck.back @ deck.prototypes[0]) > 0.9  # the back's views embed as that crop's do
    deck = dataclasses.replace(deck, back=deck.prototypes[CARD_NAMES.index("d10")])
    five = deck.prototypes[CARD_NAMES.index("x5")]
    n, classes = 4, det.config.classes
    embeds = np.stack([five, -five, deck.back, five]).astype(np.float32)
    finds = D.Finds(np.tile(np.float32([0, 0, 10, 10]), (n, 1)), np.float32([0.3, 0.9, 0.3, 0.1]),
                    np.int64([0, 0, 1, 0]), np.zeros((n, len(classes)), np.float32), np.zeros((n, 2)),
                    embeds=embeds)
    cards = ["x5", "x5", "back", "x5"]
    lens = D.Lens(deck, classes, D.Admit(face=0.95, back=0.95, far=0.3, peak=0.2))
    # near its card's prototype: a card; near none of the deck's: none, however strong its peak;
    # near the back's: a card; near but under the peak the rule asks: the selector decides
    assert lens.admit(finds, cards, np.ones(n)).tolist() == [1, -1, 1, 0]
    assert D.Lens(deck, classes, D.Admit()).admit(finds, cards, np.ones(n)) is None  # the selector alone
    bare = dataclasses.replace(finds, embeds=None)
    assert lens.admit(bare, cards, np.ones(n)) is None  # no embedding: the deck says nothing


def test_the_teaching_photo_records_how_strongly_each_face_was_found(det: D.Detector,
                                                                       taught: D.Taught) -> None:
    peaks = taught.deck.peaks
    assert peaks is not None and peaks.finder == D.finder_fingerprint(det) != ""
    assert all(0.0 < v <= 1.0 for v in peaks.values)
    assert all(peaks.of(f.card) == f.peak for f in taught.faces)
    # a tap that takes a face as another card takes its peak along; the card left has none
    moved = taught.relabel(0, "x2")
    assert moved.deck.peaks is not None
    assert moved.deck.peaks.of("x2") == max(taught.faces[0].peak, taught.faces[1].peak)
    assert moved.deck.peaks.of("x1") == 0.0


def test_a_deck_takes_in_weak_finds_of_the_cards_it_prints_faintly(det: D.Detector,
                                                                   taught: D.Taught) -> None:
    values = [0.9] * 20
    values[CARD_NAMES.index("x1")] = 0.4  # the finder barely saw this deck's 一 on the teaching photo
    deck = dataclasses.replace(taught.deck, peaks=D.Peaks("f", tuple(values)))
    n, classes = 5, det.config.classes
    finds = D.Finds(np.tile(np.float32([0, 0, 10, 10]), (n, 1)), np.float32([0.3, 0.2, 0.6, 0.3, 0.3]),
                    np.int64([0, 0, 0, 1, 0]), np.zeros((n, len(classes)), np.float32), np.zeros((n, 2)))
    cards = ["x1", "x1", "x2", "back", "x1"]
    prob = np.float32([0.5, 0.5, 0.5, 0.5, 0.05])
    lens = D.Lens(deck, classes, D.Admit(faint=0.6, faint_below=0.8, least=0.1))
    # 一 at 0.3 reaches 0.6 x 0.4; 一 at 0.2 does not; 二 this deck prints boldly is the
    # selector's; a back has no teaching peak; 一 the selector all but rules out stays out
    assert lens.admit(finds, cards, prob).tolist() == [1, 0, 0, 0, 0]  # no embeddings needed
    bare = dataclasses.replace(deck, peaks=None)  # a deck taught by another finder: no say
    assert D.Lens(bare, classes, D.Admit(faint=0.6)).admit(finds, cards, prob) is None


def test_a_scan_with_the_deck_says_so_and_keeps_its_fields(det: D.Detector, taught: D.Taught) -> None:
    plain = scan_bytes(scene()).to_json()
    with_deck = scan_bytes(scene(), det, deck=taught.deck).to_json()
    assert plain["deck"] is None and with_deck["deck"] == "home"
    assert set(plain) == set(with_deck)
    assert len(with_deck["detections"]) >= len(plain["detections"]) - 1


# ----------------------------------------------------------------------------- the store

@pytest.fixture
def store(tmp_path: Path, det: D.Detector) -> D.DeckStore:
    return D.DeckStore(tmp_path / "decks", det)


def test_store_round_trip_list_and_remove(store: D.DeckStore, taught: D.Taught) -> None:
    assert store.names() == []
    path = store.save(taught.deck)
    assert path.name == "home.deck" and store.names() == ["home"]
    back = store.load("home")
    assert back.name == "home" and back.model == taught.deck.model
    assert [(e.card, e.source) for e in back.examples] == [(e.card, e.source) for e in taught.deck.examples]
    pairs = zip(back.examples, taught.deck.examples, strict=True)
    assert all(np.array_equal(a.crop, b.crop) for a, b in pairs)
    assert np.array_equal(back.prototypes, taught.deck.prototypes)
    store.remove("home")
    assert store.names() == []
    with pytest.raises(D.DeckError, match="unknown deck 'home'"):
        store.load("home")
    with pytest.raises(D.DeckError, match="unknown deck 'home'"):
        store.remove("home")


def test_the_root_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ZIPAI_DECKS", str(tmp_path / "a"))
    assert D.DeckStore().root == tmp_path / "a"
    monkeypatch.delenv("ZIPAI_DECKS")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert D.DeckStore().root == tmp_path / "x" / "zipai" / "decks"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert D.DeckStore().root == tmp_path / "h" / ".local" / "share" / "zipai" / "decks"


@pytest.mark.parametrize("name", ["", "   ", "a/b", "..", "../up", "a\\b", ".hidden", "x" * 65, "nul\x00",
                                  "tab\there", " padded"])
def test_bad_names_are_refused_naming_them(store: D.DeckStore, name: str) -> None:
    with pytest.raises(D.DeckError, match="deck name"):
        store.path(name)
    with pytest.raises(D.DeckError, match="deck name"):
        store.load(name)


def test_a_deck_file_cut_short_anywhere_names_the_file(store: D.DeckStore, taught: D.Taught) -> None:
    path = store.save(taught.deck)
    blob = path.read_bytes()
    for cut in (0, 5, 12, 40, len(blob) // 3, len(blob) - 1):
        path.write_bytes(blob[:cut])
        with pytest.raises(D.DeckError) as e:
            store.load("home")
        assert str(path) in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(("change", "words"), [
    (lambda b: b[:-10] + bytes(10), "altered"),
    (lambda b: b + b"tail", "after its end"),
    (lambda b: b.replace(b"ZIPAIDECK 2", b"ZIPAIDECK 9", 1), "deck format 9"),
    (lambda b: b"PK\x03\x04" + b[4:], "not a deck file"),
    (lambda b: b.replace(b'"x1", "teach"', b'"x0", "teach"', 1), "examples"),
    (lambda b: b.replace(b'"name": "home"', b'"name": "../x"', 1), "lacks or garbles"),
])
def test_a_tampered_deck_file_is_a_clear_error(store: D.DeckStore, taught: D.Taught, change: object,
                                               words: str) -> None:
    path = store.save(taught.deck)
    path.write_bytes(change(path.read_bytes()))  # type: ignore[operator]
    with pytest.raises(D.DeckError, match=words):
        store.load("home")


def test_peaks_go_through_the_file_and_bad_ones_are_refused(store: D.DeckStore, taught: D.Taught) -> None:
    path = store.save(taught.deck)
    assert store.load("home").peaks == taught.deck.peaks
    bad = dataclasses.replace(taught.deck, peaks=D.Peaks("f", (2.0,) * 20))
    path.write_bytes(D.dumps(bad))
    with pytest.raises(D.DeckError, match="peaks are a finder and 20 numbers from 0 to 1") as e:
        store.load("home")
    assert str(path) in str(e.value)
    # another finder's peaks say nothing of this one's: the deck loads without them
    path.write_bytes(D.dumps(dataclasses.replace(taught.deck, peaks=D.Peaks("0" * 16, (0.5,) * 20))))
    deck = store.load("home")
    assert deck.peaks is None and np.array_equal(deck.prototypes, taught.deck.prototypes)


def test_a_file_holding_another_name_is_refused(store: D.DeckStore, taught: D.Taught) -> None:
    path = store.save(taught.deck)
    path.rename(path.with_name("other.deck"))
    with pytest.raises(D.DeckError, match="holds deck 'home', not 'other'"):
        store.load("other")


def test_a_deck_from_another_model_is_derived_again(store: D.DeckStore, taught: D.Taught,
                                                    det: D.Detector) -> None:
    old = dataclasses.replace(taught.deck, model="0123456789abcdef", prototypes=taught.deck.prototypes[:, :7])
    store.save(old)
    deck = store.load("home")
    assert deck.model == D.fingerprint(det)
    assert np.allclose(deck.prototypes, taught.deck.prototypes, atol=1e-5)
    assert D.read_deck(store.path("home")).model == "0123456789abcdef"  # a read never writes


def test_add_examples_counts_by_source(store: D.DeckStore, taught: D.Taught) -> None:
    store.save(taught.deck)
    photo = teach("good")[0]
    box = taught.faces[2].box
    deck = store.add_examples("home", photo, [(box, "x3")], "review")
    assert deck.counts()["x3"] == {"teach": 1, "review": 1}
    assert store.load("home").counts()["x3"] == {"teach": 1, "review": 1}
    img = decode(photo)
    with pytest.raises(D.DeckError, match="does not lie in"):
        store.add_examples("home", photo, [((0, 0, img.width + 50, 10), "x3")], "cli")
    with pytest.raises(D.DeckError, match="source must be"):
        store.add_examples("home", photo, [(box, "x3")], "guess")
    assert len(store.load("home").examples) == len(taught.deck.examples) + 1


def test_two_processes_teaching_one_name_take_turns(tmp_path: Path) -> None:
    """Both finish (or one is told the deck is busy); the file is whole and no temporary is left."""
    photo = tmp_path / "teach.jpg"
    photo.write_bytes(teach("good")[0])
    root = tmp_path / "decks"
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from zipai.vision.deck import DeckStore, learn
        t = learn(Path({str(photo)!r}).read_bytes(), "same")
        for _ in range(5):
            DeckStore(Path({str(root)!r})).save(t.deck)
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    errs = [p.communicate(timeout=300)[1] for p in procs]
    for p, err in zip(procs, errs, strict=True):
        assert p.returncode == 0 or "being written by another process" in err, err
    assert sorted(x.name for x in root.iterdir()) == [".same.lock", "same.deck"]
    deck = D.read_deck(root / "same.deck")
    assert deck.name == "same" and len(deck.examples) >= 20
