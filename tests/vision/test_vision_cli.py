"""`zipai scan` with bad input: one clear line on stderr, exit 2, never a traceback."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from zipai.vision.cli import main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _jpeg(path: Path, size: tuple[int, int] = (64, 48)) -> Path:
    Image.new("RGB", size, (20, 90, 30)).save(path, "JPEG")
    return path


@pytest.mark.parametrize(("content", "words"), [
    (None, "no such file"),
    (b"", "empty file"),
    (b"\x89PNG\r\n\x1a\n but not really", "not an image"),
    (b"hello", "not an image"),
], ids=["missing", "empty", "bad-png", "text"])
def test_bad_photo(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None,
                   words: str) -> None:
    f = tmp_path / "photo.jpg"
    if content is not None:
        f.write_bytes(content)
    rc, out, err = _run([str(f)], capsys)
    assert rc == 2 and out == ""
    assert err.startswith("zipai scan: ") and words in err and str(f) in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_truncated_jpeg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    buf = io.BytesIO()
    Image.effect_noise((400, 300), 60).convert("RGB").save(buf, "JPEG")
    f = tmp_path / "cut.jpg"
    f.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 3])
    rc, _, err = _run([str(f)], capsys)
    assert rc == 2 and "truncated" in err and err.count("\n") == 1


@pytest.mark.parametrize(("flags", "words"), [
    (["--winner", "7"], "winner seat 7"),
    (["--rules", "mars"], "mars"),
    (["--won-by", "discard"], "--from"),
    (["--winning-card", "x11"], "x11"),
    (["--bogus"], "unrecognized"),
], ids=["seat", "rules", "discard-from", "card", "flag"])
def test_bad_flags_fail_before_reading_pixels(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              flags: list[str], words: str) -> None:
    rc, out, err = _run([str(_jpeg(tmp_path / "p.jpg")), *flags], capsys)
    assert rc == 2 and out == "" and words in err and err.count("\n") == 1


def test_directory_and_missing_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _run([str(tmp_path)], capsys)
    assert rc == 2 and "is a directory" in err
    rc, _, err = _run([str(_jpeg(tmp_path / "p.jpg")), "--model", str(tmp_path / "none.json")], capsys)
    assert rc == 2 and "no model manifest" in err
