"""胡多少处罚多少 (seed 001): a seat that broke one of the four forced rules (吃过张, 拆坎,
下地, 煨/提/跑) has no right to win; found out, it pays what its hand would have scored.

The penalty is a ledger adjustment with a name: its event holds the hand as entered and the
score the engine gave it, and its deltas are the offender's loss, so a replay reads the
stored deltas and never scores the hand again (an old evening keeps its figures).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .checks import check_adjustment, check_text
from .errors import LedgerError
from .events import LEDGER_FIELDS, SessionInfo
from .hands import hand_result

PENALTY_NAME = "胡多少处罚多少"
SEED_WORDS = "违背了上述四点之一，就没有资格再胡牌…胡多少处罚多少"


def penalty_data(s: SessionInfo, raw: Mapping[str, Any], dealer: int, reason: str = "",
                 where: str = "penalty") -> dict[str, Any]:
    """The adjustment a penalty stores: ``raw`` is the offender's hand as an engine input whose
    ``winner`` is the offender. Hunan's round totals need not balance, so the offender's total
    falls by the score and nobody else's moves (as a hand's winner alone rises)."""
    if not s.variant.forfeit_penalty:
        raise LedgerError(f"{PENALTY_NAME} is a Hunan rule (seed 001); session {s.name!r} plays "
                          f"{s.preset}", code="bad_rules")
    note = check_text(reason, "reason")
    if raw.get("options"):
        raise LedgerError(f"{where}: a penalty takes the session's rules, no per-hand options",
                          code="bad_rules")
    stored = {k: v for k, v in raw.items() if k not in LEDGER_FIELDS and k != "options"}
    res = hand_result(s, stored, dealer, None, where)
    offender = int(stored["winner"])
    deltas = [0] * s.n
    deltas[offender] = -res.score
    data = check_adjustment(s, f"{PENALTY_NAME}: {note}" if note else PENALTY_NAME, deltas, None, None, None)
    data["penalty"] = {"offender": offender, "input": stored, "points": res.points,
                       "score": res.score, "text": res.text or ""}
    return data
