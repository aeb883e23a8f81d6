"""A guest's proposed hand: by its total, or by a photo read with the scan. A proposal waits
in memory until the host accepts it (then, and only then, the ledger records it) or rejects
it; nothing of it is on disk before that, so stopping the server leaves nothing behind."""

from __future__ import annotations

import io
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zipai.engine import Result, ZipaiError, score_hand
from zipai.engine.api import WON_BY
from zipai.engine.files import write_whole
from zipai.engine.total import MAX_TOTAL, MAX_XING
from zipai.scorer import SessionInfo
from zipai.scorer.checks import bad_char
from zipai.scorer.state import engine_input

MAX_PENDING = 8  # proposals waiting for the host at once
MAX_BY = 16  # characters of a guest's name
MAX_PHOTO_SIDE = 1280  # the overlay the page shows


class ProposalError(ValueError):
    """A proposal refused, in one line the guest can act on; ``status`` is the HTTP answer."""

    def __init__(self, message: str, status: int = 400, code: str = "bad_proposal") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass(frozen=True, slots=True)
class Photo:
    """A proposal's photo as re-encoded here (never the guest's bytes) and as read, boxed."""

    jpeg: bytes
    overlay: bytes
    doubts: int


@dataclass(slots=True)
class Proposal:
    id: str
    raw: dict[str, Any]  # the ledger's input: the hand without rules, players and dealer
    by: str
    photo: Photo | None = None
    created: float = field(default_factory=time.time)

    @property
    def kind(self) -> str:
        return "photo" if self.photo is not None else "total"


def _int(value: Any, key: str, lo: int, hi: int) -> int:
    """A whole number from JSON or a query string, in range, or a ProposalError naming the field."""
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 4:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ProposalError(f"{key!r} must be a whole number from {lo} to {hi}, got {str(value)[:20]!r}")
    return value


def hand_fields(fields: Mapping[str, Any], s: SessionInfo) -> dict[str, Any]:
    """Who won, how, from whom (and Guilin's 醒): the part of a hand that the guest chooses."""
    raw: dict[str, Any] = {"winner": _int(fields.get("winner"), "winner", 0, s.n - 1)}
    won_by = fields.get("won_by")
    if won_by not in WON_BY:
        raise ProposalError(f"'won_by' must be one of {', '.join(WON_BY)}, got {str(won_by)[:20]!r}")
    raw["won_by"] = won_by
    if won_by == "discard":
        raw["from"] = _int(fields.get("from"), "from", 0, s.n - 1)
    xing = fields.get("xing")
    if xing not in (None, "", 0, "0"):
        if not s.variant.turned_cards:
            raise ProposalError(f"{s.preset} turns no 醒 card")
        raw["xing"] = _int(xing, "xing", 0, MAX_XING)
    return raw


def guest_name(value: Any) -> str:
    if value is None or value == "":
        return ""
    if not isinstance(value, str) or len(value) > MAX_BY or bad_char(value) or not value.strip():
        raise ProposalError(f"a name is one line of at most {MAX_BY} characters")
    return value.strip()


def preview(raw: Mapping[str, Any], s: SessionInfo, dealer: int) -> Result:
    """What recording the hand now would give: the session's rules, the current dealer."""
    try:
        return score_hand(engine_input(s, raw, dealer, None), s.rules)
    except ZipaiError as exc:
        raise ProposalError(str(exc), code=getattr(exc, "code", "bad_input")) from None


class Proposals:
    """The proposals waiting for the host, at most ``MAX_PENDING``; safe to share between threads."""

    def __init__(self, limit: int = MAX_PENDING) -> None:
        self.limit = limit
        self._items: dict[str, Proposal] = {}
        self._lock = threading.Lock()

    def pending(self) -> list[Proposal]:
        with self._lock:
            return list(self._items.values())

    def get(self, pid: str) -> Proposal | None:
        with self._lock:
            return self._items.get(pid)

    def take(self, pid: str) -> Proposal | None:
        with self._lock:
            return self._items.pop(pid, None)

    def _add(self, p: Proposal) -> Proposal:
        with self._lock:
            if len(self._items) >= self.limit:
                raise ProposalError(f"{self.limit} proposals are already waiting for the host; "
                                    "try again once they are answered", status=429, code="busy")
            self._items[p.id] = p
        return p

    def by_total(self, body: Mapping[str, Any], s: SessionInfo, dealer: int) -> Proposal:
        """A hand by its 福/油/胡 total, refused unless it wins under the current dealer."""
        raw = hand_fields(body, s)
        raw["total"] = _int(body.get("total"), "total", 0, MAX_TOTAL)
        res = preview(raw, s, dealer)
        if not res.winning:
            raise ProposalError(res.reason.message if res.reason else "not a winning hand",
                                code="not_winning")
        return self._add(Proposal(secrets.token_urlsafe(9), raw, guest_name(body.get("by"))))

    def by_photo(self, data: bytes, fields: Mapping[str, Any], s: SessionInfo, dealer: int,
                 read: Callable[[bytes, dict[str, Any]], tuple[dict[str, Any], Photo]]) -> Proposal:
        """A hand read from a photo by ``read`` (the scan), refused unless it wins."""
        raw = hand_fields(fields, s)
        by = guest_name(fields.get("by"))
        base = {"rules": s.preset, "players": s.n, "dealer": dealer, **raw}
        layout, photo = read(data, base)
        stored = {k: v for k, v in layout.items() if k not in ("rules", "players", "dealer", "options")}
        res = preview(stored, s, dealer)
        if not res.winning:
            msg = res.reason.message if res.reason else "not a winning hand"
            raise ProposalError(f"the photo reads as no winning hand ({msg}); take it again or "
                                "propose the total", code="not_winning")
        return self._add(Proposal(secrets.token_urlsafe(9), stored, by, photo))


def read_photo(data: bytes, base: dict[str, Any]) -> tuple[dict[str, Any], Photo]:
    """Decode and scan a photo (the scan's own budget and refusals), and re-encode it with its
    boxes drawn. Raises the scan's ``ImageError`` (a ValueError) for anything not a usable photo."""
    from zipai.vision.decode import decode
    from zipai.vision.scan import overlay, scan_decoded

    img = decode(data, "photo")
    sc = scan_decoded(img, base=base)
    if sc.error:
        raise ProposalError(f"the photo cannot be scored: {sc.error}", code="not_winning")
    return sc.assembled.layout, Photo(jpeg(img.image, 90), jpeg(overlay(img.image, sc), 80, MAX_PHOTO_SIDE),
                                      len(sc.assembled.doubts))


def jpeg(image: Any, quality: int, side: int | None = None) -> bytes:
    """An RGB picture as JPEG bytes, at most ``side`` pixels on its long side."""
    img = image.convert("RGB")
    if side is not None and max(img.size) > side:
        img = img.copy()
        img.thumbnail((side, side))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    return buf.getvalue()


def keep_photo(photo: Photo, folder: Path, sid: int, pid: str) -> Path:
    """Write an accepted proposal's photo beside the ledger, atomically (temp file, fsync, rename),
    under a name made here: nothing the guest sent names it."""
    folder.mkdir(parents=True, exist_ok=True)
    dest = folder / f"s{sid}-{int(time.time() * 1000)}-{pid}.jpg"
    write_whole(dest, photo.jpeg)  # as the ledger beside it: a new file's mode under the umask
    return dest
