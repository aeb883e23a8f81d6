"""Settlement arithmetic: Hunan 冲百福 rounds, fewest payments, pairwise netting.

All amounts are whole points; money is points × stake, computed by the caller.

>>> round_tens(25), round_tens(-25), round_tens(24), round_tens(-14)
(30, -30, 20, -10)
>>> round_payments([0, 105, -28])
([0, 110, -30], [-80, 250, -170])
>>> minimal_transfers([-80, 250, -170])
[(2, 1, 170), (0, 1, 80)]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import TYPE_CHECKING, Any

from .errors import LedgerError

if TYPE_CHECKING:
    from .events import SessionInfo
    from .state import Round, SessionState

Transfer = tuple[int, int, int]  # (payer seat, payee seat, points)
EXACT_LIMIT = 16  # seats with a nonzero balance up to which the fewest payments are searched exactly


def round_tens(x: int) -> int:
    """Nearest multiple of 10, halves away from zero (RULINGS section 6)."""
    q, r = divmod(abs(x), 10)
    v = (q + (1 if r >= 5 else 0)) * 10
    return v if x >= 0 else -v


def round_payments(totals: Sequence[int]) -> tuple[list[int], list[int]]:
    """Close a Hunan round: rounded totals R and what each seat is paid, R_i·(N−1) − Σ_{j≠i} R_j."""
    rounded = [round_tens(t) for t in totals]
    n, s = len(rounded), sum(rounded)
    return rounded, [r * n - s for r in rounded]


def _chain(members: Sequence[int], net: Sequence[int]) -> list[Transfer]:
    """Settle one zero-sum group with len−1 payments: the largest debtor pays the largest creditor."""
    bal = {i: net[i] for i in members}
    out: list[Transfer] = []
    while True:
        debtors = [i for i in bal if bal[i] < 0]
        creditors = [i for i in bal if bal[i] > 0]
        if not debtors:
            return out
        d = min(debtors, key=lambda i: (bal[i], i))
        c = max(creditors, key=lambda i: (bal[i], -i))
        amt = min(-bal[d], bal[c])
        out.append((d, c, amt))
        bal[d] += amt
        bal[c] -= amt


def minimal_transfers(net: Sequence[int]) -> list[Transfer]:
    """Payments that bring every balance to zero, as few as possible.

    The fewest payments equal (seats with a balance) − (the most disjoint zero-sum groups
    they split into); the groups are found exactly by a subset search, then each group is
    settled by a chain of len−1 payments. Past ``EXACT_LIMIT`` seats the chain alone is used
    (still correct, at most one payment per seat fewer than optimal per group).
    """
    if sum(net) != 0:
        raise ValueError(f"balances do not sum to zero: {list(net)}")
    seats = [i for i, v in enumerate(net) if v]
    if len(seats) > EXACT_LIMIT:
        return _chain(seats, net)
    k = len(seats)
    full = (1 << k) - 1
    sums = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + net[seats[low.bit_length() - 1]]
    best = [0] * (full + 1)  # most zero-sum groups that the seats of ``mask`` can be cut into
    for mask in range(1, full + 1):
        m, b = mask, 0
        while m:
            low = m & -m
            b = max(b, best[mask ^ low])
            m ^= low
        best[mask] = b + (1 if sums[mask] == 0 else 0)
    groups: list[list[int]] = []
    mask = full
    current: list[int] = []
    while mask:
        m = mask
        while m:  # step to a sub-mask one seat smaller that keeps the optimum
            low = m & -m
            if best[mask] == best[mask ^ low] + (1 if sums[mask] == 0 else 0):
                break
            m ^= low
        if sums[mask] == 0 and current:
            groups.append(current)
            current = []
        current.append(seats[low.bit_length() - 1])
        mask ^= low
    if current:
        groups.append(current)
    out: list[Transfer] = []
    for g in groups:
        out += _chain(sorted(g), net)
    return sorted(out, key=lambda t: (-t[2], t[0], t[1]))


def add_flows(flows: dict[tuple[int, int], int], transfers: Iterable[Sequence[int]]) -> None:
    """Accumulate who-paid-whom amounts (payer, payee) → points."""
    for a, b, amt in transfers:
        if a != b and amt:
            flows[(int(a), int(b))] += int(amt)


def round_flows(rounded: Sequence[int]) -> list[Transfer]:
    """A closed Hunan round as pairwise payments: of each two seats, the lower pays the difference.

    Seat i is then paid Σ_{j≠i} (R_i − R_j) = R_i·(N−1) − Σ_{j≠i} R_j, exactly the round payment.
    """
    out: list[Transfer] = []
    n = len(rounded)
    for i in range(n):
        for j in range(i + 1, n):
            d = rounded[i] - rounded[j]
            if d > 0:
                out.append((j, i, d))
            elif d < 0:
                out.append((i, j, -d))
    return out


def pairwise(flows: Mapping[tuple[int, int], int]) -> list[Transfer]:
    """Net each pair of seats once: one payment per pair that owes anything."""
    net: dict[tuple[int, int], int] = defaultdict(int)
    for (a, b), amt in flows.items():
        if a < b:
            net[(a, b)] += amt
        else:
            net[(b, a)] -= amt
    out = [(a, b, v) if v > 0 else (b, a, -v) for (a, b), v in sorted(net.items()) if v]
    return sorted(out, key=lambda t: (min(t[0], t[1]), max(t[0], t[1])))


def balances(transfers: Iterable[Sequence[int]], n: int) -> list[int]:
    """What a list of payments does to each seat (to check a settlement)."""
    out = [0] * n
    for a, b, amt in transfers:
        out[a] -= amt
        out[b] += amt
    return out


@dataclass
class Settlement:
    """The end of an evening: net points and money per player, and the payments that settle it."""

    session: SessionInfo
    mode: str
    points: list[int]
    transfers: list[tuple[int, int, int]]
    closing_round: Round | None
    locked: bool

    def money(self, points: int) -> Decimal:
        return money(points, self.session.stake)

    def to_dict(self) -> dict[str, Any]:
        s = self.session
        return {
            "session": s.id, "name": s.name, "mode": self.mode, "locked": self.locked,
            "stake": str(s.stake),
            "players": [{"seat": i, "name": s.players[i], "points": p, "money": _money(self.money(p))}
                        for i, p in enumerate(self.points)],
            "transfers": [{"from": a, "from_name": s.players[a], "to": b, "to_name": s.players[b],
                           "points": amt, "money": _money(self.money(amt))}
                          for a, b, amt in self.transfers],
            "closing_round": self.closing_round.to_dict() if self.closing_round else None,
        }


def money(points: int, stake: Decimal) -> Decimal:
    """points × stake, exact: the context holds every digit of the product."""
    with localcontext() as ctx:
        ctx.prec = len(str(abs(points))) + len(stake.as_tuple().digits) + 8
        return points * stake


def _money(d: Decimal) -> str:
    """Money as text with two decimals (exact, no float rounding)."""
    with localcontext() as ctx:
        ctx.prec = max(28, d.adjusted() + 8)
        return str(d.quantize(Decimal("0.01")))


def settlement(st: SessionState, mode: str) -> Settlement:
    if mode not in ("minimal", "pairwise"):
        raise LedgerError(f"settlement mode must be 'minimal' or 'pairwise', not {mode!r}", code="bad_mode")
    points, closing = st.projected()
    transfers = minimal_transfers(points) if mode == "minimal" else pairwise(st.pair_flows())
    if balances(transfers, len(points)) != points:  # pragma: no cover - a bug, never a user error
        raise LedgerError(f"internal error: the {mode} transfers do not settle {points}")
    return Settlement(st.session, mode, points, transfers, closing, st.locked)
