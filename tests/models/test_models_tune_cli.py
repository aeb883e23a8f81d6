"""``zipai tune``: the tuners by name, each imported only when run."""

from __future__ import annotations

import importlib

import pytest

from zipai.cli import main as zipai_main
from zipai.models.tune import TUNERS


def test_zipai_tune_lists_the_tuners(capsys: pytest.CaptureFixture[str]) -> None:
    assert zipai_main(["tune"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {name} " in out for name in TUNERS)


def test_an_unknown_tuner_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert zipai_main(["tune", "threshold"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no tuner 'threshold'" in err[0] and "thresholds" in err[0]


@pytest.mark.parametrize("name", sorted(TUNERS))
def test_every_tuner_has_a_main_and_names_itself(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert callable(importlib.import_module(f"zipai.models.tune.{TUNERS[name][0]}").main)
    with pytest.raises(SystemExit) as exc:
        zipai_main(["tune", name, "--help"])
    assert exc.value.code == 0 and f"usage: zipai tune {name}" in capsys.readouterr().out
