"""From detections to the engine's input, in four stages (RULINGS section 7):

1. ``geometry``: columns down the photo and rows across it, from the boxes alone (``columns``);
   each column is then proposed a state (``column.proposed_state``): backs make a concealed
   group, a face-up column in the claimed row an open one, the rest free hand cards.
2. ``repairs`` and ``readings``: the rules mend what the geometry got wrong, as named steps
   run in the order of ``order.REPAIRS`` (first the moves of cards between columns and rows,
   then the readings of a card the photo does not settle), each taking an immutable ``Draft``
   and returning a new one or None; the engine is asked whether a trial layout splits into
   seven groups, and which readings win (the card of an all-back group, the claimed row, a card
   the chances doubt).
3. ``assemble``: the columns as the engine's input, complete or not.
4. ``doubts``: what the user should look at, one ``DoubtKind`` per reason.

``answers`` then applies what only the player can tell (the claimed row, an all-back group's
card) to the columns, the same way for the app, ``zipai scan --claimed`` and the evaluation.

``zipai.vision.scan`` runs them in this order; the app edits the repaired ``Column`` list and
calls ``assemble`` again.
"""

from .answers import (
    BOTTOM,
    LEFT,
    PLACES,
    RIGHT,
    TOP,
    AnswerError,
    all_backs,
    claimed_place,
    name_group,
    places,
    take_claimed,
)
from .assemble import Assembled, assemble
from .column import (
    CONCEALED,
    FREE,
    HAND,
    LOOSE,
    OPEN,
    ROW_GUESSES,
    TABLE,
    Column,
    Params,
    propose_states,
    proposed_state,
)
from .discards import set_apart_discards, win_without_discards
from .doubts import Doubt, DoubtKind
from .geometry import card_axis, columns
from .hidden import complete_group
from .moves import gather_loose, join_in_line, move_far_ends, set_apart_pairs, trade_ends
from .order import REPAIRS, repair, rows_other_way
from .readings import fill_concealed, fill_fourth, read_backs, read_hidden, reread, rescue
from .repairs import (
    Draft,
    Repair,
    join_fourth_back,
    join_lone_backs,
    join_split_groups,
    layout_splits,
    set_apart_ends,
    settle_backs,
    settle_rows,
    settle_strays,
    take_in,
)
from .twins import leave_twin

__all__ = [
    "BOTTOM",
    "CONCEALED",
    "FREE",
    "HAND",
    "LEFT",
    "LOOSE",
    "OPEN",
    "PLACES",
    "REPAIRS",
    "RIGHT",
    "ROW_GUESSES",
    "TABLE",
    "TOP",
    "AnswerError",
    "Assembled",
    "Column",
    "Doubt",
    "DoubtKind",
    "Draft",
    "Params",
    "Repair",
    "all_backs",
    "assemble",
    "card_axis",
    "claimed_place",
    "columns",
    "complete_group",
    "fill_concealed",
    "fill_fourth",
    "gather_loose",
    "join_fourth_back",
    "join_in_line",
    "join_lone_backs",
    "join_split_groups",
    "layout_splits",
    "leave_twin",
    "move_far_ends",
    "name_group",
    "places",
    "propose_states",
    "proposed_state",
    "read_backs",
    "read_hidden",
    "repair",
    "reread",
    "rescue",
    "rows_other_way",
    "set_apart_discards",
    "set_apart_ends",
    "set_apart_pairs",
    "settle_backs",
    "settle_rows",
    "settle_strays",
    "take_claimed",
    "take_in",
    "trade_ends",
    "win_without_discards",
]
