"""``zipai score``: score a layout from JSON, JSON Lines or the text notation."""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections.abc import Iterator
from typing import Any, NoReturn

from .api import WON_BY, parse_input, score
from .cards import Card
from .errors import ZipaiError
from .files import open_regular, read_file, shown, size_text
from .groups import TRADITIONAL
from .notation import format_layout, parse_layout
from .rules import Rules, rules_from_flag
from .text import arg_int, parse_int
from .variants import Variant

MAX_JSON_BYTES = 1 << 20
"""One hand is under 2 KB of JSON; a megabyte (per file, or per line of JSON Lines) leaves room
for any layout written by hand and keeps a wrong file from filling memory."""


def _pad(text: str, width: int) -> str:
    """Pad to a display width where CJK characters take two columns."""
    shown = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - shown)


WON_BY_NAMES = {"self_draw": "自摸", "stock": "翻牌", "discard": "点炮", "dealt": "起手"}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        raise ZipaiError(message, code="usage")


def add_win_flags(p: argparse.ArgumentParser) -> None:
    """The seat and win flags shared by ``zipai score`` and ``zipai scan``."""
    p.add_argument("--players", type=arg_int("--players"))
    p.add_argument("--dealer", type=arg_int("--dealer"))
    p.add_argument("--winner", type=arg_int("--winner"))
    p.add_argument("--won-by", choices=WON_BY)
    p.add_argument("--from", dest="from_", type=arg_int("--from"), metavar="SEAT",
                   help="the discarding seat")
    p.add_argument("--winning-card")
    p.add_argument("--first-discard", action="store_true", default=None,
                   help="the dealer's first discard (地福 / 地胡)")
    p.add_argument("--xing", action="append", help="Guilin turned card (repeatable)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a house option of RULINGS section 9 (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="zipai score", description=(
        "Score a winning Zipai layout. FILE holds the JSON input object ('-' for stdin); "
        "--text takes the notation instead: table groups, then '|', then hand cards, e.g. "
        "\"d5d5d5 ~x10x10x10 x1x2x3 | x4x5x6 d2d7d10 x9x9x9 d8d8x8\" (~ = concealed, "
        "x9! = the winning card). A hand may instead be entered by its total: a JSON object with "
        "\"total\" (the seven groups' 福/油/胡, at most 72) and no groups or hand cards; the output "
        "says \"entered_by\": \"total\" and gives the \"total\", with no groups. Guilin's 醒 is "
        "then a count (\"xing\": 2). A total cannot express what needs the cards: 乌福 and 红福 "
        "(the red cards) or an instant win after the deal (三龙/五坎, 三笼五坎); enter those card "
        "by card."))
    p.add_argument("file", nargs="?", help="JSON input file, or - for stdin")
    p.add_argument("--text", help="the layout in text notation")
    p.add_argument("--json", action="store_true", help="print the output object as JSON")
    p.add_argument("--jsonl", action="store_true", help="JSON Lines in, JSON Lines out")
    p.add_argument("--rules", help="hunan, guangxi, guilin or a house-rules .toml FILE (wins over the JSON)")
    add_win_flags(p)
    p.add_argument("--traditional", action="store_true", help="print traditional characters")
    return p


def _numeric(text: str) -> bool:
    """Text a user meant as a number: digits of any script, a sign, a point or an exponent."""
    body = text.strip().lstrip("+-")
    return bool(body) and (body[0].isdecimal() or (body[0] == "." and body[1:2].isdecimal()))


def _option_value(text: str, key: str = "value") -> Any:
    """An ``--option`` value: true/false, a whole number in ASCII digits, or a word or list."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if _numeric(low):
        try:
            return parse_int(low, f"--option {key}")
        except ZipaiError as exc:
            raise ZipaiError(str(exc), code="usage") from None
    if "," in text or text.strip() in ("up", "down", "same", ""):
        if text.strip() in ("double", "plus_ten"):
            return text.strip()
        return [v.strip() for v in text.split(",") if v.strip()]
    return text.strip()


def win_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The input fields the flags of ``add_win_flags`` set (``options`` from ``--option``)."""
    out: dict[str, Any] = {}
    for key, val in (("players", args.players), ("dealer", args.dealer), ("winner", args.winner),
                     ("won_by", args.won_by), ("from", args.from_),
                     ("winning_card", args.winning_card), ("first_discard", args.first_discard),
                     ("xing", args.xing)):
        if val is not None:
            out[key] = val
    opts: dict[str, Any] = {}
    for item in args.option:
        if "=" not in item:
            raise ZipaiError(f"--option {item!r} must be KEY=VALUE", code="usage")
        k, v = item.split("=", 1)
        opts[k.strip()] = _option_value(v, k.strip())
    if opts:
        out["options"] = opts
    return out


def _merge(obj: Any, over: dict[str, Any]) -> Any:
    if not isinstance(obj, dict):
        return obj
    merged = dict(obj)
    for k, v in over.items():
        merged[k] = {**(obj.get("options") or {}), **v} if k == "options" else v
    return merged


def _read(path: str) -> str:
    if path == "-":
        data = _stdin_bytes().read(MAX_JSON_BYTES + 1)
        if len(data) > MAX_JSON_BYTES:
            raise ZipaiError(f"stdin: more than {size_text(MAX_JSON_BYTES)}, too large for a hand; "
                             "use --jsonl for many hands", code="too_large")
    else:
        data = read_file(path, MAX_JSON_BYTES, "JSON file")
    name = "stdin" if path == "-" else shown(path)
    return _text(data, name)


def _stdin_bytes() -> Any:
    """Standard input as bytes (a test may swap in a text stream without a buffer)."""
    stdin = sys.stdin
    buffer = getattr(stdin, "buffer", None)
    if buffer is not None:
        return buffer
    import io

    return io.BytesIO(stdin.read().encode("utf-8"))


def _text(data: bytes, name: str) -> str:
    if b"\x00" in data:
        raise ZipaiError(f"{name}: binary data, not a JSON text file", code="bad_json")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ZipaiError(f"{name}: not UTF-8 text", code="bad_json") from None


def _loads(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ZipaiError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
                         code="bad_json") from None
    except RecursionError:
        raise ZipaiError(f"{where}: JSON nested too deeply", code="bad_json") from None
    except ValueError:  # an integer past Python's 4,300-digit conversion limit
        raise ZipaiError(f"{where}: not valid JSON (a number has too many digits)",
                         code="bad_json") from None


def render(obj: dict[str, Any], result: dict[str, Any], traditional: bool = False,
           rules: Rules | None = None) -> str:
    """A readable breakdown with Chinese names, points per group, specials and payouts."""
    by_total = result.get("entered_by") == "total"
    hand = parse_input({k: v for k, v in obj.items() if k != "total" and not (by_total and k == "xing")},
                       rules)
    rules = hand.rules
    variant = rules.variant
    unit = variant.unit
    ctx = hand.ctx
    how = f"{WON_BY_NAMES[ctx.won_by]} ({ctx.won_by})"
    if ctx.won_by == "discard":
        how += f" from seat {ctx.discarder}"
    lines = [f"{variant.title} ({rules.name}) · {ctx.players} players · dealer seat "
             f"{ctx.dealer} · seat {ctx.winner} wins by {how}",
             f"entered by total: {result['points']} {unit} (minimum {rules.minimum(ctx.players)})"
             if by_total else "layout: " + format_layout(hand.groups, hand.hand, hand.winning_card)]
    if result["groups"]:
        lines.append("")
        for g in result["groups"]:
            cards = [Card.parse(c) for c in g["cards"]]
            glyphs = "".join(c.chinese(traditional) for c in cards)
            name = g["name"].translate(TRADITIONAL) if traditional else g["name"]
            mark = "  ← winning card" if g.get("winning_card") else ""
            lines.append(f"  {_pad(name, 8)}{_pad(' '.join(g['cards']), 14)}{_pad(glyphs, 10)}"
                         f"{g['state']:<10}{g['points']:>3} {unit}{mark}")
        lines.append(f"  {_pad('', 8)}{_pad('total', 14)}{_pad('', 10)}{'':<10}{result['points']:>3} "
                     f"{unit} (minimum {rules.minimum(ctx.players)})")
    lines.append("")
    if not result["winning"]:
        lines.append(f"not a win: {result['reason']['message']} [{result['reason']['code']}]")
    else:
        if result["specials"]:
            lines.append("specials: " + ", ".join(f"{s['name']} ({s['id']})" for s in result["specials"]))
        working = [t for t in (step_text(st, variant) for st in result.get("steps", [])) if t]
        if working:
            lines.append("working: " + "; ".join(working))
        lines.append(f"score: {variant.score_text(result['score'], result)}")
    pays = ", ".join(f"seat {i}: {p:+d}" if p else f"seat {i}: 0" for i, p in enumerate(result["payouts"]))
    lines.append(("round totals: " if variant.plays_rounds else "payouts: ") + pays)
    for f, t, amount in result.get("transfers", []):
        lines.append(f"  seat {f} pays seat {t}: {amount}")
    if result.get("winning_card_matters"):
        matters = " ".join(result["winning_card_matters"])
        lines.append(f"note: where the winning card lies changes the score ({matters}); scored as if "
                     "every card were held: mark it with ! or give --winning-card")
    if len(result.get("alternatives", [])) > 1:
        lines.append(f"{len(result['alternatives'])} decompositions; chosen: {result['text']}")
    return "\n".join(lines)


_HOW = {"held": "翻牌 {v}", "double": "自摸 ×2 = {v}", "double_capped": "自摸 ×2, at most 100 = {v}",
        "plus_ten": "自摸 +10 = {v}", "discard": "点炮 +10 = {v}"}


def step_text(st: dict[str, Any], variant: Variant) -> str:
    """One step of the working in words, as a player would say it ('' for the plain ones)."""
    code, v = st["code"], st["value"]
    unit, name_of = variant.unit, variant.special_name
    if code == "special":
        name = name_of(st["id"])
        return f"{name} {v}" + (f" (×{st['times']})" if "times" in st else "")
    if code == "normal":
        return _HOW[st["how"]].format(v=v)
    if code == "bonus":
        return f"+{v} on {name_of(st['on'])}"
    if code == "discarder":
        return f"discarder seat {st['seat']} {v:+d}"
    if code == "idle":
        return f"数审 seat {st['seat']} +{v} (half of {st['of']}, to tens)"
    if code == "zi":
        return f"{v} 子 ({st['step']} {unit} a 子)"
    if code == "xing":
        return f"{v} 醒"
    if code == "fan":
        names = "+".join(name_of(i) for i in st["items"]) or "none"
        return f"+{v} 子 ({names})" if st.get("as_zi") else f"{v} 番 ({names})"
    if code == "pay":
        who = ", ".join(f"seat {s}" for s in st["seats"])
        return f"{who} pay{'s' if len(st['seats']) == 1 else ''} {v}" + \
            (f" (×{st['times']})" if st["times"] > 1 else "")
    return ""


def _lines(stream: Any) -> Iterator[bytes | None]:
    """The lines of a byte stream, split on ``\\n`` only (JSON strings may hold U+2028 or a
    lone CR); ``None`` for a line over ``MAX_JSON_BYTES``, whose rest is skipped unread."""
    while True:
        line = stream.readline(MAX_JSON_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_JSON_BYTES and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stream.readline(1 << 16)
            yield None
            continue
        yield line[:-1] if line.endswith(b"\n") else line


def _jsonl(args: argparse.Namespace, over: dict[str, Any], rules: Rules | None) -> int:
    if args.file in (None, "-"):
        stream: Any = _stdin_bytes()
    else:
        fd, _ = open_regular(args.file, "JSON Lines file")
        stream = open(fd, "rb")
    out = sys.stdout
    try:
        for n, line in enumerate(_lines(stream), 1):
            try:
                if line is None:
                    raise ZipaiError(f"longer than {size_text(MAX_JSON_BYTES)}, too large for a hand",
                                     code="too_large")
                obj = _merge(_loads(_text(line, "input").removesuffix("\r"), "input"), over)
                res: dict[str, Any] = score(obj, rules)
            except ZipaiError as exc:
                res = {"error": f"line {n}: {exc}", "code": exc.code}
            out.write(json.dumps(res, ensure_ascii=False) + "\n")
    finally:
        if args.file not in (None, "-"):
            stream.close()
    return 0


def run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    over = win_fields(args)
    rules = rules_from_flag(args.rules) if args.rules is not None else None
    if args.jsonl:
        return _jsonl(args, over, rules)
    if args.text is not None:
        if args.file:
            raise ZipaiError("give either FILE or --text, not both", code="usage")
        lay = parse_layout(args.text)
        obj: Any = {"rules": rules.name if rules else "hunan", "players": 3, "dealer": 0, "winner": 0,
                    "won_by": "self_draw",
                    "groups": [{"cards": [str(c) for c in g.cards], "state": g.state.value}
                               for g in lay.groups],
                    "hand": [str(c) for c in lay.hand]}
        if lay.winning_card is not None:
            obj["winning_card"] = str(lay.winning_card)
        obj = _merge(obj, over)
    elif args.file:
        where = "stdin" if args.file == "-" else args.file
        obj = _merge(_loads(_read(args.file), where), over)
    else:
        raise ZipaiError("give a JSON FILE, '-' for stdin, or --text \"…\"", code="usage")
    result = score(obj, rules)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(render(obj, result, args.traditional, rules))
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        return run(list(sys.argv[1:] if argv is None else argv))
    except ZipaiError as exc:
        print(f"zipai score: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
