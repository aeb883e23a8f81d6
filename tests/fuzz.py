"""Seeded fuzzing for the test suite: mutate known-good inputs, feed each to an entry point in
process, and collect every exception that is not one of the project's own errors.

Reuse: build cases with a ``Mutator`` (bytes, or JSON through ``mutate_json``), then
``check(target, cases)`` where ``target`` takes one case and raises or returns. CI runs a
bounded count with a fixed seed; ``ZIPAI_FUZZ=N`` runs N cases a target (and
``ZIPAI_FUZZ_SEED=S`` another seed) for a longer hunt.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import random
import tempfile
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from zipai.engine import ZipaiError
from zipai.scorer.errors import LedgerError
from zipai.vision.errors import VisionError

OUR_ERRORS: tuple[type[BaseException], ...] = (ZipaiError, LedgerError, VisionError)
"""What a bad input may raise: each subclasses ValueError and carries a one-line message."""

SEED = 48  # issue 48
HIDDEN_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)
"""Python shows a user none of these by default; any other warning is a line on their screen."""


def count(ci: int) -> int:
    """Cases per target: ``ci`` in the suite, or ``ZIPAI_FUZZ`` when set (the longer run)."""
    raw = os.environ.get("ZIPAI_FUZZ", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else ci


def seed() -> int:
    raw = os.environ.get("ZIPAI_FUZZ_SEED", "").strip()
    return int(raw) if raw.lstrip("-").isdigit() else SEED


# Values that broke, or could break, a parser or a validator: huge and odd numbers, control
# and line-separator characters, paths to devices and FIFOs, deep nesting, wrong types.
NASTY_VALUES: list[Any] = [
    None, True, False, 0, -1, 1, 2, 3, 4, 5, 7, 2**31, -(2**63), 10**300, 1e308, -0.0, 0.5, "",
    " ", "\x00", "a\x00.toml", "\u2028", "\u2029", "\r", "\ufeff", "湖南", "hunan", "guangxi",
    "guilin", "/dev/zero", "/dev/stdin", "../../etc/passwd", "house.toml", "x" * 5000, "x1",
    "d10", "x11", "贰", "~", "|", "x9!", "open", "concealed", "stock", "discard", "dealt",
    "self_draw", [], {}, [None], ["x1"] * 5, ["up", "same"], {"cards": []}, [[[[[]]]]],
    {"minimum": 18}, {"xing": "up"}, {"piao": 100}, {"self_draw": "plus_ten"},
]
# Numbers as a user or a file might type them: any length up to past Python's 4,300-digit
# limit, signs, points, exponents, and digits of other scripts that ``int()`` would take.
OTHER_DIGITS = ("٠١٢٣٤٥٦٧٨٩", "۰۱۲۳۴۵۶۷۸۹", "०१२३४५६७८९", "０１２３４５６７８９", "𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗")


def number_text(r: random.Random) -> str:
    """A numeric-looking text of any length (1 to 6,000 digits), often not a plain integer."""
    n = r.choice((1, 2, 3, r.randint(1, 30), r.randint(4290, 4310), r.randint(1, 6000)))
    digits = "".join(r.choice("0123456789") for _ in range(n))
    roll = r.random()
    if roll < 0.15:
        table = r.choice(OTHER_DIGITS)
        digits = "".join(table[int(c)] if r.random() < 0.5 else c for c in digits)
    elif roll < 0.25:
        digits += r.choice((".0", ".5", "e3", "e-1", "_0", " ", "\u00a0", "\x00"))
    elif roll < 0.3:
        digits = r.choice(("nan", "inf", "-inf", "1e999999", "0x1f", "0b1", "+", "-", "", " "))
    return r.choice(("", "", "-", "+")) + digits


def number_value(r: random.Random) -> Any:
    """A JSON or TOML number of any size, or a float where a whole number belongs."""
    roll = r.random()
    if roll < 0.5:
        return int("".join(r.choice("123456789") for _ in range(r.randint(1, 4299)))) * r.choice((1, -1))
    if roll < 0.7:
        return r.choice((30.0, 30.5, 100.0, 2.0, 1e308, -0.0, 0.1))
    return r.choice((0, 1, 2, 3, 10, 11, 15, 30, 84, 100, 101, -1, 2**63))


NASTY_BYTES: list[bytes] = [
    b"\x00", b"\xff", b"\xff\xfe", b"\xef\xbb\xbf", b"\n", b"\r", b"\r\n", b"\xe2\x80\xa8",
    b"9" * 5000, b"[" * 3000, b"{" * 50, b'"', b"\\", b"\\u0000", b"\\ud800", b"NaN", b"-Infinity",
    b"1e999999", b".a" * 2000, b"[[", b"]]", b"=", b"#", b'"""', b"'''", b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff", b"RIFF", b"WEBPVP8L", b"\xff\xff\xff\x7f", b"\x00\x00\x00\x00",
]


@dataclass
class Mutator:
    """Seeded mutations of bytes and of JSON values."""

    seed: int
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def mutate_bytes(self, data: bytes, others: list[bytes] | None = None) -> bytes:
        """One to four edits: bit flips, byte sets, inserts, deletes, repeats, splices, cuts."""
        r = self.rng
        buf = bytearray(data)
        for _ in range(r.randint(1, 4)):
            op = r.randrange(8)
            at = r.randrange(len(buf) + 1)
            if op == 0 and buf:
                i = min(at, len(buf) - 1)
                buf[i] ^= 1 << r.randrange(8)
            elif op == 1 and buf:
                i = min(at, len(buf) - 1)
                buf[i] = r.choice((0, 1, 0x7F, 0x80, 0xFF, r.randrange(256)))
            elif op == 2:
                buf[at:at] = r.choice(NASTY_BYTES)
            elif op == 3:
                buf[at:at] = bytes(r.randrange(256) for _ in range(r.randint(1, 16)))
            elif op == 4 and buf:
                del buf[at:at + r.randint(1, max(1, len(buf) // 8))]
            elif op == 5 and buf:
                end = min(len(buf), at + r.randint(1, 64))
                buf[at:at] = buf[at:end] * r.randint(2, 50)
            elif op == 6 and others:
                other = r.choice(others)
                cut = r.randrange(len(other) + 1)
                buf = buf[:at] + bytearray(other[cut:])
            elif op == 7:
                buf = buf[:at]
        return bytes(buf)

    def value(self, depth: int = 0) -> Any:
        """A random JSON value, often a nasty one."""
        r = self.rng
        pick = r.random()
        if pick < 0.6 or depth > 3:
            return copy.deepcopy(r.choice(NASTY_VALUES))  # a fresh list or dict: edits stay local
        if pick < 0.8:
            return [self.value(depth + 1) for _ in range(r.randint(0, 4))]
        return {r.choice(["cards", "state", "rules", "x", "options", ""]): self.value(depth + 1)
                for _ in range(r.randint(0, 3))}

    def mutate_json(self, obj: Any) -> Any:
        """A copy of ``obj`` with one to three values replaced, keys dropped or added."""
        out = json.loads(json.dumps(obj))
        for _ in range(self.rng.randint(1, 3)):
            out = self._edit(out)
        return out

    def _edit(self, node: Any) -> Any:
        r = self.rng
        if isinstance(node, dict) and node and r.random() < 0.75:
            key = r.choice(sorted(node))
            roll = r.random()
            if roll < 0.15:
                del node[key]
            elif roll < 0.25:
                node[r.choice(["colour", "RULES", "rules ", "winner"])] = self.value()
            elif roll < 0.6:
                node[key] = self._edit(node[key])
            else:
                node[key] = self.value()
            return node
        if isinstance(node, list) and node and r.random() < 0.75:
            i = r.randrange(len(node))
            roll = r.random()
            if roll < 0.2:
                del node[i]
            elif roll < 0.3:
                node.insert(i, self.value())
            elif roll < 0.6:
                node[i] = self._edit(node[i])
            else:
                node[i] = self.value()
            return node
        return self.value()


@dataclass
class Failure:
    """One case that escaped as an exception of the wrong type."""

    case: int
    error: str
    sample: str

    def __str__(self) -> str:
        return f"case {self.case}: {self.error}\n    input: {self.sample}"


def check(target: Callable[[Any], object], cases: Iterable[Any],
          allowed: tuple[type[BaseException], ...] = OUR_ERRORS, limit: int = 5) -> list[Failure]:
    """Run ``target`` on each case; the failures are the exceptions not in ``allowed``.

    Output the target prints is swallowed; an entry point must print at most one line of
    error (on ``sys.stderr`` and descriptor 2 together): a traceback, or a warning a user
    would see (a library's), is a failure too."""
    failures: list[Failure] = []
    raw = tempfile.TemporaryFile()
    for n, case in enumerate(cases):
        out, err = io.StringIO(), io.StringIO()
        raw.seek(0)
        raw.truncate()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _fd2(raw), \
                warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                target(case)
            except allowed:
                pass
            except Exception as exc:  # the point of the harness: anything else is a finding
                where = traceback.extract_tb(exc.__traceback__)[-1]
                failures.append(Failure(n, f"{type(exc).__name__}: {str(exc)[:200]} "
                                           f"({os.path.basename(where.filename)}:{where.lineno})",
                                        _sample(case)))
        shown = [w for w in seen if not issubclass(w.category, HIDDEN_WARNINGS)]
        raw.seek(0)
        text = err.getvalue() + raw.read().decode("utf-8", "replace")
        if shown:
            failures.append(Failure(n, f"printed a warning: {shown[0].category.__name__}: "
                                       f"{str(shown[0].message)[:200]}", _sample(case)))
        elif "Traceback" in text or text.count("\n") > 1:
            failures.append(Failure(n, f"more than one line on stderr: {text[:300]!r}", _sample(case)))
        if len(failures) >= limit:
            break
    raw.close()
    return failures


@contextlib.contextmanager
def _fd2(file: Any) -> Iterator[None]:
    """Descriptor 2 into ``file``: a C library (libtiff, say) writes there, past ``sys.stderr``."""
    saved = os.dup(2)
    os.dup2(file.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _sample(case: Any) -> str:
    text = repr(case)
    return text if len(text) <= 300 else text[:300] + f"… ({len(text)} chars)"


def report(failures: list[Failure]) -> str:
    return f"{len(failures)} inputs escaped as foreign exceptions (seed {seed()}):\n" + \
        "\n".join(str(f) for f in failures)


def cases(n: int, make: Callable[[int], Any]) -> Iterator[Any]:
    """``n`` cases from ``make(i)``; a generator, so a long run holds one case at a time."""
    for i in range(n):
        yield make(i)
