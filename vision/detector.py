"""The shipped detector: photo in, detections out, as one stateless call.

``Detector.detect`` runs the finder (``finder.py``) and the reader (``reader.py``) over the photo,
chooses the cards among their finds (``steps.py``: the rules' filters or a learnt selector) and,
when the glyphs came out small, looks again, closer. Everything a call finds comes back in its
``Detected``; the detector keeps nothing, so one serves many threads at once. Its settings are a
frozen ``Config`` (``config.py``): to try others, ``dataclasses.replace`` it and pass it along."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from zipai.engine import CARD_NAMES

from .config import Config, SecondLook
from .constants import SYMMETRIC
from .decode import Decoded
from .detection import Detection, Finds, Look, Timing, glyph_size
from .errors import ModelError
from .files import models_dir
from .finder import Finder, Window
from .manifest import Manifest, default_manifest, load_manifest
from .reader import Reader
from .session import Session, SessionFactory, ort_factory, signed_kernels_exact, unfused_ort_factory
from .steps import Chosen, Lens, choose

FACES = CARD_NAMES
CARD_GLYPHS = 4.0  # a card's length in glyph sizes, about: the margin around the finds of a second look
WINDOW_MARGIN = 0.1  # and this much of the photo's long side more, for cards the first look missed
WEIGHTS = ("auto", "uint8", "int8")  # which network files a Detector loads (``loads_int8_files``)
LookKey = tuple[int, Window] | None  # which look: None the first, else the finder size and window

__all__ = ["FACES", "SYMMETRIC", "Detected", "Detection", "Detector", "Manifest", "default_manifest",
           "load_manifest", "models_dir"]


@dataclass(slots=True)
class Detected:
    """What one ``Detector.detect`` call found: the detections (top to bottom), the weak finds
    the layout may take in (``spare``), seconds spent, which closer look was taken (None: none),
    and each look's network outputs (key None: the first look), for a caller that looks again."""

    detections: list[Detection]
    spare: list[Detection]
    timing: Timing
    look: LookKey = None
    looks: dict[LookKey, Look] = field(default_factory=dict)


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


class Detector:
    """Photo in, card detections out. ``factory`` swaps the runtime (see ``session.py``);
    ``config`` replaces the manifest's settings (the network files stay the manifest's).
    ``embed`` loads the reader's embedding twin (``Manifest.model_bytes(embed=True)``): the same
    reads with the pooled feature beside them, which a taught deck (``detect(lens=...)``) needs."""

    def __init__(self, manifest: str | Path | Manifest | None = None, threads: int = 2,
                 factory: SessionFactory | None = None, weights: str = "auto",
                 config: Config | None = None, embed: bool = False) -> None:
        self.manifest = m = manifest if isinstance(manifest, Manifest) else load_manifest(manifest)
        self.config = config or m.config
        self.int8_files = loads_int8_files(m, weights)
        # int8 weights on a CPU whose fused kernels would saturate run unfused (NO_QDQ_FUSION)
        risky = (self.int8_files or m.signed_weights) and not signed_kernels_exact()
        make = factory or (unfused_ort_factory if risky else ort_factory)
        self.embeds = embed
        finder = m.model_bytes("finder", self.int8_files)  # the finder's file is checked first
        reader = m.model_bytes("reader", self.int8_files, embed)
        self.sessions: tuple[Session, Session] = (make(finder, threads), make(reader, threads))
        self.finder = self.finder_for(self.config)
        self.reader = self.reader_for(self.config)

    def with_config(self, config: Config) -> Detector:
        """A detector with other settings over the same loaded networks (no reload)."""
        other = copy.copy(self)
        other.config = config
        other.finder, other.reader = other.finder_for(config), other.reader_for(config)
        return other

    def finder_for(self, config: Config) -> Finder:
        return Finder(self.sessions[0], config.finder, config.mean, config.std)

    def reader_for(self, config: Config) -> Reader:
        return Reader(self.sessions[1], config.reader, config.classes, config.mean, config.std)

    def detect(self, decoded: Decoded, config: Config | None = None,
               looks: dict[LookKey, Look] | None = None, lens: Lens | None = None) -> Detected:
        """Every card the photo shows, top to bottom, boxes in photo pixels. A photo whose glyphs
        come out smaller than the finder learnt is looked at again, closer (``closer_look``).
        ``looks`` (the ``looks`` of an earlier call on this photo) replays those network outputs
        instead of running the networks again: a tuner trying many configs on one photo pays
        for one network pass a look. ``lens``: a taught deck's say in which finds are cards and
        which card each is (``zipai.vision.deck.reread``; it needs an ``embed`` detector). The
        looks stay the networks' outputs: the lens names the chosen finds' cards in each call."""
        cfg = config or self.config
        timing = Timing()
        looks = {} if looks is None else looks
        if None not in looks:
            looks[None] = self.look(decoded, cfg, timing=timing)
        chosen = choose(looks[None], cfg, timing, lens)
        key = self.closer_look(chosen.detections, decoded, cfg)
        if key is not None:
            if key not in looks:
                looks[key] = self.look(decoded, cfg, long_side=key[0], window=key[1], timing=timing)
            chosen = choose(looks[key], cfg, timing, lens)
        return Detected(chosen.detections, chosen.spare, timing, key, looks)

    def look(self, decoded: Decoded, config: Config | None = None, threshold: float | None = None,
             long_side: int | None = None, window: Window | None = None,
             timing: Timing | None = None) -> Look:
        """Network outputs for every find above ``threshold`` (default: the least any step looks
        at), the photo (or its ``window``) scaled to ``long_side`` for the finder (default: the
        config's)."""
        cfg = config or self.config
        finder = self.finder if cfg is self.config else self.finder_for(cfg)
        reader = self.reader if cfg is self.config else self.reader_for(cfg)
        found, t = finder(decoded, cfg.low if threshold is None else threshold, long_side, window)
        arr = np.asarray(decoded.image, dtype=np.uint8)
        reading, t_read = reader(arr, found.boxes)
        t.add(t_read)
        probs = reading.probs
        if cfg.reader.upright is not None:
            probs, t_up = reader.upright(arr, found.boxes, found.scores, probs, reading.downs,
                                         cfg.reader.upright)
            t.add(t_up)
        if timing is not None:
            timing.add(t)
        return Look(arr, decoded.scale, Finds(found.boxes, found.scores, found.kinds, probs, reading.downs,
                                              embeds=reading.embedding))

    def build(self, look: Look, config: Config | None = None) -> Chosen:
        """Detections and spares from one look's network outputs, by ``config`` (default: this
        detector's): the cheap half of ``detect``, for replaying a look at many settings."""
        return choose(look, config or self.config)

    def closer_look(self, dets: list[Detection], decoded: Decoded, config: Config | None = None,
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
        f = (config or self.config).finder
        look = look or f.second_look
        faces = [d for d in dets if d.card != "back"]
        if look is None or not faces:
            return None
        k = decoded.scale
        long = max(decoded.image.size)
        glyph = float(np.median([glyph_size(d) for d in faces])) / k
        med = glyph * f.long_side / long  # finder pixels at the first look
        if med >= look.below:
            return None
        boxes = np.asarray([d.box for d in dets], np.float64) / k
        pad = CARD_GLYPHS * glyph + WINDOW_MARGIN * long
        w, h = decoded.image.size
        lo, hi = boxes[:, :2].min(axis=0) - pad, boxes[:, 2:].max(axis=0) + pad
        window = (max(0, int(lo[0])), max(0, int(lo[1])),
                  min(w, int(np.ceil(hi[0]))), min(h, int(np.ceil(hi[1]))))
        part = max(window[2] - window[0], window[3] - window[1])
        m = f.multiple
        side = round(f.long_side * look.target / max(med, 1.0) * part / long / m) * m
        side = min(side, look.max_side, -(-part // m) * m)
        if side * long / part <= f.long_side:  # no closer than the first look
            return None
        return side, window
