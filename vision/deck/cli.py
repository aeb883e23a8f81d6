"""``zipai deck``: teach the scanner a deck from one photo, list, show, remove and improve decks."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from zipai.engine import CARD_NAMES, ZipaiError
from zipai.engine.files import read_file, shown
from zipai.engine.text import from_argv, printable, short

from ..cli import _Parser, guarded
from ..decode import read_bytes
from .learn import Taught, learn
from .model import SOURCES, DeckError, check_name, glyph
from .store import DeckStore, box_numbers

MAX_SCAN_BYTES = 16 << 20  # a scan's JSON: a few KB per card


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="zipai deck", description=(
        "Teach the scanner one printed deck from a photo of its 20 faces (two rows of ten: small "
        "一…十 on top, big 壹…拾 below, left to right), then scan with --deck NAME. Decks live in "
        "$ZIPAI_DECKS, else $XDG_DATA_HOME/zipai/decks, else ~/.local/share/zipai/decks."))
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    s = sub.add_parser("learn", help="learn a deck from a teaching photo")
    s.add_argument("photo", help="a JPEG or PNG of the 20 faces in two rows of ten")
    s.add_argument("--name", required=True, help="the deck's name (replaces a deck of that name)")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    sub.add_parser("list", help="the decks taught")
    s = sub.add_parser("show", help="a deck's examples per card and source, and its confusable pairs")
    s.add_argument("name")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s = sub.add_parser("remove", help="forget a deck")
    s.add_argument("name")
    s = sub.add_parser("add", help="add the cards a corrected scan names to the deck")
    s.add_argument("name")
    s.add_argument("--photo", required=True, help="the photo that was scanned")
    s.add_argument("--scan", required=True, metavar="SCAN.json",
                   help="zipai scan --json output with the wrong detections' card fields corrected")
    return p


def _learned(t: Taught, path: Path) -> str:
    turned = " (photo taken upside down)" if t.upside_down else ""
    lines = [f"learned deck {t.deck.name!r} from 20 faces{' and its back' if t.back else ''}{turned} "
             f"in {t.seconds:.2f} s; saved to {shown(str(path))}",
             "each card and the nearest other card of this deck (distance, 0 same to 2 opposite):"]
    for c in CARD_NAMES:
        if c in t.separations:
            near, d = t.separations[c]
            face = next(f for f in t.faces if f.card == c)
            how = "untaught, read as" if face.found else "not found, read at its place as"
            note = "" if face.read_as == c else f"  ({how} {glyph(face.read_as)})"
            lines.append(f"  {glyph(c)}  nearest {glyph(near)}  {d:.3f}{note}")
    off = t.disagreements()
    if off:
        lines.append(f"{len(off)} place{'s' if len(off) > 1 else ''} disagreed with the order, learnt as "
                     f"the order names them (check them): {'; '.join(off)}")
    lines += [f"warning: {w}" for w in t.warnings]
    return "\n".join(lines)


def _counts(counts: dict[str, dict[str, int]]) -> list[str]:
    out = [f"  {'card':<5}" + "".join(f"{s:>8}" for s in SOURCES)]
    for c, per in counts.items():
        out.append(f"  {glyph(c):<5}" + "".join(f"{per.get(s, 0):>8}" for s in SOURCES))
    return out


def fixes_from_scan(path: str, width: int, height: int) -> list[tuple[list[float], str]]:
    """The (box, card) of every detection in a ``zipai scan --json`` file, checked: the file is
    data from the user, so each field is validated and nothing in it names a file."""
    try:
        data = json.loads(read_file(Path(path), MAX_SCAN_BYTES, "scan JSON").decode("utf-8"))
    except ZipaiError as exc:
        raise DeckError(str(exc), "bad_scan") from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise DeckError(f"{shown(path)}: not JSON (give zipai scan --json output)", "bad_scan") from None
    dets = data.get("detections") if isinstance(data, dict) else None
    image = data.get("image") if isinstance(data, dict) else None
    if not isinstance(dets, list) or not isinstance(image, dict):
        raise DeckError(f"{shown(path)}: no detections and image (give zipai scan --json output)", "bad_scan")
    if (image.get("width"), image.get("height")) != (width, height):
        raise DeckError(f"{shown(path)}: a scan of a {image.get('width')}x{image.get('height')} photo, "
                        f"not of this {width}x{height} one", "bad_scan")
    out = []
    for k, d in enumerate(dets):
        if not (isinstance(d, dict) and isinstance(d.get("card"), str) and isinstance(d.get("box"), list)):
            raise DeckError(f"{shown(path)}: detection {k} needs a card and a box", "bad_scan")
        if not box_numbers(d["box"]):
            raise DeckError(f"{shown(path)}: detection {k}: the box is not four numbers x0, y0, x1, y1 "
                            f"({printable(short(d['box'], 60))})", "bad_scan")
        if d["card"] != "back" and d["card"] not in CARD_NAMES:
            raise DeckError(f"{shown(path)}: detection {k}: {str(d['card'])[:20]!r} is not a card "
                            "(x1…x10, d1…d10 or back)", "bad_scan")
        out.append((d["box"], d["card"]))
    return out


def _shipped_fingerprint() -> str:
    """The embedding network ``deck_detector`` reads with, from the manifest alone (no network
    is loaded to show a deck)."""
    from ..manifest import load_manifest

    spec = load_manifest().embed_spec() or {}
    return str(spec.get("sha256", ""))[:16]


def run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "name", None) is not None:
        args.name = from_argv(args.name)
    store = DeckStore()
    if args.command == "learn":
        store.path(args.name)  # the name, and its file name in this folder, before any work
        taught = learn(read_bytes(args.photo), args.name)
        replaced = args.name in store.names()
        path = store.save(taught.deck)
        print(json.dumps({**taught.to_json(), "file": str(path), "replaced": replaced}, ensure_ascii=False,
                         indent=2) if args.json
              else _learned(taught, path) + ("\n(this replaced the deck of that name)" if replaced else ""))
    elif args.command == "list":
        names = store.names()
        print("\n".join(map(printable, names)) if names else
              f"no decks in {shown(str(store.root))} (zipai deck learn PHOTO --name NAME teaches one)")
    elif args.command == "show":  # the file as it is: nothing derived, nothing written
        deck = store.read(args.name)
        counts = deck.counts()
        current = bool(deck.prototypes.shape[1]) and deck.model == _shipped_fingerprint()
        seps = deck.separations() if current else {}
        warnings = list(deck.warnings()) if current else [
            "its prototypes come from another model: a scan derives them again from the examples "
            "(zipai deck add stores them)"]
        if args.json:
            print(json.dumps({"deck": deck.name, "model": deck.model, "created": deck.created,
                              "counts": counts, "current": current,
                              "separations": {c: {"nearest": n, "distance": d} for c, (n, d) in seps.items()},
                              "warnings": warnings}, ensure_ascii=False, indent=2))
        else:
            lines = [f"deck {printable(repr(deck.name))}: {len(deck.examples)} examples, taught "
                     f"{printable(deck.created)}", *_counts(counts), *[f"warning: {w}" for w in warnings]]
            print("\n".join(lines))
    elif args.command == "remove":
        store.remove(args.name)
        print(f"removed deck {args.name!r}")
    else:
        from ..decode import decode

        check_name(args.name)
        photo = read_bytes(args.photo)
        img = decode(photo, args.photo)
        fixes = changed(store, args.name, photo, fixes_from_scan(args.scan, img.width, img.height))
        if not fixes:
            print(f"deck {args.name!r}: the scan names every card as the deck reads it; nothing to add")
            return 0
        deck = store.add_examples(args.name, photo, fixes, "cli")
        print(f"deck {args.name!r}: added {len(fixes)} corrected cards "
              f"({', '.join(glyph(c) for _, c in fixes)}); it now holds {len(deck.examples)} examples")
    return 0


def changed(store: DeckStore, name: str, photo: bytes,
            fixes: list[tuple[list[float], str]]) -> list[tuple[list[float], str]]:
    """The fixes whose card differs from the deck's own reading of that box: the corrections."""
    import numpy as np

    from ..decode import decode
    from ..steps import ClassIndex
    from .lens import reread
    from .store import _checked_box

    deck = store.load(name)
    det = store.detector
    img = decode(photo, "photo")
    boxes = np.stack([_checked_box(b, img) for b, _ in fixes]) / img.scale if fixes else np.zeros((0, 4))
    reading, _ = det.reader(np.asarray(img.image, np.uint8), boxes.astype(np.float32))
    probs = reading.probs
    if reading.embedding is not None:
        probs = reread(deck, det)(probs, reading.embedding)
    out = []
    classes = det.config.classes
    idx = ClassIndex.of(classes)
    kinds = [*idx.faces, *([idx.back] if idx.back >= 0 else [])]
    for (box, card), p in zip(fixes, probs, strict=True):
        read = classes[kinds[int(np.argmax(p[kinds]))]]
        if read != card:
            out.append((box, card))
    return out


def main(argv: list[str] | None = None) -> int:
    return guarded("zipai deck", run, argv)
