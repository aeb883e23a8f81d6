"""Numbers typed or stored at the edge: every numeric option bounded with its reason, whole
numbers only, ASCII digits only, and no string long enough to reach ``int()``'s digit limit."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from zipai.engine import InputError, RulesError, get_rules
from zipai.engine.cli import main
from zipai.engine.options import BOUNDS
from zipai.engine.text import bad_char, parse_int, printable

ROOT = Path(__file__).resolve().parents[2]
L1 = "| d5d5d5 x10x10x10 x1x2x3 x4x5x6 d2d7d10 x9x9x9 d8d8x8"  # dealt: nothing on the table yet
NINES = "9" * 4298  # one digit under Python's 4,300-digit conversion limit, as the tester typed


def _hand(**options: object) -> dict[str, object]:
    return {"rules": "guangxi", "players": 3, "dealer": 0, "winner": 0, "won_by": "dealt",
            "groups": [],
            "hand": "d5 d5 d5 x10 x10 x10 x1 x2 x3 x4 x5 x6 d2 d7 d10 x9 x9 x9 d8 d8 x8".split(),
            "options": options}


def _one_line(code: int, err: str) -> str:
    assert code == 2 and err.count("\n") == 1 and len(err) < 400, err[:400]
    return err


@pytest.mark.parametrize("mode", [[], ["--json"]])
def test_a_4299_digit_option_value_is_refused_in_one_line(mode: list[str],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--rules", "guangxi", "--text", L1, "--won-by", "dealt",
                 "--option", f"tianhu_multiplier={NINES}", *mode])
    err = _one_line(code, capsys.readouterr().err)
    assert "tianhu_multiplier" in err and "digits" in err


def test_a_4299_digit_option_value_in_json_lines_costs_only_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hands.jsonl"
    good = _hand()
    bad = json.dumps(_hand(tianhu_multiplier=int(NINES)))
    path.write_text(json.dumps(good) + "\n" + bad + "\n" + json.dumps(good) + "\n")
    assert main(["--jsonl", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3 and lines[0]["score"] == lines[2]["score"] == 42
    assert lines[1]["code"] == "bad_rules" and "from 1 to 10" in lines[1]["error"]
    assert len(lines[1]["error"]) < 300


def test_a_4299_digit_option_value_in_a_rules_file_is_refused(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "house.toml"
    path.write_text(f'preset = "guangxi"\n[options]\ntianhu_multiplier = {NINES}\n')
    code = main(["--rules", str(path), "--text", L1, "--won-by", "dealt"])
    err = _one_line(code, capsys.readouterr().err)
    assert "'tianhu_multiplier' must be a whole number from 1 to 10" in err


@pytest.mark.parametrize(("key", "lo", "hi"), [(k, lo, hi) for k, (lo, hi, _) in BOUNDS.items()])
def test_every_numeric_option_is_bounded_with_its_reason(key: str, lo: int, hi: int) -> None:
    preset = "guangxi" if key == "tianhu_multiplier" else "hunan"
    get_rules(preset, {key: hi})
    for v in (lo - 1, hi + 1, 10**4000):
        with pytest.raises(RulesError, match=rf"from {lo} to {hi} \(.+\)") as e:
            get_rules(preset, {key: v})
        assert len(str(e.value)) < 300


def test_the_numeric_options_bounds_are_documented() -> None:
    text = (ROOT / "docs" / "rules.md").read_text().split("## House options", 1)[1]
    for key, (lo, hi, _) in BOUNDS.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `{key}` |"))
        assert f"{lo} to {hi}" in row, row


@pytest.mark.parametrize("value", [30.0, 30.5, 100.0])
def test_a_float_piao_is_refused_in_one_line_not_a_format_error(value: float, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps({**json.loads((ROOT / "examples" / "l1_hunan.json").read_text()),
                                "options": {"piao": value}}))
    for mode in ([], ["--json"]):
        err = _one_line(main([str(path), *mode]), capsys.readouterr().err)
        assert "'piao' must be 30 or 100 (a whole number)" in err and "format code" not in err
    with pytest.raises(RulesError, match="whole number"):
        get_rules("hunan", {"piao": value})


@pytest.mark.parametrize("argv", [["--option", "piao=٣٠"], ["--option", "minimum=１５"],
                                  ["--winner", "١"], ["--from", "٢", "--won-by", "discard"],
                                  ["--players", "३"], ["--option", "piao=30.0"]])
def test_arabic_indic_and_other_non_ascii_digits_are_refused_as_numbers(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    err = _one_line(main(["--text", L1, *argv]), capsys.readouterr().err)
    assert "ASCII digits" in err


@pytest.mark.parametrize("argv", [["--option", "piao=" + "9" * 5000], ["--winner", "1" * 5000],
                                  ["--option", "minimum=-" + "9" * 5000]])
def test_a_5000_digit_number_is_refused_before_int_sees_it(argv: list[str],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    err = _one_line(main(["--text", L1, *argv]), capsys.readouterr().err)
    assert "5000 digits; at most 18" in err


def test_parse_int_takes_ascii_digits_and_a_sign_only() -> None:
    assert parse_int(" +15 ", "n") == 15 and parse_int("-3", "n") == -3
    for bad in ("", "+", "1_000", "1e3", "٣", "１", "0x10", "3.0", "1" * 19):
        with pytest.raises(InputError):
            parse_int(bad, "n")


def test_names_that_hide_or_reorder_text_are_found_and_escaped() -> None:
    for c in ("\u202e", "\u200b", "\x1b", "\n", "\u2028", "\ufeff", "\U000e0001"):
        assert bad_char(f"ab{c}cd") == c
        assert bad_char(printable(f"ab{c}cd")) is None
    assert bad_char("家里 deck 壹") is None and printable("家里") == "家里"


def test_the_score_of_a_bounded_multiplier_still_prints(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--rules", "guangxi", "--text", L1, "--won-by", "dealt", "--option",
                 "tianhu_multiplier=10"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"seat 1 pays seat 0: \d+", out) and os.linesep in out + os.linesep
