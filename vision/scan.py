"""Photo -> detections -> columns -> engine input -> score: the whole ``zipai scan`` pipeline as
one call returning a ``Scan`` (the engine's typed ``Result`` inside; ``Scan.to_json`` is the
CLI's object), plus the overlay picture."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw, ImageFont

from zipai.engine import Result, ZipaiError, score_hand

from .decode import Decoded, decode, load
from .detector import Detection, Detector
from .layout import Assembled, Column, Doubt, DoubtKind, Draft, Params, assemble, repair
from .layout.answers import take_claimed
from .layout.assemble import no_win, unpaid_last
from .loaded import loaded_detector

if TYPE_CHECKING:  # zipai.vision.deck imports the detector's modules, not the reverse
    from .deck.model import Deck

DEFAULT_BASE: dict[str, Any] = {"rules": "hunan", "players": 3, "dealer": 0, "winner": 1,
                                "won_by": "self_draw"}


def default_detector(threads: int = 2) -> Detector:
    """The shipped model, loaded once per process and thread count (``vision.loaded``)."""
    return loaded_detector(threads=threads)


@dataclass(slots=True)
class Scan:
    """Everything a scan found; ``to_json`` is the CLI's ``--json`` object. ``result`` is the
    engine's typed result (None: the layout was incomplete or refused), read by attribute."""

    width: int
    height: int
    detections: list[Detection]
    columns: list[Column]
    assembled: Assembled
    result: Result | None = None
    error: str | None = None
    timing: dict[str, float] = field(default_factory=dict)  # seconds in each part of the detector
    look: tuple[int, tuple[int, int, int, int]] | None = None  # the detector's closer look, if it took one
    deck: str | None = None  # the name of the taught deck read with, if any

    def to_json(self) -> dict[str, Any]:
        group_of: dict[int, int] = {}
        for g, c in enumerate(self.columns):
            for i in c.detections:
                group_of[i] = g
        dets = []
        for i, d in enumerate(self.detections):
            j = d.to_json()
            j["group"] = group_of.get(i)
            dets.append(j)
        out: dict[str, Any] = {
            "image": {"width": self.width, "height": self.height},
            "detections": dets,
            "groups": [c.to_json() for c in self.columns],
            "layout": self.assembled.layout,
            "result": self.result.to_json() if self.result is not None else None,
            "doubts": [d.to_json() for d in self.assembled.doubts],
            "deck": self.deck,
        }
        if self.error:
            out["error"] = self.error
        return out


def rescore(sc: Scan, base: dict[str, Any] | None = None, p: Params | None = None) -> Scan:
    """A new scan with the layout and score rebuilt from ``sc``'s columns (after an edit, or at
    other settings): its detections carry their new chances; ``sc`` is left as it was."""
    assembled = assemble(sc.columns, sc.detections, {**DEFAULT_BASE, **(base or {})}, p)
    result: Result | None = None
    error: str | None = None
    if assembled.complete:
        try:
            result = score_hand(assembled.layout)
        except ZipaiError as exc:
            error = str(exc)
        else:
            assembled.doubts += no_win(result, assembled)
    dets = list(assembled.detections)
    matters = result.winning_card_matters if result is not None else ()
    if matters:
        # a photo cannot tell which card came last: ask, as the engine scored every card held
        where = [i for i, d in enumerate(dets) if d.card in matters]
        assembled.doubts.append(Doubt(
            DoubtKind.WINNING_CARD, f"which card won? {' or '.join(matters)} as the winning card changes "
            "the score (scored as if held): give --winning-card", where))
    assembled.doubts = unpaid_last(assembled.doubts)  # the no-win and winning-card doubts too
    return replace(sc, detections=dets, columns=list(sc.columns), assembled=assembled, result=result,
                   error=error)


def with_claimed(sc: Scan, place: str, base: dict[str, Any] | None = None, p: Params | None = None) -> Scan:
    """A new scan with the table's convention applied: the row at ``place`` (top, bottom, left
    or right) holds the claimed groups where the rows were a guess lying that way
    (``layout.answers.take_claimed``, as the app applies the evening's answer), rescored;
    ``sc`` itself where there was nothing to answer. An unknown place is an ``AnswerError``."""
    cols = take_claimed(sc.columns, sc.detections, place)
    return sc if cols is None else rescore(replace(sc, columns=cols), base, p)


def scan_detections(width: int, height: int, dets: list[Detection], base: dict[str, Any] | None = None,
                    p: Params | None = None, spare: Sequence[Detection] = ()) -> Scan:
    """Columns, proposed groups, layout and score from detections already made (threshold
    tuning rebuilds detections many times from one network pass): the geometry's draft, the
    rules' repairs (``REPAIRS``, in order), then assembly. ``spare``: weak finds the rules may
    take in (``take_in``)."""
    draft = repair(Draft.propose(dets, {**DEFAULT_BASE, **(base or {})}, p, spare))
    return rescore(Scan(width, height, list(draft.detections), list(draft.columns), Assembled({}, False, [])),
                   base, p)


def scan_decoded(img: Decoded, detector: Detector | None = None, base: dict[str, Any] | None = None,
                 p: Params | None = None, deck: Deck | None = None) -> Scan:
    """``deck``: read with a taught deck too (``zipai.vision.deck``); the detector must then
    carry the reader's embedding (``Detector(embed=True)``; by default ``deck.deck_detector``)."""
    if deck is None:
        found = (detector or default_detector()).detect(img)
    else:
        from .deck.lens import reread
        from .deck.model import deck_detector

        det = detector or deck_detector()
        found = det.detect(img, lens=reread(deck, det))
    sc = scan_detections(img.width, img.height, found.detections, base, p, found.spare)
    sc.timing = found.timing.to_json()
    sc.look = found.look
    sc.deck = None if deck is None else deck.name
    return sc


def scan_file(path: str | Path, detector: Detector | None = None, base: dict[str, Any] | None = None,
              p: Params | None = None, deck: Deck | None = None) -> Scan:
    """Scan a photo file. Bad files raise ``ImageError`` (a ValueError) with one clear line."""
    return scan_decoded(load(path), detector, base, p, deck)


def scan_bytes(data: bytes, detector: Detector | None = None, base: dict[str, Any] | None = None,
               name: str = "photo", deck: Deck | None = None) -> Scan:
    return scan_decoded(decode(data, name), detector, base, deck=deck)


_COLORS = {"back": (40, 120, 255), "red": (230, 30, 30), "black": (20, 170, 60)}


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    for name in ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


OVERLAY_SIDE = 2048
"""The overlay's long side at most: the scan's working size (``decode.MAX_SIDE``). Drawn at a
16000x15000 photo's own size it took 1.4 GB and 33 s; at this size it takes 12 MB at most,
known before the scan starts, and every box is still drawn where the scan saw it."""


def overlay(photo: Image.Image, sc: Scan) -> Image.Image:
    """The photo with each detection boxed and labelled, group outlines and doubts in yellow,
    at most ``OVERLAY_SIDE`` on its long side (boxes scaled from photo pixels to its own)."""
    k = min(1.0, OVERLAY_SIDE / max(sc.width, sc.height, 1))
    size = (max(1, round(sc.width * k)), max(1, round(sc.height * k)))
    img = photo.convert("RGB") if photo.size == size else photo.convert("RGB").resize(size)
    if img is photo:
        img = img.copy()

    def at(b: Sequence[float]) -> tuple[float, float, float, float]:
        return (b[0] * k, b[1] * k, b[2] * k, b[3] * k)

    draw = ImageDraw.Draw(img)
    lw = max(2, round(max(img.size) / 600))
    font = _font(max(12, round(max(img.size) / 70)))
    doubtful = {i for d in sc.assembled.doubts for i in d.detections}
    for g, c in enumerate(sc.columns):
        boxes = [at(sc.detections[i].box) for i in c.detections if i >= 0]  # a card no find shows has none
        if not boxes:
            continue
        x0 = min(b[0] for b in boxes) - 3 * lw
        y0 = min(b[1] for b in boxes) - 3 * lw
        x1 = max(b[2] for b in boxes) + 3 * lw
        y1 = max(b[3] for b in boxes) + 3 * lw
        draw.rectangle((x0, y0, x1, y1), outline=(255, 255, 255), width=lw)
        draw.text((x0, y1 + lw), f"G{g} {c.state}", fill=(255, 255, 255), font=font,
                  stroke_width=2, stroke_fill=(0, 0, 0))
    for i, d in enumerate(sc.detections):
        col = _COLORS["back" if d.card == "back" else (d.color or "black")]
        if i in doubtful:
            col = (255, 220, 0)
        box = at(d.box)
        draw.rectangle(box, outline=col, width=lw)
        draw.text((box[0], box[1] - font.size - lw if hasattr(font, "size") else box[1] - 14),
                  f"{d.card} {d.score:.2f}", fill=col, font=font, stroke_width=2, stroke_fill=(0, 0, 0))
    return img
