"""The detector's settings: one frozen, typed view of the manifest's runtime keys.

The runtime reads them here, the trainer and the tuners write them here, and nothing else names
a manifest key. A setting that is off is ``None``; a key a manifest leaves out reads as the value
the detector has always taken for it, so a manifest written before a setting existed still loads
(``Config.from_json``). Keys this version does not know are left alone: ``merge_into`` updates
only the keys it owns, where they stand, and ``to_json`` gives those alone.

A tuner tries a setting with ``dataclasses.replace`` and a ``Detector`` of that config (or
``Detector.build(look, config)``), never by assigning to a detector.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from .color import RED_THRESHOLD
from .errors import ModelError
from .selector import Selector, SelectorError

RESCUE_OFF = (1.0, 2.0)  # a second chance (peak floor, reader probability) that no find passes
MAX_SPARE = 8  # weak finds offered to the layout, at most (each try re-clusters and splits the hand)
BODY_SUMMARIES = ("mean", "median")  # how body_between may sum up a line across the path
PREFER = ("upright", "selected")  # which of a card's two ends drop_far_ends keeps


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
    their finds joined with the first pass's (``Finder``). The finder finds cards lying square to
    the photo best and those on the diagonal worst, most of all a card lying on its own away from
    the columns (a discard, a stock pile's top card); turned 45 degrees, such a card lies square."""

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
    across: str = "mean"  # how body_between sums each line across the body: "mean" or "median"


FAR_ENDS = FarEnds()  # drop_far_ends' defaults, and a manifest's where it names none


@dataclass(frozen=True, slots=True)
class SelectedFarEnds:
    """Far ends looked for again among the finds the selector kept (``steps.select``), by
    ``drop_far_ends`` with the manifest's ``far_ends`` limits. The selector weighs each find on
    its own evidence and keeps both ends of a card lying in view when both look like glyphs (a
    far end was the commonest extra find it kept: 84 of 261 on the 800 validation scenes); the
    pair test sees the two together. A find the selector gives at least ``protect`` stays, and
    ``prefer`` says which end is kept (the more upright one, or the one the selector is surer
    of). The card body between the two may have limits of its own (``max_edge``, ``min_dark``;
    None: the rules'): the selector's finds include more cards of one rank laid head to toe.
    ``zipai tune selected-far-ends`` chooses them all."""

    protect: float
    prefer: str = "upright"
    max_edge: float | None = None
    min_dark: float | None = None

    def limits(self, rules: FarEnds) -> FarEnds:
        """The rules' far-end limits with this step's own body limits in place."""
        return replace(rules, max_edge=rules.max_edge if self.max_edge is None else self.max_edge,
                       min_dark=rules.min_dark if self.min_dark is None else self.min_dark)


@dataclass(frozen=True, slots=True)
class FinderConfig:
    """How the finder is fed, and which of its peaks count (``finder`` in the manifest)."""

    long_side: int
    input: str = "image"
    multiple: int = 32
    stride: int = 4
    threshold: float = 0.3
    back_threshold: float = 0.3  # absent: the faces' threshold
    rescue_threshold: float = 0.3  # a weak peak's second chance (absent: the lower threshold)
    back_rescue_threshold: float = 0.3  # absent: the faces'
    spare_threshold: float | None = None  # weak finds offered to the layout from this peak (None: none)
    max_spare: int = MAX_SPARE
    second_look: SecondLook | None = None
    turned: Turned | None = None

    @property
    def spare_floor(self) -> float:
        return RESCUE_OFF[1] if self.spare_threshold is None else self.spare_threshold


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    """How the reader is fed, and which of its reads count (``reader`` in the manifest)."""

    size: int
    margin: float
    input: str = "crops"
    margins: tuple[float, ...] = ()  # the reader's views of each glyph, averaged (absent: ``margin``)
    none_threshold: float = 0.5
    rescue_prob: float | None = None  # a weak face peak's second chance (None: none)
    back_rescue_prob: float | None = None  # a weak back peak's (absent: the faces'; null: none)
    face_floor: float = 0.0
    upright: Upright | None = None

    @property
    def rescue_sure(self) -> float:
        return RESCUE_OFF[1] if self.rescue_prob is None else self.rescue_prob

    @property
    def back_rescue_sure(self) -> float:
        return RESCUE_OFF[1] if self.back_rescue_prob is None else self.back_rescue_prob


@dataclass(frozen=True, slots=True)
class PostprocessConfig:
    """The steps after the networks (``postprocess`` in the manifest): the rules' filters, or a
    learnt selector in their place."""

    drop_far_ends: bool = True
    far_ends: FarEnds = FAR_ENDS
    back_doubles: BackDoubles | None = None
    selected_far_ends: SelectedFarEnds | None = None
    selector: Selector | None = None


@dataclass(frozen=True, slots=True)
class Config:
    """Every runtime setting of one model. ``int8_weights``: None for float networks, else how
    the int8 weights are stored ("uint8", or anything else: as int8, which fused kernels can get
    wrong on some CPUs)."""

    classes: tuple[str, ...]
    mean: tuple[float, ...]
    std: tuple[float, ...]
    finder: FinderConfig
    reader: ReaderConfig
    red_threshold: float = RED_THRESHOLD
    postprocess: PostprocessConfig = field(default_factory=PostprocessConfig)
    int8_weights: str | None = None
    format: int = 1

    @property
    def signed_weights(self) -> bool:
        """Whether the networks are int8 with their weights stored as int8 (exported before
        ``zipai.models.export.unsigned_weights``), which fused kernels can get wrong."""
        return self.int8_weights is not None and self.int8_weights != "uint8"

    @property
    def low(self) -> float:
        """The weakest peak any step may look at: the finder's threshold for one look."""
        f, sel = self.finder, self.postprocess.selector
        return min(f.threshold, f.back_threshold, f.rescue_threshold, f.back_rescue_threshold, f.spare_floor,
                   sel.floor if sel else 1.0)

    def rules_only(self) -> Config:
        """This config with the selector set aside (the rules decide)."""
        return replace(self, postprocess=replace(self.postprocess, selector=None))

    @classmethod
    def from_json(cls, data: dict[str, Any], source: str = "manifest") -> Config:
        """The settings of a manifest's JSON object; ``source`` names it in errors."""
        try:
            return _read(data, source)
        except ModelError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ModelError(f"{source}: unreadable model settings ({exc.__class__.__name__}: {exc})",
                             code="bad_model") from None

    def to_json(self) -> dict[str, Any]:
        """The manifest keys this config owns (a setting that is off is left out, except the
        second chances, whose null means none)."""
        out: dict[str, Any] = {}
        self.merge_into(out)
        return out

    def merge_into(self, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` (a manifest's JSON object) with this config's keys set, in place: other keys,
        and the order of those already there, stay."""
        f, r, p = self.finder, self.reader, self.postprocess
        data["format"] = self.format
        data["classes"] = list(self.classes)
        _merge(data, "finder", {
            "input": f.input, "long_side": f.long_side, "multiple": f.multiple, "stride": f.stride,
            "threshold": f.threshold, "back_threshold": f.back_threshold,
            "rescue_threshold": f.rescue_threshold, "back_rescue_threshold": f.back_rescue_threshold,
            "second_look": _plain(f.second_look), "spare_threshold": f.spare_threshold,
            "max_spare": f.max_spare, "turned": _plain(f.turned)}, optional=("second_look", "spare_threshold",
                                                                              "turned"))
        _merge(data, "reader", {
            "input": r.input, "size": r.size, "margin": r.margin, "none_threshold": r.none_threshold,
            "margins": list(r.margins), "rescue_prob": r.rescue_prob, "face_floor": r.face_floor,
            "back_rescue_prob": r.back_rescue_prob, "upright": _plain(r.upright)}, optional=("upright",))
        _merge(data, "normalise", {"mean": list(self.mean), "std": list(self.std)})
        _merge(data, "color", {"red_threshold": self.red_threshold})
        _merge(data, "postprocess", {
            "drop_far_ends": p.drop_far_ends, "back_doubles": _plain(p.back_doubles),
            "far_ends": _plain(p.far_ends), "selected_far_ends": _plain(p.selected_far_ends),
            "selector": None if p.selector is None else _selector_json(p.selector, data)},
            optional=("back_doubles", "selected_far_ends", "selector"))
        if self.int8_weights is None:
            if data.get("int8"):
                data["int8"] = None  # float networks
        elif isinstance(data.get("int8"), dict):
            data["int8"]["weights"] = self.int8_weights
        else:
            data["int8"] = {"weights": self.int8_weights}
        return data


def read_config(path: str | Path) -> Config:
    """The settings of the manifest file at ``path`` (``manifest.load_manifest`` checks it)."""
    from .manifest import load_manifest

    return load_manifest(path).config


def save_config(path: str | Path, config: Config, notes: dict[str, dict[str, Any]] | None = None) -> None:
    """Write ``config`` into the manifest at ``path``, its other keys kept, written beside the
    old file and renamed over it (a run stopped midway leaves the old file whole). ``notes``:
    provenance kept beside a section's settings (``{"postprocess": {"tuned_on": …}}``; a dict
    value is merged into the object already there)."""
    p = Path(path)
    data = json.loads(p.read_text(encoding="utf-8"))
    config.merge_into(data)
    for section, values in (notes or {}).items():
        part = data.setdefault(section, {})
        for k, v in values.items():
            if isinstance(v, dict) and isinstance(part.get(k), dict):
                part[k].update(v)
            else:
                part[k] = v
    staged = p.with_suffix(".json.new")
    staged.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    staged.replace(p)


# ---------------------------------------------------------------- reading

T = TypeVar("T")


def _section(data: dict[str, Any], key: str, source: str, required: bool = True) -> dict[str, Any]:
    value = data.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise ModelError(f"{source}: {key} must be a JSON object", code="bad_model")
    return value


def _parse(make: Callable[[], T], message: str) -> T:
    try:
        return make()
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelError(f"{message} ({exc!r})", code="bad_model") from None


def _read(data: dict[str, Any], source: str) -> Config:
    f = _section(data, "finder", source)
    r = _section(data, "reader", source)
    norm = _section(data, "normalise", source)
    post = _section(data, "postprocess", source, required=False)
    color = _section(data, "color", source, required=False)
    threshold = float(f.get("threshold", 0.3))
    back_threshold = float(f.get("back_threshold", threshold))
    rescue = float(f.get("rescue_threshold", min(threshold, back_threshold)))
    look = f.get("second_look")
    turn = f.get("turned")
    finder = FinderConfig(
        long_side=int(f["long_side"]), input=str(f.get("input", "image")),
        multiple=int(f.get("multiple", 32)),
        stride=int(f.get("stride", 4)), threshold=threshold, back_threshold=back_threshold,
        rescue_threshold=rescue, back_rescue_threshold=float(f.get("back_rescue_threshold", rescue)),
        spare_threshold=None if f.get("spare_threshold") is None else float(f["spare_threshold"]),
        max_spare=MAX_SPARE if f.get("max_spare") is None else int(f["max_spare"]),
        second_look=SecondLook(float(look["below"]), float(look["target"]), int(look["max_side"]))
        if look else None,
        turned=_parse(lambda: Turned(tuple(float(a) for a in turn["angles"]), float(turn.get("scale", 1.0)),
                                     bool(turn.get("backs", False)), bool(turn.get("lift", False))),
                      f"{source}: finder.turned needs a list of angles, a number scale and true or false "
                      "backs and lift") if turn else None)
    margin = float(r["margin"])
    sure = r.get("rescue_prob")
    back_sure = r.get("back_rescue_prob", sure)
    up = r.get("upright")
    reader = ReaderConfig(
        size=int(r["size"]), margin=margin, input=str(r.get("input", "crops")),
        margins=tuple(float(m) for m in r.get("margins", [margin])),
        none_threshold=float(r.get("none_threshold", 0.5)),
        rescue_prob=None if sure is None else float(sure),
        back_rescue_prob=None if back_sure is None else float(back_sure),
        face_floor=float(r.get("face_floor", 0.0)),
        upright=_parse(lambda: Upright(float(up["below"]), float(up["floor"]),
                                       tuple(float(m) for m in up["margins"])),
                       f"{source}: reader.upright needs numbers below, floor and margins") if up else None)
    return Config(
        classes=tuple(str(c) for c in data["classes"]), mean=tuple(float(v) for v in norm["mean"]),
        std=tuple(float(v) for v in norm["std"]), finder=finder, reader=reader,
        red_threshold=float(color.get("red_threshold", RED_THRESHOLD)),
        postprocess=_read_postprocess(post, source), int8_weights=_int8(data.get("int8")),
        format=int(data.get("format", 1)))


def _read_postprocess(post: dict[str, Any], source: str) -> PostprocessConfig:
    far = post.get("far_ends") or {}
    far_ends = FarEnds(float(far.get("max_sin", FAR_ENDS.max_sin)),
                       bool(far.get("own_axis", FAR_ENDS.own_axis)),
                       float(far.get("max_edge", FAR_ENDS.max_edge)),
                       float(far.get("min_dark", FAR_ENDS.min_dark)),
                       str(far.get("across", FAR_ENDS.across)))
    if far_ends.across not in BODY_SUMMARIES:
        raise ModelError(f"{source}: postprocess.far_ends.across must be mean or median, "
                         f"not {far_ends.across!r}", code="bad_model")
    after = post.get("selected_far_ends")
    selected = None
    if after:
        def make() -> SelectedFarEnds:
            body = [None if after.get(k) is None else float(after[k]) for k in ("max_edge", "min_dark")]
            return SelectedFarEnds(float(after["protect"]), str(after.get("prefer", "upright")), *body)
        selected = _parse(make, f"{source}: postprocess.selected_far_ends needs a number protect, and "
                                "max_edge and min_dark numbers or null")
        if selected.prefer not in PREFER:
            raise ModelError(f"{source}: postprocess.selected_far_ends.prefer must be upright or "
                             f"selected, not {selected.prefer!r}", code="bad_model")
    doubles = post.get("back_doubles")
    chosen = post.get("selector")
    try:
        selector = Selector.from_json(chosen) if chosen else None
    except SelectorError as exc:
        raise ModelError(f"{source}: postprocess.selector: {exc}", code="bad_model") from None
    return PostprocessConfig(
        drop_far_ends=bool(post.get("drop_far_ends", True)), far_ends=far_ends,
        back_doubles=BackDoubles(float(doubles["overlap"]), float(doubles["reach"])) if doubles else None,
        selected_far_ends=selected, selector=selector)


def _int8(value: Any) -> str | None:
    if not value:
        return None
    if isinstance(value, dict) and isinstance(value.get("weights"), str):
        return str(value["weights"])
    return "int8"  # int8 networks exported before the weights' storage was recorded


# ---------------------------------------------------------------- writing


def _plain(value: Any) -> Any:
    """A settings dataclass as its manifest object (tuples as lists), less the fields at their
    defaults (``_merge`` writes those only over a key already there)."""
    if value is None:
        return None
    out = {}
    for name, spec in value.__dataclass_fields__.items():
        v = getattr(value, name)
        out[name] = _Default(v) if spec.default is v or spec.default == v else v
    return out


@dataclass(frozen=True, slots=True)
class _Default:
    """A field at its default: written over a key already there, never added."""

    value: Any


def _json(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def _selector_json(sel: Selector, data: dict[str, Any]) -> dict[str, Any]:
    """The selector's manifest object, keeping the provenance an existing one carries."""
    old = (data.get("postprocess") or {}).get("selector")
    return {**(old if isinstance(old, dict) else {}), **sel.to_json()}


def _merge(data: dict[str, Any], key: str, values: dict[str, Any], optional: tuple[str, ...] = ()) -> None:
    section = data.get(key)
    if not isinstance(section, dict):
        section = data[key] = {}
    for k, v in values.items():
        if v is None and k in optional:
            section.pop(k, None)
        elif isinstance(v, dict):
            _merge(section, k, v)
        elif isinstance(v, _Default):
            if k in section:
                section[k] = _json(v.value)
        else:
            section[k] = _json(v)
