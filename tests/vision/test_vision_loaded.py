"""One owner of the loaded detectors: one per (embedding, threads, session factory), and the
thread count a caller asks for is the one its sessions run on."""

from __future__ import annotations

from typing import Any

from zipai.vision import scan
from zipai.vision.deck import deck_detector
from zipai.vision.loaded import Key, loaded_detector, loaded_keys


class Counted:
    """A session that runs nothing: the key is the point here, not the networks."""

    def __init__(self, model: bytes, threads: int) -> None:
        self.model, self.threads = model, threads

    def run(self, inputs: Any) -> list[Any]:
        raise AssertionError("not run")


def made(model: bytes, threads: int) -> Counted:
    return Counted(model, threads)


def test_two_thread_counts_give_two_detectors_and_one_key_gives_one() -> None:
    one = loaded_detector(threads=1, factory=made)
    three = loaded_detector(threads=3, factory=made)
    assert one is not three
    assert [s.threads for s in one.sessions] == [1, 1]  # type: ignore[attr-defined]
    assert [s.threads for s in three.sessions] == [3, 3]  # type: ignore[attr-defined]
    assert loaded_detector(threads=1, factory=made) is one
    assert loaded_detector(threads=3, factory=made) is three
    assert {Key(False, 1, made), Key(False, 3, made)} <= set(loaded_keys())


def test_the_embedding_and_the_factory_are_part_of_the_key() -> None:
    plain = loaded_detector(threads=1, factory=made)
    embedded = loaded_detector(embed=True, threads=1, factory=made)
    assert embedded is not plain and embedded.embeds and not plain.embeds
    assert loaded_detector(embed=True, threads=1, factory=made) is embedded

    def other(model: bytes, threads: int) -> Counted:
        return Counted(model, threads)

    assert loaded_detector(threads=1, factory=other) is not plain


def test_the_scan_and_the_deck_commands_share_the_owner() -> None:
    det = scan.default_detector(threads=1)
    assert det is loaded_detector(threads=1) and det.sessions[0] is not None
    assert scan.default_detector(threads=1) is det
    assert scan.default_detector(threads=3) is not det  # the first call's count no longer wins
    deck = deck_detector(1)
    assert deck is loaded_detector(embed=True, threads=1) and deck.embeds and deck is not det
