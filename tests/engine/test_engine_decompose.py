"""``splits_into_groups``: the scoring search's yes/no, which the photo layout asks of many trial layouts."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zipai.engine import ALL_CARDS, Card, State, ZipaiError, parse_input, score, splits_into_groups
from zipai.engine.generate import random_layout


def _ask(obj: dict[str, Any]) -> bool:
    """The cheap question, asked of an engine input object."""
    hand = parse_input(obj)
    return splits_into_groups([c.index for c in hand.hand],
                              [([c.index for c in g.cards], g.state is State.OPEN) for g in hand.groups],
                              hand.winning_card.index if hand.winning_card is not None else -1,
                              hand.ctx.won_by, hand.rules.options.rules_version)


def _idx(text: str) -> list[int]:
    return [Card.parse(c).index for c in text.split()]


L1_TABLE = [(_idx("d5 d5 d5"), True), (_idx("x10 x10 x10"), False), (_idx("x1 x2 x3"), True)]
L1_HAND = "x4 x5 x6 d2 d7 d10 x9 x9 x9 d8 d8 x8"


def test_the_rulings_layout_splits_and_a_card_short_or_over_does_not() -> None:
    assert splits_into_groups(_idx(L1_HAND), L1_TABLE)
    assert not splits_into_groups(_idx(L1_HAND)[:-1], L1_TABLE)  # 20 cards
    assert not splits_into_groups(_idx(L1_HAND + " d3"), L1_TABLE)  # a card over
    assert not splits_into_groups(_idx(L1_HAND), L1_TABLE[:2])  # six groups


def test_a_quad_asks_for_exactly_one_pair() -> None:
    runs = "x1 x2 x3 x4 x5 x6 d1 d2 d3 d4 d5 d6 d7 d8 d9"
    quad = [(_idx("x9 x9 x9 x9"), True)]
    assert splits_into_groups(_idx(runs + " x10 x10"), quad)  # five runs, a pair and the quad
    assert not splits_into_groups(_idx(runs + " x10 d10 d10"), quad)  # no pair
    assert splits_into_groups(_idx(runs + " x10 d10 d10"), [(_idx("x9 x9 x9"), True)])
    pair_on_table = [*quad, (_idx("x10 x10"), False)]
    assert splits_into_groups(_idx(runs), pair_on_table)  # the one pair is laid already


def test_three_of_a_card_in_the_hand_is_never_split() -> None:
    """坎 held in the hand stays one set: x2 x2 x2 with x1 x3 and x3 x4 cannot become two runs."""
    table = [(_idx("d1 d2 d3"), True), (_idx("d4 d5 d6"), True), (_idx("d7 d8 d9"), True),
             (_idx("x7 x8 x9"), True)]
    assert not splits_into_groups(_idx("x1 x2 x2 x2 x3 x3 x4 x5 x6"), table)
    assert splits_into_groups(_idx("x2 x2 x2 x3 x4 x5 x4 x5 x6"), table)


def test_the_fourth_card_of_a_table_triple_goes_where_the_rules_send_it() -> None:
    """Self-drawn, the fourth 伍 must join the concealed triple on the table (RULINGS section 5):
    it cannot stay in a run, and the quad then asks for a pair the hand does not have."""
    table = [(_idx("d5 d5 d5"), False), (_idx("x1 x2 x3"), True), (_idx("d1 d2 d3"), True)]
    hand = _idx("d4 d5 d6 x4 x5 x6 x7 x8 x9 d7 d8 d9")
    w = Card.parse("d5").index
    assert splits_into_groups(hand, table)  # no winning card named: the 伍 stays in its run
    assert not splits_into_groups(hand, table, w, "self_draw")
    assert splits_into_groups(hand, table, w, "stock")  # from the stock it may stay free
    assert splits_into_groups(hand, table, w, "self_draw", version=1)  # the first reading: free


def _objs(seed: int) -> list[dict[str, Any]]:
    """Generated layouts, winning and spoiled, under each rule set and way of winning, with and
    without a named winning card."""
    rng = random.Random(seed)
    out = []
    for rules in ("hunan", "guangxi", "guilin"):
        for winning in (True, False):
            obj = random_layout(rng, rules, winning).to_input()
            obj["won_by"] = rng.choice(("self_draw", "stock", "discard"))
            if obj["won_by"] == "discard":
                obj["from"] = (obj["winner"] + 1) % obj["players"]
            out.append(obj)
            if obj["hand"]:
                out.append({**obj, "winning_card": rng.choice(obj["hand"])})
    return out


@pytest.mark.parametrize("seed", range(40))
def test_the_answer_is_the_full_scores_on_generated_layouts(seed: int) -> None:
    for obj in _objs(seed):
        try:
            full = bool(score(obj)["groups"])
        except ZipaiError as exc:  # a mark the drawn fourth contradicts: no split
            assert exc.code == "drawn_fourth"
            full = False
        assert _ask(obj) == full, obj


@st.composite
def _hands(draw: st.DrawFn) -> dict[str, Any]:
    counts = draw(st.lists(st.integers(0, 4), min_size=20, max_size=20))
    cards = [str(ALL_CARDS[i]) for i, n in enumerate(counts) for _ in range(n)]
    random.Random(draw(st.integers(0, 2**32))).shuffle(cards)
    hand = cards[: draw(st.integers(0, 24))]
    return {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1,
            "won_by": draw(st.sampled_from(["self_draw", "stock"])), "groups": [], "hand": hand}


@settings(max_examples=200, deadline=None)
@given(_hands())
def test_the_answer_is_the_full_scores_on_any_hand(obj: dict[str, Any]) -> None:
    assert _ask(obj) == bool(score(obj)["groups"])
