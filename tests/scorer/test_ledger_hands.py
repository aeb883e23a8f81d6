"""Shared test hands for the ledger tests (RULINGS section 8 layout L1 and instant wins),
with checks that the engine scores them as the rulings say (the evenings rely on it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zipai.engine import score
from zipai.scorer import Ledger

L1_GROUPS = [{"cards": ["d5", "d5", "d5"], "state": "open"},
             {"cards": ["x10", "x10", "x10"], "state": "concealed"},
             {"cards": ["x1", "x2", "x3"], "state": "open"}]
L1_HAND = "x4 x5 x6 d2 d7 d10 x9 x9 x9 d8 d8 x8".split()

# Guangxi instant wins after the deal (五坎): A 21 油, B 27 油, C 21 油
INSTANT_A = "x1 x1 x1 x3 x3 x3 x5 x5 x5 d4 d4 d4 d9 d9 d9 x2 x4 x6 x7 x8 x9".split()
INSTANT_B = "x10 x10 x10 d1 d1 d1 d3 d3 d3 d5 d5 d5 d8 d8 d8 x2 x4 x6 x7 x8".split()
INSTANT_C = "x10 x10 x10 d1 d1 d1 d3 d3 d3 x6 x6 x6 x8 x8 x8 x2 x4 x7 x9 d2".split()


def l1(winner: int, won_by: str, frm: int | None = None, **extra: Any) -> dict[str, Any]:
    """L1 won by ``winner``; the ledger fills in players and dealer."""
    obj: dict[str, Any] = {"winner": winner, "won_by": won_by, "groups": L1_GROUPS, "hand": L1_HAND}
    if frm is not None:
        obj["from"] = frm
    obj.update(extra)
    return obj


def instant(winner: int, cards: list[str]) -> dict[str, Any]:
    return {"winner": winner, "won_by": "dealt", "hand": cards}


def new_ledger(tmp_path: Path) -> Ledger:
    return Ledger(tmp_path / "ledger.db")


@pytest.mark.parametrize(("rules", "won_by", "frm", "payouts"), [
    ("hunan", "stock", None, [0, 18, 0]),
    ("hunan", "self_draw", None, [0, 36, 0]),
    ("hunan", "discard", 2, [0, 28, -18]),
    ("guangxi", "self_draw", None, [-18, 36, -18]),
    ("guangxi", "discard", 2, [0, 36, -36]),
    ("guilin", "stock", None, [-3, 6, -3]),
    ("guilin", "self_draw", None, [-6, 12, -6]),
])
def test_l1_scores_as_rulings_section_8(rules: str, won_by: str, frm: int | None,
                                        payouts: list[int]) -> None:
    out = score({**l1(1, won_by, frm), "rules": rules, "players": 3, "dealer": 0})
    assert out["payouts"] == payouts


def test_instant_layouts_are_five_kan() -> None:
    for cards, pts in ((INSTANT_A, 21), (INSTANT_B, 27), (INSTANT_C, 21)):
        out = score({**instant(1, cards), "rules": "guangxi", "players": 3, "dealer": 0})
        assert out["winning"] and out["points"] == pts
        assert [s["id"] for s in out["specials"]] == ["wukan"]
