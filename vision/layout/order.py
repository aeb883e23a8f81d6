"""The order the repairs run in (``REPAIRS``): the moves of ``repairs`` and ``moves``, then the
readings of ``readings`` and ``hidden``, each tried only if those before it left a draft that
does not split."""

from __future__ import annotations

from collections.abc import Sequence

from .discards import set_apart_discards, win_without_discards
from .hidden import complete_group
from .moves import gather_loose, join_in_line, move_far_ends, set_apart_pairs, trade_ends
from .readings import fill_concealed, read_backs, read_hidden, reread, rescue
from .repairs import (
    Draft,
    Repair,
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
                               fill_concealed, set_apart_pairs, complete_group, read_hidden,
                               win_without_discards, rescue)
"""The order the repairs run in: a card found twice down its column, the geometry's own repairs
(a lone back, a group split over two short columns, near or in one line), loose cards lying
together that make a group, the card of an all-back group, then the lone cards, the claimed row's
lone faces and pairs (discards laid in line with it), a card linked on at a column's end (set
apart, or moved to the column it belongs to, nearby or a far end in line with it), the lone
backs, the rows, a misread, a missed
card a weak find shows, a card no find shows (in the column it completes, else as a free card of
the hand), each tried only if those before it left a layout that does not split, then the
discards among the claimed row's and the hand's lone faces and pairs, and last the card the
chances doubt most, read otherwise, both when the layout makes no winning hand."""


def repair(draft: Draft, steps: Sequence[Repair] = REPAIRS) -> Draft:
    """The draft after each step in turn (``REPAIRS``)."""
    return run(draft, steps)
