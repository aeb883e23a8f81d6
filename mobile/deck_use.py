"""The deck side of the app's state (认牌): which deck reads the photos, teaching one from a photo,
and the corrected cards a recorded hand adds to it.

A mixin of ``AppState`` (``zipai.mobile.state``); the shelf of decks and the detectors are
``AppState``'s, and a photo is read through ``state._vision_scan`` (looked up at call time).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .decks import Box, Shelf, TeachRefused, refusal_words
from .i18n import error_codes
from .settings import AppError, Settings

if TYPE_CHECKING:
    from .i18n import Translator


class DeckUse:
    """The deck actions of ``AppState``."""

    settings: Settings
    shelf: Shelf
    _deck: Any
    deck_problem: str
    session: Any
    save_settings: Any

    if TYPE_CHECKING:  # AppState's property
        @property
        def t(self) -> Translator: ...

    def _deck_refusal(self, exc: ValueError) -> AppError:
        """A deck's refusal in the user's words: a refused teaching photo keeps the learner's line."""
        code = getattr(exc, "code", "") or "deck"
        if isinstance(exc, TeachRefused):
            return AppError(self.t("teach_refused", why=refusal_words(exc, self.t)), code)
        code = {"bad_name": "bad_deck_name"}.get(code, code)  # the ledger's bad_name is a player's
        if code in error_codes():
            return AppError(self.t.error(code), code)
        return AppError(self.t("deck_error", why=str(exc)), code)

    def deck_names(self) -> list[str]:
        try:
            return self.shelf.names()
        except ValueError as exc:
            raise self._deck_refusal(exc) from None

    def deck(self) -> Any:
        """The deck in use, loaded on first use; None when there is none or it cannot be read
        (``deck_problem`` then says why, and photos are read without it)."""
        name = self.settings.deck
        if not name:
            self._deck, self.deck_problem = None, ""
            return None
        if self._deck is not None and self._deck.name == name:
            return self._deck
        try:
            self._deck, self.deck_problem = self.shelf.load(name), ""
        except ValueError as exc:
            self._deck, self.deck_problem = None, str(self._deck_refusal(exc))
        return self._deck

    def deck_line(self, load: bool = True) -> str:
        """Which deck reads the photos, as the review shows it (``load``: and whether it can be
        read; the settings name it without loading the deck's model)."""
        name = self.settings.deck
        if not name:
            return self.t("no_deck")
        if load:
            self.deck()
        if self.deck_problem:
            return self.t("deck_unreadable", name=name, why=self.deck_problem)
        return self.t("deck_in_use", name=name)

    def use_deck(self, name: str) -> str:
        """Read photos with this deck from now on ("" for none)."""
        if name:
            try:
                deck = self.shelf.load(name)
            except ValueError as exc:
                raise self._deck_refusal(exc) from None
            self._deck, self.deck_problem = deck, ""
        self.settings.deck = name
        self.save_settings()
        return name

    def wants_teach_offer(self) -> bool:
        """The first start offers 认牌 until it is answered, a deck is taught or a session begun."""
        return not self.settings.teach_offered and not self.settings.deck and self.session is None

    def answer_teach_offer(self) -> None:
        if not self.settings.teach_offered:
            self.settings.teach_offered = True
            self.save_settings()

    def learn(self, photo: str | Path, name: str, progress: Any = None) -> Any:
        """Read a teaching photo's 20 faces (nothing is stored until ``save_deck``); safe off the
        UI thread (``progress`` is told the share done there)."""
        try:
            return self.shelf.learn(photo, name, progress)
        except ValueError as exc:
            raise self._deck_refusal(exc) from None

    def relabel(self, taught: Any, index: int, card: str) -> Any:
        try:
            return self.shelf.relabel(taught, index, card)
        except ValueError as exc:
            raise self._deck_refusal(exc) from None

    def save_deck(self, taught: Any, name: str) -> Any:
        """Store the taught deck under ``name`` and read photos with it from now on."""
        name = name.strip()
        try:
            deck = self.shelf.save(taught, name)
        except ValueError as exc:
            raise self._deck_refusal(exc) from None
        self._deck, self.deck_problem = deck, ""
        self.settings.deck = deck.name
        self.settings.teach_offered = True
        self.save_settings()
        return deck

    def _teach_fixes(self, photo: str | None, fixes: list[tuple[Box, str]]) -> int:
        """Add a recorded hand's corrected cards to the deck in use; the hand is kept whatever
        happens here (a deck that refuses them is named in ``deck_problem``)."""
        name = self.settings.deck
        if not (name and photo and fixes):
            return 0
        try:
            self._deck = self.shelf.add_fixes(name, photo, fixes)
        except ValueError as exc:
            self.deck_problem = str(self._deck_refusal(exc))
            return 0
        return len(fixes)

    def _scan_with_deck(self, path: str) -> Any:
        from .state import _vision_scan

        return _vision_scan(path, self.deck())
