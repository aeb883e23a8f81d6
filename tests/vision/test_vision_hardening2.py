"""What an outside tester broke in `zipai scan` and `zipai deck`, each a test named after its
finding: FIFOs that hung, an overlay drawn at the photo's full size, tracebacks, deck files
whose header was trusted, palette images refused, the decks' folder taken from a bad
environment, and printing under an output encoding that cannot carry the text."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from deckphotos import scene
from PIL import Image

from zipai.cli import main as zipai
from zipai.engine import CARD_NAMES
from zipai.vision import deck as D
from zipai.vision.manifest import load_manifest

ROOT = Path(__file__).resolve().parents[2]
L1 = ROOT / "examples" / "l1_hunan.json"


@pytest.fixture
def decks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "decks"
    root.mkdir()
    monkeypatch.setenv("ZIPAI_DECKS", str(root))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return root


def _deck(name: str = "home", model: str | None = None, dim: int = 16, per_card: int = 1,
          created: str = "2026-12-07T03:00:00Z") -> D.Deck:
    """A deck made without a photo: grey crops, random unit prototypes (fast, no network)."""
    rng = np.random.default_rng(7)
    protos = rng.normal(size=(len(CARD_NAMES), dim)).astype(np.float32)
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    crop = np.full((D.CROP, D.CROP, 3), 128, np.uint8)
    examples = tuple(D.Example(c, "teach", crop) for c in CARD_NAMES for _ in range(per_card))
    shipped = str((load_manifest().embed_spec() or {}).get("sha256", ""))[:16]
    return D.Deck(name, shipped if model is None else model, examples, protos, created)


def _v1(deck: D.Deck, **header: object) -> bytes:
    """A deck file in format 1 (its SHA-256 over the body only), as older versions wrote it."""
    crops = np.stack([e.crop for e in deck.examples]).astype(np.uint8)
    body = crops.tobytes() + np.ascontiguousarray(deck.prototypes, "<f4").tobytes()
    head = {"format": 1, "name": deck.name, "model": deck.model, "created": deck.created,
            "crop": {"size": D.CROP, "margin": D.CROP_MARGIN},
            "examples": [[e.card, e.source] for e in deck.examples],
            "prototypes": {"classes": list(CARD_NAMES), "dim": int(deck.prototypes.shape[1])},
            "sha256": hashlib.sha256(body).hexdigest(), **header}
    text = json.dumps(head, ensure_ascii=False).encode()
    return D.MAGIC + f" 1 {len(text)}\n".encode() + text + body


def _resign(blob: bytes) -> bytes:
    """A format-2 file with its first line's SHA-256 made to fit the bytes after it again."""
    line, _, rest = blob.partition(b"\n")
    magic, fmt, n, _ = line.split(b" ")
    return b" ".join([magic, fmt, n, hashlib.sha256(rest).hexdigest().encode()]) + b"\n" + rest


def _cli(args: list[str], env: dict[str, str] | None = None,
         timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``zipai ARGS`` in a child process: a hang fails the test at ``timeout`` instead of hanging it."""
    r = subprocess.run([sys.executable, "-m", "zipai", *args], capture_output=True, timeout=timeout,
                       env={**os.environ, **(env or {})}, cwd=ROOT)
    return subprocess.CompletedProcess(r.args, r.returncode, r.stdout.decode("latin-1"),
                                       r.stderr.decode("latin-1"))


def _one_line(rc: int, err: str) -> str:
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err[-600:]
    return err


# ----------------------------------------------------------------------------- 3. hangs

def test_a_fifo_deck_file_is_refused_not_hung(decks: Path, tmp_path: Path) -> None:
    os.mkfifo(decks / "x.deck")
    photo = tmp_path / "p.jpg"
    photo.write_bytes(scene())
    for args in (["deck", "show", "x"], ["scan", str(photo), "--deck", "x"]):
        r = _cli(args, timeout=90)
        assert "not a deck file" in _one_line(r.returncode, r.stderr)
    r = _cli(["deck", "list"])
    assert r.returncode == 0 and "x" not in r.stdout.split()


def test_a_fifo_photo_and_a_fifo_score_file_are_refused_not_hung(tmp_path: Path) -> None:
    fifo = tmp_path / "p.jpg"
    os.mkfifo(fifo)
    for args in (["scan", str(fifo)], ["score", str(fifo)], ["score", "--jsonl", str(fifo)]):
        r = _cli(args)
        assert "not a regular file" in _one_line(r.returncode, r.stderr)


# ----------------------------------------------------------------------------- 4. the overlay

def test_the_overlay_is_drawn_at_a_bounded_size_not_the_photos(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "wide.png"
    Image.new("RGB", (9000, 1200), (90, 120, 90)).save(photo)
    out = tmp_path / "o.png"
    assert zipai(["scan", str(photo), "--overlay", str(out), "--json"]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["image"] == {"width": 9000, "height": 1200}
    with Image.open(out) as img:
        assert max(img.size) <= 2048 and abs(img.width / img.height - 7.5) < 0.05


def test_a_jpeg_overlay_of_a_photo_over_65500_px_gives_no_libjpeg_line(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "long.png"
    Image.new("RGB", (70000, 120), (200, 200, 200)).save(photo)
    out = tmp_path / "o.jpg"
    rc = zipai(["scan", str(photo), "--overlay", str(out)])
    err = capfd.readouterr().err
    assert rc == 0 and "Maximum supported image dimension" not in err and not err, err
    assert Image.open(out).width == 2048


@pytest.mark.parametrize("kind", ["dev", "fifo", "hardlink", "symlink", "deck"])
def test_an_overlay_that_is_no_regular_file_or_an_input_is_refused_before_the_scan(
        kind: str, decks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    photo = tmp_path / "p.png"
    Image.new("RGB", (64, 64)).save(photo)
    extra: list[str] = []
    if kind == "dev":
        out = "/dev/stdout.png"
    elif kind == "fifo":
        out = str(tmp_path / "o.png")
        os.mkfifo(out)
    elif kind == "hardlink":
        out = str(tmp_path / "same.png")
        os.link(photo, out)
    elif kind == "symlink":
        out = str(tmp_path / "link.png")
        os.symlink(photo, out)
    else:
        (decks / "d.png.deck").write_bytes(D.dumps(_deck("d.png")))
        extra, out = ["--deck", "d.png"], str(decks / "link.png")  # a link to the deck read
        os.symlink(decks / "d.png.deck", out)
    from zipai.vision import scan as S

    monkeypatch.setattr(S, "scan_decoded", lambda *a, **k: pytest.fail("the scan ran"))
    err = _one_line(zipai(["scan", str(photo), "--overlay", out, *extra]), capsys.readouterr().err)
    assert "--overlay" in err
    assert not os.path.exists("/dev/stdout.png")
    assert Image.open(photo).size == (64, 64)


def test_the_overlay_is_written_atomically_or_not_at_all(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    photo = tmp_path / "p.png"
    Image.new("RGB", (64, 64)).save(photo)
    out = tmp_path / "o.png"
    out.write_bytes(b"the old overlay")
    from zipai.vision import output

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output.os, "fsync", full)
    err = _one_line(zipai(["scan", str(photo), "--overlay", str(out)]), capsys.readouterr().err)
    assert "No space left on device" in err and "nothing was written" in err
    assert out.read_bytes() == b"the old overlay"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.png", "p.png"]  # no temporary left
    monkeypatch.undo()
    assert zipai(["scan", str(photo), "--overlay", str(out)]) == 0
    assert Image.open(out).size == (64, 64) and (out.stat().st_mode & 0o777) != 0o600


# ----------------------------------------------------------------------------- 5. tracebacks

def test_a_5000_digit_deck_header_length_is_one_line(decks: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (decks / "x.deck").write_bytes(b"ZIPAIDECK 2 " + b"9" * 5000 + b" " + b"0" * 64 + b"\n{}")
    err = _one_line(zipai(["deck", "show", "x"]), capsys.readouterr().err)
    assert "header length is not a number" in err


def test_a_64_character_astral_deck_name_is_refused_before_learning(
        decks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "teach.jpg"
    photo.write_bytes(b"not a photo: the name must be refused first")
    name = "\U0001d4b3" * 64  # 64 characters, 256 bytes in UTF-8
    err = _one_line(zipai(["deck", "learn", str(photo), "--name", name]), capsys.readouterr().err)
    assert "bytes in UTF-8" in err and "not an image" not in err
    assert list(decks.iterdir()) == []


def test_a_directory_named_like_a_deck_is_not_removed_and_no_traceback(
        decks: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (decks / "x.deck").mkdir()
    err = _one_line(zipai(["deck", "remove", "x"]), capsys.readouterr().err)
    assert "not a deck file" in err and (decks / "x.deck").is_dir()
    err = _one_line(zipai(["deck", "show", "x"]), capsys.readouterr().err)
    assert "not a deck file" in err


@pytest.mark.parametrize("box", [[10**400, 0, 10, 10], [0, 0, "12", 10], [0, 0, True, 10], [0, 0, 1e999, 5]])
def test_a_400_digit_box_coordinate_in_a_scan_json_is_one_line(box: list[object], decks: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "p.png"
    Image.new("RGB", (64, 64)).save(photo)
    scan = tmp_path / "scan.json"
    scan.write_text(json.dumps({"image": {"width": 64, "height": 64},
                                "detections": [{"card": "x1", "box": box}]}).replace("Infinity", "1e999"))
    err = _one_line(zipai(["deck", "add", "home", "--photo", str(photo), "--scan", str(scan)]),
                    capsys.readouterr().err)
    assert "the box is not four numbers" in err


@pytest.mark.parametrize(("env", "words"), [
    ({"XDG_DATA_HOME": "~nosuchuser"}, "no such user"),
    ({"XDG_DATA_HOME": "relative/data"}, "not an absolute path"),
    ({"ZIPAI_DECKS": "~nosuchuser/decks"}, "no such user"),
    ({"ZIPAI_DECKS": ""}, "set but empty"),
])
def test_a_decks_folder_from_a_bad_environment_is_one_line(env: dict[str, str], words: str,
                                                           monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ZIPAI_DECKS", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    for args in (["deck", "list"], ["deck", "show", "x"], ["deck", "remove", "x"]):
        assert words in _one_line(zipai(args), capsys.readouterr().err)
    assert not (tmp_path / "home").exists() and not (tmp_path / "relative").exists()
    assert not (tmp_path / "~nosuchuser").exists()


# ----------------------------------------------------------------------------- 11. deck files

@pytest.mark.parametrize("change", [
    lambda b: b.replace(b'"x1", "teach"], ["x2", "teach"]', b'"x2", "teach"], ["x1", "teach"]', 1),
    lambda b: b.replace(b'"created": "2026', b'"created": "2027', 1),
    lambda b: b.replace(b'"dim": 16', b'"dim": 15', 1),
])
def test_a_deck_header_altered_is_refused_by_its_sha256(change: object, decks: Path) -> None:
    path = decks / "home.deck"
    path.write_bytes(change(D.dumps(_deck())))  # type: ignore[operator]
    with pytest.raises(D.DeckError, match=r"altered|cut short|dimension") as e:
        D.DeckStore(decks).read("home")
    assert str(path) in str(e.value)


def test_a_format_1_deck_file_is_still_read(decks: Path) -> None:
    (decks / "home.deck").write_bytes(_v1(_deck()))
    deck = D.DeckStore(decks).read("home")
    assert len(deck.examples) == 20 and deck.prototypes.shape == (20, 16)
    assert D.dumps(deck).startswith(b"ZIPAIDECK 2 ")  # the next write is format 2


@pytest.mark.parametrize(("header", "words"), [
    ({"created": "2026-12-07\n\x1b[31mred\x1b[0m"}, "created is not a UTC time"),
    ({"model": "\x1b[2J"}, "model is not a fingerprint"),
    ({"prototypes": {"classes": list(CARD_NAMES), "dim": 16.0}}, "dimension is not a whole number"),
    ({"prototypes": {"classes": list(CARD_NAMES), "dim": True}}, "dimension is not a whole number"),
    ({"colour": "red"}, "fields are not this format's"),
    ({"format": 2}, "fields are not this format's"),
])
def test_every_deck_header_field_is_checked_and_escapes_never_printed(
        header: dict[str, object], words: str, decks: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (decks / "home.deck").write_bytes(_v1(_deck(), **header))
    err = _one_line(zipai(["deck", "show", "home"]), capsys.readouterr().err)
    assert words in err and "\x1b" not in err
    v2 = D.dumps(_deck())
    line, _, rest = v2.partition(b"\n")
    head, body = json.loads(rest[:int(line.split()[2])]), rest[int(line.split()[2]):]
    head.update(header)
    head["format"] = 2 if header.get("format") != 2 else 3
    text = json.dumps(head).encode()
    (decks / "home.deck").write_bytes(_resign(b"ZIPAIDECK 2 %d x\n" % len(text) + text + body))
    err = _one_line(zipai(["deck", "show", "home"]), capsys.readouterr().err)
    assert "\x1b" not in err


def test_a_wrong_prototype_dimension_is_refused_naming_the_deck(decks: Path) -> None:
    store = D.DeckStore(decks, D.deck_detector())
    store.save(_deck(dim=7))
    with pytest.raises(D.DeckError, match=r"deck 'home': its prototypes have 7 numbers, this model's reader "
                                          r"gives \d+"):
        store.load("home")


def test_deck_show_never_writes_nor_derives_a_large_deck_from_another_model(
        decks: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = decks / "home.deck"
    path.write_bytes(D.dumps(_deck(model="0123456789abcdef", per_card=D.MAX_PER_CARD)))
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    monkeypatch.setattr(D.store, "derive", lambda *a, **k: pytest.fail("show derived the deck"))
    monkeypatch.setattr(D.store, "deck_detector", lambda *a, **k: pytest.fail("show loaded the networks"))
    assert zipai(["deck", "show", "home", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["current"] is False and shown["counts"]["x1"] == {"teach": D.MAX_PER_CARD}
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in decks.iterdir()) == ["home.deck"]


def test_a_deck_over_its_examples_per_card_is_refused_before_reading_crops(decks: Path) -> None:
    (decks / "home.deck").write_bytes(_v1(_deck(per_card=D.MAX_PER_CARD + 1)))
    with pytest.raises(D.DeckError, match=f"{D.MAX_PER_CARD + 1} examples of x1, at most {D.MAX_PER_CARD}"):
        D.DeckStore(decks).read("home")


@pytest.mark.parametrize("value", [3e38, float("nan"), float("inf"), 1.5])
def test_absurd_prototype_values_are_refused_without_numpy_warnings(value: float, decks: Path) -> None:
    deck = _deck()
    protos = deck.prototypes.copy()
    protos[3, 2] = value
    (decks / "home.deck").write_bytes(D.dumps(dataclasses.replace(deck, prototypes=protos)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(D.DeckError, match="not a finite number from -1 to 1"):
            D.DeckStore(decks).read("home")


@pytest.mark.parametrize("name", ["evil\u202etxt", "zero\u200bwidth", "bom\ufeff", "line\u2028sep"])
def test_deck_names_with_invisible_or_reordering_characters_are_refused(name: str, decks: Path) -> None:
    with pytest.raises(D.DeckError, match=r"invisible or text-reordering character \(U\+") as e:
        D.DeckStore(decks).path(name)
    assert name not in str(e.value)  # the message shows it escaped


# ----------------------------------------------------------------------------- 12. smaller

@pytest.mark.parametrize("mode", ["P", "1"])
def test_palette_and_1_bit_images_over_4096_px_are_read(mode: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / f"{mode}.png"
    Image.new(mode, (6000, 400)).save(photo)
    assert zipai(["scan", str(photo), "--json"]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["image"] == {"width": 6000, "height": 400}


# ----------------------------------------------------------------------------- 2 and 5. encodings

ENCODINGS = [{"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "latin-1"},
             {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}]


@pytest.mark.parametrize("env", ENCODINGS, ids=["ascii", "latin-1", "C-locale"])
def test_score_scan_and_deck_show_print_under_ascii_latin1_and_c_locale(env: dict[str, str], decks: Path,
                                                                         tmp_path: Path) -> None:
    (decks / "家里.deck").write_bytes(D.dumps(_deck("家里")))
    photo = tmp_path / "scene.jpg"
    photo.write_bytes(scene())
    env = {**env, "ZIPAI_DECKS": str(decks)}
    for args, shows in ((["score", str(L1)], "\\u78b0"), (["scan", str(photo)], "\\u"),
                        (["deck", "show", "家里"], "\\u5bb6"), (["deck", "list"], "\\u5bb6")):
        r = _cli(args, env)
        assert r.returncode == 0 and "Error" not in r.stderr, (args, r.stderr[-400:])
        assert shows in r.stdout, (args, r.stdout[:300])
