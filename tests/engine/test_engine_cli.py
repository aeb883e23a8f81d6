"""``zipai score`` end to end: readable output, JSON, JSON Lines, notation, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from zipai.engine.cli import main

ROOT = Path(__file__).resolve().parents[2]
L1_FILE = ROOT / "examples" / "l1_hunan.json"
L1_TEXT = "d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8"


def run(argv, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_readable_breakdown(capsys):
    code, out, err = run([str(L1_FILE)], capsys)
    assert code == 0 and not err
    assert "碰" in out and "贰柒拾" in out and "score: 36" in out and "seat 1: +36" in out


def test_json_output_matches_contract(capsys):
    code, out, _ = run([str(L1_FILE), "--json"], capsys)
    r = json.loads(out)
    assert code == 0 and r["score"] == 36 and r["payouts"] == [0, 36, 0]
    assert set(r) >= {"winning", "groups", "points", "specials", "score", "payouts", "transfers",
                      "alternatives"}


def test_rules_flag_wins_over_the_json(capsys):
    _code, out, _ = run([str(L1_FILE), "--json", "--rules", "guangxi"], capsys)
    assert json.loads(out)["payouts"] == [-18, 36, -18]


def test_text_notation_with_flags(capsys):
    code, out, _ = run(["--rules", "hunan", "--text", L1_TEXT.replace("x9x9x9", "x9!x9x9"),
                        "--winner", "1", "--won-by", "discard", "--from", "2", "--json"], capsys)
    r = json.loads(out)
    assert code == 0 and r["score"] == 26


def test_option_flag(capsys):
    _code, out, _ = run(["--text", L1_TEXT, "--winner", "1", "--option", "self_draw=plus_ten", "--json"],
                       capsys)
    assert json.loads(out)["score"] == 28


def test_guilin_xing_flag(capsys):
    code, out, _ = run(["--rules", "guilin", "--text", L1_TEXT, "--winner", "1", "--won-by", "stock",
                        "--xing", "x10"], capsys)
    assert code == 0 and "(3 子 + 4 醒) × 1 番 = 7" in out


def test_jsonl_keeps_going_after_a_bad_line(capsys, monkeypatch):
    good = L1_FILE.read_text(encoding="utf-8").replace("\n", " ")
    code, out, _ = run(["--jsonl"], capsys, stdin=f"{good}\nnot json\n{{\"rules\": \"hunan\"}}\n{good}\n",
                       monkeypatch=monkeypatch)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == 4
    assert rows[0]["score"] == 36 and rows[3]["score"] == 36
    assert "line 2" in rows[1]["error"] and "missing field 'winner'" in rows[2]["error"]


@pytest.mark.parametrize(("argv_or_obj", "message"), [
    ({"hand": ["x1", "q9"]}, "hand[1]: unknown card 'q9'"),
    ({"hand": ["x1"] * 5}, "5 copies of x1"),
    ({"groups": [{"cards": ["x1", "x2", "x4"]}]}, "groups[0]: cards x1 x2 x4 form no group"),
    ({"won_by": "discard"}, "needs 'from'"),
    ({"winner": 3}, "winner seat 3 is out of range 0–2"),
    ({"won_by": "tsumo"}, "'won_by' must be one of"),
    ({"colour": "red"}, "unknown field 'colour'"),
    ({"options": {"minimum": 18}, "rules": "guilin"}, "'minimum' for guilin must be one of"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv_or_obj, message):
    obj = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1, "won_by": "stock",
           "hand": ["x1", "x2", "x3"], **argv_or_obj}
    f = tmp_path / "in.json"
    f.write_text(json.dumps(obj), encoding="utf-8")
    code, out, err = run([str(f)], capsys)
    assert code == 2 and not out
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(("content", "message"), [
    (b"{not json", "not valid JSON"),
    (b"\x7fELF\x00\x01\x02", "binary data"),
    (b"\xff\xfe\xfa", "not UTF-8"),
    (b"[1, 2]", "must be a JSON object"),
    (b"[" * 100000, "nested too deeply"),
], ids=["syntax", "binary", "not-utf8", "array", "deep"])
def test_bad_files(tmp_path, capsys, content, message):
    f = tmp_path / "bad.json"
    f.write_bytes(content)
    code, _, err = run([str(f)], capsys)
    assert code == 2 and message in err and "Traceback" not in err


def test_missing_file(capsys):
    code, _, err = run(["/no/such/file.json"], capsys)
    assert code == 2 and "no such file" in err


def test_console_script_starts_without_heavy_imports():
    """`zipai score` must not import torch, Kivy or OpenCV."""
    code = (f"import sys; from zipai.cli import main; rc = main(['score', {str(L1_FILE)!r}, '--json']); "
            "heavy = [m for m in ('torch', 'kivy', 'cv2', 'onnxruntime') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[]")


def test_top_level_usage():
    out = subprocess.run([sys.executable, "-m", "zipai", "nonsense"], capture_output=True, text=True)
    assert out.returncode == 2 and "unknown command 'nonsense'" in out.stderr


def test_text_output_says_the_working_and_where_the_winning_card_matters(capsys):
    code, out, _ = run(["--text", L1_TEXT, "--winner", "1", "--won-by", "discard", "--from", "2",
                        "--players", "4", "--from", "3"], capsys)
    assert code == 0
    working = next(line for line in out.splitlines() if line.startswith("working: "))
    assert working == ("working: 点炮 +10 = 28; discarder seat 3 -18; "
                       "数审 seat 2 +10 (half of 28, to tens)")
    assert "note: where the winning card lies changes the score (x9)" in out
    _, marked, _ = run(["--text", L1_TEXT.replace("x9x9x9", "x9!x9x9"), "--winner", "1",
                        "--won-by", "discard", "--from", "2"], capsys)
    assert "note:" not in marked and "working: 点炮 +10 = 26; discarder seat 2 -16" in marked


def test_text_output_names_a_special_and_its_bonus(capsys):
    code, out, _ = run(["--text", "x4x5x6 x6x7x8 d2d3d4 | d5d6d7 x8x9x10 d8d9d10 x3x3d3",
                        "--winner", "1", "--won-by", "self_draw"], capsys)
    assert code == 0 and "working: 飘福 30; 自摸 ×2 = 0; +10 on 飘福" in out and "score: 40" in out
