"""Where decks live (``DeckStore``): one file per deck, written whole to a temporary file and
renamed under a lock file; the folder's name and the boxes a scan gives for new examples."""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from zipai.engine.files import shown, write_whole
from zipai.engine.text import printable, short

from ..decode import Decoded, decode
from ..detector import Detector
from ..preprocess import cut_crops
from .model import (
    CROP,
    CROP_MARGIN,
    LOCK_WAIT,
    MAX_EXAMPLES,
    MAX_PER_CARD,
    SOURCES,
    Deck,
    DeckError,
    Example,
    _card_name,
    _own_peaks,
    check_name,
    deck_detector,
    derive,
    dumps,
    embed_dim,
    fingerprint,
    read_deck,
    with_back,
)


def default_root() -> Path:
    """$ZIPAI_DECKS, else $XDG_DATA_HOME/zipai/decks, else ~/.local/share/zipai/decks. A value
    that names no folder (an empty ZIPAI_DECKS, ``~nosuchuser``, a relative XDG_DATA_HOME) is
    refused with one line rather than read as another folder."""
    env = os.environ
    if "ZIPAI_DECKS" in env:
        return _folder(env["ZIPAI_DECKS"], "ZIPAI_DECKS")
    xdg = env.get("XDG_DATA_HOME")
    if xdg:
        base = _folder(xdg, "XDG_DATA_HOME")
        if not base.is_absolute():
            raise DeckError(f"XDG_DATA_HOME {printable(xdg)!r} is not an absolute path; set it to one or "
                            "unset it", "bad_root")
        return base / "zipai" / "decks"
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):
        raise DeckError("no home folder to keep decks in; set ZIPAI_DECKS to a folder", "bad_root") from None
    return home / ".local" / "share" / "zipai" / "decks"


def _folder(value: str, var: str) -> Path:
    if not value.strip():
        raise DeckError(f"{var} is set but empty; set it to the decks' folder or unset it", "bad_root")
    if "\x00" in value:
        raise DeckError(f"{var} holds a NUL byte; set it to a folder", "bad_root")
    path = os.path.expanduser(value)
    if path.startswith("~"):
        raise DeckError(f"{var} {printable(value)!r}: no such user's home folder", "bad_root")
    return Path(path)


SUFFIX = ".deck"


def _on_disk(file_name: str) -> str:
    """A deck's file name as the OS takes it: always its UTF-8 bytes, whatever the locale's
    encoding (under ``LC_ALL=C`` a name of 家里 would not encode otherwise)."""
    return os.fsdecode(file_name.encode("utf-8"))


class DeckStore:
    """One file per deck in ``root``: written whole to a temporary file and renamed, under a
    lock file, so a reader never sees half a deck and two writers of one name take turns."""

    def __init__(self, root: Path | None = None, detector: Detector | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()
        self._det = detector

    @property
    def detector(self) -> Detector:
        return self._det or deck_detector()

    def path(self, name: str) -> Path:
        check_name(name)
        try:
            limit = os.pathconf(self.root, "PC_NAME_MAX") if self.root.is_dir() else 255
        except (OSError, ValueError):
            limit = 255
        if len(f".{name}.lock".encode()) > limit:
            raise DeckError(f"deck name {printable(name[:20])!r}… is too long for a file name in "
                            f"{shown(str(self.root))} (at most {limit} bytes)", "bad_name")
        return self.root / _on_disk(name + SUFFIX)

    def names(self) -> list[str]:
        try:
            if not self.root.is_dir():
                return []
            found = list(self.root.iterdir())
        except OSError as exc:
            why = exc.strerror or exc
            raise DeckError(f"{shown(str(self.root))}: cannot list decks ({why})", "io") from None
        out = []
        for p in found:
            with contextlib.suppress(DeckError, OSError, UnicodeError):
                if p.suffix == SUFFIX and stat.S_ISREG(p.lstat().st_mode):
                    out.append(check_name(os.fsencode(p.stem).decode("utf-8")))
        return sorted(out)

    def _stat(self, name: str) -> tuple[Path, os.stat_result | None]:
        """The deck's file and its lstat (None: no such file); never opened here."""
        path = self.path(name)
        try:
            return path, path.lstat()
        except FileNotFoundError:
            return path, None
        except OSError as exc:
            why = exc.strerror or exc
            raise DeckError(f"{shown(str(path))}: cannot read the deck ({why})", "io") from None

    def read(self, name: str) -> Deck:
        """The deck as its file holds it, checked; nothing derived, nothing written."""
        path, st = self._stat(name)
        if st is None:
            known = ", ".join(self.names()) or "none taught yet"
            raise DeckError(f"unknown deck {name!r} (decks: {printable(known)}; teach one with zipai deck "
                            "learn)", "no_deck")
        if not stat.S_ISREG(st.st_mode):
            raise DeckError(f"{shown(str(path))}: not a deck file (a directory, FIFO, device or link); "
                            "remove it or teach the deck again", "bad_deck")
        deck = read_deck(path)
        if deck.name != name:
            raise DeckError(f"{shown(str(path))}: the file holds deck {deck.name!r}, not {name!r}",
                            "bad_deck")
        return deck

    def load(self, name: str) -> Deck:
        """The deck ready to read with: derived again in memory when another model made it (a
        read never writes; the next ``add_examples`` or ``learn`` stores the new prototypes). A
        deck of this model whose prototypes are not this reader's size is refused: read with
        them it would silently read as no deck at all."""
        deck = self.read(name)
        det = self.detector
        if deck.model != fingerprint(det):
            return derive(det, deck.name, deck.examples, deck.created, deck.peaks)
        dim = embed_dim(det)
        if deck.prototypes.shape[1] != dim:
            raise DeckError(f"deck {name!r}: its prototypes have {deck.prototypes.shape[1]} numbers, this "
                            f"model's reader gives {dim}; teach the deck again (zipai deck learn)",
                            "bad_deck")
        return with_back(det, replace(deck, peaks=_own_peaks(det, deck.peaks)))

    def save(self, deck: Deck) -> Path:
        path = self.path(deck.name)
        with self._locked(deck.name):
            self._write(path, deck)
        return path

    def remove(self, name: str) -> None:
        path, st = self._stat(name)
        if st is None:
            raise DeckError(f"unknown deck {name!r}", "no_deck")
        if not stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            raise DeckError(f"{shown(str(path))}: not a deck file (a directory, FIFO, device or link); "
                            "nothing removed", "bad_deck")
        with self._locked(name):
            try:
                path.unlink()
            except FileNotFoundError:
                raise DeckError(f"unknown deck {name!r}", "no_deck") from None
            except OSError as exc:
                raise DeckError(f"{shown(str(path))}: cannot remove ({exc.strerror or exc})", "io") from None

    def add_examples(self, name: str, photo: bytes, fixes: Sequence[tuple[Sequence[float], str]],
                     source: str) -> Deck:
        """The deck with each fix's crop added (a box in photo pixels and the card it shows),
        derived again and saved: a read, change and write under the lock, so nothing is lost."""
        if source not in SOURCES:
            raise DeckError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
        decoded = decode(photo, "photo")
        arr = np.asarray(decoded.image, np.uint8)
        new = []
        for box, card in fixes:
            card = "back" if card == "back" else _card_name(card)
            b = _checked_box(box, decoded)
            new.append(Example(card, source, cut_crops(arr, b[None] / decoded.scale, CROP, CROP_MARGIN)[0]))
        with self._locked(name):
            deck = self.read(name)
            if len(deck.examples) + len(new) > MAX_EXAMPLES:
                raise DeckError(f"deck {name!r} would hold {len(deck.examples) + len(new)} examples, "
                                f"at most {MAX_EXAMPLES}")
            per_card = Counter(e.card for e in (*deck.examples, *new))
            card, count = per_card.most_common(1)[0]
            if count > MAX_PER_CARD:
                raise DeckError(f"deck {name!r} would hold {count} examples of {card}, at most "
                                f"{MAX_PER_CARD} of one card")
            deck = derive(self.detector, name, [*deck.examples, *new], deck.created, deck.peaks)
            self._write(self.path(name), deck)
        return deck

    @contextlib.contextmanager
    def _locked(self, name: str) -> Iterator[None]:
        """An exclusive lock on the deck's lock file; another writer waits up to LOCK_WAIT s."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.root / _on_disk(f".{check_name(name)}.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise DeckError(f"{self.root}: cannot write decks here ({exc.strerror or exc})", "io") from None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: one writer at a time is the user's care
            fcntl = None  # type: ignore[assignment]
        try:
            if fcntl is not None:
                end = time.monotonic() + LOCK_WAIT
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() > end:
                            raise DeckError(f"deck {name!r} is being written by another process; "
                                            "try again", "busy") from None
                        time.sleep(0.05)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _write(self, path: Path, deck: Deck) -> None:
        blob = dumps(deck)
        try:
            write_whole(path, blob)  # temp beside, fsync, rename, the folder synced
        except OSError as exc:
            raise DeckError(f"{path}: cannot write the deck ({exc.strerror or exc})", "io") from None


def box_numbers(box: object) -> bool:
    """Whether ``box`` is four plain numbers of a photo's size (data may hold a 400-digit one,
    which ``float`` cannot take, a string or true)."""
    return isinstance(box, list | tuple) and len(box) == 4 and all(
        isinstance(v, int | float | np.floating | np.integer) and not isinstance(v, bool)
        and (abs(v) < 10**9 if isinstance(v, int) else bool(np.isfinite(v))) for v in box)


def _checked_box(box: Sequence[float], decoded: Decoded) -> np.ndarray:
    """Four numbers from a scan JSON, lying in the photo."""
    if not box_numbers(box):
        raise DeckError(f"a box is four numbers x0, y0, x1, y1, not {printable(short(box, 60))}") from None
    b = np.asarray([float(v) for v in box], np.float32)
    if b.shape != (4,) or not np.isfinite(b).all() or b[2] <= b[0] or b[3] <= b[1] \
            or b[0] < -1 or b[1] < -1 or b[2] > decoded.width + 1 or b[3] > decoded.height + 1:
        raise DeckError(f"box {[round(float(v), 1) for v in b]} does not lie in the "
                        f"{decoded.width}x{decoded.height} photo")
    return b
