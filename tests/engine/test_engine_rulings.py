"""RULINGS' worked examples (sections 2 and 8) as golden hands read from data."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import layout

from zipai.engine import score

HANDS: list[dict[str, Any]] = tomllib.loads(
    (Path(__file__).parent / "golden" / "rulings.toml").read_text(encoding="utf-8"))["hand"]
SCORE_FIELDS = ("points", "score", "payouts", "zi", "xing", "fan")


@pytest.mark.parametrize("h", HANDS, ids=[h["id"] for h in HANDS])
def test_worked_example(h: dict[str, Any]) -> None:
    fields = {k: h[k] for k in ("from", "options") if k in h}
    r = score(layout(h["text"], h["rules"], won_by=h["won_by"], **fields))
    assert r["winning"] is h["winning"]
    if not h["winning"]:
        assert r["reason"]["code"] == h["code"]
        assert r["transfers"] == []
    for key in SCORE_FIELDS:
        if key in h:
            assert r[key] == h[key], key
    if "group" in h:
        want = h["group"]
        group = next(g for g in r["groups"] if g["cards"] == want["cards"])
        assert {k: group.get(k) for k in want} == want


def test_the_section_8_layout_keeps_all_seven_red_cards() -> None:
    h = HANDS[0]
    r = score(layout(h["text"], h["rules"], won_by=h["won_by"]))
    red = ("x2", "x7", "x10", "d2", "d7", "d10")
    assert sum(1 for g in r["groups"] for c in g["cards"] if c in red) == 7


@pytest.mark.parametrize("h", HANDS, ids=[h["id"] for h in HANDS])
def test_every_hand_says_where_it_comes_from(h: dict[str, Any]) -> None:
    """Seed words where a seed has them (``001: …``), else why none does (the project's reading)."""
    seed, reading = h.get("seed", ""), h.get("reading", "")
    assert bool(seed) != bool(reading)
    assert seed[:5] in ("000: ", "001: ", "003: ") if seed else "the project's reading" in reading
