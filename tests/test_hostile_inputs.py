"""Issue 48: one wrong file must give one line and exit 2, never a traceback, a hang or all the
memory. Each test is named after the finding it pins (1, 2, 4, 8, 9, 10)."""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from zipai.engine import RulesError, get_rules, load_rules_file, rules_from_flag
from zipai.engine.cli import main as score_main
from zipai.scorer.cli import session_main
from zipai.vision.cli import main as scan_main
from zipai.vision.decode import MAX_PIXELS, decode, load
from zipai.vision.errors import ImageError

ROOT = Path(__file__).resolve().parents[1]
L1 = json.loads((ROOT / "examples" / "l1_hunan.json").read_text(encoding="utf-8"))
HOUSE = 'preset = "hunan"\n[options]\nself_draw = "plus_ten"\n'


def _one_line_exit_2(rc: int, err: str, words: str) -> None:
    assert rc == 2, err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def _png(width: int, height: int, bits: int = 8, colour: int = 0, row: bytes | None = None) -> bytes:
    """A valid PNG written row by row (no image in memory): a bomb costs its rows only to zlib."""
    channels = {0: 1, 2: 3, 6: 4}[colour]
    raw = b"\x00" + (row if row is not None else bytes(width * channels * bits // 8))
    z = zlib.compressobj(9)
    body = b"".join(z.compress(raw) for _ in range(height)) + z.flush()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    head = struct.pack(">IIBBBBB", width, height, bits, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def _fifo(tmp_path: Path, name: str) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    f = tmp_path / name
    os.mkfifo(f)
    return f


# ------------------------------------------------------------------ 1. image bombs

def test_1_png_bomb_is_refused_from_its_header() -> None:
    data = _png(10_000, 10_000)  # 100 Mpx of grey in 100 KB
    assert len(data) < 200_000
    with pytest.raises(ImageError, match="10000x10000 is 100 megapixels, more than 60") as exc:
        decode(data, "bomb.png")
    assert exc.value.code == "too_large" and "\n" not in str(exc.value)


def test_1_just_under_the_budget_decodes_within_a_gigabyte(tmp_path: Path) -> None:
    """The worst image we accept (60 Mpx of RGBA) decodes in a process held to 1.25 GiB of
    address space (Python, numpy and Pillow themselves take a few hundred MB of it)."""
    side = int(MAX_PIXELS ** 0.5) - 1
    f = tmp_path / "big.png"
    f.write_bytes(_png(side, side, colour=6, row=bytes([200, 40, 40, 255]) * side))
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1280 << 20, 1280 << 20)); "
            "from zipai.vision.decode import load; d = load(sys.argv[1]); "
            "print(d.width, d.height, d.image.size, d.image.getpixel((5, 5)))")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}  # no per-core buffers
    out = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-500:]
    assert out.stdout.split() == [str(side), str(side), f"({2048},", "2048)", "(200,", "40,", "40)"]


def test_1_big_baseline_jpeg_still_decodes_scaled() -> None:
    """Phones take 50 to 200 Mpx photos: a baseline JPEG decodes at a DCT scale, under budget."""
    buf = io.BytesIO()
    Image.new("RGB", (9000, 7000), (30, 120, 30)).save(buf, "JPEG", quality=50)
    d = decode(buf.getvalue())
    assert (d.width, d.height) == (9000, 7000) and max(d.image.size) == 2048


def test_1_big_progressive_jpeg_is_refused() -> None:
    """A progressive JPEG holds every coefficient of the full image while it decodes."""
    buf = io.BytesIO()
    Image.new("RGB", (9000, 7000), (30, 120, 30)).save(buf, "JPEG", quality=50, progressive=True)
    with pytest.raises(ImageError, match="more than 60 for a progressive JPEG"):
        decode(buf.getvalue(), "big.jpg")


def test_1_exotic_formats_are_not_decoded() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (40, 30)).save(buf, "PPM")
    with pytest.raises(ImageError, match="not an image"):
        decode(buf.getvalue(), "x.ppm")


# ------------------------------------------------------------------ 2. paths taken from the data

def test_2_get_rules_never_opens_a_path(tmp_path: Path) -> None:
    f = tmp_path / "house.toml"
    f.write_text(HOUSE, encoding="utf-8")
    for name in (str(f), "/dev/zero", "a\x00.toml", "../house.toml"):
        with pytest.raises(RulesError, match="unknown rule set"):
            get_rules(name)
    assert load_rules_file(f).options.self_draw == "plus_ten"
    assert rules_from_flag(str(f)).source == str(f) and rules_from_flag("湖南").name == "hunan"


@pytest.mark.parametrize("rules", ["HOUSE", "/dev/zero", "FIFO", "a\x00.toml"])
def test_2_a_hand_that_names_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              rules: str) -> None:
    house = tmp_path / "house.toml"
    house.write_text(HOUSE, encoding="utf-8")
    named = {"HOUSE": str(house), "FIFO": str(_fifo(tmp_path, "f.toml")) if rules == "FIFO" else ""}
    f = tmp_path / "hand.json"
    f.write_text(json.dumps({**L1, "rules": named.get(rules) or rules}), encoding="utf-8")
    rc = score_main([str(f)])
    out, err = capsys.readouterr()
    assert not out
    _one_line_exit_2(rc, err, "unknown rule set")


@pytest.mark.parametrize("kind", ["fifo", "device", "directory", "too-big", "nul"])
def test_2_rules_flag_takes_only_a_regular_file_of_sane_size(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str],
                                                            kind: str) -> None:
    big = tmp_path / "big.toml"
    if kind == "too-big":
        big.write_text(HOUSE + "#" * 100_000 + "\n", encoding="utf-8")
    path = {"fifo": lambda: str(_fifo(tmp_path, "r.toml")), "device": lambda: "/dev/zero",
            "directory": lambda: str(tmp_path), "too-big": lambda: str(big),
            "nul": lambda: "a\x00.toml"}[kind]()
    words = {"fifo": "not a regular file", "device": "not a regular file", "directory": "is a directory",
             "too-big": "too large", "nul": "not a valid file name"}[kind]
    rc = score_main([str(ROOT / "examples" / "l1_hunan.json"), "--rules", path])
    _one_line_exit_2(rc, capsys.readouterr().err, words)


def test_2_rules_flag_with_a_house_file_still_scores(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    house = tmp_path / "house.toml"
    house.write_text(HOUSE, encoding="utf-8")
    hand = {**L1, "won_by": "self_draw"}
    f = tmp_path / "hand.json"
    f.write_text(json.dumps(hand), encoding="utf-8")
    assert score_main([str(f), "--rules", str(house), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == 28  # 18 + 10 (plus_ten), not 36


def test_2_scan_carries_a_house_file_as_options_not_as_its_path(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    house = tmp_path / "house.toml"
    house.write_text('preset = "guilin"\n[options]\nxing = ["up", "same"]\n', encoding="utf-8")
    assert scan_main([str(ROOT / "models" / "sample.jpg"), "--rules", str(house), "--json"]) == 0
    out = capsys.readouterr().out
    lay = json.loads(out)["layout"]
    assert lay["rules"] == "guilin" and lay["options"]["xing"] == ["up", "same"]
    assert str(tmp_path) not in out


@pytest.mark.parametrize("file", ["/dev/zero", "../finder.onnx", "", 7])
def test_2_a_model_manifest_names_only_a_file_beside_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        file: object) -> None:
    shipped = json.loads((ROOT / "models" / "manifest.json").read_text(encoding="utf-8"))
    shipped["finder"]["file"] = file
    if isinstance(shipped["finder"].get("int8_file"), dict):  # what a CPU with VNNI loads
        shipped["finder"]["int8_file"]["file"] = file
    man = tmp_path / "manifest.json"
    man.write_text(json.dumps(shipped), encoding="utf-8")
    photo = tmp_path / "p.jpg"
    Image.new("RGB", (64, 48), (20, 90, 30)).save(photo, "JPEG")
    rc = scan_main([str(photo), "--model", str(man)])
    _one_line_exit_2(rc, capsys.readouterr().err, "must name a model file in the manifest's folder")


@pytest.mark.parametrize("content", ["FIFO", "[1, 2]", "[" * 100_000])
def test_2_a_bad_model_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str) -> None:
    man = tmp_path / "manifest.json"
    if content == "FIFO":
        man = _fifo(tmp_path, "fifo.json")
    else:
        man.write_text(content, encoding="utf-8")
    photo = tmp_path / "p.jpg"
    Image.new("RGB", (64, 48), (20, 90, 30)).save(photo, "JPEG")
    rc = scan_main([str(photo), "--model", str(man)])
    _one_line_exit_2(rc, capsys.readouterr().err, "manifest")


# ------------------------------------------------------------------ 4. tracebacks instead of exit 2

def test_4_a_number_of_5000_digits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "hand.json"
    f.write_text(json.dumps(L1).replace('"players": 3', '"players": ' + "9" * 5000), encoding="utf-8")
    rc = score_main([str(f)])
    _one_line_exit_2(rc, capsys.readouterr().err, "too many digits")


def test_4_a_number_of_5000_digits_in_a_rules_file(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Found by the fuzz test's longer run (ZIPAI_FUZZ=5000): tomllib raises a bare ValueError."""
    f = tmp_path / "house.toml"
    f.write_text('preset = "hunan"\n[options]\npiao = ' + "9" * 5000 + "\n", encoding="utf-8")
    rc = score_main([str(ROOT / "examples" / "l1_hunan.json"), "--rules", str(f)])
    _one_line_exit_2(rc, capsys.readouterr().err, "too many digits")


def test_4_jsonl_a_bad_line_gets_its_own_error_line(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    good = json.dumps(L1)
    lines = [good, good.replace('"players": 3', '"players": ' + "9" * 5000),
             json.dumps({**L1, "rules": "a\x00.toml"}), "[" * 100_000, good]
    f = tmp_path / "hands.jsonl"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert score_main([str(f), "--jsonl"]) == 0
    rows = [json.loads(r) for r in capsys.readouterr().out.splitlines()]
    assert len(rows) == 5 and rows[0]["score"] == rows[4]["score"] == 36
    assert [r.get("code") for r in rows[1:4]] == ["bad_json", "bad_rules", "bad_json"]
    assert rows[1]["error"].startswith("line 2:")


def _deep_toml(tmp_path: Path, kind: str) -> Path:
    f = tmp_path / f"{kind}.toml"
    if kind == "nested":
        f.write_text('preset = "hunan"\nx = ' + "[" * 2000 + "]" * 2000 + "\n", encoding="utf-8")
    else:  # a key dotted 10,000 deep: tomllib takes time quadratic in the depth
        f.write_text('preset = "hunan"\n' + "a" + ".a" * 10_000 + " = 1\n", encoding="utf-8")
    return f


@pytest.mark.parametrize("kind", ["nested", "dotted"])
def test_4_deep_toml_with_score_scan_and_session_new(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    f = str(_deep_toml(tmp_path, kind))
    rc = score_main([str(ROOT / "examples" / "l1_hunan.json"), "--rules", f])
    _one_line_exit_2(rc, capsys.readouterr().err, "more than 8 deep")
    photo = tmp_path / "p.jpg"
    Image.new("RGB", (64, 48), (20, 90, 30)).save(photo, "JPEG")
    rc = scan_main([str(photo), "--rules", f])
    _one_line_exit_2(rc, capsys.readouterr().err, "more than 8 deep")
    monkeypatch.setenv("ZIPAI_DB", str(tmp_path / "ledger.db"))
    rc = session_main(["new", "s", "--players", "甲,乙,丙", "--rules", f])
    _one_line_exit_2(rc, capsys.readouterr().err, "more than 8 deep")


def test_4_session_new_with_a_house_file_freezes_its_options(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    house = tmp_path / "house.toml"
    house.write_text(HOUSE, encoding="utf-8")
    monkeypatch.setenv("ZIPAI_DB", str(tmp_path / "ledger.db"))
    assert session_main(["new", "s", "--players", "甲,乙,丙", "--rules", str(house), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["session"]["rules"]["options"]["self_draw"] == "plus_ten"


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    p = tmp_path / "photo.jpg"
    Image.new("RGB", (64, 48), (20, 90, 30)).save(p, "JPEG")
    return p


@pytest.mark.parametrize("out", ["out.xyz", "out", "a\x00.png"])
def test_4_overlay_with_an_unknown_suffix(photo: Path, capsys: pytest.CaptureFixture[str], out: str) -> None:
    rc = scan_main([str(photo), "--overlay", str(photo.parent / out)])
    _one_line_exit_2(rc, capsys.readouterr().err, "--overlay")


def test_4_overlay_into_a_missing_folder(photo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = scan_main([str(photo), "--overlay", str(photo.parent / "no" / "such" / "o.png")])
    _one_line_exit_2(rc, capsys.readouterr().err, "no such folder")  # found before the scan


# ------------------------------------------------------------------ 8. JSON Lines split on \n only

def test_8_jsonl_splits_on_newline_only(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # "hunan\u2028" is the preset hunan (names are stripped); U+2028 and a lone CR are no line ends
    odd = json.dumps({**L1, "rules": "hunan\u2028\r"}, ensure_ascii=False)
    text = json.dumps(L1) + "\n" + odd + "\n"
    f = tmp_path / "hands.jsonl"
    f.write_text(text, encoding="utf-8", newline="")
    assert score_main([str(f), "--jsonl"]) == 0
    rows = [json.loads(r) for r in capsys.readouterr().out.split("\n") if r]
    assert [r.get("score") for r in rows] == [36, 36]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8"))
    assert score_main(["--jsonl"]) == 0
    rows = [json.loads(r) for r in capsys.readouterr().out.split("\n") if r]
    assert [r.get("score") for r in rows] == [36, 36]


def test_8_jsonl_an_overlong_line_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "hands.jsonl"
    f.write_text(json.dumps(L1) + "\n" + " " * 3_000_000 + "{}\n" + json.dumps(L1) + "\n", encoding="utf-8")
    assert score_main([str(f), "--jsonl"]) == 0
    rows = [json.loads(r) for r in capsys.readouterr().out.splitlines()]
    assert [r.get("code") for r in rows] == [None, "too_large", None]


# ------------------------------------------------------------------ 9. high bit depth

def test_9_sixteen_bit_grey_png_is_not_white() -> None:
    ramp = (np.arange(256, dtype=np.uint16) * 257)[None, :].repeat(16, axis=0)  # 0 … 65535
    buf = io.BytesIO()
    Image.fromarray(ramp).save(buf, "PNG")
    img = decode(buf.getvalue()).image
    assert img.mode == "RGB"
    row = np.asarray(img)[8, :, 0]
    assert row[0] == 0 and row[255] == 255 and abs(int(row[128]) - 128) <= 1


def test_9_pillow_10s_thirty_two_bit_mode_keeps_its_contrast() -> None:
    """Pillow 10 (our floor) opens a 16-bit grey PNG as mode I."""
    from zipai.vision.decode import _to_8bit

    a = np.zeros((20, 40), dtype=np.int32)
    a[:, 20:] = 60000
    px = np.asarray(_to_8bit(Image.fromarray(a)))[10]
    assert px[5] == 0 and px[30] == 60000 >> 8


def test_9_tiff_is_not_opened() -> None:
    """libtiff prints its complaints about a broken TIFF onto stderr; no camera writes TIFF."""
    buf = io.BytesIO()
    Image.new("RGB", (40, 30)).save(buf, "TIFF")
    with pytest.raises(ImageError, match="not an image"):
        decode(buf.getvalue(), "x.tif")


# ------------------------------------------------------------------ 10. smaller edges

def test_10_fifo_and_device_as_the_photo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in (str(_fifo(tmp_path, "photo.jpg")), "/dev/zero"):
        rc = scan_main([path])
        _one_line_exit_2(rc, capsys.readouterr().err, "not a regular file")
    with pytest.raises(ImageError, match="not a regular file"):
        load("/dev/zero")


def test_10_fifo_as_the_json_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([str(_fifo(tmp_path, "h.json"))], [str(_fifo(tmp_path, "h.jsonl")), "--jsonl"]):
        rc = score_main(argv)
        _one_line_exit_2(rc, capsys.readouterr().err, "not a regular file")


@pytest.mark.parametrize("threads", ["100000", "0", "-3"])
def test_10_threads_out_of_range(photo: Path, capsys: pytest.CaptureFixture[str], threads: str) -> None:
    rc = scan_main([str(photo), "--threads", threads])
    _one_line_exit_2(rc, capsys.readouterr().err, "--threads must be 1 to 64")


def test_10_overlay_onto_the_photo_is_refused(photo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = photo.read_bytes()
    other = photo.parent / "sub" / ".." / photo.name
    (photo.parent / "sub").mkdir()
    for out in (photo, other):
        rc = scan_main([str(photo), "--overlay", str(out)])
        _one_line_exit_2(rc, capsys.readouterr().err, "is the photo itself")
    assert photo.read_bytes() == before


def test_10_overlay_onto_a_fifo_or_a_folder_is_refused(photo: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "dir.png").mkdir()
    for out in (_fifo(tmp_path, "o.png"), tmp_path / "dir.png"):
        rc = scan_main([str(photo), "--overlay", str(out)])
        _one_line_exit_2(rc, capsys.readouterr().err, "not a regular file")


def test_10_corrupt_exif_prints_no_warning() -> None:
    # one IFD entry whose 100-byte value lies past the end of the EXIF block
    tiff = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1)
    tiff += struct.pack("<HHII", 0x010F, 2, 100, 0x1000) + struct.pack("<I", 0)
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (20, 90, 30)).save(buf, "JPEG", exif=b"Exif\x00\x00" + tiff)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        d = decode(buf.getvalue())
    assert d.image.size == (64, 48)
    assert [str(w.message) for w in seen] == []


@pytest.mark.parametrize("argv", [["session", "list"], ["players", "list"], ["score", "EXAMPLE"]])
def test_10_a_closed_pipe_prints_nothing(tmp_path: Path, argv: list[str]) -> None:
    """``zipai … | head``: the reader has gone before the first write."""
    argv = [str(ROOT / "examples" / "l1_hunan.json") if a == "EXAMPLE" else a for a in argv]
    read, write = os.pipe()
    os.close(read)
    env = {**os.environ, "ZIPAI_DB": str(tmp_path / "ledger.db")}
    subprocess.run([sys.executable, "-m", "zipai", "players", "add", "甲"], env=env, check=True,
                   capture_output=True)
    try:
        p = subprocess.run([sys.executable, "-m", "zipai", *argv], stdout=write, stderr=subprocess.PIPE,
                           text=True, env=env)
    finally:
        os.close(write)
    assert p.returncode == 0 and p.stderr == ""
