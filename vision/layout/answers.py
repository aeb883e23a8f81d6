"""What only the player can tell a photo (RULINGS section 7), as pure steps over columns.

A photo cannot say which row holds the claimed groups when neither row shows it (a table's
convention: the app asks once an evening, ``zipai scan --claimed`` takes it): the top or the
bottom one where the rows lie one above the other, the left or the right one where they lie side
by side (one long row, split at its widest gap). Nor can it say the card of a
concealed group laid as backs only (the player names it). The app's draft, the CLI and the
evaluation apply the player's answer with these same functions; each returns new columns and
leaves the ones given as they were.
"""

from __future__ import annotations

from collections.abc import Sequence

from zipai.engine import CARD_NAMES

from ..detection import Detection
from .column import CONCEALED, HAND, TABLE, Column, proposed_state

TOP, BOTTOM, LEFT, RIGHT = "top", "bottom", "left", "right"  # where the claimed row lies in the photo
PLACES = (TOP, BOTTOM, LEFT, RIGHT)


class AnswerError(ValueError):
    """An answer that cannot be given: a place other than top, bottom, left or right, a group
    that is not there, a name that is no face card."""

    code = "usage"


def guessed_rows(cols: Sequence[Column]) -> tuple[list[Column], list[Column]]:
    """The claimed and the hand row's columns with cards, when the geometry only guessed which
    was which (``Column.row_guess``); two empty lists otherwise."""
    rows = [c for c in cols if c.cards and c.row in (TABLE, HAND)]
    if not any(c.row_guess for c in rows):
        return [], []
    return [c for c in rows if c.row == TABLE], [c for c in rows if c.row == HAND]


def places(place: str) -> tuple[str, str]:
    """The two answers a question of ``place``'s kind offers: top or bottom, left or right."""
    return (TOP, BOTTOM) if place in (TOP, BOTTOM) else (LEFT, RIGHT)


def claimed_place(cols: Sequence[Column], dets: Sequence[Detection]) -> str | None:
    """Where the row taken as claimed lies in the photo while that is a guess: ``TOP`` or
    ``BOTTOM`` where the two rows lie one above the other, ``LEFT`` or ``RIGHT`` where they lie
    side by side; None when the rows were told apart (or show no card to place)."""
    where = []
    for row in guessed_rows(cols):
        centres = [dets[i].center for c in row for i in c.detections if 0 <= i < len(dets)]
        if not centres:
            return None
        n = len(centres)
        where.append((sum(x for x, _ in centres) / n, sum(y for _, y in centres) / n))
    if len(where) < 2:
        return None
    (tx, ty), (hx, hy) = where
    if abs(ty - hy) > abs(tx - hx):
        return TOP if ty < hy else BOTTOM
    if tx != hx:
        return LEFT if tx < hx else RIGHT
    return None


def check_place(place: str) -> str:
    """``place`` when it is one of ``PLACES``; an ``AnswerError`` naming it otherwise."""
    if place not in PLACES:
        raise AnswerError(f"the claimed row lies at the top, the bottom, the left or the right, "
                          f"not {place!r}")
    return place


def take_claimed(cols: Sequence[Column], dets: Sequence[Detection], place: str) -> list[Column] | None:
    """The table's convention says the row at ``place`` holds the claimed groups: that row
    becomes the table row, the other the hand, each column's state proposed again, and the rows
    are no longer a guess (so vision asks no more). None when the rows are not a guess, or lie
    the other way (a top or bottom answer says nothing of rows side by side): there is nothing
    to answer."""
    check_place(place)
    now = claimed_place(cols, dets)
    if now is None or place not in places(now):
        return None
    swap = now != place
    out = []
    for c in cols:
        if not c.cards or c.row not in (TABLE, HAND):
            out.append(c.copy())
            continue
        new = c.copy(row_guess="")
        if swap:
            new.row = HAND if c.row == TABLE else TABLE
            new.state = proposed_state(new)
        out.append(new)
    return out


def all_backs(cols: Sequence[Column]) -> list[int]:
    """The concealed groups laid as backs only that no one has named yet: the player names
    each (the rules' reading only stands in meanwhile)."""
    return [n for n, c in enumerate(cols)
            if c.state == CONCEALED and c.cards and not c.name and all(x == "back" for x in c.cards)]


def name_group(cols: Sequence[Column], index: int, face: str | None) -> list[Column]:
    """The player names the card of the concealed group ``index`` (None clears the name)."""
    if not 0 <= index < len(cols):
        raise AnswerError(f"no group {index + 1} (there are {len(cols)})")
    if face is not None and face not in CARD_NAMES:
        raise AnswerError(f"a group is named by a face card, not {face!r}")
    return [c.copy(name=face) if n == index else c.copy() for n, c in enumerate(cols)]
