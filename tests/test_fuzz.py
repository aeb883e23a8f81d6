"""Fuzzing the entry points in process (issue 48): random and mutated JSON hands, house-rules
TOML files, text notation and photos go to ``zipai score`` / ``zipai scan`` exactly as a user's
file would, and anything that escapes other than the project's own errors fails the test.

The suite runs a bounded count with a fixed seed; ``ZIPAI_FUZZ=20000 pytest tests/test_fuzz.py``
is the longer run (``ZIPAI_FUZZ_SEED`` picks another seed)."""

from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from conftest import layout
from fuzz import Mutator, cases, check, count, report, seed
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
