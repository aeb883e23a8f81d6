"""The layout's unit: a column of cards, where it lies (its row) and what it is proposed to be.

The geometry draws columns, the repairs redraw them, assembly reads them, and the app edits the
same ``Column`` list (move a card, flip a group, name a back group) before assembling again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

TABLE, HAND, LOOSE = "table", "hand", "loose"
# why the claimed row can be a guess (``Column.row_guess``)
ROW_GUESSES = {"split": "the cards lie in one long row, split at its widest gap",
               "alike": "neither row alone shows a back, a pair or a lone card",
               "backs": "only a back tells the rows apart, and a set held in the hand is laid face "
                        "over backs too",
               "broken": "the row taken as the hand shows a pair or a lone card beside a column of four "
                         "that is no quad, and may be a group split over two columns",
               "swapped": "with the first row taken as claimed the hand split into no groups, so the "
                          "other row was taken"}
OPEN, CONCEALED, FREE = "open", "concealed", "hand"


@dataclass(slots=True)
class Params:
    """Clustering thresholds, in units of the median glyph size ``s``. ``min_step``,
    ``max_across``, ``row_split``, ``off_axis`` and ``column_break`` were chosen on the labelled
    cards of the validation scenes (``zipai tune layout``); ``far_end`` and ``far_after``, and
    ``column_break`` again once it counted in the photo's usual step, and ``glyph_overlap``,
    ``back_reach``, ``far_end`` and ``max_step`` again once two backs counted in their own
    width, and ``stray_gap``, ``row_depth`` and ``head_jump``, on the labelled cards of
    ``data/layout`` and ``data/detector/val_tune400`` (``zipai eval detector DIR
    --labelled-cards``) and the validation photos' scans (docs/lab/layout.md); ``down_slack`` on
    the scans of the detector's validation sets, whose downs are the reader's (the labelled
    cards' are true)."""

    max_lateral: float = 0.65  # |across-column offset| of two cards in one column
    max_gap: float = 1.9  # gap along the column between consecutive boxes
    card_per_glyph: float = 1.2  # a card's width in glyph sizes
    min_step: float = 0.15  # the next card down a column, in card widths along the column
    max_step: float = 6.0
    max_across: float = 0.45  # and at most this far across it
    # degrees the reader's down direction may miss a card's own: a link to a far end (a glyph
    # turned round) may lie further across by the step times its tangent
    down_slack: float = 10.0
    glyph_overlap: float = 0.8  # two faces' glyph boxes this level along the column lie side by side
    back_reach: float = 1.5  # card widths: a back lies along the nearest faces this close to it
    step_factor: float = 4.0  # face-to-face links longer than this many usual steps are cut
    across_cost: float = 3.0
    column_break: float = 2.2  # a step this many times the photo's usual step ends the column
    far_end: float = 4.3  # card widths past the usual step that a turned-round glyph (a far end) still links
    far_after: float = 1.5  # a step this many usual steps long after a far end is the gap to the next row
    stray_max: int = 2  # a row of at most this many cards lies apart from the layout
    row_split: float = 1.1  # a gap this many times the usual column spacing splits one long row
    stray_gap: float = 1.5  # a card or two at a row's end past a gap this many times its spacing lie apart
    # a long row whose columns' glyphs differ this many times in width is seen at a slant (near
    # columns wide, far ones narrow): its gaps between heads are measured in the columns' glyph widths
    row_depth: float = 1.55
    # rows whose groups' heads lie this many times a group's length apart along the columns are
    # two rows, though a long column's extent bridges them
    head_jump: float = 0.5
    # a row of this many lone face cards or more, and nothing else, is a discard row, not the hand
    discard_row: int = 5
    low_confidence: float = 0.7  # reader probability below this is a doubt
    reread_below: float = 0.9  # a face read less surely than this may take the reader's second choice
    reread_max: int = 6  # the least sure faces that ``reread`` weighs
    low_find: float = 0.35  # finder score below this is a doubt
    low_select: float = 0.5  # the selector's probability below this is a doubt (zipai tune doubts)
    # which guessed claimed rows are doubts (``ROW_GUESSES``; zipai tune doubts --no-silent
    # [--labelled-cards]): every guess, "backs" too, as only so no validation scan is scored wrong
    # with no doubt (a hand's 坎 laid face over backs looks like a 偎: docs/lab/layout.md); the
    # table's convention (``answers.take_claimed``, asked once an evening) answers rows of any guess
    row_doubts: frozenset[str] = frozenset({"split", "alike", "broken", "backs"})
    color_margin: float = 0.015  # ink colour this close to the red/black threshold is no evidence
    off_axis: float = 30.0  # degrees: a face turned further from the layout's axis lies apart
    # which cards are doubts: "chance" (each card whose chance of being wrong passes the chance
    # model's bar, ``layout.chance``) or "reasons" (one doubt per reason the networks or the rules
    # were unsure, the rule before the chance; kept for the evaluations' comparison)
    doubt_rule: str = "chance"
    chance_model: Any = None  # a ``ChanceModel`` in place of the shipped one (the tuner's)
    chance_bar: float | None = None  # a bar in place of the model's own
    # ``readings.rescue``: when the layout as read makes no winning hand, read otherwise (or leave
    # out) one of the ``rescue_cards`` cards likeliest wrong whose chance is at least
    # ``rescue_chance``, when that makes a winning hand (chosen on validation, docs/lab/layout.md)
    rescue: bool = True
    rescue_cards: int = 4
    rescue_chance: float = 0.05
    # ``readings.fill_concealed``: a concealed column of one face and one back read as the concealed
    # triple of its face (a back missed), and (``fill_lone_face``) else one lone face of the claimed
    # row as one with both backs missed, when only so the hand makes seven groups and wins
    fill_concealed: bool = True
    fill_lone_face: bool = True
    # ``readings.fill_fourth``: a concealed column of three read as a 提 of four with a back missed,
    # when only so the hand makes seven groups and wins
    fill_fourth: bool = True
    # ``hidden.complete_group``: a column of two face cards that is no group read with the card
    # hidden under it that makes it one, when only so the hand makes seven groups and wins (or,
    # ``complete_splits``, makes seven groups, every such reading paying and scoring the same)
    complete_group: bool = True
    complete_two: bool = True
    complete_loose: bool = True
    complete_three: bool = True  # three columns each a card short, tried together
    complete_pairs: bool = True  # a pair of the hand (a 坎 a card short) among two or three columns
    complete_apart: bool = True  # two lone cards in line, a card hidden between them
    # no completion wins: take one that makes seven groups when every such one pays the same
    complete_splits: bool = True
    # winning completions that pay otherwise: the likeliest taken (the most columns made three of a
    # card, then the most copies unseen, then the least score), its doubt naming the others
    complete_guess: bool = True
    # an all-back group beside the columns a card short: read (``read_backs``) once they are completed
    complete_blind: bool = True
    # ``twins.leave_twin``: of two finds of one card next to each other down a column that is no
    # group but one without either, one left out, when the layout as it stands does not win
    leave_twin: bool = True
    # ``moves.move_far_ends``: a card linked onto the wrong column past a long gap (its far end showing)
    # moved back to the column it continues, when only so the layout makes seven groups
    move_far_ends: bool = True
    # ``repairs.join_split_groups``: a short claimed column whose own row holds a partner within
    # ``JOIN_REACH`` is joined to it, not to a loose card lying nearer (a discard beside its backs)
    row_partner_first: bool = True
    # ``moves.join_in_line``: two short claimed columns joined where one continues the other's line
    join_in_line: bool = True
    # ``discards.set_apart_discards``: lone faces and pairs of the claimed row (which holds groups
    # only) set apart as discards, when only so the layout makes seven groups
    set_apart_discards: bool = True
    # ``discards.win_without_discards``: lone faces and pairs of the claimed row, and of the hand's
    # row lying apart from its groups, set apart when only so the layout makes a winning hand
    win_without_discards: bool = True
    # ``repairs.join_fourth_back``: a lone back (or a face, past three backs) in line with a
    # concealed column of three joins it as its fourth card (a 提)
    join_fourth_back: bool = True
    # ``order.repair``: where the rows were only a guess and the repairs leave no seven groups, the
    # repairs run again from the geometry's draft with the rows the other way round
    rows_other_way: bool = True


@dataclass(slots=True)
class Column:
    """Cards laid as one column (a group on the table, or part of the revealed hand).

    Mutable because the app edits it in place; the repairs never do (they build new columns)."""

    detections: list[int]  # indices into the detection list, top to bottom
    cards: list[str]
    row: str = HAND
    state: str = FREE  # open / concealed (a group) or hand (free cards for the engine)
    name: str | None = None  # the card an all-back column stands for, once the user names it
    settled: str = ""  # why the engine, not the geometry, put this lone card in or out
    row_guess: str = ""  # why the claimed row was a guess (a key of ``ROW_GUESSES``; "" if it was not)
    reading: str | None = None  # the card the rules read an all-back column as, until the user names it
    reading_why: str = ""  # how the rules chose that reading (``readings.read_backs``)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"cards": list(self.cards), "state": self.state, "row": self.row,
                             "detections": list(self.detections)}
        if self.name:
            d["name"] = self.name
        if self.settled:
            d["settled"] = self.settled
        return d

    def copy(self, **changes: Any) -> Column:
        """A new column with its own lists, ``changes`` applied: what a repair returns."""
        fields = {"detections": list(self.detections), "cards": list(self.cards), "row": self.row,
                  "state": self.state, "name": self.name, "settled": self.settled,
                  "row_guess": self.row_guess, "reading": self.reading, "reading_why": self.reading_why}
        return Column(**{**fields, **changes})


def proposed_state(c: Column) -> str:
    """Backs make a concealed group; a face-up column of three or more in the table row is
    proposed open; a loose column stays loose; the rest is hand (free cards)."""
    backs = sum(x == "back" for x in c.cards)
    if c.row == LOOSE:
        return LOOSE
    if backs:
        return CONCEALED
    if c.row == TABLE and len(c.cards) - backs >= 3:
        return OPEN
    return FREE


def propose_states(cols: Iterable[Column]) -> None:
    """Give each column its proposed state, in place (the app's columns, and columns just drawn)."""
    for c in cols:
        c.state = proposed_state(c)
