"""Shared helpers: build engine input objects from the text notation."""

from __future__ import annotations

from typing import Any

import pytest

from zipai.engine.notation import parse_layout


def layout(text: str, rules: str = "hunan", **fields: Any) -> dict[str, Any]:
    """An engine input object from notation plus fields (``from_`` for ``from``)."""
    lay = parse_layout(text)
    obj: dict[str, Any] = {
        "rules": rules, "players": 3, "dealer": 0, "winner": 1, "won_by": "stock",
        "groups": [{"cards": [str(c) for c in g.cards], "state": g.state.value} for g in lay.groups],
        "hand": [str(c) for c in lay.hand],
    }
    if lay.winning_card is not None:
        obj["winning_card"] = str(lay.winning_card)
    if "from_" in fields:
        fields["from"] = fields.pop("from_")
    obj.update(fields)
    return obj


@pytest.fixture
def make_layout():
    return layout
