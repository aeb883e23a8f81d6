"""The chance that a card read from the photo is wrong (misread, or no card at all), from every
piece of evidence a scan already holds, and the card doubts chosen by it.

One number per detection lets the review ask about the cards most likely wrong and only those,
instead of one doubt per reason that each fires on a fifth of the right cards. The evidence is
the reader's probability and its runner-up's, the finder's peak, the selector's probability,
the ink's colour against the class, a fifth copy of a card, the geometry (a weak find taken in,
a second reading the rules chose, a box unlike its neighbours) and the engine: whether the hand
wins as read, and whether it would still win, or pay otherwise, were the card its runner-up or
no card at all. A logistic model weighs them; its weights and the bar a chance must pass to be
a doubt are fitted on validation scenes only (``zipai tune chance``) and shipped as data
(``models/chance.json``, named by the manifest's ``chance`` key), so the photo path needs
numpy alone to apply them.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from zipai.engine import ZipaiError, score_hand

from ..detection import Detection, glyph_size
from ..errors import ModelError
from ..files import models_dir
from .column import LOOSE, Column

FEATURES: tuple[str, ...] = (
    "bias",  # 1
    "back",  # the find is a back (no reader probability)
    "reader_doubt",  # -log of the reader's probability for the card read (faces)
    "runner_up",  # the reader's second choice's probability
    "finder_doubt",  # 1 - the finder's peak
    "select_doubt",  # 1 - the selector's probability that the find is a card (0 where it did not weigh)
    "colour_off",  # the ink's colour disagrees with the class: its distance from the threshold
    "fifth_copy",  # more than four of this card in the layout
    "taken_in",  # a weak find the rules took in to make seven groups
    "reread",  # the rules chose the reader's second reading
    "size_off",  # |log| of the box's size against the median glyph's
    "crowded",  # another find nearer than 0.8 glyph (a glyph found twice)
    "splits",  # the hand as read makes seven groups
    "alt_splits",  # with the runner-up for this card it makes seven groups
    "alt_only",  # the hand as read makes no seven groups, and with the runner-up it does
    "alt_pays_same",  # with the runner-up it makes seven groups and every seat pays the same as now
    "drop_splits",  # without this find the hand makes seven groups
    "drop_only",  # the hand as read makes no seven groups, and without this find it does
    "over_count",  # cards in the layout beyond 24 (a winning layout holds 21 to 24 or so)
    "select_log",  # -log of the selector's probability (its low end spread out)
    "finder_log",  # -log of the finder's peak
    "lone",  # the only card of its column
    "long_column",  # a column of more than four cards (a group holds at most four)
    "twin",  # the same card read within 3.5 glyphs, turned round against it (a card's far end)
    "back_finder",  # a back's finder doubt (a back's peak means otherwise than a face's)
    "back_select",  # a back's selector doubt
    "column_end",  # the last card of a column of two or more (where a card's far end shows)
    "step_jump",  # the step from the card before in its column against the column's median step
    "same_before",  # the card before it in its column reads the same
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the engine makes of one reading of the layout: None fields when it does not score."""

    complete: bool
    splits: bool = False  # seven groups (a win, or a hand short of the least points)
    winning: bool = False
    points: int | None = None
    total: int | None = None
    payouts: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"complete": self.complete, "splits": self.splits, "winning": self.winning,
                "points": self.points, "total": self.total,
                "payouts": None if self.payouts is None else list(self.payouts)}


NO_SCORE = Outcome(False)


Memo = dict[tuple[Any, ...], "Outcome"]


def outcome(cols: Sequence[Column], base: Mapping[str, Any] | None, change: Mapping[int, str | None] = {},
            memo: Memo | None = None) -> Outcome:
    """The engine's score of the columns with detection ``i`` read as ``change[i]`` (None: no
    card there): the question a doubt asks, "and if this card were that one?". ``memo``: the
    answers for engine inputs already scored (one of a pair read otherwise is the same hand)."""
    from .assemble import engine_input

    cols2 = []
    for c in cols:
        if not any(i in change for i in c.detections):
            cols2.append(c)
            continue
        dets, cards = [], []
        for i, x in zip(c.detections, c.cards, strict=False):
            if i in change:
                if change[i] is None:
                    continue
                x = change[i]  # type: ignore[assignment]
            dets.append(i)
            cards.append(x)
        if cards:
            cols2.append(c.copy(detections=dets, cards=cards))
    built = engine_input(cols2, base)
    if not built.complete:
        return NO_SCORE
    lay = built.layout
    counts = Counter([x for g in lay["groups"] for x in g["cards"]] + lay["hand"])
    if any(k > 4 for k in counts.values()) or not (lay["groups"] or lay["hand"]):
        return NO_SCORE
    key = (tuple(sorted((g["state"], tuple(g["cards"])) for g in lay["groups"])), tuple(sorted(lay["hand"])))
    if memo is not None and key in memo:
        return memo[key]
    try:
        r = score_hand(lay)
    except (ZipaiError, RecursionError):
        got = NO_SCORE
    else:
        got = Outcome(True, bool(r.groups), r.winning, r.points, r.score, r.payouts)
    if memo is not None:
        memo[key] = got
    return got


def pays_same(a: Outcome, b: Outcome) -> bool:
    """Both score, and every seat pays or gets the same."""
    return a.complete and b.complete and a.winning == b.winning and a.payouts == b.payouts


@dataclass(slots=True)
class Evidence:
    """The features of every detection of one scan (rows: detections, columns: ``FEATURES``),
    whether each lies in the layout (not in a loose column nor in none), and the engine's
    outcome of the layout as read."""

    x: np.ndarray
    in_layout: np.ndarray
    now: Outcome
    # the engine's outcome with detection i read as card (None: no card), as weighed so far
    tried: dict[tuple[int, str | None], Outcome] = field(default_factory=dict)
    memo: Memo = field(default_factory=dict)  # the engine's answers by engine input


def runner_up(d: Detection) -> str | None:
    """The reader's second choice for a face (a back has none)."""
    return d.alternatives[0][0] if d.card != "back" and d.alternatives else None


def evidence(cols: Sequence[Column], dets: Sequence[Detection], base: Mapping[str, Any] | None) -> Evidence:
    """Each detection's features: the networks' and the rules' own, then the engine's answer to
    "and if this card were its runner-up, or no card?" for the cards of the layout."""
    n = len(dets)
    x = np.zeros((n, len(FEATURES)), np.float64)
    in_layout = np.zeros(n, bool)
    col_len = np.zeros(n, np.int64)
    end = np.zeros(n, bool)
    jump = np.zeros(n)
    same_before = np.zeros(n, bool)
    centres = np.asarray([d.center for d in dets]).reshape(-1, 2)
    for c in cols:
        idx = [i for i in c.detections if 0 <= i < n]
        for i in idx:
            in_layout[i] = c.state != LOOSE
            col_len[i] = len(c.cards)
        if len(idx) >= 2:
            end[idx[-1]] = True
            steps = [float(np.hypot(*(centres[b] - centres[a]))) for a, b in itertools.pairwise(idx)]
            med_step = float(np.median(steps)) or 1.0
            for k, b in enumerate(idx[1:]):
                jump[b] = min(3.0, steps[k] / med_step) - 1.0
                same_before[b] = dets[idx[k]].card == dets[b].card
    memo: Memo = {}
    now = outcome(cols, base, memo=memo)
    tried: dict[tuple[int, str | None], Outcome] = {}
    if n == 0:
        return Evidence(x, in_layout, now)
    counts = Counter(d.card for i, d in enumerate(dets) if in_layout[i])
    sizes = np.asarray([glyph_size(d) for d in dets])
    faces = [d for d in dets if d.card != "back"]
    med = float(np.median([glyph_size(d) for d in faces])) if faces else float(np.median(sizes))
    dist = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1])
    np.fill_diagonal(dist, np.inf)
    layout_cards = int(in_layout.sum())
    col = {f: k for k, f in enumerate(FEATURES)}
    for i, d in enumerate(dets):
        row = x[i]
        row[col["bias"]] = 1.0
        face = d.card != "back"
        row[col["back"]] = 0.0 if face else 1.0
        if face:
            row[col["reader_doubt"]] = min(5.0, -math.log(max(d.class_prob, 1e-6)))
            row[col["runner_up"]] = d.alternatives[0][1] if d.alternatives else 0.0
            if not d.color_ok:
                row[col["colour_off"]] = min(0.2, d.color_margin) * 10
        row[col["finder_doubt"]] = 1.0 - d.finder_score
        row[col["select_doubt"]] = 0.0 if d.selected is None else 1.0 - d.selected
        row[col["fifth_copy"]] = float(in_layout[i] and counts[d.card] > 4)
        row[col["taken_in"]] = float(d.taken_in)
        row[col["reread"]] = float(bool(d.read_as))
        row[col["size_off"]] = min(2.0, abs(math.log(max(sizes[i], 1.0) / max(med, 1.0))))
        row[col["crowded"]] = float(dist[i].min() < 0.8 * max(med, 1.0)) if n > 1 else 0.0
        row[col["twin"]] = float(any(
            e.card == d.card and dist[i, j] < 3.5 * max(med, 1.0)
            and d.down[0] * e.down[0] + d.down[1] * e.down[1] < -0.5 for j, e in enumerate(dets) if j != i))
        row[col["splits"]] = float(now.splits)
        row[col["over_count"]] = max(0, layout_cards - 24) / 3.0
        row[col["select_log"]] = 0.0 if d.selected is None else min(8.0, -math.log(max(d.selected, 1e-4)))
        row[col["finder_log"]] = min(8.0, -math.log(max(d.finder_score, 1e-4)))
        row[col["lone"]] = float(col_len[i] == 1)
        row[col["long_column"]] = float(col_len[i] > 4)
        row[col["back_finder"]] = row[col["back"]] * row[col["finder_doubt"]]
        row[col["back_select"]] = row[col["back"]] * row[col["select_doubt"]]
        row[col["column_end"]] = float(end[i])
        row[col["step_jump"]] = jump[i]
        row[col["same_before"]] = float(same_before[i])
        if not in_layout[i]:
            continue
        other = runner_up(d)
        alt = NO_SCORE
        if other:
            alt = tried[(i, other)] = outcome(cols, base, {i: other}, memo)
        row[col["alt_splits"]] = float(alt.splits)
        row[col["alt_only"]] = float(alt.splits and not now.splits)
        row[col["alt_pays_same"]] = float(alt.splits and pays_same(alt, now))
        drop = tried[(i, None)] = outcome(cols, base, {i: None}, memo)
        row[col["drop_splits"]] = float(drop.splits)
        row[col["drop_only"]] = float(drop.splits and not now.splits)
    return Evidence(x, in_layout, now, tried, memo)


@dataclass(frozen=True, slots=True)
class ChanceModel:
    """A logistic model over ``features`` and the bar a chance must pass to be a card doubt."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    bar: float
    notes: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = [f for f in self.features if f not in FEATURES]
        if unknown or len(self.weights) != len(self.features):
            raise ModelError(f"the chance model is unreadable: unknown features {unknown} or "
                             f"{len(self.weights)} weights for {len(self.features)} features")
        if not 0.0 <= self.bar <= 1.0:
            raise ModelError(f"the chance model's bar {self.bar} is not a probability")

    def chances(self, x: np.ndarray) -> np.ndarray:
        """The probability that each row's card is wrong."""
        idx = [FEATURES.index(f) for f in self.features]
        z = x[:, idx] @ np.asarray(self.weights, np.float64) if len(x) else np.zeros(0)
        return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))

    def to_json(self) -> dict[str, Any]:
        return {"format": 1, "features": list(self.features), "weights": [round(w, 6) for w in self.weights],
                "bar": round(self.bar, 6), "notes": self.notes}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ChanceModel:
        try:
            return cls(tuple(str(f) for f in obj["features"]), tuple(float(w) for w in obj["weights"]),
                       float(obj["bar"]), dict(obj.get("notes", {})))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"the chance model is unreadable ({exc})") from None


CHANCE_FILE = "chance.json"


def load_chance(path: str | Path) -> ChanceModel:
    """A chance model file; a clear ``ModelError`` when it is missing or unreadable."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        return ChanceModel.from_json(json.loads(text))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(f"{path}: no readable chance model ({exc})") from None


@lru_cache(maxsize=1)
def shipped_chance() -> ChanceModel:
    """The shipped chance model: the file the manifest's ``chance`` key names in its own folder
    (a bare file name only: data never names a path), else ``chance.json`` there."""
    folder = models_dir()
    name = CHANCE_FILE
    try:
        man = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        named = man.get("chance") if isinstance(man, dict) else None
        if isinstance(named, str) and named and Path(named).name == named:
            name = named
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        pass
    return load_chance(folder / name)


def judge(cols: Sequence[Column], dets: Sequence[Detection], base: Mapping[str, Any] | None,
          model: ChanceModel | None = None) -> tuple[Evidence, tuple[Detection, ...]]:
    """The evidence the cards were weighed on, and the detections with their ``chance`` (by the
    shipped model unless ``model``): new values, the caller's are left as they were."""
    global _last_judged
    model = model or shipped_chance()
    key = (tuple((tuple(c.detections), tuple(c.cards), c.state, c.row, c.name, c.reading, c.settled,
                  c.row_guess) for c in cols), tuple(dets), repr(sorted((base or {}).items())))
    last = _last_judged  # one tuple, replaced whole: a scan in another thread sees one or the other
    if last is not None and last[0] == key and last[1] is model:
        return last[2]
    ev = evidence(cols, dets, base)
    chances = model.chances(ev.x)
    out = ev, tuple(replace(d, chance=0.0 if players_word(d) else float(c))
                    for d, c in zip(dets, chances, strict=True))
    _last_judged = (key, model, out)
    return out


# The last layout judged, its model and the answer: ``readings.rescue`` weighs the repaired
# layout's cards, and the scan's assembly weighs the same layout again when the rescue changed
# nothing. The engine's answers in the evidence are facts about engine inputs, safe to share.
_last_judged: tuple[Any, ChanceModel, tuple[Evidence, tuple[Detection, ...]]] | None = None


def players_word(d: Detection) -> bool:
    """A card no network found: the player typed or corrected it (the app gives it a finder
    score and a reader's probability of 1, which no network's peak reaches), so it is no doubt."""
    return d.finder_score >= 1.0 and (d.card == "back" or d.class_prob >= 1.0)


@dataclass(frozen=True, slots=True)
class Alternative:
    """Another reading of a doubted card (None: no card there) and what the hand makes of it."""

    card: str | None
    outcome: Outcome
    changes_pay: bool

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card, **self.outcome.to_json(), "changes_pay": self.changes_pay}


def alternatives(cols: Sequence[Column], d: Detection, i: int, base: Mapping[str, Any] | None,
                 now: Outcome, tried: Mapping[tuple[int, str | None], Outcome] | None = None,
                 memo: Memo | None = None) -> list[Alternative]:
    """The reader's next two readings of detection ``i`` and no card at all, each scored."""
    readings: list[str | None] = [a for a, _ in d.alternatives[:2] if a != d.card] if d.card != "back" else []
    readings.append(None)
    out = []
    for r in readings:
        o = tried[(i, r)] if tried is not None and (i, r) in tried else outcome(cols, base, {i: r}, memo)
        out.append(Alternative(r, o, o.complete and not pays_same(o, now)))
    return out


def money(now: Outcome, alts: Sequence[Alternative]) -> float:
    """How much a doubt can move: the most any reading moves the seats' payouts, a reading that
    makes or unmakes a score counting as the whole of the scoring one's."""
    most = 0.0
    for a in alts:
        if not a.changes_pay:
            continue
        o = a.outcome
        if o.payouts is not None and now.payouts is not None and len(o.payouts) == len(now.payouts):
            most = max(most, float(sum(abs(p - q) for p, q in zip(o.payouts, now.payouts, strict=True))))
        else:
            pays = o.payouts if o.payouts is not None else now.payouts or ()
            most = max(most, float(sum(abs(p) for p in pays)) or 1.0)
    return most


def describe(o: Outcome) -> str:
    if not o.complete:
        return "no score"
    if not o.splits:
        return "no seven groups"
    if not o.winning:
        return f"seven groups, {o.points} points, not a win"
    return f"{o.points} points, score {o.total}"
