"""`zipai eval …` and `zipai bench …` name their subcommands; `zipai bench` alone is the engine's bench,
and a subcommand whose extra is missing says which extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest

from zipai import cli


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bench_with_no_name_is_the_engine_bench(capsys: pytest.CaptureFixture[str]) -> None:
    code, plain, _ = _run(["bench", "--count", "12", "--repeat", "1"], capsys)
    assert code == 0 and plain.startswith("12 layouts (")
    code, named, _ = _run(["bench", "engine", "--count", "12", "--repeat", "1"], capsys)
    assert code == 0 and named.split(",")[0] == plain.split(",")[0]


def test_group_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["eval", "--help"], capsys)
    assert code == 0
    for sub in cli.GROUPS["eval"].commands:
        assert f"\n  {sub} " in out
    code, out, _ = _run(["bench", "-h"], capsys)
    assert code == 0 and "With no name, zipai bench runs zipai bench engine." in out


@pytest.mark.parametrize(("argv", "message"), [
    (["eval"], "zipai eval: eval needs a command"),
    (["eval", "nonsense"], "zipai eval: unknown eval command 'nonsense'"),
    (["bench", "nonsense"], "zipai bench: unknown bench command 'nonsense'"),
])
def test_a_wrong_subcommand_is_one_clear_line_and_exit_2(argv: list[str], message: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(argv, capsys)
    assert code == 2 and err.splitlines()[0] == message


def test_every_subcommand_names_a_module_and_function_that_exist() -> None:
    """Checked without importing them (torch and Kivy may be absent): the module's file defines
    the function, taking the arguments the command line gives it."""
    import importlib.util

    for group in cli.GROUPS.values():
        for module, func, _ in group.commands.values():
            spec = importlib.util.find_spec(module)
            assert spec is not None and spec.origin is not None, module
            with open(spec.origin, encoding="utf-8") as f:
                assert f"\ndef {func}(argv: list[str] | None = None) -> int:" in f.read(), (module, func)


def test_a_missing_extra_is_named(capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """RapidOCR is optional: without it the subcommand says to install the [ocr] extra."""
    monkeypatch.setitem(cli.GROUPS["eval"].commands, "rapidocr",
                        ("rapidocr_onnxruntime.absent_for_this_test", "main", ""))
    code, _, err = _run(["eval", "rapidocr", "x"], capsys)
    assert code == 2 and err.startswith("zipai eval rapidocr: cannot start, missing dependency: ")
    assert "pip install 'zipai-scorer[ocr]'" in err and "Traceback" not in err


def test_eval_detector_runs_from_the_command(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same entry as the module's: a folder without labels is one line, exit 2."""
    code, _, err = _run(["eval", "detector", str(tmp_path)], capsys)
    assert code == 2 and err.startswith("zipai eval detector: ") and len(err.strip().splitlines()) == 1


def test_subcommand_groups_start_without_heavy_imports() -> None:
    """Listing the groups imports none of their modules."""
    code = ("import sys; from zipai.cli import main; main(['eval', '--help']); main(['bench', '--help']); "
            "print([m for m in ('torch', 'kivy', 'cv2', 'onnxruntime', 'numpy') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[]")
