"""``zipai scan PHOTO``: read a table photo, print the cards, groups, doubts and the score."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from zipai.engine import Card, ZipaiError, input_options, parse_input, rules_from_flag
from zipai.engine.cli import add_win_flags, win_fields
from zipai.engine.files import shown
from zipai.engine.text import arg_int, from_argv

from .errors import VisionError

MAX_THREADS = 64
"""More inference threads than any phone or desktop has cores only slows a run: onnxruntime
starts every one (100,000 of them never finish starting)."""
OVERLAY_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP"}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        raise VisionError(message, code="usage")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="zipai scan", description=(
        "Read the cards in a photo of a winning Zipai layout and score it. Prints the cards read, "
        "the groups, the doubts, and the engine's breakdown when the layout is complete."))
    p.add_argument("photo", help="a JPEG or PNG photo of the table")
    p.add_argument("--rules", default=None, help="hunan (default), guangxi, guilin or a house-rules .toml")
    add_win_flags(p)
    p.add_argument("--overlay", metavar="OUT.png", help="write the photo with boxes, classes and groups")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--model", metavar="MANIFEST", help="a model manifest.json (default: the shipped model)")
    p.add_argument("--deck", metavar="NAME", help="read with a deck taught by zipai deck learn")
    p.add_argument("--threads", type=arg_int("--threads"), default=2,
                   help=f"inference threads, 1 to {MAX_THREADS} (default 2)")
    p.add_argument("--claimed", choices=("top", "bottom", "left", "right"), default=None,
                   help="the table's convention: the row of groups claimed during play lies at the top "
                        "or the bottom of the photo (the two rows one above the other), or on the left or "
                        "the right (side by side in one long row). Where the photo cannot tell the rows "
                        "apart (no back, pair or lone card in either) and they lie that way, that row is "
                        "taken as claimed and no claimed-row doubt is raised; otherwise it changes nothing")
    return p


def base_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The engine input's seat and win fields from the flags, checked before any pixel is read."""
    from .scan import DEFAULT_BASE

    base = dict(DEFAULT_BASE)
    fields = win_fields(args)
    if args.rules is not None:  # a house-rules file travels as its options, never as its path
        rules = rules_from_flag(args.rules)
        base["rules"] = rules.name
        options = {**input_options(rules), **fields.get("options", {})}
        if options:
            fields["options"] = options
    base.update(fields)
    base.pop("winning_card", None)  # checked against the cards read, below
    if base["won_by"] == "discard" and "from" not in base:
        raise ZipaiError("--won-by discard needs --from SEAT", code="usage")
    parse_input({**base, "groups": [], "hand": []})  # seats, rules, xing: the user's errors, exit 2
    if args.winning_card is not None:
        base["winning_card"] = str(Card.parse(args.winning_card))
    return base


def _text(sc: Any, base: dict[str, Any]) -> str:
    from zipai.engine.cli import render

    lines = [f"photo {sc.width}x{sc.height}: {len(sc.detections)} cards read"]
    for g, c in enumerate(sc.columns):
        cards = " ".join(c.cards)
        label = c.state if c.state != "hand" else "hand cards"
        if c.name:
            cards += f" (named {c.name})"
        lines.append(f"  group {g + 1} [{c.row} row, {label}]: {cards}")
    if not sc.detections:
        lines.append("  no cards found in this photo")
    if sc.assembled.doubts:
        lines.append("doubts:")
        lines += [f"  - {d.kind}: {d.message}" for d in sc.assembled.doubts]
    if sc.result is not None:
        lines += ["", render(sc.assembled.layout, sc.result.to_json())]
    elif sc.error:
        lines += ["", f"cannot score this layout: {sc.error}"]
    elif sc.detections:
        lines += ["", "layout incomplete: settle the doubts above to score it"]
    return "\n".join(lines)


def check_overlay(photo: str, out: str, deck: str | None = None) -> tuple[str, Path]:
    """The overlay's image format, from its suffix, and the file it replaces; refused before
    any work when the suffix is unknown, the file is no regular file (``/dev/stdout``, a FIFO),
    or it is an input of this run (the photo, by any name or link; the deck file)."""
    from .output import check_output

    if "\x00" in out:
        raise VisionError(f"--overlay {shown(out)}: not a valid file name", code="usage")
    fmt = OVERLAY_FORMATS.get(Path(out).suffix.lower())
    if fmt is None:
        raise VisionError(f"--overlay {shown(out)}: give a file ending in "
                          f"{', '.join(OVERLAY_FORMATS)}", code="usage")
    inputs = [(photo, "the photo itself"), *([(deck, "the deck file")] if deck else [])]
    return fmt, check_output(out, inputs, "--overlay")


def run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if not 1 <= args.threads <= MAX_THREADS:
        raise VisionError(f"--threads must be 1 to {MAX_THREADS}, got {args.threads}", code="usage")
    deck_file = None
    if args.deck is not None:
        args.deck = from_argv(args.deck)
        from .deck.store import DeckStore

        deck_file = str(DeckStore().path(args.deck))
    fmt, target = check_overlay(args.photo, args.overlay, deck_file) if args.overlay else ("", None)
    base = base_from_args(args)
    from .decode import load
    from .detector import Detector
    from .scan import default_detector, overlay, scan_decoded, with_claimed

    deck = None
    if args.deck is not None:  # a deck reads the reader's embedding: the detector that gives it
        from .deck.model import deck_detector
        from .deck.store import DeckStore

        det = Detector(args.model, threads=args.threads, embed=True) if args.model else \
            deck_detector(args.threads)
        deck = DeckStore(detector=det).load(args.deck)
    else:
        det = Detector(args.model, threads=args.threads) if args.model else default_detector(args.threads)
    decoded = load(args.photo)  # the overlay is drawn on these pixels: no second decode
    sc = scan_decoded(decoded, det, base, deck=deck)
    if args.claimed is not None:
        sc = with_claimed(sc, args.claimed, base)
    if sc.error and "winning_card" in base:
        sc.assembled.doubts.append(_winning_doubt(sc.error))
    if target is not None:
        import io

        from .output import write_atomic

        buf = io.BytesIO()
        try:
            overlay(decoded.image, sc).save(buf, fmt)
        except (OSError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or str(exc)
            raise VisionError(f"{shown(args.overlay)}: cannot draw the overlay ({why})", code="io") from None
        write_atomic(target, buf.getvalue(), "overlay")
    if args.json:
        print(json.dumps(sc.to_json(), ensure_ascii=False, indent=2))
    else:
        print(_text(sc, base))
    return 0


def _winning_doubt(message: str) -> Any:
    from .layout import Doubt, DoubtKind

    return Doubt(DoubtKind.ENGINE, message)


def guarded(prog: str, run: Callable[[list[str]], int], argv: list[str] | None) -> int:
    """Run a photo command: a bad photo, deck or hand is one line and exit 2, never a traceback;
    a reader that closed the pipe early is no failure."""
    try:
        return run(list(sys.argv[1:] if argv is None else argv))
    except (VisionError, ZipaiError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def main(argv: list[str] | None = None) -> int:
    return guarded("zipai scan", run, argv)
