"""Checks on what a user or a file gives the ledger: names, stakes, adjustments, JSON, rows.

Every refusal is a ``LedgerError`` with one line that names the problem. The bounds keep
every session settleable (money is points × stake in exact decimals) and every command
finite: data nested deeper than ``MAX_DEPTH`` is refused before anything walks it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from zipai.engine import ZipaiError
from zipai.engine.text import bad_char as _bad_char
from zipai.engine.variants import find_variant, variant_names

from .errors import DamagedData, LedgerError
from .events import Event, SessionInfo, finite
from .settle import balances, minimal_transfers
from .state import Replayer, SessionState, active_voids, late_changes

# Bounds on what a user or a file may give: beyond them a session could never be settled
# (money is points × stake in exact decimals) or a command could recurse without end.
MAX_STAKE = Decimal(1_000_000)
STAKE_PLACES = 4  # decimals of a stake
MAX_POINTS = 1_000_000  # what one adjustment moves in all: one seat's change, the sum of its transfers
MAX_TRANSFERS = 100  # payments listed in one adjustment
MAX_NAME = 60  # characters of a player or session name
MAX_TEXT = 200  # characters of a note or a reason
MAX_PATH = 4096  # characters of a stored photo path
MAX_DEPTH = 64  # nesting of a JSON hand or export

# characters that break a line or hide text: refused in names, notes and reasons
# one rule for names and notes across the packages: no line breaks, no hidden or reordering
# characters (U+202E, U+200B), nothing unassigned (zipai.engine.text.bad_char)
bad_char = _bad_char


def check_name(value: Any, what: str) -> str:
    """A player or session name: one line, at most ``MAX_NAME`` characters, stripped."""
    if not isinstance(value, str) or not value.strip():
        raise LedgerError(f"{what} must be a non-empty text, got {short(value)}", code="bad_name")
    v = value.strip()
    if len(v) > MAX_NAME:
        raise LedgerError(f"{what} {v[:20]!r}… is {len(v)} characters long, at most {MAX_NAME}",
                          code="bad_name")
    c = bad_char(v)
    if c is not None:
        raise LedgerError(f"{what} {v[:20]!r} holds a line break or control character (U+{ord(c):04X})",
                          code="bad_name")
    return v


def check_text(value: Any, what: str) -> str:
    """A note or a reason: one line of at most ``MAX_TEXT`` characters."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LedgerError(f"the {what} must be a text, got {short(value)}", code="bad_text")
    v = value.strip()
    if len(v) > MAX_TEXT:
        raise LedgerError(f"the {what} is {len(v)} characters long, at most {MAX_TEXT}", code="bad_text")
    c = bad_char(v)
    if c is not None:
        raise LedgerError(f"the {what} holds a line break or control character (U+{ord(c):04X})",
                          code="bad_text")
    return v


def check_photo(value: Any) -> str | None:
    """A photo path as given by the app or the user (stored, shown; the ledger never opens it)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > MAX_PATH or "\x00" in value or bad_char(value):
        raise LedgerError(f"a photo path must be one line of at most {MAX_PATH} characters, "
                          f"got {short(value)}", code="bad_photo")
    return value


def short(value: Any, limit: int = 40) -> str:
    """A value for an error message, cut short: data may be huge."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # e.g. an int too long to print
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit] + "…"


def why(exc: BaseException) -> str:
    """An exception as a short phrase for a one-line message."""
    if isinstance(exc, KeyError):
        return f"missing field {short(exc.args[0] if exc.args else exc)}"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:160]


def preset_name(value: Any, where: str) -> str:
    """A registered preset named by data (an export, a hand's ``rules``); never a file path.

    A house-rules file is named only by the user on the command line; a session stores its
    parsed options, so nothing read from data is ever handed to the engine as a path.
    """
    if isinstance(value, str) and 0 < len(value) <= 20 and not any(c in value for c in "/\\.:~"):
        variant = find_variant(value)
        if variant is not None:
            return variant.name
    raise LedgerError(f"{where}: rules {short(value)} is not one of the presets "
                      f"({', '.join(variant_names())}); data never names a rules file", code="bad_rules")


SESSION_ONLY = ("dealer_rotation", "rules_version")  # options a hand may not change for itself


def check_hand_options(s: SessionInfo, options: Mapping[str, Any], where: str) -> None:
    """A hand's own options: house options the session's rule set takes, none of those fixed
    for the whole evening (the dealer's rotation, and the rules version the evening is scored by)."""
    check_option_values(options, where)
    fixed = next((k for k in SESSION_ONLY if k in options), None)
    if fixed is not None:
        raise LedgerError(f"{where}: {fixed!r} is fixed for the session, not per hand", code="bad_rules")
    try:
        s.rules_for(options)
    except ZipaiError as exc:
        raise LedgerError(f"{where}: {exc} (session {s.name!r} plays {s.preset})",
                          code="bad_rules") from None


def check_option_values(options: Mapping[str, Any], where: str) -> None:
    """No option of any rule set takes a fraction: a float (``30.0``, ``1.5``) is refused by name
    here, before it is stored and printed as a whole number somewhere else."""
    for k, v in options.items():
        if isinstance(v, float):
            raise LedgerError(f"{where}: option {short(k)} takes a whole number, not {short(v)}",
                              code="bad_rules")


def check_depth(obj: Any, where: str, limit: int = MAX_DEPTH) -> None:
    """Refuse data nested deeper than ``limit`` (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        o, d = stack.pop()
        if d > limit:
            raise LedgerError(f"{where}: nested more than {limit} levels deep", code="too_deep")
        if isinstance(o, Mapping):
            stack.extend((v, d + 1) for v in o.values())
        elif isinstance(o, list | tuple):
            stack.extend((v, d + 1) for v in o)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json(text: str | bytes, where: str) -> Any:
    """JSON from a user or a file: any malformed, too deep or too large input is a LedgerError."""
    try:
        obj = json.loads(text, parse_constant=_no_constant, parse_float=finite)
    except RecursionError:
        raise LedgerError(f"{where}: not valid JSON (nested too deeply)", code="bad_json") from None
    except (ValueError, TypeError) as exc:  # JSONDecodeError, a 5000-digit number, bad UTF-8
        raise LedgerError(f"{where}: not valid JSON ({why(exc)})", code="bad_json") from None
    check_depth(obj, where)
    return obj


def check_seat(value: Any, names: Sequence[str], what: str) -> int:
    """A seat given as its number or its player's name."""
    if isinstance(value, str) and not value.lstrip("-").isdigit():
        if value in names:
            return list(names).index(value)
        raise LedgerError(f"{what} {short(value)} is not one of the players ({', '.join(names)})",
                          code="bad_seat")
    if isinstance(value, bool) or not isinstance(value, int | str) or len(str(value)) > 6:
        raise LedgerError(f"{what} must be a seat number or a player's name, got {short(value)}",
                          code="bad_seat")
    seat = int(value)
    if not 0 <= seat < len(names):
        raise LedgerError(f"{what} seat {seat} does not exist (seats 0–{len(names) - 1})", code="bad_seat")
    return seat


def check_stake(value: Any) -> Decimal:
    """Money per point: 0 to ``MAX_STAKE``, at most ``STAKE_PLACES`` decimals, exact."""
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str) or len(str(value)) > 40:
        raise LedgerError(f"stake must be a number of money per point, got {short(value)}",
                          code="bad_stake")
    try:
        d = Decimal(str(value).strip())
    except InvalidOperation:
        raise LedgerError(f"stake must be a number of money per point, got {short(value)}",
                          code="bad_stake") from None
    if not d.is_finite() or not 0 <= d <= MAX_STAKE:
        raise LedgerError(f"stake must be from 0 to {MAX_STAKE} per point, got {short(value)}",
                          code="bad_stake")
    if d != d.quantize(Decimal(1).scaleb(-STAKE_PLACES)):
        raise LedgerError(f"stake has at most {STAKE_PLACES} decimals, got {short(value)}",
                          code="bad_stake")
    exponent = d.as_tuple().exponent  # a whole number: d is finite
    return d if isinstance(exponent, int) and exponent <= 0 else d.quantize(Decimal(1))  # 1E+2 is 100


MAX_ID = 2**63 - 1  # SQLite's largest integer


def session_id(value: Any) -> int | None:
    """A session id given as a number or ASCII digits, if it can be one; else ``None`` (a name,
    or a value past SQLite's integers, which no session has)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 < value <= MAX_ID else None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 19:
        n = int(value)
        return n if 0 < n <= MAX_ID else None
    return None


SALVAGE_HINT = "'zipai session export' salvages the readable events"


def session_from_row(sid: Any, name: Any, rules_json: Any, stake: Any, dealer: Any, created: Any,
                     players: Sequence[Any]) -> SessionInfo:
    """A stored session row, or ``DamagedData`` naming it (never a traceback)."""
    try:
        for col, v in (("name", name), ("rules", rules_json), ("stake", stake), ("created_at", created)):
            if not isinstance(v, str) or len(v) > 1 << 16:
                raise ValueError(f"its {col} column holds {type(v).__name__}, not a text")
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not isinstance(sid, int):
            raise ValueError(f"first dealer {short(dealer)} is not a seat number")
        rules = parse_json(rules_json, "its rules")
        preset, options = rules["preset"], rules["options"]
        if not isinstance(preset, str) or preset not in variant_names() or not isinstance(options, dict):
            raise ValueError(f"rules {short(preset)} are of no known preset")
        check_option_values(options, "its rules")
        names = [check_name(p, "a player name") for p in players]
        info = SessionInfo(int(sid), check_name(name, "its name"), preset, options,
                           str(rules.get("source") or preset), tuple(names), check_stake(stake),
                           int(dealer), str(created))
        if not 0 <= info.first_dealer < max(info.n, 1):
            raise ValueError(f"first dealer {dealer!r} is no seat")
        info.rules  # noqa: B018 - the stored options, checked as the engine checks them today
    except (ValueError, TypeError, KeyError, ArithmeticError, RecursionError) as exc:
        raise DamagedData(f"session {short(sid)} is damaged ({why(exc)}); {SALVAGE_HINT}") from None
    return info


def replay_checked(s: SessionInfo, events: Sequence[Event], prefix: str = "", stored: bool = False,
                   hint: str = SALVAGE_HINT) -> SessionState:
    """``replay``, naming the event a row breaks it at instead of a traceback.

    ``stored``: the events are all in the file, so any refusal means a damaged row. The
    error's ``event`` is the id of the row to leave out (an edit, when the edit broke it).
    """
    voids = active_voids([e for e in events if e.kind != "void" or isinstance(e.target, int)])
    edits = {e.target: e for e in events if e.kind == "edit" and isinstance(e.target, int)}
    r = Replayer(s, voids, edits, late_changes(events), verify=stored)
    tail = f"; {hint}" if hint else ""
    for e in events:
        culprit = edits[e.id].id if e.id in edits and e.id not in voids else e.id
        edit = f" as edited by event {culprit}" if culprit != e.id else ""
        try:
            r.feed(e)
        except LedgerError as exc:
            if not stored or isinstance(exc, DamagedData):
                raise
            err = DamagedData(f"{prefix}event {e.id}{edit} of session {s.name!r} cannot be replayed "
                              f"({exc}){tail}")
            err.event, err.why = culprit, f"cannot be replayed ({exc})"
            raise err from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError,
                RecursionError) as exc:
            err = DamagedData(f"{prefix}event {e.id}{edit} of session {s.name!r} is damaged "
                              f"({why(exc)}){tail}")
            err.event, err.why = culprit, why(exc)
            raise err from None
    return r.state


def check_adjustment(s: SessionInfo, reason: str, deltas: Sequence[int] | None,
                     transfers: Sequence[Sequence[int]] | None, offender: int | str | None,
                     amount: int | None) -> dict[str, Any]:
    """An adjustment as stored (reason, deltas per seat, transfers): bounded, and balanced
    outside Hunan, so that the session can always be settled."""
    n = s.n
    reason = check_text(reason, "reason")
    if sum(x is not None for x in (deltas, transfers, offender)) != 1:
        raise LedgerError("an adjustment needs exactly one of deltas, transfers or offender",
                          code="bad_adjustment")
    if offender is not None:
        if not s.variant.misdeal_penalty:
            raise LedgerError(f"the 下夥 penalty is a Guangxi rule; session {s.name!r} plays {s.preset}",
                              code="bad_rules")
        seat = check_seat(offender, s.players, "offender")
        pay = amount if amount is not None else s.rules.minimum(n)
        if isinstance(pay, bool) or not isinstance(pay, int) or not 0 < pay <= MAX_POINTS:
            raise LedgerError(f"the 下夥 amount must be 1 to {MAX_POINTS} points, got {pay!r}",
                              code="bad_adjustment")
        transfers = [[seat, j, pay] for j in range(n) if j != seat]
        reason = reason or "下夥"
    if transfers is not None:
        if isinstance(transfers, Sequence) and len(transfers) > MAX_TRANSFERS:
            raise LedgerError(f"an adjustment lists at most {MAX_TRANSFERS} transfers, got {len(transfers)}",
                              code="bad_adjustment")
        clean = []
        for t in transfers:
            if not isinstance(t, Sequence) or isinstance(t, str) or len(t) != 3 or not all(
                    isinstance(x, int) and not isinstance(x, bool) for x in t):
                raise LedgerError(f"a transfer is [payer seat, payee seat, points], got {short(t)}",
                                  code="bad_adjustment")
            a, b, amt = (check_seat(t[0], s.players, "payer"), check_seat(t[1], s.players, "payee"), t[2])
            if a == b or amt <= 0:
                raise LedgerError(f"a transfer needs two different seats and points > 0, got {short(t)}",
                                  code="bad_adjustment")
            if amt > MAX_POINTS:
                raise LedgerError(f"a transfer is at most {MAX_POINTS} points, got {amt}",
                                  code="bad_adjustment")
            clean.append([a, b, amt])
        d = balances(clean, n)
    else:
        assert deltas is not None
        if (not isinstance(deltas, Sequence) or isinstance(deltas, str) or len(deltas) != n
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in deltas)):
            raise LedgerError(f"deltas must be {n} whole numbers, one per seat, got {short(deltas)}",
                              code="bad_adjustment")
        d = list(deltas)
        if any(abs(x) > MAX_POINTS for x in d):
            raise LedgerError(f"an adjustment changes a seat by at most {MAX_POINTS} points, got "
                              f"{short(d)}", code="bad_adjustment")
        balanced = not s.variant.plays_rounds  # round totals need not sum to zero
        clean = [list(t) for t in minimal_transfers(d)] if balanced and sum(d) == 0 else []
        if balanced and sum(d) != 0:
            raise LedgerError(f"{s.preset} adjustments must sum to zero, these sum to {sum(d)}",
                              code="bad_adjustment")
    if not any(d):
        raise LedgerError("the adjustment changes nothing", code="bad_adjustment")
    moved = max(sum(amt for _, _, amt in clean), sum(x for x in d if x > 0), -sum(x for x in d if x < 0))
    if moved > MAX_POINTS:
        raise LedgerError(f"an adjustment moves at most {MAX_POINTS} points in all, this one moves "
                          f"{moved}", code="bad_adjustment")
    return {"reason": reason or "correction", "deltas": d, "transfers": clean}
