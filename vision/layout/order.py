"""The order the repairs run in (``REPAIRS``): the moves of ``repairs`` and ``moves``, then the
readings of ``readings`` and ``hidden``, each tried only if those before it left a draft that
does not split."""

from __future__ import annotations

from collections.abc import Sequence

from .assemble import other_way_round
from .discards import set_apart_discards, win_without_discards
from .hidden import complete_group
from .moves import gather_loose, join_in_line, move_far_ends, set_apart_pairs, trade_ends
from .readings import fill_concealed, fill_fourth, read_backs, read_hidden, reread, rescue
from .repairs import (
    Draft,
    Repair,
    _swappable,
    join_fourth_back,
    join_lone_backs,
    join_split_groups,
    run,
    set_apart_ends,
    settle_backs,
    settle_rows,
    settle_strays,
    take_in,
)
from .twins import leave_twin

REPAIRS: tuple[Repair, ...] = (leave_twin, join_lone_backs, join_fourth_back, join_split_groups, join_in_line,
                               gather_loose, read_backs, settle_strays, set_apart_discards, set_apart_ends,
                               trade_ends, move_far_ends, settle_backs, settle_rows, reread, take_in,
                               fill_concealed, fill_fourth, set_apart_pairs, complete_group, read_hidden,
                               win_without_discards, rescue)
"""The order the repairs run in: a card found twice down its column, the geometry's own repairs
(a lone back, a group split over two short columns, near or in one line), loose cards lying
together that make a group, the card of an all-back group, then the lone cards, the claimed row's
lone faces and pairs (discards laid in line with it), a card linked on at a column's end (set
apart, or moved to the column it belongs to, nearby or a far end in line with it), the lone
backs, the rows, a misread, a missed card a weak find shows, a back missed under a concealed
group's face (of three, or of a 提's four), a card no find shows (in the column it completes,
else as a free card of the hand), each tried only if those before it left a layout that does
not split, then the discards among the claimed row's and the hand's lone faces and pairs, and
last the card the chances doubt most, read otherwise, both when the layout makes no winning
hand."""


def repair(draft: Draft, steps: Sequence[Repair] = REPAIRS) -> Draft:
    """The draft after each step in turn (``REPAIRS``), or (``rows_other_way``) after them with
    the rows the other way round."""
    done = run(draft, steps)
    return rows_other_way(draft, done, steps) or done


def rows_other_way(draft: Draft, done: Draft, steps: Sequence[Repair] = REPAIRS) -> Draft | None:
    """Let the rules read the whole layout with the guessed rows the other way round.

    Each step weighs the rows as the geometry guessed them, and a few try them swapped with
    their own one move (``settle_rows``, ``trade_ends``, ``read_backs``); a layout that needs
    the rows swapped and another mend too (a discard set apart, a card hidden in a claimed
    column, a group split over two columns) was left with no seven groups. Where nothing in the
    photo told the rows apart (``_swappable``) and the steps left ``done`` making no seven
    groups (``Params.rows_other_way``), they run again on ``draft`` (the geometry's) with the
    rows the other way round, and that is taken where it makes seven groups: the rows then say
    they were swapped (``swapped``), a ``claimed_row`` doubt where that changes the score, which
    the player's answer settles."""
    if not draft.params.rows_other_way or done.splits or not _swappable(draft.columns):
        return None
    other = run(draft.with_columns(other_way_round(draft.columns, "swapped")), steps)
    return other if other.splits else None
