"""``zipai tune deck-finds DECKSET``: when a taught deck says whether a find is a card
(``zipai.vision.deck.Admit``): by how near its embedding lies to the deck's prototypes, or by how
strong its peak is against the peak the finder gave that card on the deck's teaching photo.

DECKSET is a deck set of the validation split (``zipai data render --decks --split val``), never
the held-out one, which is for figures. Each deck is taught from its photo; each scene's network
outputs are taken once and replayed under every setting (``Detector.detect(looks=...)``), then
laid out and matched with its labels as ``zipai eval decks`` does. First it prints how near the
finds that are cards and those that are none lie to the deck, and how strongly the finder found
each card of the teaching photos; then each half of the rule alone over a grid, then the best of
each together. A setting wins by more scenes read exactly, then fewer extra finds, then more
cards read right, then more scored as the scene: an extra find spoils a scene as a missed card
does. The choice is printed, not written: it is ``vision/deck/lens.py``'s ``ADMIT``."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from zipai.datasets.decks import DeckSetError, read_deck_set
from zipai.engine import CARD_NAMES
from zipai.models.evaluate import Tally, labelled_scenes, layout_base, match_scene
from zipai.vision.deck import Admit, Deck, Lens, TeachRefused, learn, reread
from zipai.vision.decode import Decoded, load
from zipai.vision.detection import Look
from zipai.vision.detector import Detector, LookKey
from zipai.vision.scan import scan_detections
from zipai.vision.steps import weigh

FAINT = (0.4, 0.5, 0.6, 0.7, 0.8)  # of the card's peak on the teaching photo
FAINT_BELOW = (0.6, 0.8, 1.01)  # for cards whose teaching peak lies under this (1.01: every card)
FACE = (0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
BACK = (0.6, 0.7, 0.8, 0.9)
FAR = (0.2, 0.3, 0.4, 0.5, 0.6)
PEAK = (0.0, 0.3)
LEAST = (0.0, 0.2)  # the selector's probability a find taken in must reach


@dataclass(slots=True)
class Scene:
    """One scene of a taught deck: its photo, labels, layout base and replayable looks."""

    decoded: Decoded
    anns: list[dict[str, Any]]
    base: dict[str, Any] | None
    truth: dict[str, Any] | None
    deck: Deck
    looks: dict[LookKey, Look]


def scenes_of(det: Detector, root: Path, decks: int, per_deck: int) -> list[Scene]:
    out = []
    for entry in read_deck_set(root)[: decks or None]:
        try:
            deck = learn(entry.teach.read_bytes(), entry.id, det).deck
        except TeachRefused as exc:
            print(f"  {entry.id}: teaching photo refused ({exc}); left out", file=sys.stderr)
            continue
        for folder, im, anns in labelled_scenes([entry.scenes], per_deck):
            truth = im.get("layout")
            out.append(Scene(load(folder / im["file_name"]), anns, layout_base(truth) if truth else None,
                             truth, deck, {}))
        print(f"  {entry.id}: taught", file=sys.stderr)
    return out


def measure(det: Detector, scenes: list[Scene], admit: Admit) -> Tally:
    t = Tally()
    for s in scenes:
        found = det.detect(s.decoded, looks=s.looks, lens=reread(s.deck, det, admit))
        sc = scan_detections(s.decoded.width, s.decoded.height, found.detections, s.base, None, found.spare)
        t.add(sc, s.anns, s.truth)
    return t


def nearness(det: Detector, scenes: list[Scene]) -> None:
    """Quantiles of each find's nearness to the deck (its read card's prototype; the nearest of
    all), for the selector's finds that are cards and those that are none."""
    rows: dict[str, list[float]] = {"card face": [], "card back": [], "no card": [], "no card (near)": []}
    for s in scenes:
        lens = Lens(s.deck, det.config.classes)
        look = s.looks[None]
        look = Look(look.arr, look.scale, lens.reread(look.finds, det.config))
        sub, cards, _ = weigh(look, det.config)
        if sub.finds.embeds is None or not len(cards):
            continue
        e = sub.finds.embeds / np.maximum(np.linalg.norm(sub.finds.embeds, axis=1, keepdims=True), 1e-6)
        face = (e @ s.deck.prototypes.T).max(axis=1)
        back = e @ s.deck.back if s.deck.back is not None else np.full(len(e), np.nan)
        k = look.scale
        m = match_scene([(c, tuple(b * k)) for c, b in zip(cards, sub.boxes, strict=True)], s.anns)
        extra = set(m.extras)
        for i, c in enumerate(cards):
            own = back[i] if c == "back" else face[i]
            if i in extra:
                rows["no card"].append(float(own))
                rows["no card (near)"].append(float(np.fmax(face[i], back[i])))
            else:
                rows["card back" if c == "back" else "card face"].append(float(own))
    print("nearness to the deck (cosine), quantiles 5/25/50/75/95%:")
    for name, v in rows.items():
        known = [x for x in v if not np.isnan(x)]  # a back find where the deck has no back: unknown
        if known:
            q = np.percentile(known, [5, 25, 50, 75, 95])
            print(f"  {name:<15} n={len(known):5d}  " + " ".join(f"{x:.3f}" for x in q))


def teaching_peaks(scenes: list[Scene]) -> None:
    """Quantiles over the decks of the finder's peak on each card of their teaching photos: a
    card the finder barely sees on a clean photo is one the faint half of the rule weighs."""
    decks = {id(s.deck): s.deck for s in scenes if s.deck.peaks is not None}
    if not decks:
        return
    values = np.asarray([d.peaks.values for d in decks.values() if d.peaks is not None])
    print(f"the finder's peak on each card of the {len(decks)} teaching photos, quantiles 5/50% "
          "(the faintest cards first):")
    low, mid = np.percentile(values, 5, axis=0), np.median(values, axis=0)
    print("  " + "  ".join(f"{CARD_NAMES[i]} {low[i]:.2f}/{mid[i]:.2f}" for i in np.argsort(low)[:8]))


def rule(t: Tally) -> tuple[float, int, float, float]:
    f = t.totals.figures()
    return f["scene_exact_rate"], -t.totals.extra, f["per_card_accuracy"], t.scored / max(1, t.totals.scenes)


def line(admit: Admit, t: Tally) -> str:
    f = t.totals.figures()
    return (f"  {admit}: exact {f['scene_exact_rate']:.4f} per card {f['per_card_accuracy']:.4f} "
            f"extra {t.totals.extra} scored {t.scored / max(1, t.totals.scenes):.4f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="zipai tune deck-finds", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("decks", type=Path, help="a deck set of the validation split (zipai data render --decks)")
    p.add_argument("--decks", dest="count", type=int, default=0, help="only the first N decks")
    p.add_argument("--scenes", type=int, default=0, help="only the first N scenes of each deck")
    p.add_argument("--model", type=Path, default=None, help="manifest.json (default: the shipped model)")
    a = p.parse_args(argv)
    try:
        det = Detector(a.model, embed=True)
        scenes = scenes_of(det, a.decks, a.count, a.scenes)
    except (DeckSetError, ValueError) as exc:
        print(f"zipai tune deck-finds: {exc}", file=sys.stderr)
        return 2
    if not scenes:
        print("zipai tune deck-finds: no deck was taught", file=sys.stderr)
        return 2
    off = Admit()
    base = measure(det, scenes, off)
    print(f"{len(scenes)} scenes; the deck rereading only:")
    print(line(off, base))
    nearness(det, scenes)
    teaching_peaks(scenes)
    best: dict[str, tuple[Any, Tally]] = {}
    for name, grid in (("face", FACE), ("back", BACK), ("far", FAR), ("faint", FAINT)):
        best[name] = (None, base)
        for v in grid:
            if name == "faint":
                tries = [{"faint_below": b, "least": q} for b in FAINT_BELOW for q in LEAST]
            elif name == "far":
                tries = [{}]
            else:
                tries = [{"peak": p, "least": q} for p in PEAK for q in LEAST]
            for more in tries:
                admit = replace(off, **{name: v, **more})
                t = measure(det, scenes, admit)
                print(line(admit, t), flush=True)
                if rule(t) > rule(best[name][1]):
                    best[name] = (admit, t)
    won = {n: adm for n, (adm, _) in best.items() if adm is not None}
    chosen = Admit(*(getattr(won[n], n) if n in won else None for n in ("face", "back", "far")),
                   peak=max((won[n].peak for n in ("face", "back") if n in won), default=0.0),
                   least=max((won[n].least for n in ("face", "back", "faint") if n in won), default=0.0),
                   faint=won["faint"].faint if "faint" in won else None,
                   faint_below=won["faint"].faint_below if "faint" in won else 1.0)
    t = measure(det, scenes, chosen)
    print("together:")
    print(line(chosen, t))
    if rule(t) <= rule(base):
        chosen = off
    print(f"choice: {chosen}")
    return 0
