"""The session export (JSON and CSV) and the checks an import passes before anything is written.

An import is read field by field (``read_export``), then every hand is scored again with
the session's rules (``check_results``): a stored result that disagrees is refused, naming
the first hand that does, and the hands are stored with the output scored here.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from zipai.engine import ZipaiError, get_rules
from zipai.engine.variants import get_variant

from . import db
from .checks import (
    MAX_PATH,
    bad_char,
    check_adjustment,
    check_hand_options,
    check_name,
    check_option_values,
    check_photo,
    check_seat,
    check_stake,
    check_text,
    preset_name,
    replay_checked,
    short,
)
from .errors import DamagedData, LedgerError
from .events import EVENT_BYTES, LEDGER_FIELDS, PLAY_KINDS, Event, SessionInfo
from .state import Entry, SessionState

T = TypeVar("T")

EXPORT_FORMAT = "zipai-ledger-session"
EXPORT_VERSION = 1
# the fields an export holds at each level: anything else was added by hand and is refused
EXPORT_KEYS = {"format", "version", "session", "events", "summary", "signature", "salvaged"}
SESSION_KEYS = {"id", "name", "rules", "players", "stake", "first_dealer", "created_at"}
RULES_KEYS = {"preset", "source", "options"}
EVENT_KEYS = {"id", "kind", "target", "data", "options", "photo", "created_at"}
SUMMARY_KEYS = {"net", "projected", "locked", "hands"}
SIGNATURE_KEYS = {"ledger", "hmac_sha256"}
EXPORT_BYTES = 64 << 20  # an exported session's JSON: about 2 kB a hand
MAX_EVENTS = 100_000  # events in one imported session (an evening has a few hundred)


def canonical(data: Mapping[str, Any]) -> bytes:
    """The bytes a signature covers: the export without its signature, keys sorted, compact."""
    body = {k: v for k, v in data.items() if k != "signature"}
    return json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def sign(data: dict[str, Any], key: bytes) -> dict[str, Any]:
    """The export with a signature by this ledger's key: an edit made afterwards is named as one."""
    mac = hmac.new(key, canonical(data), hashlib.sha256).hexdigest()
    return {**data, "signature": {"ledger": key_id(key), "hmac_sha256": mac}}


def key_id(key: bytes) -> str:
    """A ledger's public name for its key (a digest of it: it reveals nothing of the key)."""
    return hashlib.sha256(b"zipai-ledger-key-id:" + key).hexdigest()[:16]


def check_signature(data: Mapping[str, Any], key: bytes | None) -> bool:
    """Whether this ledger signed the export. A signature of this ledger's key that does not
    match refuses it (it was edited); no signature, or another ledger's, is checked by replay only."""
    sig = data.get("signature")
    if sig is None:
        return False
    if not isinstance(sig, Mapping) or set(sig) != SIGNATURE_KEYS or not all(
            isinstance(v, str) and len(v) <= 64 for v in sig.values()):
        raise LedgerError("the export's signature is malformed", code="bad_import")
    if key is None or sig["ledger"] != key_id(key):
        return False
    mac = hmac.new(key, canonical(data), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(mac, str(sig["hmac_sha256"])):
        raise LedgerError("the export was changed after this ledger wrote it (its signature no longer "
                          "matches); nothing was imported", code="bad_import")
    return True


def _only(obj: Mapping[str, Any], keys: set[str], where: str) -> None:
    extra = sorted(str(k) for k in obj if k not in keys)
    if extra:
        raise LedgerError(f"{where} has an unknown field {short(extra[0])}; an export holds only "
                          "what the ledger writes", code="bad_import")


def export_dict(s: SessionInfo, events: Sequence[Event], st: SessionState) -> dict[str, Any]:
    return {
        "format": EXPORT_FORMAT, "version": EXPORT_VERSION, "session": s.to_dict(),
        "events": [{"id": e.id, "kind": e.kind, "target": e.target, "data": e.data,
                    "options": e.options, "photo": e.photo, "created_at": e.created_at}
                   for e in events],
        "summary": {"net": st.net, "projected": st.projected()[0], "locked": st.locked,
                    "hands": st.hands},
    }


FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def _cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a leading = + - @ (or tab, CR, LF) would start a
    formula, and so would their full-width and other compatibility forms (＝ ＋ － ＠ ﹦ ⁺ …),
    which spreadsheets fold to the plain ones."""
    if isinstance(value, str) and value and (
            value[0] in FORMULA_START or unicodedata.normalize("NFKC", value[0])[:1] in FORMULA_START
            or value[0] in "\u2212\u2012\u2013\u2014\ufe63\uff0d"):
        return "'" + value
    return value


def csv_text(st: SessionState) -> str:
    s = st.session
    buf = io.StringIO()
    w = csv.writer(buf)
    total_label = "round total" if st.plays_rounds else "total"
    w.writerow([_cell(c) for c in [
        "no", "event", "kind", "dealer", "winner", "won_by", "from", "points", "score",
        "specials", "layout", "reason", "photo", "created_at",
        *[f"{p} change" for p in s.players], *[f"{p} {total_label}" for p in s.players],
        *([f"{p} round payment" for p in s.players] if st.plays_rounds else [])]])
    for e in st.history:
        w.writerow([_cell(c) for c in [
            e.no, e.event, e.kind, s.players[e.dealer],
            " ".join(s.players[i] for i in e.winners), e.won_by or "",
            s.players[e.discarder] if e.discarder is not None else "", e.points, e.score,
            " ".join(str(sp.get("name", "")) for sp in e.specials), e.text, e.reason, e.photo or "",
            e.created_at, *e.payouts, *e.totals_after,
            *((e.round_closed.payments if e.round_closed else [""] * s.n) if st.plays_rounds else [])]])
    return buf.getvalue()


def _field(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    v = obj.get(key)
    if not isinstance(v, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise LedgerError(f"{where}: {key!r} must be {_KIND_WORD.get(names, names)}, got {short(v)}",
                          code="bad_import")
    return v


_KIND_WORD = {"Mapping": "an object", "list": "a list", "str": "a text", "int": "a whole number"}


def read_export(data: Any, name: str | None) -> tuple[SessionInfo, list[Event]]:
    """The session and events of an export, every field checked; nothing is scored yet."""
    if not isinstance(data, Mapping) or data.get("format") != EXPORT_FORMAT:
        raise LedgerError(f"not a zipai session export (expected format {EXPORT_FORMAT!r})",
                          code="bad_import")
    version = data.get("version")
    if isinstance(version, bool) or version != EXPORT_VERSION:
        raise LedgerError(f"unsupported export version {short(version)}", code="bad_import")
    _only(data, EXPORT_KEYS, "the export")
    meta = _field(data, "session", Mapping, "the export")
    _only(meta, SESSION_KEYS, "the export's session")
    rules = _field(meta, "rules", Mapping, "the export's session")
    _only(rules, RULES_KEYS, "the export's rules")
    raw_events = _field(data, "events", list, "the export")
    if len(raw_events) > MAX_EVENTS:
        raise LedgerError(f"the export holds {len(raw_events)} events, at most {MAX_EVENTS}",
                          code="too_large")
    summary = data.get("summary")
    if not isinstance(summary, Mapping):
        raise LedgerError(f"the export's summary must be an object, got {short(summary)}",
                          code="bad_import")
    _only(summary, SUMMARY_KEYS, "the export's summary")
    missing = sorted(SUMMARY_KEYS - set(summary))
    if missing:
        raise LedgerError(f"the export's summary lacks {missing[0]!r}; an export states the totals "
                          "it derives to", code="bad_import")
    new_name = check_name(name if name is not None else meta.get("name"), "session name")
    players = [check_name(p, "player name") for p in _field(meta, "players", list, "the export's session")]
    preset = preset_name(rules.get("preset"), "the export's session")
    variant = get_variant(preset)
    lo, hi = variant.seats
    if not lo <= len(players) <= hi:
        raise LedgerError(f"the export's session: {preset} is played by {lo} to {hi} players, "
                          f"not {len(players)}", code="bad_seat")
    if len(set(players)) != len(players):
        dup = next(p for p in players if players.count(p) > 1)
        raise LedgerError(f"the export's session seats {dup!r} twice", code="bad_seat")
    options = rules.get("options", {})
    if not isinstance(options, Mapping):
        raise LedgerError(f"the export's rules options must be an object, got {short(options)}",
                          code="bad_rules")
    check_option_values(options, "the export's rules")
    try:
        r = get_rules(preset, {k: v for k, v in options.items()
                               if k in variant.option_keys and v is not None})
    except ZipaiError as exc:
        raise LedgerError(f"the export's rules are invalid: {exc}", code="bad_rules") from None
    frozen = r.options.to_dict()
    if "rules_version" not in options:  # an export from before versions reads as version 1, as it was
        del frozen["rules_version"]
    source = rules.get("source")
    if not isinstance(source, str) or len(source) > MAX_PATH or bad_char(source):
        source = preset
    stake = check_stake(meta.get("stake", "1"))
    dealer = check_seat(meta.get("first_dealer", 0), players, "the export's first dealer")
    created = meta.get("created_at")
    if not isinstance(created, str) or not 0 < len(created) <= 40 or bad_char(created):
        created = db.now()
    info = SessionInfo(0, new_name, preset, frozen, source or preset, tuple(players), stake, dealer, created)
    try:
        info.rules  # noqa: B018 - builds the rules (and checks the options) once, here
    except ZipaiError as exc:
        raise LedgerError(f"the export's rules are invalid: {exc}", code="bad_rules") from None
    kinds: dict[int, str] = {}  # id -> kind of the events read so far
    events = []
    for i, e in enumerate(raw_events):
        events.append(_read_event(info, i, e, kinds))
        kinds[events[-1].id] = events[-1].kind
    return info, events


def _read_event(info: SessionInfo, i: int, e: Any, kinds: dict[int, str]) -> Event:
    """One exported event, checked against the ones before it (``kinds``, in order)."""
    where = f"the export's event #{i + 1}"
    if not isinstance(e, Mapping):
        raise LedgerError(f"{where} must be an object, got {short(e)}", code="bad_import")
    _only(e, EVENT_KEYS, where)
    size = len(json.dumps(e, ensure_ascii=False, separators=(",", ":"), default=str))
    if size > EVENT_BYTES:
        raise LedgerError(f"{where} is {size} bytes long, at most {EVENT_BYTES}: no event the ledger "
                          "writes is that large", code="too_large")
    eid = e.get("id")
    prev = next(reversed(kinds), 0)
    if isinstance(eid, bool) or not isinstance(eid, int) or not prev < eid < 2**62:
        raise LedgerError(f"{where}: ids must be whole numbers in increasing order, got {short(eid)}",
                          code="bad_import")
    where = f"the export's event {eid}"
    kind = e.get("kind")
    if kind not in db.EVENT_KINDS:
        raise LedgerError(f"{where} has unknown kind {short(kind)}", code="bad_import")
    target = e.get("target")
    if kind in ("void", "edit"):
        allowed = ("hand",) if kind == "edit" else (*PLAY_KINDS, "void")  # a redo voids an undo
        if isinstance(target, bool) or not isinstance(target, int) or kinds.get(target) not in allowed:
            raise LedgerError(f"{where} ({kind}) refers to event {short(target)}, which is no "
                              f"{' or '.join(allowed)} before it", code="bad_import")
    elif target is not None:
        raise LedgerError(f"{where} ({kind}) cannot refer to another event", code="bad_import")
    data = _field(e, "data", Mapping, where)
    options = e.get("options")
    if options is not None and not isinstance(options, Mapping):
        raise LedgerError(f"{where}: 'options' must be an object, got {short(options)}",
                          code="bad_import")
    try:
        photo = check_photo(e.get("photo"))
    except LedgerError as exc:
        raise LedgerError(f"{where}: {exc}", code="bad_import") from None
    created = e.get("created_at")
    if not isinstance(created, str) or len(created) > 40 or bad_char(created):
        created = db.now()
    data = check_content(info, str(kind), data, options, where)
    return Event(eid, str(kind), dict(data), target, dict(options) if options else None, photo, created)


def check_content(info: SessionInfo, kind: str, data: Mapping[str, Any],
                  options: Mapping[str, Any] | None, where: str) -> Mapping[str, Any]:
    """What an event holds, checked as the ledger checks it when writing: an import's events,
    and every stored row on reading. Returns the data (a draw's note tidied)."""
    if kind in ("hand", "edit"):
        raw = _field(data, "input", Mapping, where)
        if raw.get("rules") is not None and preset_name(raw["rules"], where) != info.preset:
            raise LedgerError(f"{where}: the hand is for {raw['rules']!r} rules, the session plays "
                              f"{info.preset}", code="bad_rules")
        _stored_input(raw, where)
        if options:
            check_hand_options(info, options, where)
    elif kind == "double":
        raws = data.get("inputs")
        if not isinstance(raws, list) or len(raws) != 2 or not all(isinstance(r, Mapping) for r in raws):
            raise LedgerError(f"{where}: a double instant win holds two layouts", code="bad_import")
        for r in raws:
            _stored_input(r, where)
    elif kind == "draw":
        data = {**data, "note": _prefixed(where, check_text, data.get("note"), "note")}
    elif kind == "adjust":
        _check_adjust(info, data, where)
    if kind not in ("hand", "edit") and options:
        raise LedgerError(f"{where}: a {kind} takes no options", code="bad_import")
    return data


def stored_event(info: SessionInfo, row: Sequence[Any]) -> Event:
    """One stored row as an ``Event``, checked as on writing; a ``ValueError`` names what is wrong."""
    ev = Event.from_row(row)
    try:
        if ev.photo is not None:
            check_photo(ev.photo)
        check_content(info, ev.kind, ev.data, ev.options, f"event {ev.id}")
    except LedgerError as exc:
        raise ValueError(str(exc)) from None
    return ev


def _stored_input(raw: Mapping[str, Any], where: str) -> None:
    """A hand as the ledger stores it: the seats, the dealer, the rules and the options are the
    session's and the event's, never the input's."""
    owned = sorted(k for k in (*LEDGER_FIELDS, "options") if k in raw)
    if owned:
        raise LedgerError(f"{where}: the stored hand holds {owned[0]!r}, which the ledger fills in "
                          "from the session and never stores", code="bad_import")


def _prefixed(where: str, fn: Callable[..., T], *args: Any) -> T:
    try:
        return fn(*args)
    except LedgerError as exc:
        raise LedgerError(f"{where}: {exc}", code=exc.code) from None


def _check_adjust(info: SessionInfo, data: Mapping[str, Any], where: str) -> None:
    """An exported adjustment must be one the ledger would have written: bounded, balanced."""
    deltas, transfers = data.get("deltas"), data.get("transfers") or None
    reason = data.get("reason", "")
    if transfers is not None:
        if not isinstance(transfers, list):
            raise LedgerError(f"{where}: 'transfers' must be a list, got {short(transfers)}",
                              code="bad_import")
        chk = _prefixed(where, check_adjustment, info, reason, None, transfers, None, None)
        if chk["deltas"] != deltas:
            raise LedgerError(f"{where}: the adjustment's deltas {short(deltas)} do not match its "
                              f"transfers (which give {chk['deltas']})", code="bad_import")
    else:
        chk = _prefixed(where, check_adjustment, info, reason, deltas, None, None, None)
        if chk["transfers"]:
            raise LedgerError(f"{where}: a {info.preset} adjustment lists the transfers that pay it",
                              code="bad_import")


def _unscored(e: Event) -> Event:
    """The event without its stored engine output, so that replaying it scores the hand again."""
    if e.kind in ("hand", "edit", "double") and "output" in e.data:
        return replace(e, data={k: v for k, v in e.data.items() if k != "output"})
    return e


def _result(e: Entry) -> tuple[Any, ...]:
    return (e.kind, e.dealer, e.winners, e.points, e.score, e.payouts, e.transfers)


def first_unimportable(info: SessionInfo, events: Sequence[Event],
                       st: SessionState) -> tuple[int, str] | None:
    """The first event an import would refuse although it replays (a stored result that scores
    otherwise, a counted hand without its stored result), and why; ``None`` if there is none.
    Salvage leaves such events out, so that what it exports imports."""
    try:
        fresh = replay_checked(info, [_unscored(e) for e in events], stored=True, hint="")
    except DamagedData as exc:
        return (exc.event if exc.event is not None else events[-1].id), exc.why or str(exc)
    by_id = {e.id: e for e in events}
    for a, b in zip(st.history, fresh.history, strict=True):
        ev = by_id[b.edited_by or b.event]
        if b.kind in ("hand", "double") and (not isinstance(ev.data.get("output"), Mapping)
                                             or not isinstance(ev.data.get("dealer"), int)):
            return ev.id, "a counted hand without its stored result"
        if _result(a) != _result(b):
            return ev.id, f"stores {a.points} points and payouts {short(a.payouts)}, scored again {b.points}"
    return None


def check_results(info: SessionInfo, events: Sequence[Event],
                   summary: Mapping[str, Any] | None) -> list[Event]:
    """Score every hand again; refuse the first stored result, or a summary, that disagrees.

    Returns the events to store: each hand holds the engine's output as scored here (so
    its specials and text are the engine's too), and a hand that counts for nothing (undone,
    or replaced by a later edit) holds none.
    """
    stored = replay_checked(info, events, "the export's ", hint="")
    fresh = replay_checked(info, [_unscored(e) for e in events], "the export's ", hint="")
    by_id = {e.id: e for e in events}
    for entry in fresh.history:
        if entry.kind not in ("hand", "double"):
            continue
        ev = by_id[entry.edited_by or entry.event]
        if not isinstance(ev.data.get("output"), Mapping) or not isinstance(ev.data.get("dealer"), int):
            raise LedgerError(f"the export's hand {entry.no} (event {ev.id}) lacks the result the ledger "
                              "stored with it (its output and dealer); nothing was imported",
                              code="bad_import")
    for a, b in zip(stored.history, fresh.history, strict=True):
        if _result(a) != _result(b):
            raise LedgerError(
                f"the export's hand {a.no} (event {a.event}) stores {a.points} points and payouts "
                f"{short(a.payouts)}, but scored again with the session's rules it gives {b.points} "
                f"and {b.payouts}; nothing was imported", code="bad_import")
    summary = summary or {}
    if set(summary) != SUMMARY_KEYS:
        raise LedgerError("the export's summary must state net, projected, locked and hands",
                          code="bad_import")
    for key, value in (("projected", fresh.projected()[0]), ("net", fresh.net), ("hands", fresh.hands),
                       ("locked", fresh.locked)):
        if key in summary and summary[key] != value:
            raise LedgerError(f"the imported events give {key} {value}, the export says "
                              f"{short(summary[key])}", code="bad_import")
    scored = {e.edited_by or e.event: e for e in fresh.history if e.kind in ("hand", "double")}
    out = []
    for e in events:
        if e.kind in ("hand", "edit", "double"):
            data = {k: v for k, v in e.data.items() if k != "output"}
            kept = scored.get(e.id)
            if kept is not None:
                data.update(dealer=kept.dealer, output=kept.output)
            e = replace(e, data=data)
        out.append(e)
    return out
