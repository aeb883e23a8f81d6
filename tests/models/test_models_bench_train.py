"""The training-step benchmark times both networks in both precisions (no figure is asserted)."""

from __future__ import annotations

import re

import pytest

from zipai.models import bench_train as mod


def test_it_reports_both_networks_in_both_precisions(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    assert mod.main(["--steps", "1", "--threads", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["finder", "reader", "augmentation"]
    shape = r"\(1 threads, batch \(\d+, 3, \d+, \d+\)\)"
    for line in lines[:2]:
        assert re.search(r"float32 \d+ ms a step, bfloat16 \d+ ms " + shape, line)
    aug = r"augmentation: finder \d+ ms a batch, reader \d+ ms \(\d+ ms with --brush\)"
    assert re.fullmatch(aug, lines[2])


def test_no_steps_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert mod.main(["--steps", "0"]) == 2
    assert "--steps must be at least 1" in capsys.readouterr().err
