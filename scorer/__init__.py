"""The session ledger: record every hand of an evening and settle who pays whom.

Storage guarantees
    One SQLite file (stdlib ``sqlite3``), WAL journal, ``synchronous=FULL``, a busy timeout,
    and a versioned schema (``schema_migrations``, from version 1). Every change is one
    appended event in one ``BEGIN IMMEDIATE`` transaction: a crash or ``kill -9`` mid-write
    leaves the ledger as it was, and two processes may write at once. Nothing is updated
    in place: undo appends a ``void`` event, an edit appends an ``edit`` event, and the
    derived state (dealers, 数审, scores, Hunan rounds, totals) is always replayed from the
    events. The file is ``$ZIPAI_DB``, else ``$XDG_DATA_HOME/zipai/ledger.db`` (default
    ``~/.local/share/zipai/ledger.db``); the Android app passes its own path.

The API (all the Kivy app needs; no Kivy here)::

    from zipai.scorer import Ledger
    led = Ledger(path)                                   # or Ledger() for the default file
    s = led.new_session("周五", "hunan", ["甲", "乙", "丙"], stake="0.5", first_dealer=0,
                        options={"self_draw": "plus_ten"})   # rules frozen into the session
    e = led.record_hand(s, engine_input, photo="/sdcard/…/h1.jpg", options={"minimum": 20})
    led.record_draw(s); led.record_double_instant(s, [input_a, input_b])
    led.adjust(s, reason="更正", deltas=[5, -5, 0])  # or transfers=[[0, 1, 5]]
    led.adjust(s, offender=2)                        # Guangxi 下夥: pays each other seat the minimum
    led.undo_last(s); led.redo_last(s); led.edit_hand(s, 3, new_input)
    st = led.state(s)    # st.dealer, st.idle (数审), st.net, st.round_totals, st.rounds, st.history
    led.settlement(s, "pairwise")                    # a preview, changes nothing
    res = led.settle(s, mode="minimal")              # locks the session; res.to_dict()
    led.reopen(s)
    led.export_json(s); led.export_csv(s); led.import_json(data, name=None)
    led.backup(path); kept = led.restore(path); led.players(); led.sessions()
    Ledger(path, readonly=True)                      # for reads: no lock, works on a read-only file
    salvage(path, s).to_json(str(path))              # what a damaged file still holds of a session

A session argument is an id, a name, a ``SessionInfo`` or ``None`` (the current session).
The engine input is the engine's JSON contract; the ledger fills in ``players`` and
``dealer`` and scores it with the session's frozen rules plus the hand's own options
(``options`` field or argument: the Guangxi minimum the dealer sets for the hand).
Refusals raise ``LedgerError`` (a ``ValueError``) and write nothing: an unknown session
(``UnknownSession``), a settled one (``LockedSession``), a corrupt or foreign file
(``NotALedger``), a row the ledger cannot use (``DamagedData``), another program holding the
write lock (``LedgerBusy``), a file that cannot be written (``ReadOnlyLedger``), a bad seat,
a hand that does not win, options of another rule set, a value past the bounds of
``scorer.checks`` (stakes, adjustments, names, nesting). Data never names a file: a hand's
``rules`` and an import's preset must be preset names. An import is scored again and
refused if any stored result disagrees, if it holds a field the ledger never writes, or
(signed by this ledger's key) if it was edited after the export. Every stored row is
checked on reading as on writing. Outputs (exports, backups) never land on the ledger or an
input and appear whole (``scorer.files``).

Hunan 冲百福: each hand's payouts change the open round's totals; when one reaches 100
the round closes (totals rounded to tens, halves away from zero, seat i paid
R_i·(N−1) − Σ_{j≠i} R_j) and a new round starts; settling closes the open round the same
way. The pairwise settlement for Hunan comes from the rounds: in each closed round, of
every two seats the one with the lower rounded total pays the other the difference
(this sums to exactly the round payment), and those payments are netted per pair.
Guangxi and Guilin hands pay per hand; pairwise nets each hand's transfers per pair.
"""

from .errors import (
    DamagedData,
    LedgerBusy,
    LedgerError,
    LockedSession,
    NotALedger,
    ReadOnlyLedger,
    UnknownSession,
)
from .events import SessionInfo
from .ledger import Ledger
from .salvage import Salvage, salvage
from .settle import Settlement, minimal_transfers, pairwise, round_payments, round_tens
from .state import Entry, Round, SessionState

__all__ = [
    "DamagedData", "Entry", "Ledger", "LedgerBusy", "LedgerError", "LockedSession", "NotALedger",
    "ReadOnlyLedger", "Round", "Salvage", "SessionInfo", "SessionState", "Settlement",
    "UnknownSession", "minimal_transfers", "pairwise", "round_payments", "round_tens", "salvage",
]
