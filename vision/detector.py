"""The shipped detector: manifest (checked), finder + reader sessions, photo -> detections."""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from zipai.engine import CARD_NAMES, ZipaiError
from zipai.engine.files import read_file

from .color import RED_THRESHOLD, redness
from .decode import Decoded
from .errors import ModelError
from .postprocess import decode_heatmap, nms, to_image, turned_back
from .preprocess import Letterbox, cut_crops, letterbox, normalise, turned_crops, turned_input
from .selector import RED, SYMMETRIC, Selector, SelectorError, covers, main_axis
from .selector import features as selector_features
from .session import Session, SessionFactory, ort_factory, signed_kernels_exact, unfused_ort_factory

FACES = CARD_NAMES
RESCUE_OFF = (1.0, 2.0)  # a second chance (peak floor, reader probability) that no find passes
MAX_SPARE = 8  # weak finds offered to the layout, at most (each try re-clusters and splits the hand)
CARD_GLYPHS = 4.0  # a card's length in glyph sizes, about: the margin around the finds of a second look
WINDOW_MARGIN = 0.1  # and this much of the photo's long side more, for cards the first look missed
Window = tuple[int, int, int, int]  # part of the decoded photo, x0, y0, x1, y1
# deck seam (zipai.vision.deck): reader probabilities [N, classes] and embeddings [N, D] -> probabilities
Reread = Callable[[np.ndarray, np.ndarray], np.ndarray]
WEIGHTS = ("auto", "uint8", "int8")  # which network files a Detector loads (see Detector.__init__)


def models_dir() -> Path:
    """Where the shipped model lives (the zipai.models package directory)."""
    import zipai.models

    return Path(zipai.models.__file__).resolve().parent


def default_manifest() -> Path:
    return models_dir() / "manifest.json"


@dataclass(slots=True)
class Detection:
    """One card read from the photo. ``box`` is in photo pixels (after EXIF orientation)."""

    card: str  # x1..x10, d1..d10 or back
    box: tuple[float, float, float, float]
    score: float
    color: str | None  # measured ink colour; None for a back
    finder_score: float = 1.0
    class_prob: float = 1.0
    redness: float = 0.0
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    down: tuple[float, float] = (0.0, 1.0)  # the card's top-to-bottom direction in the photo
    color_margin: float = 1.0  # how far the ink's redness lies from the red/black threshold
    read_as: str | None = None  # the reader's first choice, when the rules chose another (reread)
    taken_in: bool = False  # a weak find the rules took in (layout.take_in)
    selected: float | None = None  # the selector's probability that this find is a card, if it chose

    @property
    def center(self) -> tuple[float, float]:
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2

    @property
    def color_ok(self) -> bool:
        """Whether the measured ink colour agrees with the class."""
        return self.card == "back" or (self.color == "red") == (self.card in RED)

    def to_json(self) -> dict[str, Any]:
        out = {"card": self.card, "color": self.color, "box": [round(float(v), 1) for v in self.box],
               "score": round(float(self.score), 4)}
        if self.read_as:
            out["read_as"] = self.read_as
        if self.taken_in:
            out["taken_in"] = True
        return out


@dataclass(frozen=True, slots=True)
class Manifest:
    """What the model files are and how to feed them (models/manifest.json)."""

    path: Path
    data: dict[str, Any]

    @property
    def finder(self) -> dict[str, Any]:
        return self.data["finder"]

    @property
    def reader(self) -> dict[str, Any]:
        return self.data["reader"]

    @property
    def mean(self) -> tuple[float, ...]:
        return tuple(self.data["normalise"]["mean"])

    @property
    def std(self) -> tuple[float, ...]:
        return tuple(self.data["normalise"]["std"])

    @property
    def signed_weights(self) -> bool:
        """Whether the networks are int8 with their weights stored as int8 (exported before
        ``zipai.models.export.unsigned_weights``), which fused kernels can get wrong."""
        int8 = self.data.get("int8")
        return bool(int8) and not (isinstance(int8, dict) and int8.get("weights") == "uint8")

    @property
    def has_int8_files(self) -> bool:
        """Whether both networks also come as files with their weights stored as int8 (each
        entry's ``int8_file``): the same networks and outputs, and where fused uint8 x int8 kernels
        are exact (``session.signed_kernels_exact``) about twice as fast."""
        return all(isinstance(self.data[p].get("int8_file"), dict) for p in ("finder", "reader"))

    def model_bytes(self, part: str, int8_file: bool = False, embed: bool = False) -> bytes:
        """The ONNX bytes of ``finder`` or ``reader`` (with ``int8_file``, of its file with int8
        weights), refused if the SHA-256 differs."""
        spec = self.data[part]
        if int8_file:
            spec = spec.get("int8_file")
            if not isinstance(spec, dict) or "file" not in spec or "sha256" not in spec:
                raise ModelError(f"{self.path}: {part} has no int8_file with a file and its sha256",
                                 code="bad_model")
        if embed:  # deck seam
            spec = spec.get("embed_file")
        name = spec.get("file") if isinstance(spec, dict) else None
        if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
            # the manifest is data: it names a file beside itself, never a path to open elsewhere
            raise ModelError(f"{self.path}: {part} must name a model file in the manifest's folder, "
                             f"got {name!r}", code="bad_model")
        f = self.path.parent / name
        if not f.exists():
            raise ModelError(f"{f}: model file missing (reinstall zipai-scorer or run zipai train)",
                             code="no_model")
        try:
            blob = read_file(f, MAX_MODEL_BYTES, "model file")
        except ZipaiError as exc:
            raise ModelError(str(exc), code="bad_model") from None
        digest = hashlib.sha256(blob).hexdigest()
        if digest != spec["sha256"]:
            raise ModelError(f"{f}: SHA-256 {digest[:12]}… does not match the manifest "
                             f"({spec['sha256'][:12]}…); the file is damaged or was replaced",
                             code="bad_model")
        return blob

    def embed_bytes(self, int8_file: bool = False) -> bytes:
        """The ONNX bytes of the reader's embedding twin (``reader.embed_file``, or with
        ``int8_file`` that of the int8-weight twin, ``reader.int8_file.embed_file``; deck seam)."""
        spec = (self.reader.get("int8_file") or {}) if int8_file else self.reader
        spec = spec.get("embed_file") if isinstance(spec, dict) else None
        if not isinstance(spec, dict) or "file" not in spec or "sha256" not in spec:
            raise ModelError(f"{self.path}: this model has no reader{'.int8_file' if int8_file else ''}"
                             ".embed_file, which decks need (python -m zipai.models.export adds it)",
                             code="no_model")
        return self.model_bytes("reader", int8_file, embed=True)


MAX_MANIFEST_BYTES = 1 << 20
MAX_MODEL_BYTES = 256 << 20  # the shipped networks are a few MB each


def load_manifest(path: str | Path | None = None) -> Manifest:
    p = Path(path) if path is not None else default_manifest()
    if not p.exists():
        raise ModelError(f"{p}: no model manifest (run zipai train, or reinstall)", code="no_model")
    try:
        data = json.loads(read_file(p, MAX_MANIFEST_BYTES, "model manifest").decode("utf-8"))
    except ZipaiError as exc:
        raise ModelError(f"unreadable model manifest: {exc}", code="bad_model") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ModelError(f"{p}: unreadable model manifest ({str(exc)[:200]})", code="bad_model") from None
    if not isinstance(data, dict):
        raise ModelError(f"{p}: a model manifest is a JSON object", code="bad_model")
    for key in ("finder", "reader", "normalise", "classes"):
        if key not in data:
            raise ModelError(f"{p}: model manifest lacks {key!r}", code="bad_model")
    return Manifest(p, data)


def loads_int8_files(manifest: Manifest, weights: str = "auto") -> bool:
    """Whether a ``Detector`` with these ``weights`` loads the int8-weight twins: where this CPU's
    fused kernels sum them right (or when asked), else the files with the weights stored as
    uint8, right on every CPU."""
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {', '.join(WEIGHTS)}, not {weights!r}")
    twins = weights == "int8" or (weights == "auto" and signed_kernels_exact() and manifest.has_int8_files)
    if twins and not manifest.has_int8_files:
        raise ModelError(f"{manifest.path}: the manifest names no int8_file for both networks",
                         code="bad_model")
    return twins


@dataclass(slots=True)
class Raw:
    """One photo's network outputs before thresholds: decoded pixels and their photo scale,
    finder boxes (decoded pixels), scores and kinds, reader probabilities and down directions."""

    arr: np.ndarray
    scale: float
    boxes: np.ndarray
    scores: np.ndarray
    kinds: np.ndarray
    probs: np.ndarray
    downs: np.ndarray
    reds: np.ndarray | None = None  # each find's measured redness, once asked for (``redness_of``)
    # the selector's weighing of these finds, once asked for (``Detector.select``): it does not
    # depend on the threshold, so a tuner replaying one photo at many thresholds weighs it once.
    # Keyed by the selector; the rules' choice it weighs too follows the detector's own settings,
    # which the rules' tuners change only with the selector set aside
    weighed: tuple[Any, Raw, list[str], np.ndarray] | None = None

    def redness_of(self, i: int) -> float:
        """The ink redness of find ``i``, measured once: the rules and the selector both ask."""
        if self.reds is None:
            self.reds = np.full(len(self.boxes), np.nan)
        if np.isnan(self.reds[i]):
            self.reds[i] = redness(self.arr, self.boxes[i])
        return float(self.reds[i])


@dataclass(frozen=True, slots=True)
class SecondLook:
    """When to look at a photo again, closer (``Detector.closer_look``): the median glyph below
    ``below`` finder pixels is scaled to ``target``, the input's long side at most ``max_side``."""

    below: float
    target: float
    max_side: int


@dataclass(frozen=True, slots=True)
class Turned:
    """Finder passes over the photo turned by each of ``angles`` degrees (scaled by ``scale``),
    their finds joined with the first pass's (``Detector.find``). The finder finds cards lying
    square to the photo best and those on the diagonal worst, most of all a card lying on its
    own away from the columns (a discard, a stock pile's top card); turned 45 degrees, such a
    card lies square."""

    angles: tuple[float, ...]
    scale: float = 1.0
    backs: bool = False  # whether they add backs too (turned, the table's print and cloth look like backs)
    lift: bool = False  # whether a find both passes make takes the higher peak


@dataclass(frozen=True, slots=True)
class Upright:
    """A second read of the finds the reader is unsure of (its likeliest class under ``below``,
    finder peak at least ``floor``), with the crop turned so that the card's down points down
    (``preprocess.turned_crops``, at ``margins``); the two reads' probabilities are averaged."""

    below: float
    floor: float
    margins: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class BackDoubles:
    """When two back finds are one back (``drop_back_doubles``): the smaller box lies at least
    ``overlap`` inside the other, and the centres lie within ``reach`` glyph sizes."""

    overlap: float
    reach: float


@dataclass(frozen=True, slots=True)
class FarEnds:
    """When two finds are one card's two ends (``drop_far_ends``): the sine of the largest
    angle between the pair's line and a down direction, whether 一二三 may follow their own
    axis, and how plain the card body between them must look (``body_between``)."""

    max_sin: float = 0.2
    own_axis: bool = False
    max_edge: float = 0.6
    min_dark: float = 0.75
    across: str = "mean"  # field names are drop_far_ends' keyword arguments


FAR_ENDS = FarEnds()  # drop_far_ends' defaults, and a manifest's where it names none
BODY_SUMMARIES = ("mean", "median")  # how body_between may sum up a line across the path
PREFER = ("upright", "selected")  # which of a card's two ends drop_far_ends keeps


@dataclass(frozen=True, slots=True)
class SelectedFarEnds:
    """Far ends looked for again among the finds the selector kept (``Detector.select``), by
    ``drop_far_ends`` with the manifest's ``far_ends`` limits. The selector weighs each find on
    its own evidence and keeps both ends of a card lying in view when both look like glyphs (a
    far end was the commonest extra find it kept: 84 of 261 on the 800 validation scenes); the
    pair test sees the two together. A find the selector gives at least ``protect`` stays, and
    ``prefer`` says which end is kept (the more upright one, or the one the selector is surer
    of). The card body between the two may have limits of its own (``max_edge``, ``min_dark``;
    None: the rules'): the selector's finds include more cards of one rank laid head to toe.
    ``scripts/tune_selected_far_ends.py`` chooses them all."""

    protect: float
    prefer: str = "upright"
    max_edge: float | None = None
    min_dark: float | None = None

    def limits(self, rules: FarEnds) -> FarEnds:
        """The rules' far-end limits with this step's own body limits in place."""
        return replace(rules, max_edge=rules.max_edge if self.max_edge is None else self.max_edge,
                       min_dark=rules.min_dark if self.min_dark is None else self.min_dark)


@dataclass(slots=True)
class Timing:
    preprocess: float = 0.0
    finder: float = 0.0
    reader: float = 0.0
    postprocess: float = 0.0

    @property
    def inference(self) -> float:
        return self.finder + self.reader


class Detector:
    """Photo in, card detections out. ``factory`` swaps the runtime (see ``session.py``)."""

    def __init__(self, manifest: str | Path | Manifest | None = None, threads: int = 2,
                 factory: SessionFactory | None = None, weights: str = "auto", embed: bool = False) -> None:
        self.manifest = m = manifest if isinstance(manifest, Manifest) else load_manifest(manifest)
        exact = signed_kernels_exact()
        self.int8_files = loads_int8_files(m, weights)
        # int8 weights on a CPU whose fused kernels would saturate run unfused (NO_QDQ_FUSION)
        risky = (self.int8_files or m.signed_weights) and not exact
        make = factory or (unfused_ort_factory if risky else ort_factory)
        self.finder: Session = make(m.model_bytes("finder", self.int8_files), threads)
        # deck seam (zipai.vision.deck): ``embed`` loads the reader's embedding twin, the same
        # network and probabilities with the pooled feature as a third output
        reader = m.embed_bytes(self.int8_files) if embed else m.model_bytes("reader", self.int8_files)
        self.reader: Session = make(reader, threads)
        self.embeds = embed
        self.classes: list[str] = list(self.manifest.data["classes"])
        # where the faces, "none" and "back" sit among the reader's classes (-1: not read)
        self.face_idx = [i for i, c in enumerate(self.classes) if c in FACES]
        self.none_i = self.classes.index("none") if "none" in self.classes else -1
        self.back_i = self.classes.index("back") if "back" in self.classes else -1
        f, r = self.manifest.finder, self.manifest.reader
        self.long_side = int(f["long_side"])
        self.multiple = int(f.get("multiple", 32))
        self.stride = int(f.get("stride", 4))
        self.threshold = float(f.get("threshold", 0.3))
        self.back_threshold = float(f.get("back_threshold", self.threshold))
        self.crop_size = int(r["size"])
        self.margin = float(r["margin"])
        # the reader's view of each glyph at several crop margins, probabilities averaged
        self.margins = tuple(float(m) for m in r.get("margins", [self.margin]))
        self.none_threshold = float(r.get("none_threshold", 0.5))
        self.red_threshold = float(self.manifest.data.get("color", {}).get("red_threshold", RED_THRESHOLD))
        post = self.manifest.data.get("postprocess", {})
        self.drop_far_ends = bool(post.get("drop_far_ends", True))
        # when two finds are one card's two ends
        far = post.get("far_ends") or {}
        self.far_ends = FarEnds(float(far.get("max_sin", FAR_ENDS.max_sin)),
                                bool(far.get("own_axis", FAR_ENDS.own_axis)),
                                float(far.get("max_edge", FAR_ENDS.max_edge)),
                                float(far.get("min_dark", FAR_ENDS.min_dark)),
                                str(far.get("across", FAR_ENDS.across)))
        if self.far_ends.across not in BODY_SUMMARIES:
            raise ModelError(f"{self.manifest.path}: postprocess.far_ends.across must be mean or median, "
                             f"not {self.far_ends.across!r}", code="bad_model")
        # far ends looked for again after the selector (off unless the manifest names it)
        after = post.get("selected_far_ends")
        self.selected_far_ends: SelectedFarEnds | None = None
        if after:
            try:
                body = [None if after.get(k) is None else float(after[k]) for k in ("max_edge", "min_dark")]
                prefer = str(after.get("prefer", "upright"))
                self.selected_far_ends = SelectedFarEnds(float(after["protect"]), prefer, *body)
            except (KeyError, TypeError, ValueError) as exc:
                raise ModelError(f"{self.manifest.path}: postprocess.selected_far_ends needs a number "
                                 f"protect, and max_edge and min_dark numbers or null ({exc!r})",
                                 code="bad_model") from None
        if self.selected_far_ends and self.selected_far_ends.prefer not in PREFER:
            raise ModelError(f"{self.manifest.path}: postprocess.selected_far_ends.prefer must be upright or "
                             f"selected, not {self.selected_far_ends.prefer!r}", code="bad_model")
        # a second finder peak on one long card back (off unless the manifest names the limits)
        doubles = post.get("back_doubles")
        self.back_doubles: BackDoubles | None = \
            BackDoubles(float(doubles["overlap"]), float(doubles["reach"])) if doubles else None
        # a second chance for a weak finder peak that the reader reads with confidence (off unless
        # the manifest names both); backs have their own, and share the faces' where the manifest
        # names none (a manifest that writes "back_rescue_prob": null gives backs none)
        self.rescue = float(f.get("rescue_threshold", min(self.threshold, self.back_threshold)))
        self.face_floor = float(r.get("face_floor", 0.0))
        sure = r.get("rescue_prob")
        self.rescue_prob = RESCUE_OFF[1] if sure is None else float(sure)
        self.back_rescue = float(f.get("back_rescue_threshold", self.rescue))
        back_sure = r.get("back_rescue_prob", sure)
        self.back_rescue_prob = RESCUE_OFF[1] if back_sure is None else float(back_sure)
        # weak finds that the layout may take in when the hand does not split without one (off
        # unless the manifest names the floor)
        floor, most = f.get("spare_threshold"), f.get("max_spare")
        self.spare_floor = RESCUE_OFF[1] if floor is None else float(floor)
        self.max_spare = MAX_SPARE if most is None else int(most)
        self.spare: list[Detection] = []  # those of the last ``detect``
        # an unsure read read again, upright (off unless the manifest names it)
        up = r.get("upright")
        try:
            self.upright: Upright | None = Upright(float(up["below"]), float(up["floor"]),
                                                   tuple(float(m) for m in up["margins"])) if up else None
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{self.manifest.path}: reader.upright needs numbers below, floor and "
                             f"margins ({exc!r})", code="bad_model") from None
        # a closer look at a photo taken from far away (off unless the manifest names it)
        look = f.get("second_look")
        self.second_look: SecondLook | None = SecondLook(float(look["below"]), float(look["target"]),
                                                         int(look["max_side"])) if look else None
        # finder passes over the photo turned (off unless the manifest names the angles)
        turn = f.get("turned")
        try:
            self.turned: Turned | None = Turned(tuple(float(a) for a in turn["angles"]),
                                                float(turn.get("scale", 1.0)),
                                                bool(turn.get("backs", False)),
                                                bool(turn.get("lift", False))) if turn else None
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{self.manifest.path}: finder.turned needs a list of angles, a number scale "
                             f"and true or false backs and lift ({exc!r})", code="bad_model") from None
        # a learnt choice of which finds are cards, in place of the rules above (off unless named)
        chosen = post.get("selector")
        try:
            self.selector: Selector | None = Selector.from_json(chosen) if chosen else None
        except SelectorError as exc:
            raise ModelError(f"{self.manifest.path}: postprocess.selector: {exc}", code="bad_model") from None
        self.timing = Timing()
        self.look: tuple[int, Window] | None = None  # the second look the last ``detect`` took

    def find(self, decoded: Decoded, threshold: float | None = None, long_side: int | None = None,
             window: Window | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Finder boxes (decoded-image pixels), scores and kinds (0 glyph, 1 back), deduplicated;
        the photo, or its ``window`` (x0, y0, x1, y1 in decoded pixels), is scaled to
        ``long_side`` (default: the manifest's) for the finder."""
        t0 = time.perf_counter()
        img = decoded.image if window is None else decoded.image.crop(window)
        x, lb = letterbox(img, long_side or self.long_side, self.multiple, self.mean, self.std)
        t1 = time.perf_counter()
        heat, reg = self.finder.run({self.manifest.finder.get("input", "image"): x})[:2]
        t2 = time.perf_counter()
        thr = self.threshold if threshold is None else threshold
        found = decode_heatmap(heat, reg, self.stride, thr, valid=(lb.content_w, lb.content_h))
        fb, fs, fk = found.boxes, found.scores, found.kinds
        turning = 0.0  # the turned passes, turning and all, count as the finder's
        if self.turned is not None:
            t = time.perf_counter()
            fb, fs, fk = self._turned(self.turned, x, lb, thr, fb, fs, fk)
            turning = time.perf_counter() - t
        keep = nms(fb, fs, fk)
        boxes = to_image(fb[keep], lb)
        if window is not None:
            boxes[:, [0, 2]] += window[0]
            boxes[:, [1, 3]] += window[1]
        t3 = time.perf_counter()
        self.timing.preprocess += t1 - t0
        self.timing.finder += t2 - t1 + turning
        self.timing.postprocess += t3 - t2 - turning
        return boxes, fs[keep], fk[keep]

    def _turned(self, turned: Turned, x: np.ndarray, lb: Letterbox, thr: float, boxes: np.ndarray,
                scores: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The first pass's finds (finder-input pixels) joined with those of the turned passes."""
        name = self.manifest.finder.get("input", "image")
        content = (lb.content_w, lb.content_h)
        scores = scores.copy()
        parts = [(boxes, scores, kinds)]
        for angle in turned.angles:
            xt, size, valid = turned_input(x, *content, angle, turned.scale, self.multiple)
            heat, reg = self.finder.run({name: xt})[:2]
            found = decode_heatmap(heat, reg, self.stride, thr, valid=valid)
            back, on = turned_back(found.boxes, angle, size, content, turned.scale)
            wanted = on & ((found.kinds == 0) | turned.backs)
            again = _found_before(back, found.kinds, boxes, kinds)
            if turned.lift:  # a first-pass find takes the turned pass's peak where that is higher
                both = wanted & (again >= 0)
                np.maximum.at(scores, again[both], found.scores[both])
            new = wanted & (again < 0)
            parts.append((back[new], found.scores[new], found.kinds[new]))
        return (np.concatenate([p[0] for p in parts]).reshape(-1, 4), np.concatenate([p[1] for p in parts]),
                np.concatenate([p[2] for p in parts]))

    @property
    def mean(self) -> tuple[float, ...]:
        return self.manifest.mean

    @property
    def std(self) -> tuple[float, ...]:
        return self.manifest.std

    def read(self, arr: np.ndarray, boxes: np.ndarray,
             features: list[np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Reader class probabilities [N, classes] and card down directions [N, 2] for glyph
        boxes in decoded-image pixels; with ``features`` (and an ``embed`` detector) the
        reader's embedding [N, D], averaged over the margins, is appended to it (deck seam)."""
        if len(boxes) == 0:
            return np.zeros((0, len(self.classes)), np.float32), np.zeros((0, 2), np.float32)
        t0 = time.perf_counter()
        n, k = len(boxes), len(self.margins)
        crops = cut_crops(arr, np.tile(boxes, (k, 1)), self.crop_size, np.repeat(self.margins, n))
        x = normalise(crops, self.mean, self.std)
        t1 = time.perf_counter()
        outs = self.reader.run({self.manifest.reader.get("input", "crops"): x})
        self.timing.preprocess += t1 - t0
        self.timing.reader += time.perf_counter() - t1
        probs = np.asarray(outs[0], np.float32).reshape(k, n, -1).mean(axis=0)
        if features is not None and len(outs) > 2:  # deck seam
            features.append(np.asarray(outs[2], np.float32).reshape(k, n, -1).mean(axis=0))
        if len(outs) > 1:
            d = np.asarray(outs[1], np.float32).reshape(k, n, 2).sum(axis=0)
            downs = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-6)
        else:
            downs = np.tile([0.0, 1.0], (n, 1))
        return probs, downs.astype(np.float32)

    def detect(self, decoded: Decoded, reread: Reread | None = None) -> list[Detection]:
        """Every card the photo shows, best first, boxes in photo pixels. A photo whose glyphs
        come out smaller than the finder learnt is looked at again, closer (``closer_look``).
        ``reread``: a deck's second opinion on the reader's probabilities (deck seam)."""
        self.timing = Timing()
        self.spare = []
        looks: dict[object, Raw] = {}
        dets = self.replay(decoded, looks, self.spare, reread=reread)
        self.look = next((k for k in looks if k is not None), None)  # the closer look, if taken
        return dets

    def replay(self, decoded: Decoded, looks: dict[object, Raw], spare: list[Detection] | None = None,
               reread: Reread | None = None, **settings: Any) -> list[Detection]:
        """Detections from the first look and, when ``closer_look`` asks, a second, closer one.
        Each look's network outputs are kept in ``looks`` (key None: the first look) and replayed,
        so that a tuner trying many ``build`` settings on one photo costs one network pass a look.
        Weak finds go to ``spare`` (when given), from the look used."""
        if None not in looks:
            looks[None] = self.raw(decoded, reread=reread)
        weak: list[Detection] = []
        dets = self.build(looks[None], spare=weak, **settings)
        look = self.closer_look(dets, decoded)
        if look is not None:
            if look not in looks:
                looks[look] = self.raw(decoded, long_side=look[0], window=look[1], reread=reread)
            weak = []
            dets = self.build(looks[look], spare=weak, **settings)
        if spare is not None:
            spare += weak
        return dets

    def closer_look(self, dets: list[Detection], decoded: Decoded,
                    look: SecondLook | None = None) -> tuple[int, Window] | None:
        """The finder input size and the part of the photo for a second look, or None.

        A photo taken from far away shows glyphs a dozen finder pixels high or less, smaller
        than most the finder trained on, and it misses more of them. When the median glyph
        found is under ``look.below`` finder pixels, the part of the photo the cards lie in is
        scaled so that the glyphs become ``look.target``: the input's long side at most
        ``look.max_side``, never beyond the photo's own pixels. Cutting that part out keeps the
        second look small: the cards of a far-away photo fill only part of it. The part reaches
        a card's length and a tenth of the photo beyond the finds, for cards that the first
        look missed altogether. Backs give no glyph size, and a photo with no face gives
        nothing to go by."""
        look = look or self.second_look
        faces = [d for d in dets if d.card != "back"]
        if look is None or not faces:
            return None
        k = decoded.scale
        long = max(decoded.image.size)
        glyph = float(np.median([_size(d) for d in faces])) / k
        med = glyph * self.long_side / long  # finder pixels at the first look
        if med >= look.below:
            return None
        boxes = np.asarray([d.box for d in dets], np.float64) / k
        pad = CARD_GLYPHS * glyph + WINDOW_MARGIN * long
        w, h = decoded.image.size
        lo, hi = boxes[:, :2].min(axis=0) - pad, boxes[:, 2:].max(axis=0) + pad
        window = (max(0, int(lo[0])), max(0, int(lo[1])),
                  min(w, int(np.ceil(hi[0]))), min(h, int(np.ceil(hi[1]))))
        part = max(window[2] - window[0], window[3] - window[1])
        m = self.multiple
        side = round(self.long_side * look.target / max(med, 1.0) * part / long / m) * m
        side = min(side, look.max_side, -(-part // m) * m)
        if side * long / part <= self.long_side:  # no closer than the first look
            return None
        return side, window

    def raw(self, decoded: Decoded, threshold: float | None = None, long_side: int | None = None,
            window: Window | None = None, reread: Reread | None = None) -> Raw:
        """Network outputs for every find above ``threshold`` (default: the manifest's), the
        photo (or its ``window``) scaled to ``long_side`` for the finder (default: the
        manifest's). ``reread`` (deck seam) gets the probabilities and embeddings last."""
        low = min(self.threshold, self.back_threshold, self.rescue, self.back_rescue, self.spare_floor,
                  self.selector.floor if self.selector else 1.0)
        boxes, scores, kinds = self.find(decoded, low if threshold is None else threshold, long_side, window)
        arr = np.asarray(decoded.image, dtype=np.uint8)
        features: list[np.ndarray] = []
        probs, downs = self.read(arr, boxes, features if reread is not None else None)
        if self.upright is not None:
            probs = self.read_upright(arr, boxes, scores, probs, downs, self.upright)
        if reread is not None and features:  # deck seam
            t0 = time.perf_counter()
            probs = reread(probs, features[0])
            self.timing.reader += time.perf_counter() - t0
        return Raw(arr, decoded.scale, boxes, scores, kinds, probs, downs)

    def read_upright(self, arr: np.ndarray, boxes: np.ndarray, scores: np.ndarray, probs: np.ndarray,
                     downs: np.ndarray, up: Upright) -> np.ndarray:
        """``probs`` with each unsure find's read averaged with a read of its crop turned upright
        by the reader's own down direction: a second view of the glyphs the reader finds hard.
        ``scripts/tune_upright.py`` chose it once decorated scenes joined the tuning scenes: it
        reads their cards, the stand-ins for printed decks, best (README)."""
        unsure = np.flatnonzero((scores >= up.floor) & (probs.max(axis=1) < up.below))
        if len(unsure) == 0 or not up.margins:
            return probs
        t0 = time.perf_counter()
        n, k = len(unsure), len(up.margins)
        angles = np.arctan2(-downs[unsure, 0], downs[unsure, 1]).astype(np.float32)
        crops = turned_crops(arr, np.tile(boxes[unsure], (k, 1)), self.crop_size, np.repeat(up.margins, n),
                             np.tile(angles, k))
        x = normalise(crops, self.mean, self.std)
        t1 = time.perf_counter()
        outs = self.reader.run({self.manifest.reader.get("input", "crops"): x})
        self.timing.preprocess += t1 - t0
        self.timing.reader += time.perf_counter() - t1
        out = probs.copy()
        out[unsure] = (probs[unsure] + np.asarray(outs[0], np.float32).reshape(k, n, -1).mean(axis=0)) / 2
        return out

    def build(self, raw: Raw, threshold: float | None = None, none_threshold: float | None = None,
              far_ends: bool | None = None, back_threshold: float | None = None,
              rescue: tuple[float, float] | None = None, face_floor: float | None = None,
              back_rescue: tuple[float, float] | None = None,
              spare: list[Detection] | None = None, select: bool | float | None = None) -> list[Detection]:
        """Detections from network outputs; the keyword arguments override the manifest (tuning).
        With a selector in the manifest it decides instead of the rules below (``select``: False
        for the rules, a number for the selector's threshold).

        A find under its threshold still counts when its peak reaches the rescue threshold and
        the reader gives its best face the rescue probability: on a typeface the finder never
        saw, a glyph's peak is often weak while the reader, which saw more faces, still reads it
        (``rescue`` is that pair). A back has its own pair (``back_rescue``, the reader's ``back``
        probability): weak back peaks are mostly card edges and slivers that the reader also
        calls backs, so the two are tuned apart. A face counts only when the
        reader gives its best face at least ``face_floor``: most finds the reader is that unsure
        of are a tablecloth's print, a pattern or a far end, not a card (``reader.face_floor``).
        Finds turned away with a peak of at least ``finder.spare_threshold`` go to ``spare``
        (when given) for the layout to weigh (``spares``)."""
        if self.selector is not None and select is not False:
            own = None if select is None or isinstance(select, bool) else float(select)
            return self.select(raw, spare=spare, threshold=own)
        t0 = time.perf_counter()
        thr = self.threshold if threshold is None else threshold
        back_thr = self.back_threshold if back_threshold is None else back_threshold
        none_thr = self.none_threshold if none_threshold is None else none_threshold
        floor, sure = (self.rescue, self.rescue_prob) if rescue is None else rescue
        back_floor, back_sure = back_rescue or (self.back_rescue, self.back_rescue_prob)
        least = self.face_floor if face_floor is None else face_floor
        arr, boxes, scores, kinds = raw.arr, raw.boxes, raw.scores, raw.kinds
        probs, downs = raw.probs, raw.downs
        out: list[Detection] = []
        weak: list[Detection] = []  # finds the thresholds turned away, for ``spare``
        none_i, back_i, face_idx = self.none_i, self.back_i, self.face_idx
        k = raw.scale
        keep_spare = spare is not None
        spare_floor = self.spare_floor
        for i, (b, s, kind, p, dn) in enumerate(zip(boxes, scores, kinds, probs, downs, strict=True)):
            box = _photo_box(b, k)
            down = (float(dn[0]), float(dn[1]))
            if kind == 1 and s < back_thr:
                if s < back_floor or back_i < 0 or p[back_i] < back_sure:
                    if keep_spare and s >= spare_floor:
                        weak.append(_back(box, float(s), down))
                    continue
            elif kind != 1 and s < thr:
                if s < floor or p[face_idx].max() < sure:
                    if keep_spare and s >= spare_floor:
                        weak.append(self._face(raw.redness_of(i), box, float(s), p[face_idx], face_idx, down))
                    continue
            if kind == 1:  # the finder says back; the reader may still see a face
                best = max(face_idx, key=lambda i: p[i])
                if p[best] > 0.9 and back_i >= 0 and p[back_i] < 0.05:
                    kind = 0
                else:
                    out.append(_back(box, float(s), down))
                    continue
            face_p = p[face_idx]
            if (none_i >= 0 and p[none_i] >= none_thr) or face_p.max() < least:
                if keep_spare and s >= spare_floor:
                    weak.append(self._face(raw.redness_of(i), box, float(s), face_p, face_idx, down))
                continue
            out.append(self._face(raw.redness_of(i), box, float(s), face_p, face_idx, down))
        out = drop_weak_far_ends(out, thr)  # before the pairs below, which may keep the weak end
        if self.drop_far_ends if far_ends is None else far_ends:
            out = drop_far_ends(out, image=arr, scale=k, **asdict(self.far_ends))
        if self.back_doubles:
            out = drop_back_doubles(out, self.back_doubles)
        if spare is not None:
            spare += spares(weak, out, thr, self.max_spare)
        self.timing.postprocess += time.perf_counter() - t0
        out.sort(key=lambda d: (d.box[1], d.box[0]))
        return out

    def candidates(self, raw: Raw) -> tuple[list[str], np.ndarray]:
        """Each find's class (the reader's best face, or ``back``: a back find that the reader
        sees a face in surely is a face) and the selector's evidence for it."""
        face_idx, back_i = self.face_idx, self.back_i
        cards: list[str] = []
        for kind, p in zip(raw.kinds, raw.probs, strict=True):
            best = face_idx[int(np.argmax(p[face_idx]))]
            if kind == 1 and not (p[best] > 0.9 and back_i >= 0 and p[back_i] < 0.05):
                cards.append("back")
            else:
                cards.append(self.classes[best])
        red = np.asarray([raw.redness_of(i) if c != "back" else 0.0 for i, c in enumerate(cards)], np.float64)
        k = raw.scale
        finder_scale = self.long_side / max(raw.arr.shape[:2]) / k  # finder pixels per photo pixel, about
        far = self.far_ends

        def body(a: tuple[float, float], b: tuple[float, float], size: float) -> tuple[float, float]:
            return body_between(raw.arr, (a[0] / k, a[1] / k), (b[0] / k, b[1] / k), size / k, far.across)

        kept = {tuple(d.box) for d in self.build(raw, select=False)}
        rules = np.asarray([_photo_box(b, k) in kept for b in raw.boxes])
        x = selector_features(cards, raw.boxes * k, raw.scores, raw.probs, raw.downs, self.classes, red,
                              self.red_threshold, finder_scale, body, rules)
        return cards, x

    def select(self, raw: Raw, spare: list[Detection] | None = None,
               threshold: float | None = None) -> list[Detection]:
        """Detections chosen by the manifest's selector: every find whose evidence gives it at
        least the selector's probability of being a card, less the far ends found among them
        (``selected_far_ends``). Finds turned away with a peak of at least
        ``finder.spare_threshold`` go to ``spare`` (when given), as with the rules."""
        sel = self.selector
        if sel is None:
            raise ModelError(f"{self.manifest.path}: the manifest has no postprocess.selector",
                             code="bad_model")
        t0 = time.perf_counter()
        thr = sel.threshold if threshold is None else threshold
        if raw.weighed is None or raw.weighed[0] is not sel:
            look = raw.scores >= sel.floor
            sub = Raw(raw.arr, raw.scale, raw.boxes[look], raw.scores[look], raw.kinds[look],
                      raw.probs[look], raw.downs[look])
            cards, x = self.candidates(sub)
            raw.weighed = (sel, sub, cards, sel.probability(x))
        _, sub, cards, prob = raw.weighed
        face_idx = self.face_idx
        k = raw.scale
        out: list[Detection] = []
        weak: list[Detection] = []
        for i, (c, b, s, p, dn, q) in enumerate(zip(cards, sub.boxes, sub.scores, sub.probs, sub.downs, prob,
                                                    strict=True)):
            box = _photo_box(b, k)
            down = (float(dn[0]), float(dn[1]))
            d = _back(box, float(s), down) if c == "back" \
                else self._face(sub.redness_of(i), box, float(s), p[face_idx], face_idx, down)
            if q >= thr:
                d.selected = float(q)
                out.append(d)
            elif spare is not None and s >= self.spare_floor:
                weak.append(d)
        after = self.selected_far_ends
        if after is not None:
            out = drop_far_ends(out, image=raw.arr, scale=k, **asdict(after.limits(self.far_ends)),
                                prefer=after.prefer, protect=after.protect)
        if spare is not None:
            spare += spares(weak, out, self.threshold, self.max_spare)
        self.timing.postprocess += time.perf_counter() - t0
        out.sort(key=lambda d: (d.box[1], d.box[0]))
        return out

    def _face(self, red: float, box: tuple[float, float, float, float], s: float,
              face_p: np.ndarray, face_idx: list[int], down: tuple[float, float]) -> Detection:
        """A face detection: the reader's best face, its next two, and the measured ink colour."""
        order = np.argsort(-face_p)
        total = float(face_p.sum()) or 1.0
        cls_prob = float(face_p[order[0]]) / total
        card = self.classes[face_idx[order[0]]]
        alts = [(self.classes[face_idx[j]], round(float(face_p[j]) / total, 4)) for j in order[1:3]]
        color = "red" if red > self.red_threshold else "black"
        return Detection(card, box, s * cls_prob, color, s, cls_prob, red, alts, down,
                         abs(red - self.red_threshold))


NEAR_BEFORE = 1.5  # a turned find this many glyph sizes from a first-pass find is that find again


def _found_before(boxes: np.ndarray, kinds: np.ndarray, first: np.ndarray,
                  first_kinds: np.ndarray) -> np.ndarray:
    """For each turned-pass find, the first-pass find it finds again (-1: none): the nearest of
    the same kind within ``NEAR_BEFORE`` of the larger box's size. The first pass keeps its own
    box, a turned box holding the glyph turned (too large for one lying square to the photo),
    and a stroke found beside a first-pass glyph is that glyph split."""
    out = np.full(len(boxes), -1, np.int64)
    if not len(boxes) or not len(first):
        return out
    c = (boxes[:, :2] + boxes[:, 2:]) / 2
    f = (first[:, :2] + first[:, 2:]) / 2
    size = np.maximum(first[:, 2] - first[:, 0], first[:, 3] - first[:, 1])
    own = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    d = np.hypot(c[:, None, 0] - f[None, :, 0], c[:, None, 1] - f[None, :, 1])
    reach = NEAR_BEFORE * np.maximum(size[None, :], own[:, None])
    d[(kinds[:, None] != first_kinds[None, :]) | (d >= reach)] = np.inf
    near = np.argmin(d, axis=1)
    hit = np.isfinite(d[np.arange(len(boxes)), near])
    out[hit] = near[hit]
    return out


def _photo_box(b: np.ndarray, k: float) -> tuple[float, float, float, float]:
    """A find's box in photo pixels (decoded pixels times the photo scale ``k``): the rules and
    the selector build the same tuple, and the selector looks the rules' choice up by it."""
    return (float(b[0]) * k, float(b[1]) * k, float(b[2]) * k, float(b[3]) * k)


def _back(box: tuple[float, float, float, float], s: float, down: tuple[float, float]) -> Detection:
    """A back detection: no colour, no reader probability (the finder's peak is its score)."""
    return Detection("back", box, s, None, s, 1.0, down=down)


def _card_axis(dets: list[Detection]) -> tuple[float, float] | None:
    """The photo's main card axis (a direction up to sign) from the glyphs' down directions."""
    axis = main_axis(np.asarray([d.down for d in dets], np.float64).reshape(-1, 2))
    return None if axis is None else (float(axis[0]), float(axis[1]))


def _size(d: Detection) -> float:
    return max(d.box[2] - d.box[0], d.box[3] - d.box[1], 1.0)


HALF_TURN = frozenset({"x1", "x2", "x3"})  # of those, the same only turned half round: an axis


def body_between(image: np.ndarray, a: tuple[float, float], b: tuple[float, float],
                 size: float, across: str = FAR_ENDS.across) -> tuple[float, float]:
    """Whether the stretch between two glyph centres (image pixels) looks like one card's plain
    body: ``(edge, dark)``. ``edge`` is the strongest brightness step across the path that runs
    straight over its whole width (the edge of a card lying over another), relative to the
    stretch's contrast; ``dark`` is its darkest line over its median brightness (a shadow under
    an overlapping card). The glyphs' own ink, a glyph size at each end, is left out.

    ``across`` is how each line across the path is summed up, "mean" or "median": a card's
    middle ornament (dots, a diamond) darkens part of a line, a card edge or its shadow all of
    it, and the median sees only the second."""
    pa, pb = np.asarray(a, np.float64), np.asarray(b, np.float64)
    dist = float(np.hypot(*(pb - pa)))
    u = (pb - pa) / max(dist, 1e-6)
    v = np.asarray([-u[1], u[0]])
    n_l, n_w = 64, 12
    m = min(0.3, 0.6 * size / max(dist, 1e-6))
    ts = np.linspace(m, 1.0 - m, n_l)
    ws = np.linspace(-0.45, 0.45, n_w) * size
    pts = pa + ts[:, None, None] * (pb - pa) + ws[None, :, None] * v
    h, w = image.shape[:2]
    xs = np.clip(np.rint(pts[..., 0]), 0, w - 1).astype(np.intp)
    ys = np.clip(np.rint(pts[..., 1]), 0, h - 1).astype(np.intp)
    strip = image[ys, xs].astype(np.float32)
    strip = strip.mean(axis=-1) if strip.ndim == 3 else strip  # [n_l, n_w] grey
    if across not in BODY_SUMMARIES:
        raise ValueError(f"body_between: across must be mean or median, not {across!r}")
    line = np.median if across == "median" else np.mean
    step = np.abs(line(np.diff(strip, axis=0), axis=1)).max()
    rows = line(strip, axis=1)
    return float(step / (strip.std() + 5.0)), float(rows.min() / (np.median(strip) + 1.0))


def drop_far_ends(dets: list[Detection], lo: float = 2.0, hi: float = 5.5, lateral: float = 0.6,
                  max_sin: float = FAR_ENDS.max_sin, symmetric: bool = True,
                  image: np.ndarray | None = None, scale: float = 1.0,
                  max_edge: float = FAR_ENDS.max_edge, min_dark: float = FAR_ENDS.min_dark,
                  own_axis: bool = FAR_ENDS.own_axis, across: str = FAR_ENDS.across,
                  prefer: str = "upright", protect: float = math.inf) -> list[Detection]:
    """A card lying fully in view shows its rank at both ends, the far one turned round; keep one.

    Two detections are the two ends of one card when they read the same, lie 2–5.5 glyph sizes
    apart along the glyph's axis (the reader's down direction), nothing lies between them, and
    they face opposite ways (unless the glyph reads the same turned round, 一二三十; ``symmetric``
    False leaves those alone). Two cards of one rank laid head to toe in a column fit all that
    too, so with the photo (``image``, decoded pixels; boxes are ``scale`` times those) the
    stretch between them must also look like one card's plain body (``body_between``): no
    card edge across it (``max_edge``), no shadow line (``min_dark``). The one that reads more
    upright in the photo stays (that is the one the labels name).

    一二三 give no down of their own but still give their card's axis (they read the same turned
    half round, not a quarter, unlike 十); with ``own_axis`` the pair may follow that axis as
    well as the photo's, so that a loose card lying across the layout loses its far end too.

    After the selector (``prefer`` "selected") the one it is surer of stays, and a find it is
    at least ``protect`` sure of is never dropped."""
    faces = [i for i, d in enumerate(dets) if d.card != "back"]
    centres = np.asarray([d.center for d in dets], np.float64).reshape(-1, 2)
    axis = _card_axis([dets[i] for i in faces if dets[i].card not in SYMMETRIC])
    drop: set[int] = set()
    for a_i, i in enumerate(faces):
        for j in faces[a_i + 1:]:
            di, dj = dets[i], dets[j]
            if di.card != dj.card or i in drop or j in drop:
                continue
            if di.card in SYMMETRIC:
                if not symmetric:
                    continue
            elif di.down[0] * dj.down[0] + di.down[1] * dj.down[1] > -0.5:
                continue
            s = max(_size(di), _size(dj))
            vec = centres[j] - centres[i]
            dist = float(np.hypot(*vec))
            if not lo * s <= dist <= hi * s:
                continue
            u = vec / dist
            # a glyph that reads the same turned round gives no trustworthy down of its own
            downs = [axis] if di.card in SYMMETRIC else [di.down, dj.down]
            if own_axis and di.card in HALF_TURN:
                downs += [di.down, dj.down]
            aligned = any(d is not None and abs(u[0] * d[1] - u[1] * d[0]) < max_sin for d in downs)
            if not aligned:
                continue
            rel = centres - centres[i]
            t = rel @ u
            off = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
            between = (t > 0.1 * dist) & (t < 0.9 * dist) & (off < lateral * s)
            between[[i, j]] = False
            if between.any():
                continue
            if image is not None:
                a, b = centres[i] / scale, centres[j] / scale
                edge, dark = body_between(image, (a[0], a[1]), (b[0], b[1]), s / scale, across)
                if edge > max_edge or dark < min_dark:
                    continue
            if prefer == "selected":
                k = i if (di.selected or 0.0) < (dj.selected or 0.0) else j
            else:
                k = i if di.down[1] < dj.down[1] else j
            if (dets[k].selected or 0.0) < protect:
                drop.add(k)
    return [d for k, d in enumerate(dets) if k not in drop]


def drop_back_doubles(dets: list[Detection], limits: BackDoubles) -> list[Detection]:
    """One card back found twice: keep the stronger find.

    The finder's target for a back is the bulk of its visible part, and the last back of a
    concealed column shows the whole card, three card widths long, where it sometimes makes two
    peaks. Their boxes mostly cover each other, and their centres lie closer than the next back
    of the column usually does (a step of the column, a glyph size or more), so duplicate
    removal's limit for backs (which must keep a column's heavily overlapping backs apart) lets
    both through. Glyph sizes are the photo's median face; a photo with no face is left alone."""
    faces = sorted(_size(d) for d in dets if d.card != "back")
    backs = sorted((i for i, d in enumerate(dets) if d.card == "back"), key=lambda i: -dets[i].finder_score)
    if not faces or len(backs) < 2:
        return dets
    reach = limits.reach * faces[len(faces) // 2]
    kept: list[Detection] = []
    drop: set[int] = set()
    for i in backs:
        d = dets[i]
        x, y = d.center
        if any(covers(np.asarray(d.box), np.asarray(e.box)) >= limits.overlap
               and float(np.hypot(x - e.center[0], y - e.center[1])) <= reach for e in kept):
            drop.add(i)
        else:
            kept.append(d)
    return [d for i, d in enumerate(dets) if i not in drop]


def drop_weak_far_ends(dets: list[Detection], threshold: float, lo: float = 1.5, hi: float = 5.5,
                       max_sin: float = 0.3, lo_symmetric: float = 2.2) -> list[Detection]:
    """A weak find (a face under the finder's threshold, let in by the second chance) that reads
    the same rank as a face found above the threshold, 1.5–5.5 glyph sizes away along either
    one's axis and turned round against it, is that card's far end: the finder learnt to give
    far ends no peak, so a weak peak there is the far end showing through. 一二三十 read the same
    turned round, so for them the pair follows the photo's main card axis and must lie at least
    2.2 glyph sizes apart, further than the next card of a column of one rank usually lies.
    Unlike ``drop_far_ends`` this needs no look at the card body: the weak one is always the one
    to drop."""
    weak = [d.card != "back" and d.finder_score < threshold for d in dets]
    if not any(weak):
        return dets  # most photos
    strong = [d for d, w in zip(dets, weak, strict=True) if d.card != "back" and not w]
    axis = _card_axis([d for d in strong if d.card not in SYMMETRIC])
    return [d for d, w in zip(dets, weak, strict=True)
            if not w or not _weak_far_end(d, strong, axis, lo_symmetric if d.card in SYMMETRIC else lo, hi,
                                          max_sin)]


def spares(weak: list[Detection], kept: list[Detection], threshold: float, most: int) -> list[Detection]:
    """The weak finds worth offering the layout (``scan``'s ``take_in``), strongest first.

    A find the thresholds turned away is most often a far end, a second peak on a card already
    read, or the table's print; but on a typeface the finder never saw, a real glyph's peak can
    be as weak. The rules can tell: a hand that splits into seven groups only with one of them
    took it in. Left out here: finds on a kept card (their centre within a glyph size of a kept
    find's) and far ends of kept faces (``drop_weak_far_ends``)."""
    if not weak:
        return []
    near = [w for w in weak if not any(abs(w.center[0] - d.center[0]) < 0.8 * max(_size(w), _size(d))
                                       and abs(w.center[1] - d.center[1]) < 0.8 * max(_size(w), _size(d))
                                       for d in kept)]
    ids = {id(w) for w in near}
    alive = [d for d in drop_weak_far_ends(kept + near, threshold) if id(d) in ids]
    return sorted(alive, key=lambda d: -d.finder_score)[:most]


def _weak_far_end(d: Detection, strong: list[Detection], axis: tuple[float, float] | None, lo: float,
                  hi: float, max_sin: float) -> bool:
    x, y = d.center
    for e in strong:
        if e.card != d.card:
            continue
        ex, ey = e.center
        dist = float(np.hypot(ex - x, ey - y))
        s = max(_size(d), _size(e))
        if not lo * s <= dist <= hi * s:
            continue
        if d.card in SYMMETRIC:
            downs = [axis] if axis is not None else [d.down, e.down]
        elif d.down[0] * e.down[0] + d.down[1] * e.down[1] > -0.5:
            continue
        else:
            downs = [d.down, e.down]
        ux, uy = (ex - x) / dist, (ey - y) / dist
        if any(abs(ux * v[1] - uy * v[0]) < max_sin for v in downs):
            return True
    return False
