"""The layout being edited, for both the photo review and manual entry: no Kivy, no rules.

A draft is vision's own editable model, a list of ``Column`` (cards, row, open/concealed/hand,
the name of an all-back group) plus the detections they point to. Editing it is what the review
screen's taps do (correct a card, add, delete, move, flip, name); ``check`` hands the columns to
``zipai.vision.assemble``, which turns them into the engine's input and lists the doubts (deck
limits, seven groups, unnamed backs), so the app never decides a rule itself.

Manual entry uses the same model: cards typed on the pad have no detection (index ``-1``).

>>> d = Draft.manual(); d.add(0, "d5"); d.add(0, "d5"); d.add(0, "d5"); d.flip(0)
>>> [(c.cards, c.state) for c in d.columns]
[(['d5', 'd5', 'd5'], 'concealed'), ([], 'hand')]
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zipai.engine import CARD_NAMES, Card
from zipai.vision import Assembled, Column, Detection, Doubt, assemble
from zipai.vision.layout import BOTTOM as BOTTOM  # the places, re-exported for the app's screens
from zipai.vision.layout import LEFT as LEFT
from zipai.vision.layout import PLACES as PLACES
from zipai.vision.layout import RIGHT as RIGHT
from zipai.vision.layout import TOP as TOP
from zipai.vision.layout import Params, answers

TABLE, HAND = "table", "hand"
OPEN, CONCEALED, FREE = "open", "concealed", "hand"
FACES: tuple[str, ...] = CARD_NAMES
KEYS: tuple[str, ...] = (*FACES, "back")
NO_BOX = -1
# doubts that leave the layout unscorable until the user fixes them
BLOCKING = frozenset({"stray_back", "unnamed_concealed", "mixed_concealed", "short_concealed",
                      "deck_limit"})
_FLIP = {OPEN: CONCEALED, CONCEALED: FREE, FREE: OPEN}


class DraftError(ValueError):
    """An edit that cannot be made (a card or column that is not there, an unknown face)."""

    code = "draft"


@contextlib.contextmanager
def _as_draft_error() -> Iterator[None]:
    """Vision's refusal of an answer (``answers.AnswerError``) as the app's refusal of an edit."""
    try:
        yield
    except answers.AnswerError as e:
        raise DraftError(str(e)) from None


def check_place(place: str) -> str:
    """``place`` when the claimed row can lie there (``answers.PLACES``); a ``DraftError``
    naming it otherwise, before anything is kept."""
    with _as_draft_error():
        return answers.check_place(place)


@dataclass
class Check:
    """The live layout check shown under the editor."""

    layout: dict[str, Any]
    doubts: list[Doubt]
    cards: int
    ready: bool  # nothing blocking: the engine can be asked

    @property
    def blocking(self) -> list[Doubt]:
        return [d for d in self.doubts if d.kind in BLOCKING]


@dataclass
class Draft:
    """Columns being edited, the detections they point to, and the photo they came from."""

    columns: list[Column] = field(default_factory=list)
    detections: list[Detection] = field(default_factory=list)
    photo: str | None = None
    size: tuple[int, int] = (0, 0)  # photo width, height
    # the card the detector read for each detection (None: added by a tap), so the corrections a
    # recorded hand carries can teach the deck in use
    reads: list[str | None] = field(default_factory=list)
    # whether the player has said which card each detection is (a tap in the review's walk, a
    # key on the pad, a card added by hand): a settled card is no longer a doubt to walk through
    settled: list[bool] = field(default_factory=list)

    # ------------------------------------------------------------ construction
    @classmethod
    def manual(cls) -> Draft:
        """An empty manual entry: one table group to fill and the hand row."""
        return cls([Column([], [], TABLE, OPEN), Column([], [], HAND, FREE)])

    @classmethod
    def from_scan(cls, columns: list[Column], detections: list[Detection], photo: str | None,
                  size: tuple[int, int]) -> Draft:
        # the player's copy: edits never reach the scan as vision read it (its columns are
        # edited in place; a detection is a value, so an edit puts a new one in this list)
        cols, dets = [c.copy() for c in columns], list(detections)
        d = cls(cols, dets, photo, size, [x.card for x in dets])
        if not any(c.state == FREE for c in d.columns):
            d.columns.append(Column([], [], HAND, FREE))
        return d

    def copy(self) -> Draft:
        """A draft to edit apart from this one: its own columns and lists (a detection is a
        value, so the two may share them)."""
        return dataclasses.replace(self, columns=[c.copy() for c in self.columns],
                                   detections=list(self.detections), reads=list(self.reads),
                                   settled=list(self.settled))

    # ------------------------------------------------------------ queries
    @property
    def is_photo(self) -> bool:
        return self.photo is not None

    def column(self, ci: int) -> Column:
        if not 0 <= ci < len(self.columns):
            raise DraftError(f"no group {ci + 1} (there are {len(self.columns)})")
        return self.columns[ci]

    def locate(self, det: int) -> tuple[int, int] | None:
        """The (column, position) of a detection, for a tap on its box."""
        for ci, c in enumerate(self.columns):
            if det in c.detections:
                return ci, c.detections.index(det)
        return None

    def assumed(self, dets: Sequence[int]) -> list[str]:
        """The cards vision's rules assumed (no detection: hidden under other cards, a back under
        its face) in the photo's columns a doubt names by their found cards ``dets``; none in
        manual entry, where every typed card has no detection."""
        if not self.is_photo:
            return []
        named = set(dets)
        return [x for c in self.columns if NO_BOX in c.detections
                and {i for i in c.detections if i != NO_BOX} == named
                for i, x in zip(c.detections, c.cards, strict=True) if i == NO_BOX]

    def hand_column(self) -> int:
        for ci, c in enumerate(self.columns):
            if c.state == FREE and c.row == HAND:
                return ci
        self.columns.append(Column([], [], HAND, FREE))
        return len(self.columns) - 1

    def count(self) -> int:
        return sum(len(c.cards) for c in self.columns)

    def fixes(self) -> list[tuple[tuple[float, float, float, float], str]]:
        """The faces the player corrected on a detected card: its box and the right card."""
        out = []
        for i, d in enumerate(self.detections):
            read = self.reads[i] if i < len(self.reads) else None
            if read is not None and d.card != read and d.card in FACES:
                x0, y0, x1, y1 = d.box
                out.append(((x0, y0, x1, y1), d.card))
        return out

    def check(self, base: Mapping[str, Any], weigh: bool = True) -> Check:
        """The engine input and doubts, from vision's own assembly of these columns. ``weigh``
        False leaves the cards' chances unweighed (the one-reason doubts stand in): the layout
        and what blocks it are the same, without the engine's questions of every card, for a
        caller that only scores the layout (the walk's answers)."""
        cols = [c for c in self.columns if c.cards]
        asm: Assembled = assemble(cols, self.detections, dict(base),
                                  None if weigh else Params(doubt_rule="reasons"))
        if weigh:  # the cards as weighed now (their ``chance``), kept with the draft and saved with it
            self.detections[:] = asm.detections
        # a manual draft has no detections; vision then calls it incomplete for want of a photo
        ready = bool(cols) and not any(d.kind in BLOCKING for d in asm.doubts)
        return Check(asm.layout, asm.doubts, self.count(), ready)

    # ------------------------------------------------------------ edits
    @staticmethod
    def _face(face: str) -> str:
        if face not in KEYS:
            raise DraftError(f"unknown card {face!r} (x1…x10, d1…d10 or back)")
        return face

    def _pos(self, ci: int, pos: int) -> Column:
        c = self.column(ci)
        if not 0 <= pos < len(c.cards):
            raise DraftError(f"group {ci + 1} has no card {pos + 1}")
        return c

    def set_card(self, ci: int, pos: int, face: str) -> None:
        """Correct one card; the user's word replaces the detector's, so its doubt goes."""
        c = self._pos(ci, pos)
        c.cards[pos] = self._face(face)
        det = c.detections[pos]
        if det >= 0:
            d = self.detections[det]
            # nor the selector's word, nor the rules' second reading or weak take-in
            self.detections[det] = dataclasses.replace(
                d, card=face, class_prob=1.0, finder_score=max(d.finder_score, 1.0), score=1.0,
                color=_color(face), selected=None, read_as=None, taken_in=False, rescued="")
            self.settled_list()[det] = True

    def add(self, ci: int, face: str) -> None:
        """Add a card to a column (a missed card; or a tap on the pad in manual entry)."""
        c = self.column(ci)
        face = self._face(face)
        det = NO_BOX
        if self.is_photo:
            det = len(self.detections)
            self._reads().append(None)
            self.settled_list().append(True)
            self.detections.append(Detection(face, self._new_box(c), 1.0, _color(face)))
        c.cards.append(face)
        c.detections.append(det)

    def _new_box(self, c: Column) -> tuple[float, float, float, float]:
        """A box for an added card: below the column's last card, else at the photo's centre."""
        boxes = [self.detections[i].box for i in c.detections if i >= 0]
        if boxes:
            x0, y0, x1, y1 = boxes[-1]
            h = y1 - y0
            return (x0, y1 + h * 0.2, x1, y1 + h * 1.2)
        w, h = self.size
        s = max(20.0, min(w, h) / 12)
        return (w / 2 - s / 2, h / 2 - s / 2, w / 2 + s / 2, h / 2 + s / 2)

    def delete(self, ci: int, pos: int) -> None:
        """Remove a card (a false detection); its detection goes too, so it raises no doubt."""
        c = self._pos(ci, pos)
        c.cards.pop(pos)
        det = c.detections.pop(pos)
        if det >= 0:
            self._reads().pop(det)
            self.settled_list().pop(det)
            self.detections.pop(det)
            for col in self.columns:
                col.detections = [i - 1 if i > det else i for i in col.detections]
        self._prune()

    def move(self, ci: int, pos: int, cj: int) -> None:
        """Move a card to another column (the end of it)."""
        c = self._pos(ci, pos)
        target = self.column(cj)
        if target is c:
            return
        target.cards.append(c.cards.pop(pos))
        target.detections.append(c.detections.pop(pos))
        self._prune()

    def flip(self, ci: int) -> None:
        """Open → concealed → hand (free cards) → open."""
        c = self.column(ci)
        c.state = _FLIP.get(c.state, OPEN)
        if c.state != FREE and c.row == HAND and not any(x.state == FREE for x in self.columns):
            self.columns.append(Column([], [], HAND, FREE))

    def name(self, ci: int, face: str | None) -> None:
        """Name the card of an all-back concealed group (or clear the name with None)."""
        self.column(ci)
        with _as_draft_error():
            self._adopt(answers.name_group(self.columns, ci, face))

    def new_column(self, state: str = OPEN) -> int:
        """A new empty group in the table row; returns its index."""
        hand = [i for i, c in enumerate(self.columns) if c.state == FREE and c.row == HAND]
        at = hand[0] if hand else len(self.columns)
        self.columns.insert(at, Column([], [], TABLE, state))
        return at

    def _reads(self) -> list[str | None]:
        """``reads`` in step with ``detections`` (a draft made without them knows no reads)."""
        self.reads = (self.reads + [None] * len(self.detections))[:len(self.detections)]
        return self.reads

    def settled_list(self) -> list[bool]:
        """``settled`` in step with ``detections`` (an older saved draft settled none)."""
        self.settled = (self.settled + [False] * len(self.detections))[:len(self.detections)]
        return self.settled

    def _prune(self) -> None:
        """Drop empty group columns, but keep one hand row to type into."""
        keep_hand = True
        out = []
        for c in self.columns:
            if c.cards:
                out.append(c)
            elif c.state == FREE and keep_hand:
                out.append(c)
                keep_hand = False
        self.columns = out

    # ------------------------------------------------------------ which row was claimed
    def claimed_place(self) -> str | None:
        """Where the row taken as claimed lies in the photo while that is a guess: ``TOP`` or
        ``BOTTOM`` where the rows lie one above the other, ``LEFT`` or ``RIGHT`` where they lie
        side by side; None when the rows were told apart (``vision.layout.answers``)."""
        return answers.claimed_place(self.columns, self.detections)

    def take_claimed(self, place: str) -> bool:
        """The table's convention says the row at ``place`` holds the claimed groups: vision's
        answer (``answers.take_claimed``) applied to this draft's columns, each kept as the same
        object the review's editor points to. False when the rows are not a guess, or lie the
        other way (``place`` top or bottom, the rows side by side), and nothing changes."""
        check_place(place)
        cols = answers.take_claimed(self.columns, self.detections, place)
        if cols is None:
            return False
        self._adopt(cols)
        return True

    def _adopt(self, cols: list[Column]) -> None:
        """Take vision's answered columns into the draft's own, one for one, in place."""
        for mine, new in zip(self.columns, cols, strict=True):
            for f in dataclasses.fields(Column):
                setattr(mine, f.name, getattr(new, f.name))

    # ------------------------------------------------------------ saving (nothing lost)
    def to_json(self) -> dict[str, Any]:
        return {"columns": [{"detections": list(c.detections), "cards": list(c.cards), "row": c.row,
                             "state": c.state, "name": c.name, "row_guess": c.row_guess}
                            for c in self.columns],
                "detections": [_det_json(d) for d in self.detections],
                "photo": self.photo, "size": list(self.size), "reads": list(self._reads()),
                "settled": list(self.settled_list())}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Draft:
        try:
            cols = [Column(list(c["detections"]), list(c["cards"]), c["row"], c["state"], c.get("name"),
                           row_guess=str(c.get("row_guess", "")))
                    for c in obj["columns"]]
            dets = [Detection(**{**d, "box": tuple(d["box"]), "down": tuple(d.get("down", (0.0, 1.0))),
                                 "alternatives": tuple(tuple(a) for a in d.get("alternatives", []))})
                    for d in obj.get("detections", [])]
            w, h = obj.get("size", [0, 0])
            reads = [r if r in KEYS else None for r in obj.get("reads", [])]
            settled = [s is True for s in obj.get("settled", [])]
            return cls(cols, dets, obj.get("photo"), (int(w), int(h)), reads, settled)
        except (KeyError, TypeError, ValueError) as exc:
            raise DraftError(f"the saved draft is unreadable ({exc})") from None


def _color(face: str) -> str | None:
    """The ink colour a face has (the engine knows which ranks are red); None for a back."""
    return None if face == "back" else Card.parse(face).color


def _det_json(d: Detection) -> dict[str, Any]:
    j = dataclasses.asdict(d)
    j["box"] = list(d.box)
    j["down"] = list(d.down)
    j["alternatives"] = [list(a) for a in d.alternatives]
    return j


class Editor:
    """What a tap means right now: the column cards are typed into, the selected card, the mode.

    ``type``: a pad key adds to the target column, or corrects the selected card.
    ``move``: the next tapped column receives the selected card.
    ``name``: the next pad key names the target (all-back) column.
    """

    def __init__(self, draft: Draft) -> None:
        self.draft = draft
        self.target = 0
        self.card: tuple[int, int] | None = None
        self.mode = "type"

    def _clamp(self) -> None:
        n = len(self.draft.columns)
        self.target = min(max(0, self.target), max(0, n - 1))
        if self.card is not None:
            ci, pos = self.card
            if not (0 <= ci < n and 0 <= pos < len(self.draft.columns[ci].cards)):
                self.card = None
        if self.card is None and self.mode == "move":
            self.mode = "type"

    def tap_card(self, ci: int, pos: int) -> None:
        """Select a card (tap again to let go); in move mode, its column is the destination."""
        if self.mode == "move":
            self.tap_column(ci)
            return
        self.card = None if self.card == (ci, pos) else (ci, pos)
        self.target = ci
        self.mode = "type"

    def tap_detection(self, det: int) -> None:
        where = self.draft.locate(det)
        if where is not None:
            self.tap_card(*where)

    def tap_column(self, ci: int) -> None:
        """Choose the column to type into, or drop the card being moved there."""
        self.draft.column(ci)
        if self.mode == "move" and self.card is not None:
            src = self.draft.columns[self.card[0]]
            dest = self.draft.columns[ci]
            self.draft.move(self.card[0], self.card[1], ci)
            self.target = self.draft.columns.index(dest) if dest in self.draft.columns else 0
            if src not in self.draft.columns:
                self.target = min(self.target, len(self.draft.columns) - 1)
            self.card = None
            self.mode = "type"
        else:
            self.target = ci
            self.card = None
            self.mode = "type"
        self._clamp()

    def flip(self, ci: int) -> None:
        self.draft.flip(ci)
        self._clamp()

    def press(self, face: str) -> None:
        """A pad key: correct the selected card, name the target group, or add a card."""
        if self.card is not None:
            self.draft.set_card(self.card[0], self.card[1], face)
            self.card = None
        elif self.mode == "name":
            self.draft.name(self.target, None if face == "back" else face)
            self.mode = "type"
        else:
            if not self.draft.columns:
                self.draft.columns.append(Column([], [], HAND, FREE))
            self._clamp()
            self.draft.add(self.target, face)
        self._clamp()

    def delete(self) -> None:
        if self.card is not None:
            self.draft.delete(*self.card)
            self.card = None
        self._clamp()

    def start_move(self) -> None:
        if self.card is not None:
            self.mode = "move"

    def start_name(self, ci: int) -> None:
        self.draft.column(ci)
        self.target = ci
        self.card = None
        self.mode = "name"

    def new_group(self) -> None:
        self.target = self.draft.new_column()
        self.card = None
        self.mode = "type"

    def enter(self, groups: Sequence[tuple[str, Sequence[str]]], hand: Sequence[str]) -> None:
        """Type a whole layout as taps on the pad would: each ``(state, cards)`` group in a new
        column flipped to its state, then the free cards into the hand column."""
        for n, (state, cards) in enumerate(groups):
            if n:
                self.new_group()
            for c in cards:
                self.press(c)
            while self.draft.columns[self.target].state != state:
                self.flip(self.target)
        self.tap_column(self.draft.hand_column())
        for c in hand:
            self.press(c)
