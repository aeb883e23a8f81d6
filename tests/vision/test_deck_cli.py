"""`zipai deck` and `zipai scan --deck` as a user runs them: one clear line and exit 2 for bad
input, nothing stored from a refused photo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from deckphotos import scene, teach

from zipai.cli import main as zipai


@pytest.fixture
def decks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "decks"
    monkeypatch.setenv("ZIPAI_DECKS", str(root))
    return root


@pytest.fixture
def photos(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, data in (("good", teach("good")[0]), ("missing", teach("missing")[0]), ("scene", scene())):
        out[name] = tmp_path / f"{name}.jpg"
        out[name].write_bytes(data)
    return out


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = zipai(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_learn_list_show_scan_remove(decks: Path, photos: dict[str, Path],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _run(["deck", "learn", str(photos["good"]), "--name", "家里"], capsys)
    assert rc == 0, err
    assert "learned deck '家里' from 20 faces" in out and "壹  nearest" in out
    assert (decks / "家里.deck").is_file()
    assert _run(["deck", "list"], capsys)[1].split() == ["家里"]
    rc, out, _ = _run(["deck", "show", "家里"], capsys)
    assert rc == 0 and ("21 examples" in out or "20 examples" in out)
    assert any(line.split()[:2] == ["拾", "1"] for line in out.splitlines())
    shown = json.loads(_run(["deck", "show", "家里", "--json"], capsys)[1])
    assert shown["counts"]["d10"] == {"teach": 1} and set(shown["separations"]) >= {"x1", "d10"}
    rc, out, err = _run(["scan", str(photos["scene"]), "--deck", "家里", "--json"], capsys)
    assert rc == 0, err
    assert json.loads(out)["deck"] == "家里"
    assert json.loads(_run(["scan", str(photos["scene"]), "--json"], capsys)[1])["deck"] is None
    assert _run(["deck", "remove", "家里"], capsys)[:2] == (0, "removed deck '家里'\n")
    assert "no decks in" in _run(["deck", "list"], capsys)[1]


def test_learn_json_says_what_was_learnt(decks: Path, photos: dict[str, Path],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(["deck", "learn", str(photos["good"]), "--name", "d", "--json"], capsys)
    got = json.loads(out)
    assert rc == 0 and got["deck"] == "d" and [f["card"] for f in got["faces"]][:2] == ["x1", "x2"]
    assert got["upside_down"] is False and got["file"].endswith("d.deck") and got["replaced"] is False
    rc, out, _ = _run(["deck", "learn", str(photos["good"]), "--name", "d"], capsys)
    assert rc == 0 and out.rstrip().endswith("(this replaced the deck of that name)")


@pytest.mark.parametrize(("argv", "words"), [
    (["deck", "show", "nope"], "unknown deck 'nope'"),
    (["deck", "remove", "nope"], "unknown deck 'nope'"),
    (["scan", "PHOTO", "--deck", "nope"], "unknown deck 'nope'"),
    (["deck", "learn", "PHOTO", "--name", "a/b"], "deck name 'a/b'"),
    (["deck", "learn", "PHOTO", "--name", ""], "is empty"),
    (["deck", "learn", "MISSING", "--name", "x"], "row 1, place 10: no card there"),
    (["deck", "learn", "/no/such.jpg", "--name", "x"], "no such file"),
    (["deck", "frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(decks: Path, photos: dict[str, Path],
                                          capsys: pytest.CaptureFixture[str], argv: list[str],
                                          words: str) -> None:
    argv = [str(photos["scene"]) if a == "PHOTO" else str(photos["missing"]) if a == "MISSING" else a
            for a in argv]
    rc, out, err = _run(argv, capsys)
    assert rc == 2 and out == "" and words in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not decks.exists() or not list(decks.glob("*.deck"))  # nothing stored


def test_a_deck_file_cut_short_is_named_and_scan_refuses(decks: Path, photos: dict[str, Path],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["deck", "learn", str(photos["good"]), "--name", "d"], capsys)[0] == 0
    f = decks / "d.deck"
    f.write_bytes(f.read_bytes()[:5000])
    rc, _, err = _run(["scan", str(photos["scene"]), "--deck", "d"], capsys)
    assert rc == 2 and str(f) in err and "cut short" in err and err.count("\n") == 1


def test_deck_add_takes_the_corrected_cards_of_a_scan(decks: Path, photos: dict[str, Path], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["deck", "learn", str(photos["good"]), "--name", "d"], capsys)[0] == 0
    rc, out, _ = _run(["scan", str(photos["scene"]), "--deck", "d", "--json"], capsys)
    scan = json.loads(out)
    assert rc == 0 and scan["detections"]
    missing = str(tmp_path / "no.json")
    rc, _, err = _run(["deck", "add", "d", "--photo", str(photos["scene"]), "--scan", missing], capsys)
    assert rc == 2 and "no.json" in err
    same = tmp_path / "same.json"
    same.write_text(json.dumps(scan), encoding="utf-8")
    rc, out, _ = _run(["deck", "add", "d", "--photo", str(photos["scene"]), "--scan", str(same)], capsys)
    assert rc == 0 and "nothing to add" in out
    face = next(d for d in scan["detections"] if d["card"] != "back")
    wrong = face["card"]
    face["card"] = "d9" if wrong != "d9" else "d8"  # the user's correction
    fixed = tmp_path / "fixed.json"
    fixed.write_text(json.dumps(scan), encoding="utf-8")
    rc, out, err = _run(["deck", "add", "d", "--photo", str(photos["scene"]), "--scan", str(fixed)], capsys)
    assert rc == 0 and "added 1 corrected cards" in out, err
    shown = json.loads(_run(["deck", "show", "d", "--json"], capsys)[1])
    assert shown["counts"][face["card"]] == {"teach": 1, "cli": 1}


@pytest.mark.parametrize(("scan", "words"), [
    ("[1, 2]", "no detections and image"),
    ('{"image": {"width": 5, "height": 5}, "detections": []}', "a scan of a 5x5 photo"),
    ('{"image": {"width": 960, "height": 720}, "detections": [{"card": "x11", "box": [1, 1, 5, 5]}]}',
     "is not a card"),
    ('{"image": {"width": 960, "height": 720}, "detections": [{"card": "x1", "box": [1, 1, 5e9, 5]}]}',
     "does not lie in"),
    ("not json", "not JSON"),
])
def test_a_bad_scan_json_is_one_line(decks: Path, photos: dict[str, Path], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str], scan: str, words: str) -> None:
    assert _run(["deck", "learn", str(photos["good"]), "--name", "d"], capsys)[0] == 0
    f = tmp_path / "s.json"
    f.write_text(scan, encoding="utf-8")
    rc, _, err = _run(["deck", "add", "d", "--photo", str(photos["scene"]), "--scan", str(f)], capsys)
    assert rc == 2 and words in err and err.count("\n") == 1, err
