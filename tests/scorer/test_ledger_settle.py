"""Settlement arithmetic: rounding, round payments, fewest payments (checked against a brute
force), pairwise netting; and random evenings whose cached state equals a full replay."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_ledger_hands import l1, new_ledger

from zipai.scorer import Ledger
from zipai.scorer.settle import (
    balances,
    minimal_transfers,
    pairwise,
    round_flows,
    round_payments,
    round_tens,
)
from zipai.scorer.state import replay


@pytest.mark.parametrize(("x", "r"), [(0, 0), (4, 0), (5, 10), (-5, -10), (25, 30), (-25, -30),
                                      (24, 20), (-24, -20), (26, 30), (107, 110), (-28, -30), (45, 50)])
def test_round_tens_halves_away_from_zero(x: int, r: int) -> None:
    assert round_tens(x) == r


@given(st.lists(st.integers(-300, 300), min_size=2, max_size=4))
def test_round_payments_are_zero_sum_and_follow_the_formula(totals: list[int]) -> None:
    rounded, pay = round_payments(totals)
    n = len(totals)
    assert sum(pay) == 0
    for i in range(n):
        assert pay[i] == rounded[i] * (n - 1) - sum(rounded[j] for j in range(n) if j != i)
    assert balances(round_flows(rounded), n) == pay


def fewest(net: list[int]) -> int:
    """Brute force: seats with a balance minus the most zero-sum blocks of a set partition."""
    seats = [i for i, v in enumerate(net) if v]

    def partitions(items: list[int]) -> itertools.chain[list[list[int]]] | list[list[list[int]]]:
        if not items:
            return [[]]
        first, rest = items[0], items[1:]
        out = []
        for p in partitions(rest):
            out.append([[first], *p])
            for k in range(len(p)):
                out.append([*p[:k], [first, *p[k]], *p[k + 1:]])
        return out
    best = max((sum(1 for b in p if sum(net[i] for i in b) == 0) for p in partitions(seats)
                if all(sum(net[i] for i in b) == 0 for b in p)), default=0)
    return len(seats) - best


@settings(max_examples=300)
@given(st.lists(st.sampled_from([-60, -30, -20, -10, 0, 10, 20, 30, 40, 70]), min_size=1, max_size=6))
def test_minimal_transfers_settle_and_are_fewest(values: list[int]) -> None:
    net = [*values, -sum(values)]
    out = minimal_transfers(net)
    assert balances(out, len(net)) == net
    assert all(amt > 0 and a != b for a, b, amt in out)
    assert len(out) == fewest(net)


def test_greedy_alone_would_not_be_fewest() -> None:
    # largest-first pairing gives 4 payments here; two zero-sum groups allow 3
    net = [-50, -40, 30, 60]
    assert len(minimal_transfers(net)) == 3 == fewest(net)
    assert minimal_transfers([0, 0, 0]) == []
    with pytest.raises(ValueError, match="sum to zero"):
        minimal_transfers([1, 0])


def test_pairwise_nets_each_pair_once() -> None:
    flows = {(0, 1): 10, (1, 0): 4, (2, 0): 7, (1, 2): 3}
    assert pairwise(flows) == [(0, 1, 6), (2, 0, 7), (1, 2, 3)]
    assert balances(pairwise(flows), 3) == [-6 + 7, 6 - 3, -7 + 3]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["hunan", "guangxi", "guilin"]), st.integers(2, 4), st.integers(0, 10**6))
def test_random_evenings_settle_and_replay_identically(tmp_path_factory: pytest.TempPathFactory,
                                                       rules: str, players: int, seed: int) -> None:
    if rules != "hunan":
        players = min(players, 3)
    rng = random.Random(seed)
    led = new_ledger(Path(tmp_path_factory.mktemp("ev")))
    s = led.new_session("r", rules, ["甲", "乙", "丙", "丁"][:players], first_dealer=rng.randrange(players),
                        options={"minimum": 15})  # L1 has 18: enough with two Hunan players too
    for _ in range(rng.randint(1, 25)):
        dealer = led.state(s).dealer
        seats = [x for x in range(players) if players != 4 or x != (dealer + 2) % 4]
        w = rng.choice(seats)
        roll = rng.random()
        if roll < 0.1:
            led.record_draw(s)
        elif roll < 0.15 and led.state(s).history:
            led.undo_last(s)
        elif roll < 0.2 and led.state(s).history and led.state(s).history[0].kind == "hand":
            try:
                led.edit_hand(s, 1, l1(rng.choice(range(players)), "stock"))
            except ValueError:
                pass  # refused edits (a later winner became 数审) write nothing
        else:
            how = rng.choice(["stock", "self_draw", "discard"])
            frm = rng.choice([x for x in seats if x != w]) if how == "discard" else None
            led.record_hand(s, l1(w, how, frm))
    cached = led.state(s)
    fresh = replay(led.session(s.id), led._events(s.id))
    assert (cached.net, cached.round_totals, cached.dealer) == (fresh.net, fresh.round_totals, fresh.dealer)
    assert [e.to_dict() for e in cached.history] == [e.to_dict() for e in fresh.history]
    points = cached.projected()[0]
    assert sum(points) == 0
    for mode in ("minimal", "pairwise"):
        assert balances(led.settlement(s, mode).transfers, players) == points


def test_reopening_opens_the_round_the_settle_closed(tmp_path: Path) -> None:
    """Hunan: a settle closes the open round; reopening voids the settlement, so that round runs
    on and is rounded once when it closes, as if it had never been settled (docs/rules.md)."""
    led = new_ledger(tmp_path)
    s = led.new_session("重开", "hunan", ["甲", "乙", "丙"])
    led.record_hand(s, {"winner": 1, "won_by": "stock", "total": 16})
    led.settle(s)
    assert led.state(s).net == [-20, 40, -20]
    led.reopen(s)
    st = led.state(s)
    assert st.round_totals == [0, 16, 0] and st.rounds == [] and st.net == [0, 0, 0]
    led.record_hand(s, {"winner": 2, "won_by": "stock", "total": 16})
    st = led.state(s)
    assert st.round_totals == [0, 16, 16]
    # one round +0/+16/+16 → 0/20/20 → −40/+20/+20, not two rounds rounded apart (−40/+40/0 − …)
    assert st.projected()[0] == [-40, 20, 20]
    assert sum(led.settle(s).points) == 0 and led.state(s).net == [-40, 20, 20]


def test_a_rules_version_2_session_keeps_the_round_its_settle_closed_when_reopened(tmp_path: Path) -> None:
    """A ledger written before reopening reopened the round replays as it was settled: its
    second settlement was computed with the first round closed, and still reads as the ledger's."""
    led = new_ledger(tmp_path)
    s = led.new_session("旧账", "hunan", ["甲", "乙", "丙"], options={"rules_version": 2})
    led.record_hand(s, {"winner": 1, "won_by": "stock", "total": 16})
    led.settle(s)
    led.reopen(s)
    st = led.state(s)
    assert st.round_totals == [0, 0, 0] and len(st.rounds) == 1 and st.net == [-20, 40, -20]
    led.record_hand(s, {"winner": 2, "won_by": "stock", "total": 16})
    led.settle(s)
    again = Ledger(led.path).state(s)  # a cold read replays and checks both settlements
    assert again.locked and sum(again.net) == 0
