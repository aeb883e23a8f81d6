"""A recorded hand, or a double instant win, scored by the engine under the session's rules,
with the ledger's seats and dealer filled in; and what an event row keeps of the result. The
one place the ledger asks the engine for a score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zipai.engine import Result, Simultaneous, ZipaiError, score_hand, simultaneous_result

from .errors import LedgerError
from .events import LEDGER_FIELDS, SessionInfo


def strip_output(out: Mapping[str, Any]) -> dict[str, Any]:
    """An engine output as stored: without the list of alternatives (kept as a count)."""
    d = {k: v for k, v in out.items() if k != "alternatives"}
    d["alternatives_count"] = len(out.get("alternatives") or [])
    return d


def stored_output(res: Result) -> dict[str, Any]:
    """What an event row keeps of a scored hand: the contract's object less its alternatives."""
    return strip_output(res.to_json())


def stored_double(res: Simultaneous) -> dict[str, Any]:
    """What an event row keeps of a simultaneous instant win: each layout as a hand's row keeps it."""
    return {"winners": list(res.winners), "results": [stored_output(r) for r in res.results],
            "payouts": list(res.payouts), "transfers": [list(t) for t in res.transfers]}


def engine_input(session: SessionInfo, raw: Mapping[str, Any], dealer: int,
                 per_hand: Mapping[str, Any] | None) -> dict[str, Any]:
    """The input object the engine gets: the ledger's seats, dealer and options filled in."""
    obj = {k: v for k, v in raw.items() if k not in LEDGER_FIELDS and k != "options"}
    obj["players"] = session.n
    obj["dealer"] = dealer
    if per_hand:
        obj["options"] = dict(per_hand)
    return obj


def hand_result(session: SessionInfo, raw: Mapping[str, Any], dealer: int,
                per_hand: Mapping[str, Any] | None, where: str) -> Result:
    """The engine's result for one hand under the session's rules and ``dealer``; a bad or
    non-winning hand is a ``LedgerError`` (the ledger records only wins)."""
    try:
        res = score_hand(engine_input(session, raw, dealer, per_hand), session.rules)
    except ZipaiError as exc:
        raise LedgerError(f"{where}: {exc}", code=exc.code) from None
    if not res.winning:
        msg = res.reason.message if res.reason else "not a winning hand"
        raise LedgerError(f"{where}: not a winning hand ({msg})", code="not_winning")
    return res


def double_result(session: SessionInfo, raws: Sequence[Mapping[str, Any]], dealer: int,
                  where: str) -> Simultaneous:
    """Guangxi simultaneous instant win: two layouts, one event."""
    if not session.variant.simultaneous_instant:
        raise LedgerError(f"{where}: a simultaneous instant win is a Guangxi rule, "
                          f"this session plays {session.preset}", code="bad_rules")
    try:
        return simultaneous_result([engine_input(session, r, dealer, None) for r in raws], session.rules)
    except ZipaiError as exc:
        raise LedgerError(f"{where}: {exc}", code=exc.code) from None
