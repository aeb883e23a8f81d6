"""Teaching photos shown to the learner and judged as a player needs: every variant of a deck's
photo (``--variants``: the learnable ones learnt, each face on its card, the others refused),
and the learnable ones with faces hidden from the finder (``--blind``)."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zipai.datasets.decks import DeckEntry
from zipai.datasets.teach import LEARNABLE, VARIANTS, DeckRef, render_teach
from zipai.models.evaluate import inside

from .blindfold import Blindfold, blind_cards
from .deck_scans import Teacher


@dataclass(frozen=True, slots=True)
class VariantOutcome:
    """One teaching photo variant shown to the learner, and whether it did as a player needs."""

    deck: str
    variant: str
    right: bool
    line: str  # the refusal, or what was learnt


def _deck_ref(entry: DeckEntry) -> tuple[DeckRef, tuple[int, int]]:
    label = json.loads(entry.teach_label.read_text(encoding="utf-8"))
    meta = label["deck"]
    return (DeckRef(int(meta["seed"]), str(meta["split"]), int(meta["index"]), int(meta["style"]),
                    float(meta["compose_five"])), (int(label["width"]), int(label["height"])))


def _photo(ref: DeckRef, variant: str, size: tuple[int, int]) -> tuple[bytes, dict[str, Any]]:
    img, drawn = render_teach(ref, variant, size)
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=92)
    return buf.getvalue(), drawn


def _judge(deck: str, variant: str, teacher: Teacher, photo: bytes, drawn: dict[str, Any],
           det: Any = None, what: str | None = None) -> VariantOutcome:
    """Show one teaching photo to the learner (through ``det`` where given): a photo of
    ``LEARNABLE`` must be learnt, upside-down ones known as such, each face on the card its
    place names; any other refused. ``what`` names the outcome's kind (default ``variant``)."""
    try:
        taught = teacher.learn(photo, deck) if det is None else teacher.learn_with(photo, deck, det)
    except teacher.refused as exc:
        return VariantOutcome(deck, what or variant, variant not in LEARNABLE, f"refused: {exc}")
    turned = bool(getattr(taught, "upside_down", False))
    cards = {f["card"]: f["card_corners"] for f in drawn["faces"]}
    astray = [f.card for f in getattr(taught, "faces", ())
              if f.card not in cards or not inside(_centre(f.box), cards[f.card])]
    right = variant in LEARNABLE and turned == (variant == "upside_down") and not astray
    return VariantOutcome(deck, what or variant, right, "learnt" + (" as upside down" if turned else "")
                          + (f", {astray[0]} found off its card" if astray else ""))


def teach_variants(entry: DeckEntry, teacher: Teacher, variants: Sequence[str] = tuple(VARIANTS)
                   ) -> list[VariantOutcome]:
    """Each teaching photo variant of ``entry``'s deck (``zipai data render --teach --variant``),
    rendered as its set was, shown to the learner: those of ``LEARNABLE`` (good, upside-down,
    slanted, sideways, casual) must be learnt (upside-down ones known as such, each face found
    on the card its place names), every other refused."""
    ref, size = _deck_ref(entry)
    return [_judge(entry.id, v, teacher, *_photo(ref, v, size)) for v in variants]


# (variant, faces hidden from the finder) of ``--blind``: every learnable variant with two hidden,
# the good photo with one to three
BLINDED = (("good", 1), ("good", 2), ("good", 3), ("upside_down", 2), ("slanted", 2), ("sideways", 2),
           ("casual", 2))


def blind_name(variant: str, n: int) -> str:
    return f"{variant}, {n} hidden"


def teach_blinded(entry: DeckEntry, teachers: Sequence[Teacher]) -> list[list[VariantOutcome]]:
    """The learnable teaching photos of ``entry``'s deck with faces hidden from the finder
    (``Blindfold``: the thin 一, the red 七, the faintest print, in that order), each shown to
    every teacher in ``teachers`` (the code now, and the code before): each must be learnt,
    each face on its card. One list per teacher."""
    ref, size = _deck_ref(entry)
    out: list[list[VariantOutcome]] = [[] for _ in teachers]
    photos: dict[str, tuple[bytes, dict[str, Any]]] = {}
    for variant, n in BLINDED:
        if variant not in photos:
            photos[variant] = _photo(ref, variant, size)
        photo, drawn = photos[variant]
        det = teachers[0].detector
        blind = Blindfold(det, photo, drawn, blind_cards(det, photo, drawn, n))
        for mine, teacher in zip(out, teachers, strict=True):
            mine.append(_judge(entry.id, variant, teacher, photo, drawn, blind, blind_name(variant, n)))
    return out


def _centre(box: Sequence[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
