"""Fuzzing the entry points in process: random and mutated JSON hands, house-rules TOML files,
text notation, photos, numbers of any length, the environment (output encodings, locales,
``~user`` and empty folders) and deck files go to ``zipai score`` / ``scan`` / ``deck`` exactly
as a user's would, and anything that escapes other than the project's own errors fails the test.

The suite runs a bounded count with a fixed seed; ``ZIPAI_FUZZ=20000 pytest tests/test_fuzz.py``
is the longer run (``ZIPAI_FUZZ_SEED`` picks another seed)."""

from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import layout
from fuzz import Mutator, cases, check, count, number_text, number_value, report, seed
from PIL import Image

from zipai.cli import main as zipai
from zipai.engine import load_rules_file, score_json

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "l1_hunan.json")
L1 = "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8"

HANDS: list[dict[str, Any]] = [
    json.loads(Path(EXAMPLE).read_text(encoding="utf-8")),
    layout(L1, "guangxi", won_by="discard", from_=2, options={"minimum": 20}),
    layout(L1, "guilin", won_by="self_draw", xing=["x10"], options={"xing": ["up", "same"]}),
    layout("~x1x1x1x1 ~x2x2x2x2 ~x3x3x3x3 | x4x5x6 d1d1", "guangxi", won_by="dealt", winner=0),
    layout("| x1x2x3 x4x5x6 x7x8x9 d1d2d3 d4d5d6 d7d8d9 x10x10 x9!", "hunan", players=4, won_by="stock"),
]
RULES_FILES = [
    b'preset = "hunan"\n[options]\nself_draw = "plus_ten"\nminimum = 18\npiao = 100\n',
    b'preset = "guangxi"\n[options]\nminimum = 25\ntianhu_multiplier = 3\n',
    b'preset = "guilin"  # house\n[options]\nxing = ["up", "same"]\nfan_as_zi = true\n'
    b'dealer_rotation = "next_seat"\n',
]


def _entry(argv: list[str]) -> None:
    """``zipai …`` in process: it must return 0 or 2 (an exception escapes to ``check``)."""
    rc = zipai(argv)
    assert rc in (0, 2), f"exit {rc}"


def _hand_bytes(m: Mutator, i: int) -> bytes:
    base = HANDS[i % len(HANDS)]
    if i % 3 == 0:
        return m.mutate_bytes(json.dumps(base, ensure_ascii=i % 2 == 0).encode(),
                              [json.dumps(h).encode() for h in HANDS])
    return json.dumps(m.mutate_json(base), ensure_ascii=i % 2 == 0).encode()


def test_fuzz_json_hands(tmp_path: Path) -> None:
    m = Mutator(seed())
    f = tmp_path / "hand.json"

    def run(data: bytes) -> None:
        f.write_bytes(data)
        _entry(["score", str(f), "--json"] if len(data) % 2 else ["score", str(f)])
        score_json(data)

    failures = check(run, cases(count(400), lambda i: _hand_bytes(m, i)))
    assert not failures, report(failures)


def test_fuzz_json_lines(tmp_path: Path) -> None:
    m = Mutator(seed() + 1)
    f = tmp_path / "hands.jsonl"

    def run(data: bytes) -> None:
        f.write_bytes(data)
        _entry(["score", "--jsonl", str(f)])

    def make(i: int) -> bytes:
        return b"\n".join(_hand_bytes(m, i + k) for k in range(5)) + b"\n"

    failures = check(run, cases(count(60), make))
    assert not failures, report(failures)


def test_fuzz_text_notation() -> None:
    m = Mutator(seed() + 2)

    def make(i: int) -> list[str]:
        text = m.mutate_bytes(L1.encode()).decode("utf-8", "replace")
        flags = [["--rules", "guilin", "--xing", m.mutate_bytes(b"x10").decode("utf-8", "replace")],
                 ["--winner", str(m.rng.randint(-2, 5)), "--won-by", "discard", "--from", "2"],
                 ["--option", m.mutate_bytes(b"self_draw=plus_ten").decode("utf-8", "replace")],
                 []][i % 4]
        return ["score", "--text", text, *flags]

    failures = check(_entry, cases(count(300), make))
    assert not failures, report(failures)


def test_fuzz_house_rules_files(tmp_path: Path) -> None:
    m = Mutator(seed() + 3)
    f = tmp_path / "house.toml"

    def run(data: bytes) -> None:
        f.write_bytes(data)
        _entry(["score", EXAMPLE, "--rules", str(f)])
        load_rules_file(f)

    failures = check(run, cases(count(300), lambda i: m.mutate_bytes(RULES_FILES[i % 3], RULES_FILES)))
    assert not failures, report(failures)


def _photos() -> list[bytes]:
    """Small photos in every format we open, with the parts decoders trip on: EXIF, alpha,
    palettes, 16-bit and 4-bit grey, 1-bit, progressive scans."""
    rgb = Image.new("RGB", (48, 32), (30, 120, 30))
    rgb.paste((220, 30, 30), (8, 8, 20, 24))
    exif = Image.Exif()
    exif[0x0112] = 6
    out = []
    for img, fmt, kw in [
        (rgb, "JPEG", {"exif": exif.tobytes()}), (rgb, "JPEG", {"progressive": True}),
        (rgb, "PNG", {}), (rgb.convert("RGBA"), "PNG", {}), (rgb.convert("P"), "PNG", {"transparency": 0}),
        (rgb.convert("I;16"), "PNG", {}), (rgb, "WEBP", {"lossless": True}), (rgb, "WEBP", {}),
        (rgb, "GIF", {}), (rgb, "BMP", {}), (rgb.convert("L"), "PNG", {"bits": 4}),
        (rgb.convert("1"), "BMP", {}),
    ]:
        buf = io.BytesIO()
        img.save(buf, fmt, **kw)
        out.append(buf.getvalue())
    return out


def _png_size(data: bytes, width: int, height: int) -> bytes:
    """A PNG whose header claims another size, its CRC fixed so the header is believed."""
    head = bytearray(data[:33])
    head[16:24] = struct.pack(">II", width, height)
    head[29:33] = struct.pack(">I", zlib.crc32(bytes(head[12:29])))
    return bytes(head) + data[33:]


def test_fuzz_photos(tmp_path: Path) -> None:
    from zipai.vision.decode import decode

    m = Mutator(seed() + 4)
    seeds = _photos()
    f = tmp_path / "photo.img"

    def make(i: int) -> bytes:
        if i % 10 == 9:  # a header's size set to anything up to 2^31 - 1 on a side
            side = [m.rng.randint(1, 70_000), m.rng.choice([1, 2**31 - 1, m.rng.randint(1, 70_000)])]
            m.rng.shuffle(side)
            return _png_size(seeds[2], side[0], side[1])
        return m.mutate_bytes(seeds[i % len(seeds)], seeds)

    def run(data: bytes) -> None:
        decode(data, "photo")

    failures = check(run, cases(count(400), make))
    assert not failures, report(failures)

    def scan(data: bytes) -> None:  # the whole of zipai scan on a few: detector, layout, engine
        f.write_bytes(data)
        _entry(["scan", str(f), "--json"])

    failures = check(scan, cases(max(4, count(400) // 50), make))
    assert not failures, report(failures)


@pytest.mark.parametrize("data", _photos(), ids=lambda d: d[:4].hex())
def test_every_seed_photo_decodes(data: bytes) -> None:
    """The seeds are good photos: the fuzzing starts from inputs that pass."""
    from zipai.vision.decode import decode

    d = decode(data)
    assert d.image.mode == "RGB" and sorted(d.image.size) == [32, 48]


def test_every_seed_hand_and_rules_file_is_good(tmp_path: Path) -> None:
    for obj in HANDS:
        assert "score" in score_json(json.dumps(obj))
    for n, text in enumerate(RULES_FILES):
        f = tmp_path / f"r{n}.toml"
        f.write_bytes(text)
        assert load_rules_file(f).name in ("hunan", "guangxi", "guilin")


def test_the_harness_fails_on_what_it_should() -> None:
    """The checks above can fail: each kind of escape is caught, and our errors are not."""
    import os
    import warnings

    from zipai.engine import RulesError

    def target(kind: str) -> None:
        if kind == "ours":
            raise RulesError("one line")
        if kind == "foreign":
            raise KeyError("x")
        if kind == "warning":
            warnings.warn("a library speaks", UserWarning, stacklevel=1)
        if kind == "c-level":
            os.write(2, b"libfoo: first\nlibfoo: second\n")
        if kind == "deprecation":
            warnings.warn("hidden from users", DeprecationWarning, stacklevel=1)

    kinds = ["ours", "foreign", "warning", "c-level", "deprecation", "quiet"]
    failures = check(target, kinds)
    assert [kinds[f.case] for f in failures] == ["foreign", "warning", "c-level"]
    assert "KeyError" in failures[0].error and "warning" in failures[1].error


# ----------------------------------------------------------------------------- numbers of any length

NUMERIC_KEYS = ("minimum", "piao", "tianhu_multiplier", "rules_version")
SEAT_FLAGS = ("--winner", "--from", "--players", "--dealer")


def test_fuzz_numeric_options_of_any_length(tmp_path: Path) -> None:
    """Every numeric option and seat flag, typed with 1 to 6,000 digits (other scripts, points,
    exponents among them), in text, --json, --jsonl, a JSON hand and a rules file: exit 0 or 2,
    one line, and an error short enough to read."""
    m = Mutator(seed() + 5)
    r = m.rng
    hand, jsonl, toml = tmp_path / "hand.json", tmp_path / "hands.jsonl", tmp_path / "house.toml"

    def make(i: int) -> tuple[int, str, str, Any]:
        return i % 5, r.choice(NUMERIC_KEYS), number_text(r), number_value(r)

    def run(case: tuple[int, str, str, Any]) -> None:
        kind, key, text, value = case
        preset = "guangxi" if key == "tianhu_multiplier" else "hunan"
        if kind == 0:
            _entry(["score", "--rules", preset, "--text", L1, "--won-by", "dealt",
                    "--option", f"{key}={text}"])
        elif kind == 1:
            flag = SEAT_FLAGS[len(text) % len(SEAT_FLAGS)]
            _entry(["score", "--text", L1, "--json", flag, text])
        elif kind == 2:
            obj = {**HANDS[0], "rules": preset, "won_by": "dealt", "winner": 0, "options": {key: value}}
            obj.pop("from", None)
            hand.write_text(json.dumps(obj))
            _entry(["score", str(hand), "--json"])
        elif kind == 3:
            obj = {**HANDS[0], "options": {key: value}}
            jsonl.write_text(json.dumps(obj) + "\n" + json.dumps(HANDS[0]) + "\n")
            _entry(["score", "--jsonl", str(jsonl)])
        else:
            shown = json.dumps(value) if not isinstance(value, float) or value == value else "nan"
            toml.write_text(f'preset = "{preset}"\n[options]\n{key} = {shown}\n')
            _entry(["score", "--rules", str(toml), "--text", L1])

    failures = check(run, cases(count(300), make))
    assert not failures, report(failures)


def test_fuzz_numeric_flags_of_scan_and_deck(tmp_path: Path) -> None:
    """``zipai scan``'s numbers (--threads, seats, options) refused before any pixel is read."""
    m = Mutator(seed() + 6)
    photo = tmp_path / "p.png"
    Image.new("RGB", (32, 32)).save(photo)

    def make(i: int) -> list[str]:
        text = number_text(m.rng)
        flag = ["--threads", "--winner", "--from", "--option"][i % 4]
        value = f"{m.rng.choice(NUMERIC_KEYS)}={text}" if flag == "--option" else text
        return ["scan", str(photo), flag, value, "--threads" if flag != "--threads" else "--json",
                *(["1"] if flag != "--threads" else [])]

    failures = check(_entry, cases(count(40), make))
    assert not failures, report(failures)


# ----------------------------------------------------------------------------- the environment

ENCODINGS = ("ascii", "latin-1", "cp1252", "utf-8", "cp437", "iso8859-7")
ENV_VALUES = ("~nosuchuser", "~nosuchuser/decks", "~", "", " ", "relative/decks", "/nonexistent/decks",
              "/dev/null", "/proc/self", "TMP", "TMP/file", "TMP/家里", "TMP/\u202e")


def _environment(tmp: Path, r: Any) -> dict[str, str | None]:
    """Values for the variables a command reads its folders from (None: unset)."""

    def pick() -> str | None:
        v = r.choice((*ENV_VALUES, None, None))
        return None if v is None else v.replace("TMP", str(tmp))

    return {"ZIPAI_DECKS": pick(), "XDG_DATA_HOME": pick(), "HOME": pick()}


def test_fuzz_environment_for_score_scan_and_deck(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The output encoding (ASCII, Latin-1, code pages), ``~user`` and empty folders, relative
    and device paths for the decks' folder and HOME: every command exits 0 or 2 with one line,
    and never writes outside the folders it was given."""
    import os
    import sys

    from zipai.vision import deck as D

    m = Mutator(seed() + 7)
    (tmp_path / "file").write_text("not a folder")
    good = tmp_path / "decks"
    good.mkdir()
    rng = np.random.default_rng(0)
    protos = rng.normal(size=(20, 8)).astype(np.float32)
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    crop = np.zeros((D.CROP, D.CROP, 3), np.uint8)
    (good / "家里.deck").write_bytes(D.dumps(D.Deck("家里", "0" * 16, (D.Example("x1", "teach", crop),),
                                                    protos, "2026-12-07T03:00:00Z")))
    photo = tmp_path / "p.png"
    Image.new("RGB", (32, 32)).save(photo)
    commands = [["score", "--text", L1], ["score", EXAMPLE, "--json"], ["deck", "list"],
                ["deck", "show", "家里"], ["deck", "show", "家里", "--json"], ["deck", "remove", "nosuch"],
                ["deck", "learn", EXAMPLE, "--name", "x"], ["scan", str(photo), "--deck", "nosuch"]]
    monkeypatch.chdir(tmp_path)

    def make(i: int) -> tuple[list[str], str, dict[str, str | None]]:
        env = _environment(tmp_path, m.rng)
        if i % 3 == 0:
            env["ZIPAI_DECKS"] = str(good)
        return commands[i % len(commands)], m.rng.choice(ENCODINGS), env

    def run(case: tuple[list[str], str, dict[str, str | None]]) -> None:
        argv, encoding, env = case
        for k, v in env.items():
            if v is None:
                monkeypatch.delenv(k, raising=False)
            else:
                monkeypatch.setenv(k, v)
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="strict")
        saved = sys.stdout, sys.stderr
        sys.stdout = stream
        try:
            _entry(argv)
        finally:
            sys.stdout, sys.stderr = saved
        stream.flush()
        assert not (tmp_path / "~nosuchuser").exists() and not (tmp_path / "relative").exists()
        assert not os.path.exists("/dev/null.deck")

    failures = check(run, cases(count(48), make))
    assert not failures, report(failures)


@pytest.mark.parametrize("env", [{"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"},
                                 {"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "latin-1:strict"}])
def test_fuzz_environment_a_real_locale_in_a_child_process(env: dict[str, str], tmp_path: Path) -> None:
    """The locale is fixed when Python starts: a child process for each, its stderr one line."""
    import os
    import subprocess
    import sys

    full = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LC_ALL", "LANG")}
    full.update(env, ZIPAI_DECKS=str(tmp_path), XDG_DATA_HOME="~nosuchuser")
    for argv in (["score", EXAMPLE], ["deck", "show", "家里"], ["deck", "list"]):
        r = subprocess.run([sys.executable, "-m", "zipai", *argv], capture_output=True, env=full, timeout=60)
        assert r.returncode in (0, 2) and r.stderr.count(b"\n") <= 1, (argv, r.stderr[-300:])


# ----------------------------------------------------------------------------- deck headers

def _deck_seeds() -> list[bytes]:
    """Good deck files: format 2 as written now, and format 1 as older versions wrote it."""
    import hashlib

    from zipai.vision import deck as D

    rng = np.random.default_rng(1)
    protos = rng.normal(size=(20, 8)).astype(np.float32)
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    crop = np.full((D.CROP, D.CROP, 3), 90, np.uint8)
    examples = (D.Example("x1", "teach", crop), D.Example("back", "cli", crop))
    deck = D.Deck("home", "0123456789abcdef", examples, protos, "2026-12-07T03:00:00Z")
    v2 = D.dumps(deck)
    body = crop.tobytes() * 2 + protos.astype("<f4").tobytes()
    head = json.dumps({"format": 1, "name": "home", "model": deck.model, "created": deck.created,
                       "crop": {"size": D.CROP, "margin": D.CROP_MARGIN},
                       "examples": [["x1", "teach"], ["back", "cli"]],
                       "prototypes": {"classes": list(D.CARD_NAMES), "dim": 8},
                       "sha256": hashlib.sha256(body).hexdigest()}).encode()
    return [v2, D.MAGIC + b" 1 %d\n" % len(head) + head + body]


def _resigned(m: Mutator, blob: bytes) -> bytes:
    """A deck file whose header JSON is mutated and whose SHA-256 (format 2) and length are
    made to fit again, so the mutation reaches the checks of each field."""
    import hashlib

    line, _, rest = blob.partition(b"\n")
    parts = line.split(b" ")
    n = int(parts[2])
    head = m.mutate_json(json.loads(rest[:n]))
    text = json.dumps(head, ensure_ascii=m.rng.random() < 0.5).encode()
    new = text + rest[n:]
    if parts[1] == b"2":
        return b"ZIPAIDECK 2 %d %s\n" % (len(text), hashlib.sha256(new).hexdigest().encode()) + new
    return b"ZIPAIDECK 1 %d\n" % len(text) + new


def test_fuzz_deck_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deck files with mutated bytes, and with mutated header fields re-signed: ``deck show``,
    ``deck list`` and the store's read give 0 or 2 and one line, print no control character,
    and never write the file."""
    import contextlib
    import sys

    from zipai.engine.text import bad_char
    from zipai.vision import deck as D

    m = Mutator(seed() + 8)
    seeds = _deck_seeds()
    root = tmp_path / "decks"
    root.mkdir()
    monkeypatch.setenv("ZIPAI_DECKS", str(root))
    path = root / "home.deck"

    commands = (["deck", "show", "home"], ["deck", "show", "home", "--json"], ["deck", "list"])

    def make(i: int) -> tuple[list[str], bytes]:
        seed_file = seeds[i % 2]
        if i % 4 < 2:
            return commands[i % 3], _resigned(m, seed_file)
        if i % 8 == 2:  # the first line's numbers of any length
            line, _, rest = seed_file.partition(b"\n")
            parts = line.split(b" ")
            parts[m.rng.randrange(1, len(parts))] = number_text(m.rng).encode("utf-8", "replace")
            return commands[i % 3], b" ".join(parts) + b"\n" + rest
        return commands[i % 3], m.mutate_bytes(seed_file, seeds)

    def run(case: tuple[list[str], bytes]) -> None:
        argv, data = case
        path.write_bytes(data)
        before = path.stat().st_mtime_ns
        out = io.StringIO()
        saved, sys.stdout = sys.stdout, out
        try:
            _entry(argv)
        finally:
            sys.stdout = saved
        text = out.getvalue().replace("\n", "")
        assert bad_char(text) is None, f"{argv} printed {bad_char(text)!r}"
        assert path.read_bytes() == data and path.stat().st_mtime_ns == before, "a read wrote the deck"
        with contextlib.suppress(D.DeckError):
            D.DeckStore(root).read("home")
        assert path.read_bytes() == data and path.stat().st_mtime_ns == before, "a read wrote the deck"

    failures = check(run, cases(count(200), make))
    assert not failures, report(failures)


def test_every_seed_deck_file_is_read(tmp_path: Path) -> None:
    from zipai.vision import deck as D

    for blob in _deck_seeds():
        deck = D.loads(blob, "seed")
        assert deck.name == "home" and deck.prototypes.shape == (20, 8)
