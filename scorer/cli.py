"""``zipai session``, ``zipai hand`` and ``zipai players``: the ledger from the command line.

Global options, accepted anywhere on the line: ``--db PATH`` (else ``$ZIPAI_DB``, else the
user's data folder), ``--session ID|NAME`` (else the current session) and ``--json``.
Bad input prints one line on stderr and exits 2 with the ledger unchanged. Commands that
only read (``list``, ``show``, ``export``, ``hand list``, ``players``, ``settle --preview``)
open the file read-only: they work on a read-only file and while another process writes.
``session export`` of a damaged file salvages what can be read, names what it skipped on
stderr and exits 1 when it skipped anything.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from zipai.engine import ZipaiError, rules_from_flag
from zipai.engine.files import read_file
from zipai.engine.text import from_argv, parse_int

from . import db, files
from .checks import parse_json
from .errors import DamagedData, LedgerError, NotALedger
from .exchange import EXPORT_BYTES
from .ledger import Ledger
from .salvage import salvage

# the words and tables, re-exported: the tests import them from here
from .text import KIND as KIND
from .text import WON_BY as WON_BY
from .text import _entry_line as _entry_line
from .text import _signed as _signed
from .text import _title as _title
from .text import entry_text as entry_text
from .text import history_text as history_text
from .text import settlement_text as settlement_text
from .text import state_text as state_text
from .text import table as table
from .text import width as width


class UsageError(LedgerError):
    code = "usage"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, no usage dump
        raise UsageError(f"{message} (see --help)")


# ------------------------------------------------------------------ output helpers

def _emit(args: argparse.Namespace, data: Any, text: Callable[[], str]) -> None:
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        print(text())


HAND_BYTES = 1 << 20  # a hand's JSON: a few kB


def _read_json(name: str, limit: int = HAND_BYTES) -> Any:
    """A JSON file (``-``: stdin) of at most ``limit`` bytes; read no further than that."""
    shown = "stdin" if name == "-" else name
    try:
        if name == "-":
            raw = sys.stdin.buffer.read(limit + 1) if hasattr(sys.stdin, "buffer") else \
                sys.stdin.read(limit + 1).encode("utf-8")
        else:  # a regular file only: a FIFO or a device would block or never end
            raw = read_file(name, limit, "JSON file")
    except ZipaiError as exc:
        raise LedgerError(str(exc), code=exc.code) from None
    except OSError as exc:
        raise LedgerError(f"{name}: cannot read it ({exc.strerror or exc})") from None
    if len(raw) > limit:
        raise LedgerError(f"{shown}: larger than {limit >> 20} MiB, not a file this command reads",
                          code="too_large")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LedgerError(f"{shown}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return parse_json(text, shown)


def _option(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise UsageError(f"--option takes KEY=VALUE, got {text!r}")
    key, raw = (t.strip() for t in text.split("=", 1))
    if raw.lower() in ("true", "false"):
        return key, raw.lower() == "true"
    if raw.lstrip("+-").isdigit():  # digits of any script: only ASCII ones, at most 18, are a number
        return key, _int(raw, f"--option {key}")
    if key == "xing":
        return key, [v.strip() for v in raw.split(",") if v.strip()]
    return key, raw


def _options(items: Sequence[str] | None) -> dict[str, Any]:
    return dict(_option(t) for t in items or [])


def _int(text: str, what: str) -> int:
    try:
        return parse_int(text, what)
    except ZipaiError as exc:
        raise UsageError(str(exc)) from None


def _ints(text: str, what: str) -> list[int]:
    parts = text.replace(" ", "").split(",")
    if not all(p.lstrip("+-").isdigit() for p in parts):
        raise UsageError(f"{what} must be whole numbers separated by commas, got {text[:60]!r}")
    return [_int(p, what) for p in parts]


# ------------------------------------------------------------------ argument handling

def _globals(argv: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
    """Pull --db, --session and --json out of argv wherever they stand."""
    rest: list[str] = []
    out: dict[str, Any] = {"db": None, "session": None, "json": False}
    it = iter(argv)
    for a in it:
        if a == "--json":
            out["json"] = True
        elif a in ("--db", "--session"):
            v = next(it, None)
            if v is None:
                raise UsageError(f"{a} needs a value")
            out[a[2:]] = v
        elif a.startswith(("--db=", "--session=")):
            k, v = a[2:].split("=", 1)
            out[k] = v
        else:
            rest.append(a)
    return rest, out


def _run(prog: str, argv: Sequence[str] | None, build: Callable[[_Parser], None], about: str) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        rest, glob = _globals(argv)
        p = _Parser(prog=prog, description=about)
        p.add_argument("--db", help="ledger file (default: $ZIPAI_DB or the user's data folder)")
        p.add_argument("--session", help="session id or name (default: the current session)")
        p.add_argument("--json", action="store_true", help="print data as JSON")
        build(p)
        args = p.parse_args(rest)
        args.db, args.session, args.json = glob["db"], glob["session"], glob["json"]
        for key in TEXT_ARGS:  # names and notes typed in UTF-8 under an ASCII locale
            if isinstance(getattr(args, key, None), str):
                setattr(args, key, from_argv(getattr(args, key)))
            elif isinstance(getattr(args, key, None), list):
                setattr(args, key, [from_argv(v) if isinstance(v, str) else v for v in getattr(args, key)])
        if not hasattr(args, "func"):
            raise UsageError("a command is missing (see --help)")
        path = db.expand(args.db, "--db") if args.db else db.default_path()
        reads = getattr(args, "reads", False) or getattr(args, "preview", False)
        try:
            led = Ledger(path, readonly=reads and path.exists())
        except NotALedger as exc:
            if getattr(args, "salvage", False) and exc.code == "damaged":
                return _salvage_export(path, args, exc)
            raise
        with led:
            return int(args.func(led, args) or 0)
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except (LedgerError, ValueError, OSError) as exc:
        print(f"{prog}: {one_line(str(exc))}", file=sys.stderr)
        return 2


# arguments that are names or text, never paths (a path must keep the bytes it was given)
TEXT_ARGS = ("name", "players", "dealer", "option", "session", "ref", "note", "reason", "transfer",
             "xiahuo", "names", "deltas")


def one_line(text: str, limit: int = 600) -> str:
    """A message as one printable line: a damaged file's bytes can end up in SQLite's errors."""
    clean = "".join(c if c.isprintable() else "\N{REPLACEMENT CHARACTER}" for c in text)
    return clean if len(clean) <= limit else clean[:limit] + "…"


# ------------------------------------------------------------------ zipai session

def _session_new(led: Ledger, a: argparse.Namespace) -> int:
    names = [n.strip() for n in a.players.replace("，", ",").split(",") if n.strip()]
    s = led.new_session(a.name, rules_from_flag(a.rules), names, stake=a.stake, first_dealer=a.dealer,
                        options=_options(a.option), make_current=not a.no_current)
    st = led.state(s)
    _emit(a, st.to_dict(history=False), lambda: f"created session {s.id}\n" + state_text(st, False))
    return 0


def _session_list(led: Ledger, a: argparse.Namespace) -> int:
    rows = led.sessions()
    _emit(a, rows, lambda: table(
        ["", "id", "name", "rules", "players", "hands", "state", "created"],
        [["*" if r["current"] else "", r["id"], r["name"], _title(r["rules"]),
          "、".join(r["players"]), r["hands"],
          "damaged" if r.get("damaged") else "settled" if r["locked"] else "open", r["created_at"]]
         for r in rows]) if rows else "(no sessions)")
    for r in rows:
        if r.get("damaged"):
            print(f"zipai session: {one_line(r['damaged'])}", file=sys.stderr)
    return 0


def _session_show(led: Ledger, a: argparse.Namespace) -> int:
    st = led.state(a.session)
    _emit(a, st.to_dict(history=not a.brief), lambda: state_text(st, not a.brief))
    return 0


def _session_use(led: Ledger, a: argparse.Namespace) -> int:
    s = led.set_current(a.ref)
    _emit(a, s.to_dict(), lambda: f"current session: {s.id} {s.name!r}")
    return 0


def _session_undo(led: Ledger, a: argparse.Namespace) -> int:
    e = led.undo_last(a.session)
    st = led.state(a.session)
    _emit(a, {"undone": e.to_dict(), "state": st.to_dict(history=False)},
          lambda: f"undid #{e.no} (event {e.event})\n" + state_text(st, False))
    return 0


def _session_settle(led: Ledger, a: argparse.Namespace) -> int:
    mode = "pairwise" if a.pairwise else "minimal"
    res = led.settlement(a.session, mode) if a.preview else led.settle(a.session, mode)
    _emit(a, res.to_dict(), lambda: settlement_text(res))
    return 0


def _session_reopen(led: Ledger, a: argparse.Namespace) -> int:
    st = led.reopen(a.session)
    _emit(a, st.to_dict(history=False), lambda: f"reopened {st.session.name!r}")
    return 0


def _session_export(led: Ledger, a: argparse.Namespace) -> int:
    if a.output and a.output != "-":
        files.check_output(a.output, files.ledger_files(led.path), "export")
    try:
        if a.csv:
            text = led.export_csv(a.session)
        else:
            text = json.dumps(led.export_json(a.session), ensure_ascii=False, indent=1) + "\n"
    except (DamagedData, NotALedger) as exc:
        if exc.code != "damaged":
            raise
        return _salvage_export(led.path, a, exc)
    _write_out(a, text, led.path)
    return 0


def _write_out(a: argparse.Namespace, text: str, ledger: Path) -> None:
    """The export to ``-o`` (whole or not at all, never onto the ledger or a database) or stdout."""
    if a.output and a.output != "-":
        files.write_atomic(a.output, text.encode("utf-8"), files.ledger_files(ledger), "export")
        print(f"wrote {a.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)


def _salvage_export(path: Path, a: argparse.Namespace, why: LedgerError) -> int:
    """Export what a damaged ledger still holds; exit 1 when anything was left out."""
    got = salvage(path, a.session)
    text = got.to_csv() if a.csv else json.dumps(got.to_json(str(path)), ensure_ascii=False,
                                                 indent=1) + "\n"
    _write_out(a, text, path)
    kept = sum(1 for e in got.events)
    head = f"zipai session: {path} is damaged; salvaged {kept} events of session {got.session.name!r}"
    if not got.skipped:
        print(one_line(f"{head}, skipped none ({why})"), file=sys.stderr)
        return 0
    shown = "; ".join(got.skipped[:3]) + (f"; and {len(got.skipped) - 3} more" if len(got.skipped) > 3
                                            else "")
    print(one_line(f"{head}, skipped {len(got.skipped)}: {shown}", 2000), file=sys.stderr)
    return 1


def _session_import(led: Ledger, a: argparse.Namespace) -> int:
    s = led.import_json(_read_json(a.file, EXPORT_BYTES), name=a.name)
    st = led.state(s)
    _emit(a, st.to_dict(history=False), lambda: f"imported session {s.id}\n" + state_text(st, False))
    return 0


def _session_backup(led: Ledger, a: argparse.Namespace) -> int:
    path = led.backup(a.file)
    _emit(a, {"backup": str(path)}, lambda: f"backed up {led.path} to {path}")
    return 0


def _session_restore(led: Ledger, a: argparse.Namespace) -> int:
    kept = led.restore(a.file)
    _emit(a, {"restored": a.file, "replaced_kept_as": str(kept)},
          lambda: f"restored {led.path} from {a.file}; the replaced ledger is kept as {kept}")
    return 0


def _build_session(p: _Parser) -> None:
    sub = p.add_subparsers(metavar="COMMAND", parser_class=_Parser)
    n = sub.add_parser("new", help="start a session (it becomes the current one)")
    n.add_argument("name")
    n.add_argument("--rules", default="hunan", help="hunan, guangxi, guilin or a house-rules .toml")
    n.add_argument("--players", required=True, help="names in seat order, comma separated: 甲,乙,丙")
    n.add_argument("--stake", default="1", help="money per point (default 1)")
    n.add_argument("--dealer", default="0", help="first dealer: seat number or name (default seat 0)")
    n.add_argument("--option", action="append", metavar="KEY=VALUE", help="house option (repeatable)")
    n.add_argument("--no-current", action="store_true", help="do not make it the current session")
    n.set_defaults(func=_session_new)
    sub.add_parser("list", help="all sessions").set_defaults(func=_session_list, reads=True)
    sh = sub.add_parser("show", help="totals, dealer and history")
    sh.add_argument("--brief", action="store_true", help="without the history")
    sh.set_defaults(func=_session_show, reads=True)
    u = sub.add_parser("use", help="make a session the current one")
    u.add_argument("ref", metavar="ID|NAME")
    u.set_defaults(func=_session_use)
    sub.add_parser("undo", help="undo the last hand").set_defaults(func=_session_undo)
    st = sub.add_parser("settle", help="settle and lock the session")
    st.add_argument("--pairwise", action="store_true", help="pairwise payments instead of the fewest")
    st.add_argument("--preview", action="store_true", help="show the settlement without locking")
    st.set_defaults(func=_session_settle)
    sub.add_parser("reopen", help="unlock a settled session").set_defaults(func=_session_reopen)
    ex = sub.add_parser("export", help="the session as JSON (or CSV); salvages a damaged ledger")
    ex.add_argument("--csv", action="store_true")
    ex.add_argument("-o", "--output", help="file to write (default stdout)")
    ex.set_defaults(func=_session_export, reads=True, salvage=True)
    im = sub.add_parser("import", help="a session from an exported JSON file")
    im.add_argument("file")
    im.add_argument("--name", help="name for the imported session")
    im.set_defaults(func=_session_import)
    b = sub.add_parser("backup", help="copy the whole database to FILE")
    b.add_argument("file")
    b.set_defaults(func=_session_backup, reads=True)
    r = sub.add_parser("restore", help="replace the whole database with a backup FILE")
    r.add_argument("file")
    r.set_defaults(func=_session_restore)


def session_main(argv: list[str] | None = None) -> int:
    """``zipai session new|list|show|use|undo|settle|reopen|export|import|backup|restore``."""
    return _run("zipai session", argv, _build_session,
                "Sessions of the ledger: start, list, show, undo, settle, reopen, export, import.")


# ------------------------------------------------------------------ zipai hand

def _hand_add(led: Ledger, a: argparse.Namespace) -> int:
    e = led.record_hand(a.session, _read_json(a.file), photo=a.photo, options=_options(a.option) or None)
    st = led.state(a.session)
    _emit(a, {"entry": e.to_dict(), "state": st.to_dict(history=False)}, lambda: entry_text(st, e))
    return 0


def _hand_edit(led: Ledger, a: argparse.Namespace) -> int:
    e = led.edit_hand(a.session, a.no, _read_json(a.file), photo=a.photo,
                      options=_options(a.option) or None)
    st = led.state(a.session)
    _emit(a, {"entry": e.to_dict(), "state": st.to_dict(history=False)},
          lambda: f"edited #{e.no}; later hands derived again\n" + state_text(st, False))
    return 0


def _hand_draw(led: Ledger, a: argparse.Namespace) -> int:
    e = led.record_draw(a.session, a.note)
    st = led.state(a.session)
    _emit(a, {"entry": e.to_dict(), "state": st.to_dict(history=False)}, lambda: entry_text(st, e))
    return 0


def _hand_double(led: Ledger, a: argparse.Namespace) -> int:
    e = led.record_double_instant(a.session, [_read_json(a.first), _read_json(a.second)], photo=a.photo)
    st = led.state(a.session)
    _emit(a, {"entry": e.to_dict(), "state": st.to_dict(history=False)}, lambda: entry_text(st, e))
    return 0


def _hand_adjust(led: Ledger, a: argparse.Namespace) -> int:
    transfers = None
    if a.transfer:
        transfers = []
        for t in a.transfer:
            parts = t.split(":")
            if len(parts) != 3:
                raise UsageError(f"--transfer takes PAYER:PAYEE:POINTS, got {t!r}")
            s = led.session(a.session)
            seats = [_seat_of(s.players, x) for x in parts[:2]]
            transfers.append([*seats, _ints(parts[2], "points")[0]])
    e = led.adjust(a.session, reason=a.reason or "",
                   deltas=_ints(a.deltas, "--deltas") if a.deltas else None, transfers=transfers,
                   offender=a.xiahuo, amount=a.amount)
    st = led.state(a.session)
    _emit(a, {"entry": e.to_dict(), "state": st.to_dict(history=False)}, lambda: entry_text(st, e))
    return 0


def _hand_penalty(led: Ledger, a: argparse.Namespace) -> int:
    e = led.penalty(a.session, _read_json(a.file), reason=a.reason or "")
    st = led.state(a.session)
    _emit(a, {"entry": e.to_dict(), "state": st.to_dict(history=False)}, lambda: entry_text(st, e))
    return 0


def _seat_of(players: Sequence[str], text: str) -> int:
    if text.isdigit():
        return _int(text, "a seat")
    if text in players:
        return list(players).index(text)
    raise UsageError(f"{text!r} is neither a seat number nor one of the players ({', '.join(players)})")


def _hand_list(led: Ledger, a: argparse.Namespace) -> int:
    st = led.state(a.session)
    _emit(a, [e.to_dict() for e in st.history], lambda: history_text(st))
    return 0


def _build_hand(p: _Parser) -> None:
    sub = p.add_subparsers(metavar="COMMAND", parser_class=_Parser)
    ad = sub.add_parser("add", help="record a won hand from an engine input file (or - for stdin)")
    ad.add_argument("file")
    ad.add_argument("--photo", help="path of the photo of the hand")
    ad.add_argument("--option", action="append", metavar="KEY=VALUE",
                    help="per-hand option, e.g. minimum=20 (Guangxi)")
    ad.set_defaults(func=_hand_add)
    ed = sub.add_parser("edit", help="replace hand N; later hands are derived again")
    ed.add_argument("no", type=int, metavar="N")
    ed.add_argument("file")
    ed.add_argument("--photo")
    ed.add_argument("--option", action="append", metavar="KEY=VALUE")
    ed.set_defaults(func=_hand_edit)
    dr = sub.add_parser("draw", help="record a drawn hand (流局); the dealer deals again")
    dr.add_argument("--note", default="")
    dr.set_defaults(func=_hand_draw)
    db = sub.add_parser("double", help="Guangxi: two instant wins at once (two input files)")
    db.add_argument("first")
    db.add_argument("second")
    db.add_argument("--photo")
    db.set_defaults(func=_hand_double)
    aj = sub.add_parser("adjust", help="a manual adjustment with a reason")
    aj.add_argument("--reason", help="why (shown in the history)")
    g = aj.add_mutually_exclusive_group(required=True)
    g.add_argument("--deltas", help="change per seat, comma separated: 5,-5,0")
    g.add_argument("--transfer", action="append", metavar="PAYER:PAYEE:POINTS",
                   help="a payment between seats (numbers or names; repeatable)")
    g.add_argument("--xiahuo", metavar="SEAT|NAME", help="Guangxi 下夥: pays every other player the minimum")
    aj.add_argument("--amount", type=int, help="with --xiahuo: points per player instead of the minimum")
    aj.set_defaults(func=_hand_adjust)
    pn = sub.add_parser("penalty", help="Hunan 胡多少处罚多少: the hand's winner broke a forced rule "
                        "and pays what the hand (an engine input FILE, or -) would have scored")
    pn.add_argument("file")
    pn.add_argument("--reason", help="which rule was broken (shown in the history)")
    pn.set_defaults(func=_hand_penalty)
    sub.add_parser("list", help="the history of the session").set_defaults(func=_hand_list, reads=True)


def hand_main(argv: list[str] | None = None) -> int:
    """``zipai hand add FILE|-``, ``edit N FILE``, ``draw``, ``double A B``, ``adjust``, ``penalty FILE``,
    ``list``."""
    return _run("zipai hand", argv, _build_hand,
                "Hands of the current session: add, edit, draw, double instant win, adjust, penalty, list.")


# ------------------------------------------------------------------ zipai players

def _players_list(led: Ledger, a: argparse.Namespace) -> int:
    rows = led.players()
    _emit(a, rows, lambda: table(["player", "sessions", "last played", "added"],
                                 [[r["name"], r["sessions"], r["last_played"] or "", r["added"]]
                                  for r in rows]) if rows else "(roster is empty)")
    return 0


def _players_add(led: Ledger, a: argparse.Namespace) -> int:
    for n in a.names:
        led.add_player(n)
    return _players_list(led, a)


def _players_rm(led: Ledger, a: argparse.Namespace) -> int:
    led.remove_player(a.name)
    return _players_list(led, a)


def _build_players(p: _Parser) -> None:
    p.set_defaults(func=_players_list, reads=True)
    sub = p.add_subparsers(metavar="COMMAND", parser_class=_Parser)
    sub.add_parser("list", help="the roster (the default)").set_defaults(func=_players_list, reads=True)
    ad = sub.add_parser("add", help="add players to the roster")
    ad.add_argument("names", nargs="+")
    ad.set_defaults(func=_players_add, reads=False)
    rm = sub.add_parser("rm", help="remove a player who never played")
    rm.add_argument("name")
    rm.set_defaults(func=_players_rm, reads=False)


def players_main(argv: list[str] | None = None) -> int:
    """``zipai players [list|add NAME…|rm NAME]``: the roster remembered across sessions."""
    return _run("zipai players", argv, _build_players,
                "The roster of players, remembered across sessions.")
