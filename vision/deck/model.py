"""Teaching the scanner one printed deck from a photo of its 20 faces, and reading with it.

A deck is a few glyph crops per card, each kept with the card it shows and where it came from
(the teaching photo, a tap in the app's review, ``zipai deck add``). From them comes one
prototype per card: the mean of the reader's embedding (the pooled feature its last layer
reads) over each crop under small shifts, scalings, turns, light and blur. A find is read by
the reader as always, and then again by its embedding's likeness to the deck's prototypes; the
two opinions are multiplied. Only the split of the face probability among the 20 faces changes:
"back" and "none" keep the reader's value, so the finds kept stay the finds the reader keeps.

Runtime code: numpy, Pillow and onnxruntime only. The file format is in docs/decks.md."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from zipai.engine import CARD_NAMES, Card, ZipaiError
from zipai.engine.files import read_file, shown
from zipai.engine.text import bad_char, printable

from ..detector import Detector
from ..errors import VisionError
from ..loaded import loaded_detector
from ..preprocess import cut_crops, normalise

FORMAT = 2
READ_FORMATS = (1, 2)  # version 1 (its SHA-256 covered the crops and prototypes only) is still read
MAGIC = b"ZIPAIDECK"
CROP = 64  # stored crops: CROP x CROP RGB, the square CROP_MARGIN times the glyph's long side
CROP_MARGIN = 1.6
SOURCES = ("teach", "review", "cli")
CLASSES = (*CARD_NAMES, "back")  # what an example may show; only faces get prototypes
MAX_NAME = 64
MAX_PER_CARD = 32
"""Examples of one card (the teaching photo gives one; each correction one more): past a few
dozen the prototype no longer moves, and the bound keeps a deck's derive to seconds."""
MAX_EXAMPLES = (len(CARD_NAMES) + 1) * MAX_PER_CARD  # the faces and the back
MAX_HEADER = 1 << 20
MAX_DIM = 1024
EXAMPLE_BYTES = CROP * CROP * 3
MAX_FILE = 64 + MAX_HEADER + MAX_EXAMPLES * EXAMPLE_BYTES + len(CARD_NAMES) * MAX_DIM * 4
AUGMENTS = 8  # views of each crop the prototypes average (the crop itself among them)
WEIGHT = 2.0  # the deck's say against the reader's: probabilities multiplied, the deck's to this power
SHARPNESS = 20.0  # cosine similarities to prototypes, scaled, then softmax over the deck's cards
CONFUSABLE = 0.12  # prototypes closer than this (1 - cosine) stay confusable: the learner warns
ALIKE = 0.95  # two faces' embeddings this alike (cosine) are one card laid twice
# two faces this alike (cosine) are one card laid twice whatever the reader reads them as: on 16
# validation decks the closest two faces of a good, slanted or upside-down photo lie at most 0.76
# apart, a card laid twice at least 0.95 (on the 20 held-out decks: 0.88 and 0.94)
TWINS = 0.92
# places read as other cards of the deck a photo may have before its order counts as broken (17
# of 20 agree); places read as no card do not count: the finder and reader miss faint prints
MAX_UNSURE = 3
MIN_PLACED = 15  # faces the finder must find at the 20 places for the rest to be read by place
VACANT_CROP = 32  # pixels of the square a place's paper and ink are measured on
VACANT_SPREAD = 12.0  # the least distance (RGB units) the farthest found face's paper is counted at
# a missed place the reader reads as no face is bare when its square's colour lies further from the
# found faces' paper than this share of the farthest found face's, or its ink is under this share
# of theirs. ``zipai tune vacant-places`` on 10 validation decks: every one of 90 missed places
# with a card was read as a face, every one of 10 bare places as none; of the settings that call
# every bare place bare, this one calls the fewest cards bare were they read as none (41 of 90:
# the paper of a print and of a table overlap), ink in the middle of its gap (bare 0.01 to 0.09,
# cards 0.36 up)
VACANT_PAPER = 0.4
VACANT_INK = 0.2
# where a missed place's face is looked for: steps along the row (of the spacing) and across it (of
# the glyph's height), the place's own box first among equals
SEARCH = tuple((a, b) for a in (0.0, -0.1, 0.1, -0.2, 0.2) for b in (0.0, -0.25, 0.25))
MAX_STRAY = 2  # faces found off the layout's two rows (a back read as a face, a far end) let be
TILT = np.radians(4.0)  # a teaching photo turned by more than this has its crops turned upright
MIN_SHARPNESS = 1.0  # the glyphs' median sharpness (``sharpness``) a teaching photo needs
LOCK_WAIT = 5.0  # seconds a writer waits for another process's lock on the same deck


class DeckError(VisionError):
    """A deck that cannot be named, found, read or written: the message names it and the problem."""

    def __init__(self, message: str, code: str = "deck") -> None:
        super().__init__(message, code)


class TeachRefused(DeckError):
    """A teaching photo the learner will not learn from; ``str`` is the line shown to the player.
    ``kind`` names the refusal and ``fields`` carry its numbers and cards (card text such as
    ``x3``), so an app can word it in its own language without reading the English line."""

    def __init__(self, message: str, kind: str = "teach", **fields: str | int | float) -> None:
        super().__init__(message, "teach_refused")
        self.kind = kind
        self.fields = fields


def _at(index: int, suffix: str = "") -> dict[str, int]:
    """A face's place as refusal fields: ``row`` and ``col`` (1-based), with ``suffix``."""
    return {f"row{suffix}": index // 10 + 1, f"col{suffix}": index % 10 + 1}


def glyph(card: str) -> str:
    """What a player calls the card: 一…十, 壹…拾; 'back' for a back, 'nothing' for the reader's none."""
    if card in ("back", "none"):
        return "nothing" if card == "none" else card
    return Card.parse(card).chinese(traditional=True)


def place(index: int) -> str:
    """Where the ``index``-th face of the teaching layout lies, in the player's words."""
    return f"row {index // 10 + 1}, place {index % 10 + 1}"


# ----------------------------------------------------------------------------- the deck itself

@dataclass(frozen=True, eq=False)
class Example:
    """One glyph crop (uint8 CROP x CROP x 3) and the card it shows; ``source`` says who said so."""

    card: str
    source: str
    crop: np.ndarray


@dataclass(frozen=True, slots=True)
class Peaks:
    """How strongly the finder found each face of the teaching photo: its peak per card
    (CARD_NAMES order; 0: no face of that card), and the finder network that gave them
    (``finder_fingerprint``). A deck whose 一 the finder barely sees on a clean, whole card will
    find it faint in a table scene too, under the bar set for every deck (``Admit.faint``). A
    peak needs the whole photo, which a deck does not keep, so another finder cannot derive
    them again: a deck it did not find keeps none."""

    finder: str
    values: tuple[float, ...]

    def of(self, card: str) -> float:
        return self.values[CARD_NAMES.index(card)] if card in CARD_NAMES else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"finder": self.finder, "values": list(self.values)}

    @classmethod
    def from_json(cls, d: object) -> Peaks:
        if not isinstance(d, dict) or set(d) != {"finder", "values"} or not isinstance(d["finder"], str) \
                or len(d["finder"]) > 64 or not isinstance(d["values"], list) \
                or len(d["values"]) != len(CARD_NAMES) \
                or not all(isinstance(v, int | float) and not isinstance(v, bool) and 0.0 <= v <= 1.0
                           for v in d["values"]):
            raise ValueError("peaks are a finder and 20 numbers from 0 to 1")
        return cls(d["finder"], tuple(float(v) for v in d["values"]))


@dataclass(frozen=True, eq=False)
class Deck:
    """A taught deck: its examples, and the prototypes derived from them with ``model`` (the
    fingerprint of the reader's embedding network; another model derives them again)."""

    name: str
    model: str
    examples: tuple[Example, ...]
    prototypes: np.ndarray  # [20, D] unit vectors, CARD_NAMES order; a row of zeros: no example
    created: str = ""
    # the back's prototype [D] (unit), from the back's crops; derived, not stored: ``with_back``
    back: np.ndarray | None = field(default=None, repr=False)
    peaks: Peaks | None = None  # the finder's peaks on the teaching photo's faces

    def counts(self) -> dict[str, dict[str, int]]:
        """Card -> source -> number of examples, in CARD_NAMES order (then the back)."""
        out: dict[str, dict[str, int]] = {}
        for c in CLASSES:
            per = {s: sum(1 for e in self.examples if e.card == c and e.source == s) for s in SOURCES}
            if any(per.values()):
                out[c] = {s: n for s, n in per.items() if n}
        return out

    def separations(self) -> dict[str, tuple[str, float]]:
        """Each taught card's nearest other card of this deck and how far (1 - cosine)."""
        return separations(self.prototypes)

    def warnings(self) -> tuple[str, ...]:
        """The pairs of cards that stay confusable in this deck."""
        return confusable(self.separations())


def separations(protos: np.ndarray) -> dict[str, tuple[str, float]]:
    have = np.flatnonzero(np.linalg.norm(protos, axis=1) > 0)
    out: dict[str, tuple[str, float]] = {}
    if len(have) < 2:
        return out
    d = 1.0 - protos[have] @ protos[have].T
    np.fill_diagonal(d, np.inf)
    for row, i in enumerate(have):
        j = int(np.argmin(d[row]))
        out[CARD_NAMES[i]] = (CARD_NAMES[have[j]], round(float(d[row, j]), 4))
    return out


def confusable(seps: dict[str, tuple[str, float]]) -> tuple[str, ...]:
    near = {tuple(sorted((a, b), key=CARD_NAMES.index)) for a, (b, d) in seps.items() if d < CONFUSABLE}
    pairs = sorted(near, key=lambda p: CARD_NAMES.index(p[0]))
    return tuple(f"{glyph(a)} and {glyph(b)} look alike in this deck (distance {seps[a][1]:.3f}): "
                 "check them in the review" for a, b in pairs)


# ----------------------------------------------------------------------------- embedding

def fingerprint(det: Detector) -> str:
    """The embedding network a deck's prototypes were derived with."""
    spec = det.manifest.embed_spec() or {}
    return str(spec.get("sha256", ""))[:16]


def finder_fingerprint(det: Detector) -> str:
    """The finder network a deck's peaks came from."""
    spec = det.manifest.data.get("finder")
    return str(spec.get("sha256", ""))[:16] if isinstance(spec, dict) else ""


def _own_peaks(det: Detector, peaks: Peaks | None) -> Peaks | None:
    """``peaks`` where this detector's finder gave them; another finder's say nothing of it."""
    return peaks if peaks is not None and peaks.finder == finder_fingerprint(det) else None


def embed_dim(det: Detector) -> int:
    """The length of the reader's embedding, from one blank crop embedded (a few milliseconds)."""
    size = det.config.reader.size
    return int(_embed_crops(det, np.zeros((1, size, size, 3), np.uint8)).shape[1])


def _margins(det: Detector) -> tuple[float, ...]:
    r = det.config.reader
    return r.margins or (r.margin,)


def _embed_crops(det: Detector, crops: np.ndarray) -> np.ndarray:
    """Unit embeddings [N, D] of reader crops (uint8 N x size x size x 3)."""
    if not det.embeds:
        raise DeckError("decks need a detector made with embed=True (the reader's embedding twin)")
    cfg = det.config
    out = []
    for i in range(0, len(crops), 256):
        x = normalise(crops[i:i + 256], cfg.mean, cfg.std)
        outs = det.sessions[1].run({cfg.reader.input: x})
        out.append(np.asarray(outs[2], np.float32))
    e = np.concatenate(out) if out else np.zeros((0, 1), np.float32)
    unit: np.ndarray = e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-6)
    return unit


def views(crop: np.ndarray, n: int, size: int, margins: Sequence[float], seed: int) -> np.ndarray:
    """Reader crops [n * len(margins), size, size, 3] of a stored crop: itself, then ``n - 1``
    views shifted, scaled, turned, lit and blurred a little (what the next photo of the same
    card does), at each margin, margin by margin."""
    rng = np.random.default_rng(seed)
    g, c = CROP / CROP_MARGIN, CROP / 2  # the glyph's side and centre in stored-crop pixels
    dx, dy = rng.uniform(-0.08, 0.08, (2, n)) * g
    scale = rng.uniform(0.9, 1.12, n)
    angle = np.radians(rng.uniform(-7.0, 7.0, n))
    light = rng.uniform(0.8, 1.15, n)
    blur = rng.random(n) < 0.4
    dx[0] = dy[0] = angle[0] = 0.0
    scale[0] = light[0] = 1.0
    blur[0] = False
    half = g * scale / 2
    boxes = np.stack([c + dx - half, c + dy - half, c + dx + half, c + dy + half], axis=1)
    k = len(margins)
    out = cut_crops(crop, np.tile(boxes, (k, 1)), size, np.repeat(np.asarray(margins, np.float32), n),
                    np.tile(angle, k).astype(np.float32)).astype(np.float32)
    soft = np.tile(blur, k)
    if soft.any():  # a light blur: each pixel with its four neighbours
        x = out[soft]
        p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="edge")
        out[soft] = (2 * x + p[:, :-2, 1:-1] + p[:, 2:, 1:-1] + p[:, 1:-1, :-2] + p[:, 1:-1, 2:]) / 6
    out *= np.tile(light, k)[:, None, None, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _prototype(det: Detector, crops: Sequence[np.ndarray]) -> np.ndarray | None:
    """The unit mean embedding of stored crops under the views ``derive`` takes (None: no crop)."""
    if not crops:
        return None
    margins = _margins(det)
    views_ = np.concatenate([views(c, AUGMENTS, det.config.reader.size, margins, seed=k)
                             for k, c in enumerate(crops)])
    s: np.ndarray = _embed_crops(det, views_).sum(axis=0)
    return s / max(float(np.linalg.norm(s)), 1e-6)


def with_back(det: Detector, deck: Deck) -> Deck:
    """The deck with its back's prototype (``Deck.back``) derived from its back crops: the file
    keeps the crops, and one crop's views cost a few milliseconds to embed at load."""
    return replace(deck, back=_prototype(det, [e.crop for e in deck.examples if e.card == "back"]))


def derive(det: Detector, name: str, examples: Sequence[Example], created: str = "",
           peaks: Peaks | None = None) -> Deck:
    """The deck's prototypes from its examples, with this detector's embedding network; its
    ``peaks`` kept only where this detector's finder gave them."""
    margins = _margins(det)
    protos = np.zeros((len(CARD_NAMES), 0), np.float32)
    sums: dict[int, np.ndarray] = {}
    faces = [(CARD_NAMES.index(e.card), e) for e in examples if e.card in CARD_NAMES]
    if faces:
        crops = np.concatenate([views(e.crop, AUGMENTS, det.config.reader.size, margins, seed=k)
                                for k, (_, e) in enumerate(faces)])
        emb = _embed_crops(det, crops).reshape(len(faces), AUGMENTS * len(margins), -1)
        for (i, _), e in zip(faces, emb, strict=True):
            sums[i] = sums.get(i, 0) + e.sum(axis=0)
        protos = np.zeros((len(CARD_NAMES), emb.shape[-1]), np.float32)
        for i, s in sums.items():
            protos[i] = s / max(float(np.linalg.norm(s)), 1e-6)
    return with_back(det, Deck(name, fingerprint(det), tuple(examples), protos, created or _now(),
                               peaks=_own_peaks(det, peaks)))


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _card_name(card: str) -> str:
    try:
        return str(Card.parse(card))
    except ValueError:
        raise DeckError(f"{card!r} is not a card (x1…x10, d1…d10 or its numeral)") from None


def deck_detector(threads: int = 2) -> Detector:
    """The shipped model with the reader's embedding twin, loaded once per process and thread
    count (``vision.loaded``)."""
    return loaded_detector(embed=True, threads=threads)


# ----------------------------------------------------------------------------- the store

_BAD_NAME = re.compile(r"[/\\\x00-\x1f\x7f:*?\"<>|]")
NAME_BYTES = 255 - len(".lock") - 1
"""A name's bytes in UTF-8 at most: its lock file ``.NAME.lock`` must fit the 255 bytes a file
name takes on every common filesystem (64 astral-plane characters are 256 bytes)."""


def check_name(name: object) -> str:
    """A deck name that is safe as a file name and as a line of text: refused with a DeckError
    naming it otherwise. Characters that hide or reorder text (U+202E, U+200B) are refused as
    the ledger refuses them in player names (``zipai.engine.text.bad_char``)."""
    if not isinstance(name, str) or not name.strip():
        raise DeckError(f"deck name {printable(str(name)[:20])!r} is empty: give a name", "bad_name")
    if len(name) > MAX_NAME:
        raise DeckError(f"deck name {printable(name[:20])!r}… is too long ({len(name)} characters, at most "
                        f"{MAX_NAME})", "bad_name")
    if _BAD_NAME.search(name) or name.startswith(".") or name != name.strip():
        raise DeckError(f"deck name {printable(name)!r} may not hold path separators, control characters, "
                        "a leading dot or surrounding spaces", "bad_name")
    c = bad_char(name)
    if c is not None:
        raise DeckError(f"deck name {printable(name)!r} holds an invisible or text-reordering character "
                        f"(U+{ord(c):04X})", "bad_name")
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate (bad_char finds these first)
        raise DeckError(f"deck name {printable(name)!r} is not valid text", "bad_name") from None
    if size > NAME_BYTES:
        raise DeckError(f"deck name {printable(name[:20])!r}… is {size} bytes in UTF-8, more than the "
                        f"{NAME_BYTES} a file name takes; give a shorter name", "bad_name")
    return name


# ----------------------------------------------------------------------------- the file format

def dumps(deck: Deck) -> bytes:
    """The deck file's bytes (docs/decks.md): a first line with the format, the header's length
    and the SHA-256 of every byte after that line; a JSON header, the crops, the prototypes."""
    crops = np.stack([e.crop for e in deck.examples]).astype(np.uint8) if deck.examples \
        else np.zeros((0, CROP, CROP, 3), np.uint8)
    protos = np.ascontiguousarray(deck.prototypes, "<f4")
    body = crops.tobytes() + protos.tobytes()
    header = json.dumps({
        "format": FORMAT, "name": deck.name, "model": deck.model, "created": deck.created,
        "crop": {"size": CROP, "margin": CROP_MARGIN},
        "examples": [[e.card, e.source] for e in deck.examples],
        "prototypes": {"classes": list(CARD_NAMES), "dim": int(protos.shape[1]) if protos.ndim == 2 else 0},
        **({} if deck.peaks is None else {"peaks": deck.peaks.to_json()}),
    }, ensure_ascii=False).encode("utf-8")
    digest = hashlib.sha256(header + body).hexdigest()
    return MAGIC + f" {FORMAT} {len(header)} {digest}\n".encode() + header + body


def read_deck(path: Path) -> Deck:
    """A deck file, every field checked: a file cut short, altered or too large, a FIFO or a
    folder in its place is a DeckError naming it, never a crash or a hang (``read_file``
    opens without blocking and refuses what is not a regular file before reading)."""
    try:
        data = read_file(path, MAX_FILE, "deck file")
    except ZipaiError as exc:
        raise DeckError(f"{exc}; remove it or teach the deck again", "bad_deck" if exc.code == "too_large"
                        else "io") from None
    return loads(data, str(path))


_HEADER_KEYS = {"format", "name", "model", "created", "crop", "examples", "prototypes", "peaks", "sha256"}
_HEX = re.compile(r"[0-9a-f]{0,64}")
_CREATED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _number(field: bytes, digits: int) -> int | None:
    """A decimal field of the first line: ASCII digits only, at most ``digits`` of them."""
    return int(field) if 0 < len(field) <= digits and field.isdigit() else None


def loads(data: bytes, where: str = "deck") -> Deck:
    """The deck in a file's bytes. Version 2's first line holds the SHA-256 of everything after
    it, header included; version 1 (read, never written) kept the SHA-256 of the crops and
    prototypes in its header, so its header is checked field by field only."""
    where = shown(where)

    def bad(why: str) -> DeckError:
        return DeckError(f"{where}: {why}; teach the deck again (zipai deck learn)", "bad_deck")

    line, nl, rest = data.partition(b"\n")
    parts = line.split(b" ")
    if not nl or len(parts) not in (3, 4) or parts[0] != MAGIC:
        raise bad("not a deck file" if not data.startswith(MAGIC) else "the file is cut short")
    version = _number(parts[1], 3)
    if version not in READ_FORMATS or len(parts) != (3 if version == 1 else 4):
        shown_v = parts[1][:10].decode("ascii", "replace")
        raise bad(f"deck format {printable(shown_v)} is not one this version reads ({FORMAT})")
    n = _number(parts[2], 7)
    if n is None or n > MAX_HEADER:
        raise bad("the header length is not a number this size")
    if len(rest) < n:
        raise bad("the file is cut short")
    try:
        head = json.loads(rest[:n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise bad("the header is not JSON") from None
    body = rest[n:]
    if not isinstance(head, dict) or set(head) - _HEADER_KEYS or head.get("format") != version \
            or ("sha256" in head) != (version == 1):
        raise bad("the header's fields are not this format's")
    try:
        name = check_name(head["name"])
    except (KeyError, DeckError):
        raise bad("the header lacks or garbles a field (name)") from None
    model, created = head.get("model"), head.get("created", "")
    if not isinstance(model, str) or not _HEX.fullmatch(model):
        raise bad("the header's model is not a fingerprint (up to 64 hex digits)")
    if not isinstance(created, str) or not (created == "" or _CREATED.fullmatch(created)):
        raise bad(f"the header's created is not a UTC time like 2026-12-07T03:00:00Z "
                  f"({printable(str(created)[:30])!r})")
    crop, examples, protos_head = head.get("crop"), head.get("examples"), head.get("prototypes")
    if not isinstance(protos_head, dict) or set(protos_head) != {"classes", "dim"}:
        raise bad("the header lacks or garbles a field (prototypes)")
    dim, classes = protos_head["dim"], protos_head["classes"]
    if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim <= MAX_DIM:
        raise bad(f"the prototypes' dimension is not a whole number from 0 to {MAX_DIM}")
    try:
        peaks = None if head.get("peaks") is None else Peaks.from_json(head["peaks"])
    except ValueError as exc:
        raise bad(f"the header's {exc}") from None
    if crop != {"size": CROP, "margin": CROP_MARGIN} or classes != list(CARD_NAMES):
        raise bad("the header's crop size, classes or dimension are not this format's")
    if not isinstance(examples, list) or len(examples) > MAX_EXAMPLES or not all(
            isinstance(e, list) and len(e) == 2 and e[0] in CLASSES and e[1] in SOURCES for e in examples):
        raise bad(f"the examples are not a list of at most {MAX_EXAMPLES} [card, source] pairs")
    per_card = Counter(c for c, _ in examples)
    if per_card and max(per_card.values()) > MAX_PER_CARD:
        card, count = per_card.most_common(1)[0]
        raise bad(f"{count} examples of {card}, at most {MAX_PER_CARD} of one card")
    want = len(examples) * EXAMPLE_BYTES + len(CARD_NAMES) * dim * 4
    if len(body) < want:
        raise bad(f"the file is cut short ({len(body)} of {want} bytes of crops and prototypes)")
    if len(body) > want:
        raise bad("the file has bytes after its end")
    if version == 1 and hashlib.sha256(body).hexdigest() != head["sha256"]:
        raise bad("its crops or prototypes were altered (SHA-256 differs)")
    if version >= 2 and hashlib.sha256(rest).hexdigest().encode() != parts[3]:
        raise bad("its header, crops or prototypes were altered (SHA-256 differs)")
    crops = np.frombuffer(body, np.uint8, len(examples) * EXAMPLE_BYTES).reshape(-1, CROP, CROP, 3)
    protos = np.frombuffer(body, "<f4", len(CARD_NAMES) * dim, len(examples) * EXAMPLE_BYTES)
    protos = protos.reshape(len(CARD_NAMES), dim).astype(np.float32)
    _check_prototypes(protos, bad)
    exs = tuple(Example(c, s, crops[i].copy()) for i, (c, s) in enumerate(examples))
    return Deck(name, model, exs, protos, created, peaks=peaks)


def _check_prototypes(protos: np.ndarray, bad: Any) -> None:
    """Every number of a unit vector lies from -1 to 1: anything else (NaN, 3e38) was not
    written by ``derive`` and would overflow the likeness with numpy's warnings on stderr."""
    if not np.isfinite(protos).all() or (protos.size and float(np.abs(protos).max()) > 1.0 + 1e-4):
        raise bad("a prototype is not a finite number from -1 to 1")
