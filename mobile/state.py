"""The app's state, apart from any widget: settings, the ledger, the draft, how the hand was won.

Screens read this object and call its methods; it calls the same public functions the CLI
calls (``zipai.engine.score_hand``, ``zipai.scorer.Ledger``, ``zipai.vision.scan_file``), so the
app holds no rule of its own. Everything that must survive a kill is on disk as soon as it
happens: confirmed hands in the ledger (SQLite, one transaction each), settings and the draft
being edited in small JSON files written atomically.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from zipai.engine import Card, Result, Rules, Simultaneous, ZipaiError, score_hand, simultaneous_result
from zipai.scorer import Entry, Ledger, LedgerError, SessionInfo, SessionState, UnknownSession
from zipai.vision.layout import answers

from .deck_use import DeckUse
from .decks import Shelf, default_root
from .draft import Check, Draft, DraftError, Editor, check_place
from .evening import Evening
from .i18n import LANGS, Translator
from .settings import (
    CAMERA_RESOLUTIONS,
    MAX_NAME,
    PRESETS,
    WON_BY,
    AppError,
    Pending,
    Settings,
    WinInfo,
    _atomic_write,
    _drawable,
    default_data_dir,
)
from .walk import Scorer, Step, steps

__all__ = ["CAMERA_RESOLUTIONS", "MAX_NAME", "PRESETS", "WON_BY", "AppError", "AppState", "Pending",
           "Settings", "WinInfo", "default_data_dir", "sample_photo"]


class AppState(Evening, DeckUse):
    """Everything the screens show and do, with no Kivy in it."""

    def __init__(self, data_dir: str | Path, scanner: Callable[[str], Any] | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        (self.data_dir / "photos").mkdir(exist_ok=True)
        self.settings = Settings.load(self.settings_path)
        self.ledger = Ledger(self.data_dir / "ledger.db")
        self._scanner = scanner
        self.pending = self._load_pending()
        self.scan: Any = None  # the last vision Scan, while reviewing a photo
        self.result: Result | Simultaneous | None = None  # the engine's last score of the pending hand
        self.last_entry: Entry | None = None
        self.replaced: Path | None = None  # where the last restore kept the ledger it replaced
        self.listeners: list[Callable[[], None]] = []
        self.shelf = Shelf(default_root(self.data_dir, os.environ), _deck_detector)
        self._deck: Any = None  # the deck in use, loaded once per name
        self.deck_problem = ""  # why the deck in use could not be loaded, in the user's words
        self.deck_taught = 0  # cards the last recorded hand added to the deck in use
        if self.pending.session != self._sid():  # the current session changed while the app was away
            self._switch_pending(self._sid())

    # ------------------------------------------------------------ plumbing
    @property
    def settings_path(self) -> Path:
        return self.data_dir / "settings.json"

    @property
    def pending_path(self) -> Path:
        return self.data_dir / "draft.json"

    @property
    def t(self) -> Translator:
        return Translator(self.settings.lang)

    def save_settings(self) -> None:
        _atomic_write(self.settings_path, json.dumps(asdict(self.settings), ensure_ascii=False))

    def save_pending(self) -> None:
        """The draft and win info, so a kill in the middle of entering a hand loses nothing."""
        p = self.pending
        _atomic_write(self.pending_path, json.dumps(self._pending_json(p), ensure_ascii=False))

    @staticmethod
    def _pending_json(p: Pending) -> dict[str, Any]:
        return {"draft": p.draft.to_json(), "win": asdict(p.win), "editing": p.editing, "first": p.first,
                "ack": p.ack, "session": p.session, "seen": list(p.seen)}

    def _load_pending(self, path: Path | None = None) -> Pending:
        try:
            obj = json.loads((path or self.pending_path).read_text(encoding="utf-8"))
            win = WinInfo(**obj["win"])
            sid = obj.get("session")
            seen = [k for k in obj.get("seen", []) if isinstance(k, str)]
            return Pending(Draft.from_json(obj["draft"]), win, obj.get("editing"), obj.get("first"),
                           obj.get("ack") is True, sid if isinstance(sid, int) else None, seen)
        except (OSError, ValueError, KeyError, TypeError, DraftError):
            return Pending()

    def _shelf_path(self, sid: int) -> Path:
        return self.data_dir / "drafts" / f"session-{int(sid)}.json"

    def _switch_pending(self, sid: int | None) -> None:
        """The session changes: the hand being entered stays with its own session (kept on disk
        for when that session is continued) and the new one's own unfinished hand comes back."""
        p = self.pending
        if p.session == sid:
            return
        if p.session is None:  # begun before any session (or by an older app): it is this one's
            p.session = sid
            self.save_pending()
            return
        if self.typed_cards():
            shelf = self._shelf_path(p.session)
            shelf.parent.mkdir(exist_ok=True)
            _atomic_write(shelf, json.dumps(self._pending_json(p), ensure_ascii=False))
        back = self._shelf_path(sid) if sid is not None else None
        kept = back is not None and back.is_file()
        self.pending = self._load_pending(back) if kept else Pending()
        self.pending.session = sid
        self.scan = None
        self.changed()  # on disk as the current draft before its shelf copy goes
        if kept and back is not None:  # kept: it is there
            back.unlink()

    def changed(self) -> None:
        """Save the pending work and tell the screens to redraw."""
        self.save_pending()
        self.result = None
        for f in list(self.listeners):
            f()

    def close(self) -> None:
        self.ledger.close()

    def refusal(self, code: str) -> AppError:
        """A refusal of the ledger, the engine or the app, worded by its code in the user's language."""
        return AppError(self.t.error(code), code)

    def typed_cards(self) -> int:
        """Cards in the hand being entered (typed or read from a photo), to offer it back; a
        held first instant win counts as one, so it is offered back too."""
        return self.draft.count() + (self.pending.first is not None)

    def doubt_words(self, d: Any, cards: int) -> str:
        """A doubt in the user's language, naming its cards by glyph."""
        t = self.t
        key = f"doubt_{d.kind}"
        if d.kind == "no_cards" and not self.draft.is_photo:  # nothing typed yet: no photo to blame
            key = "doubt_no_cards_typed"
        dets = self.draft.detections
        faces = [dets[i].card for i in d.detections if 0 <= i < len(dets)]
        if d.kind == "deck_limit":
            if not faces:  # typed cards have no detections: name the card that is over
                counts = Counter(c for col in self.draft.columns for c in col.cards if c != "back")
                faces = [c for c, n in counts.items() if n > 4]
            faces = sorted(set(faces))
        if d.kind == "taken_in" and (hidden := self.draft.assumed(d.detections)):
            # a card the rules put where no find shows one: name it, not the cards that do show
            return t("doubt_hidden", cards=self.glyphs(hidden[:6]), n=cards)
        if t(key) == key:  # a doubt this app has no words for yet: never vision's English
            return t("doubt_other")
        return t(key, cards=self.glyphs(faces[:6]) or "?", n=cards)

    def glyphs(self, faces: Sequence[str]) -> str:
        t = self.t
        return "".join(t("back_card") if f == "back" else Card.parse(f).chinese(traditional=t.traditional)
                       for f in faces)

    # ------------------------------------------------------------ sessions
    @property
    def session(self) -> SessionInfo | None:
        try:
            return self.ledger.session(None)
        except UnknownSession:
            return None

    def need_session(self) -> SessionInfo:
        s = self.session
        if s is None:
            raise self.refusal("no_session")
        return s

    @property
    def sstate(self) -> SessionState:
        return self.ledger.state(self.need_session())

    def new_session(self, name: str, preset: str, players: Sequence[str], stake: str = "1",
                    first_dealer: int = 0, options: Mapping[str, Any] | None = None) -> SessionInfo:
        for p in players:  # a name must fit the winner, dealer and roster buttons, in a font that has it
            if len(p.strip()) > MAX_NAME or any(not _drawable(ch) for ch in p):
                raise AppError(self.t("bad_player_name", name=p.strip()[:MAX_NAME + 2], n=MAX_NAME),
                               "bad_player_name")
        try:
            s = self.ledger.new_session(name, preset, [p.strip() for p in players], stake=stake,
                                        first_dealer=first_dealer, options=dict(options or {}))
        except LedgerError as exc:
            raise self.refusal(exc.code) from None
        self.settings.preset = s.preset
        self.save_settings()
        self._switch_pending(s.id)
        return s

    def continue_session(self, sid: int) -> SessionInfo:
        try:
            s = self.ledger.set_current(sid)
        except LedgerError as exc:
            raise self.refusal(exc.code) from None
        self._switch_pending(s.id)
        return s

    def sessions(self) -> list[dict[str, Any]]:
        return self.ledger.sessions()

    def roster(self) -> list[str]:
        return [p["name"] for p in self.ledger.players()]

    def rules(self) -> Rules:
        return self.need_session().rules

    # ------------------------------------------------------------ drafts
    def start_manual(self) -> None:
        self.pending = Pending(session=self._sid())
        self.scan = None
        self.changed()

    def _sid(self) -> int | None:
        s = self.session
        return s.id if s is not None else None

    def ack_doubts(self, on: bool) -> None:
        """The review's 已核对存疑, for this draft only (kept through a restart)."""
        self.pending.ack = bool(on)
        self.save_pending()

    # ------------------------------------------------------------ the review's walk
    def review_steps(self) -> list[Step]:
        """The photo's doubts as the review walks them, most money first (``walk.steps``)."""
        if not self.draft.is_photo:
            return []
        return steps(self.draft, self.check().doubts, self._scorer(), self.pending.seen)

    def open_steps(self) -> list[Step]:
        """The steps still to settle; none once the player ticked 已核对存疑 for this draft."""
        if self.pending.ack:
            return []
        return [s for s in self.review_steps() if not s.settled]

    def _scorer(self) -> Scorer:
        s = self.session
        return Scorer(self.base() if s else {"rules": self.settings.preset}, s.rules if s else None)

    def running_score(self) -> tuple[int, tuple[int, ...]] | None:
        """The hand's score and payouts as the draft stands (None: it cannot be scored yet)."""
        return self._scorer()(self.draft)

    def settle_card(self, det: int, face: str | None) -> bool:
        """The walk's one tap: this detection is ``face`` (the card as read confirms it), or no
        card at all (None: it goes, as 删除 would). The last doubt settled ticks 已核对存疑."""
        where = self.draft.locate(det)
        if where is None:
            raise DraftError(f"no card {det} in this photo")
        if face is None:
            self.draft.delete(*where)
        else:
            self.draft.set_card(*where, face)
        self.editor.card = None
        self._walked()
        return True

    def settle_scene(self, key: str) -> bool:
        """A doubt about the scene, looked at (its cards are fixed on the editor, if at all)."""
        if key not in self.pending.seen:
            self.pending.seen.append(key)
        self._walked()
        return True

    # ------------------------------------------------------------ the evening's claimed row
    @property
    def claimed_rule(self) -> str | None:
        """Where this evening's table lays its claimed groups (``PLACES``: top, bottom, left or
        right), once asked."""
        sid = self._sid()
        return None if sid is None else self.settings.claimed.get(str(sid))

    def asks_claimed(self, step: Step) -> bool:
        """Whether a step of the walk is the claimed-row question: vision could not tell the rows
        apart and it changes the score (the rows lie one above the other, or side by side)."""
        return step.kind == "claimed_row" and self.draft.claimed_place() is not None

    def claimed_scores(self) -> dict[str, tuple[int, tuple[int, ...]] | None]:
        """The hand's score and payouts with each answer to the claimed-row question (top or
        bottom, left or right, as the photo's rows lie); none while it is not asked."""
        now = self.draft.claimed_place()
        out: dict[str, tuple[int, tuple[int, ...]] | None] = {}
        for place in () if now is None else answers.places(now):
            d = self.draft.copy()
            d.take_claimed(place)
            out[place] = self._scorer()(d)
        return out

    def answer_claimed(self, place: str) -> bool:
        """The player says which row holds the claimed groups: the photo is scored that way and
        the answer kept for the evening (settings.json, through a restart), so later photos of
        this session are read with it and not asked."""
        check_place(place)
        sid = self.need_session().id
        self.settings.claimed[str(sid)] = place
        self.save_settings()
        self.draft.take_claimed(place)
        self._walked()
        return True

    def set_claimed_rule(self, place: str | None) -> None:
        """Change the evening's answer (None: ask again at the next photo that needs it)."""
        sid = self.need_session().id
        if place is None:
            self.settings.claimed.pop(str(sid), None)
        else:
            self.settings.claimed[str(sid)] = check_place(place)
        self.save_settings()

    def _walked(self) -> None:
        if not self.open_steps():
            self.pending.ack = True
        self.changed()

    def after_scan(self) -> str:
        """Where a photo's read lands: the review while anything is in doubt or missing, else
        straight on to how the hand was won."""
        chk = self.check()
        return "win" if chk.ready and not chk.doubts and self.session is not None else "review"

    def load_photo(self, path: str | Path) -> Draft:
        """Read a photo with the detector and make its columns the draft (the review screen)."""
        return self.take_scan(path, self.read_photo(path))

    def read_photo(self, path: str | Path) -> Any:
        """The detector's read of a photo, changing nothing: the capture screen runs it on a
        worker thread so the screen keeps drawing (and can be cancelled) while it reads."""
        scanner = self._scanner or self._scan_with_deck
        try:
            return scanner(str(path))
        except ValueError as exc:  # vision's errors carry a code, worded here
            raise self.refusal(getattr(exc, "code", "bad_photo")) from None

    def take_scan(self, path: str | Path, sc: Any) -> Draft:
        """A photo's read becomes the draft: a new hand, its doubts not yet ticked off."""
        self.scan = sc
        self.pending = Pending(Draft.from_scan(sc.columns, sc.detections, str(path), (sc.width, sc.height)),
                               session=self._sid())
        rule = self.claimed_rule
        if rule is not None:  # asked earlier this evening: the rows are read the table's way
            self.pending.draft.take_claimed(rule)
        self.changed()
        return self.pending.draft

    @property
    def draft(self) -> Draft:
        return self.pending.draft

    @property
    def editor(self) -> Editor:
        """The tap state over the current draft (a new draft gets a fresh one)."""
        ed = getattr(self, "_editor", None)
        if ed is None or ed.draft is not self.pending.draft:
            ed = self._editor = Editor(self.pending.draft)
        return ed

    @property
    def win(self) -> WinInfo:
        return self.pending.win

    def base(self) -> dict[str, Any]:
        """The engine input's fields that are not the cards: rules, seats and the win."""
        s = self.need_session()
        st = self.ledger.state(s)
        w = self.win
        obj: dict[str, Any] = {"rules": s.preset, "players": s.n, "dealer": st.dealer,
                               "winner": w.winner if w.winner is not None else 0, "won_by": w.won_by}
        if w.won_by == "discard" and w.discarder is not None:
            obj["from"] = w.discarder
        if w.winning_card:
            obj["winning_card"] = w.winning_card
        if w.xing and s.variant.turned_cards:
            obj["xing"] = [w.xing]
        if w.first_discard and w.won_by == "discard":
            obj["first_discard"] = True
        return obj

    def check(self) -> Check:
        return self.draft.check(self.base() if self.session else {"rules": self.settings.preset})

    def seven_groups(self, chk: Check | None = None) -> bool | None:
        """The live structure check: do these cards make seven groups (the engine decides)?
        None while something blocks asking (unnamed backs, a fifth copy, no session)."""
        chk = chk or self.check()
        if not chk.ready or self.session is None:
            return None
        try:
            return bool(score_hand(dict(chk.layout), self.rules()).decompositions)
        except ZipaiError:
            return False

    def hand_options(self) -> dict[str, Any] | None:
        """Per-hand options for the ledger: the Guangxi minimum when the dealer changed it."""
        s = self.need_session()
        m = self.win.minimum
        if m is None or not s.variant.hand_minimum or m == s.rules.minimum(s.n):
            return None
        return {"minimum": m}

    def engine_input(self) -> dict[str, Any]:
        chk = self.check()
        if not chk.ready:
            raise AppError(self.t("layout_incomplete", what="; ".join(
                self.doubt_words(d, chk.cards) for d in chk.blocking) or self.t("check_cards", n=chk.cards)),
                "layout")
        if self.win.winner is None:
            raise self.refusal("no_winner")
        if self.win.won_by == "discard" and self.win.discarder is None:
            raise self.refusal("no_discarder")
        obj = dict(chk.layout)
        if self.win.winning_card and self.win.winning_card not in obj.get("hand", []):
            obj.pop("winning_card", None)
        return obj

    def can_double(self) -> bool:
        """Guangxi: a second instant win after the same deal may be entered (RULINGS section 6)."""
        s = self.session
        return (s is not None and s.variant.simultaneous_instant and self.win.won_by == "dealt"
                and self.pending.first is None and self.pending.editing is None)

    def hold_instant(self) -> None:
        """Keep this instant win as the first of two and start entering the second layout."""
        if not self.can_double():
            raise self.refusal("not_dealt")
        first = self.engine_input()
        first["winner"] = self.win.winner
        self.pending = Pending(first=first, win=WinInfo(won_by="dealt"), session=self._sid())
        self.scan = None
        self.changed()

    def score(self) -> Result | Simultaneous:
        """The engine's result for the pending hand under the session's rules (no ledger write).
        With a held first instant win, both layouts go to ``simultaneous_result``."""
        obj = self.engine_input()
        rules = self.rules()
        if self.pending.first is not None:
            st = self.sstate
            objs = [{**o, "players": st.session.n, "dealer": st.dealer} for o in (self.pending.first, obj)]
            try:
                double = simultaneous_result(objs, rules)
            except ZipaiError as exc:
                raise self.refusal(exc.code) from None
            self.result = double
            return double
        opts = self.hand_options()
        if opts:
            rules = rules.with_options(opts)
        try:
            result = score_hand(obj, rules)
        except ZipaiError as exc:
            raise self.refusal(exc.code) from None
        self.result = result
        self._matters = (self.layout_key(), list(result.winning_card_matters))
        return result

    def layout_key(self) -> str:
        """The layout and win as the engine gets them, to tell whether an answer still applies."""
        return json.dumps(self.check().layout, sort_keys=True)

    def winning_card_matters(self) -> list[str]:
        """The hand cards whose placement as the winning card changes the score, as the engine
        said when this layout was last scored ([] before that)."""
        key, cards = getattr(self, "_matters", ("", []))
        return cards if key == self.layout_key() else []

    def winning_choices(self) -> list[str]:
        """The cards the winning card can be: the free hand cards, each face once."""
        hand = self.check().layout.get("hand", [])
        return sorted(set(hand), key=lambda c: (c[0] == "d", int(c[1:])))

    # ------------------------------------------------------------ the ledger
    def _keep_photo(self, entry_no: int) -> str | None:
        """Copy the draft's photo into the app's data folder, next to the ledger."""
        src = self.draft.photo
        if not src or not Path(src).is_file():
            return None
        s = self.need_session()
        dest = self.data_dir / "photos" / f"s{s.id}-h{entry_no}-{int(time.time() * 1000)}{Path(src).suffix}"
        shutil.copyfile(src, dest)
        return str(dest)

    def confirm(self) -> Entry:
        """Record the pending hand (or the edit of a recorded one); it is on disk when this returns."""
        obj = self.engine_input()
        s = self.need_session()
        st = self.ledger.state(s)
        editing = self.pending.editing
        photo = self._keep_photo(editing or len(st.history) + 1)
        fixes = self.draft.fixes() if self.pending.first is None else []
        try:
            if self.pending.first is not None:
                e = self.ledger.record_double_instant(s, [self.pending.first, obj], photo=photo)
            elif editing is not None:
                e = self.ledger.edit_hand(s, editing, obj, photo=photo, options=self.hand_options())
            else:
                e = self.ledger.record_hand(s, obj, photo=photo, options=self.hand_options())
        except LedgerError as exc:
            if photo:
                Path(photo).unlink(missing_ok=True)
            raise self.refusal(exc.code) from None
        self.last_entry = e
        self.deck_taught = self._teach_fixes(photo, fixes)
        self.start_manual()
        return e

    # ------------------------------------------------------------ settings
    def set_lang(self, lang: str) -> None:
        if lang not in LANGS:
            raise AppError(self.t("unknown_language"), "language")
        self.settings.lang = lang
        self.save_settings()

    def set_screen(self, name: str) -> None:
        if self.settings.screen != name:
            self.settings.screen = name
            self.save_settings()


def sample_photo() -> Path | None:
    """models/sample.jpg, shipped with the model, when it is there (vision owns where)."""
    from zipai.vision.files import sample_photo as shipped

    return shipped()


def _detector(embed: bool = False) -> Any:
    """The shipped detector, loaded on first use and kept by vision (``vision.loaded``); on
    Android its networks run in ONNX Runtime's Java API (``android_ort``), elsewhere in the
    onnxruntime Python package."""
    from zipai.vision.loaded import loaded_detector

    from .android_ort import java_factory, on_android

    return loaded_detector(embed=embed, threads=2, factory=java_factory if on_android() else None)


def _deck_detector() -> Any:
    """The detector with the reader's embedding twin, which learning and reading with a deck
    need; loaded only when a deck is first used."""
    return _detector(embed=True)


def _vision_scan(path: str, deck: Any = None) -> Any:
    """vision's scan with the shipped detector, or with the deck in use and its detector."""
    from zipai.vision import scan_file

    if deck is None:
        return scan_file(path, detector=_detector())
    return scan_file(path, detector=_deck_detector(), deck=deck)
