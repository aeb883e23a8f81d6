"""The evening's side of the app's state: the ledger's undo, redo and adjustments, a recorded
hand brought back to edit, the settlement and its shared text, a hand's photo, and the ledger's
backups.

A mixin of ``AppState`` (``zipai.mobile.state``), which holds the ledger, the session and the
user's language these methods use.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zipai.scorer import Entry, Ledger, LedgerError, SessionInfo, Settlement

from .draft import Draft
from .settings import AppError, Pending, WinInfo, _atomic_write

if TYPE_CHECKING:
    from .i18n import Translator


class Evening:
    """The ledger's and the settlement's actions of ``AppState``."""

    data_dir: Path
    ledger: Ledger
    last_entry: Entry | None
    pending: Pending
    scan: Any
    sstate: Any
    changed: Any
    _sid: Any
    replaced: Path | None
    need_session: Any
    refusal: Any
    start_manual: Any

    if TYPE_CHECKING:  # AppState's properties
        @property
        def session(self) -> SessionInfo | None: ...

        @property
        def t(self) -> Translator: ...

    def record_draw(self) -> Entry:
        try:
            e = self.ledger.record_draw(self.need_session())
        except LedgerError as exc:
            raise self.refusal(exc.code) from None
        self.last_entry = e
        self.start_manual()
        return e

    def undo(self) -> Entry:
        try:
            return self.ledger.undo_last(self.need_session())
        except LedgerError as exc:
            raise self.refusal(exc.code) from None

    def redo(self) -> Entry:
        """Bring back the hand (draw, adjustment) the last undo took off."""
        try:
            return self.ledger.redo_last(self.need_session())
        except LedgerError as exc:
            raise self.refusal(exc.code) from None

    def can_redo(self) -> bool:
        s = self.session
        return s is not None and self.ledger.can_redo(s)

    def adjust(self, deltas: Sequence[int], reason: str) -> Entry:
        try:
            return self.ledger.adjust(self.need_session(), reason=reason, deltas=list(deltas))
        except LedgerError as exc:
            raise self.refusal(exc.code) from None

    def edit(self, no: int) -> Draft:
        """Load a recorded hand back into the editor; confirming it replaces that hand."""
        st = self.sstate
        if not 1 <= no <= len(st.history) or st.history[no - 1].kind != "hand":
            raise self.refusal("bad_hand")
        e = st.history[no - 1]
        inp = e.input or {}
        from zipai.vision import Column

        cols = [Column([-1] * len(g["cards"]), list(g["cards"]), "table", g.get("state", "open"))
                for g in inp.get("groups", [])]
        cols.append(Column([-1] * len(inp.get("hand", [])), list(inp.get("hand", [])), "hand", "hand"))
        win = WinInfo(inp.get("winner"), inp.get("won_by", "self_draw"), inp.get("from"),
                      inp.get("winning_card"), (e.options or {}).get("minimum"),
                      (inp.get("xing") or [None])[0], bool(inp.get("first_discard", False)))
        self.pending = Pending(Draft(cols), win, no, session=self._sid())
        self.scan = None
        self.changed()
        return self.pending.draft

    def photo_of(self, e: Entry) -> str | None:
        return e.photo if e.photo and Path(e.photo).is_file() else None

    def delete_photo(self, e: Entry) -> bool:
        """Delete a hand's stored photo file (only files in the app's own photo folder)."""
        if not e.photo:
            return False
        p = Path(e.photo)
        if p.parent.resolve() != (self.data_dir / "photos").resolve() or not p.is_file():
            return False
        p.unlink()
        return True

    def settlement(self, mode: str = "minimal") -> Settlement:
        return self.ledger.settlement(self.need_session(), mode)

    def settle(self, mode: str = "minimal") -> Settlement:
        try:
            return self.ledger.settle(self.need_session(), mode)
        except LedgerError as exc:
            raise self.refusal(exc.code) from None

    def reopen(self) -> None:
        try:
            self.ledger.reopen(self.need_session())
        except LedgerError as exc:
            raise self.refusal(exc.code) from None

    def settlement_text(self, mode: str = "minimal") -> str:
        """The settlement as plain text, to share."""
        t = self.t
        res = self.settlement(mode)
        d = res.to_dict()
        lines = [f"{t('app_title')} · {d['name']} · {t(res.session.preset)}", f"{t('net')}:"]
        for p in d["players"]:
            lines.append(f"  {p['name']}: {p['points']:+d} ({p['money']})")
        lines.append(f"{t('transfers')} ({t(mode)}):")
        for tr in d["transfers"]:
            lines.append(f"  {t('pays', a=tr['from_name'], b=tr['to_name'])}: {tr['points']} ({tr['money']})")
        return "\n".join(lines)

    def share_text(self, mode: str = "minimal") -> Path:
        text = self.settlement_text(mode)
        s = self.need_session()
        p = self.data_dir / "shared" / f"settlement-{s.id}.txt"
        p.parent.mkdir(exist_ok=True)
        _atomic_write(p, text + "\n")
        return p

    # ------------------------------------------------------------ backups
    def backup(self) -> Path:
        dest = self.data_dir / "backups" / time.strftime("ledger-%Y%m%d-%H%M%S.db")
        n = 1
        while dest.exists():
            dest = dest.with_name(f"{dest.stem}-{n}.db")
            n += 1
        try:
            return self.ledger.backup(dest)
        except LedgerError as exc:
            raise self.refusal(exc.code) from None

    def restore_latest(self) -> Path:
        backups = sorted((self.data_dir / "backups").glob("ledger-*.db"), key=lambda p: p.stat().st_mtime)
        if not backups:
            raise AppError(self.t("no_backup"), "no_backup")
        kept = self._free_name(self.data_dir / "backups" / time.strftime("replaced-%Y%m%d-%H%M%S.db"))
        try:
            self.ledger.backup(kept)  # the ledger being replaced, kept where the user is told
            self.ledger.restore(backups[-1])
        except LedgerError as exc:
            raise self.refusal(exc.code) from None
        self.replaced = kept
        return backups[-1]

    def latest_backup(self) -> Path | None:
        backups = sorted((self.data_dir / "backups").glob("ledger-*.db"), key=lambda p: p.stat().st_mtime)
        return backups[-1] if backups else None

    @staticmethod
    def _free_name(dest: Path) -> Path:
        n = 1
        while dest.exists():
            dest = dest.with_name(f"{dest.stem.rsplit('~', 1)[0]}~{n}.db")
            n += 1
        return dest
