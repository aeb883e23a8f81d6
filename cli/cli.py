"""The ``zipai`` command. Subcommands import their package only when run, so
``zipai score`` starts without torch, Kivy or OpenCV."""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from typing import Any, TextIO

Entry = tuple[str, str, str]  # module, function, one-line help

COMMANDS: dict[str, Entry] = {
    "score": ("zipai.engine.cli", "main", "score a layout (JSON, JSON Lines or text notation)"),
    "session": ("zipai.scorer.cli", "session_main", "create, list, show, settle sessions"),
    "hand": ("zipai.scorer.cli", "hand_main", "record a hand in the current session"),
    "players": ("zipai.scorer.cli", "players_main", "the roster of players"),
    "data": ("zipai.datasets.cli", "main", "render and preview synthetic table photos"),
    "train": ("zipai.models.train", "main", "train the card detector and export ONNX"),
    "scan": ("zipai.vision.cli", "main", "read a table photo and score it"),
    "tune": ("zipai.models.tune", "main", "choose the detector's settings on validation scenes"),
    "deck": ("zipai.vision.deck.cli", "main", "teach the scanner a deck from one photo of its faces"),
    "app": ("zipai.mobile.main", "main", "start the table app"),
    "serve": ("zipai.serve.cli", "main", "the table page: each phone follows the session ([serve] extra)"),
}


@dataclass(frozen=True, slots=True)
class Group:
    """A command of several subcommands (``zipai eval detector``), each imported only when it runs;
    ``default`` runs when the first argument names none (``zipai bench`` is the engine's bench)."""

    help: str
    commands: dict[str, Entry]
    default: str | None = None


GROUPS: dict[str, Group] = {
    "eval": Group("measure the card detector on rendered, labelled scenes", {
        "detector": ("zipai.models.eval_detector", "main",
                     "per-card and whole-scene figures; --model-card writes docs/model-card.md"),
        "compare": ("zipai.models.compare", "main", "two models scene by scene: is the difference chance?"),
        "errors": ("zipai.models.error_breakdown", "main", "where the per-card figure is lost, and why"),
        "rapidocr": ("zipai.models.compare_rapidocr", "main",
                     "a general Chinese OCR (RapidOCR) on the same scenes (the [ocr] extra)"),
        "int8": ("zipai.models.check_int8", "main", "does this CPU run the int8 networks right?"),
        "gallery": ("zipai.models.gallery", "main", "the first scenes of a split, drawn as counted"),
        "sample": ("zipai.models.sample", "main", "choose the sample photo shipped in models/"),
        "decks": ("zipai.models.eval_decks", "main", "untaught against taught on a deck set's scenes"),
    }),
    "bench": Group("measure speed (no name: the engine's bench)", {
        "engine": ("zipai.engine.bench", "main", "engine speed on 10,000 seeded layouts"),
        "scan": ("zipai.models.bench_scan", "main", "model inference and `zipai scan` per photo"),
        "ledger": ("zipai.scorer.bench", "main", "hands recorded per second, and settling"),
        "preview": ("zipai.mobile.bench_preview", "main", "the capture screen's live read (the [app] extra)"),
        "render": ("zipai.datasets.bench", "main", "scenes rendered per second"),
        "train-step": ("zipai.models.bench_train", "main", "one training step (the [train] extra)"),
        "serve": ("zipai.serve.bench", "main", "8 phones on the table page: every update within a second?"),
    }, default="engine"),
}

# the extra that installs a module a subcommand may miss
EXTRAS = {"torch": "train", "onnx": "train", "matplotlib": "train", "kivy": "app", "cv2": "app",
          "rapidocr_onnxruntime": "ocr", "starlette": "serve", "uvicorn": "serve", "segno": "serve"}


def _usage() -> str:
    lines = ["usage: zipai COMMAND [ARGS]", "", "commands:"]
    rows = [(name, help_) for name, (_, _, help_) in COMMANDS.items()]
    rows += [(name, f"{g.help}: {', '.join(g.commands)}") for name, g in GROUPS.items()]
    lines += [f"  {name:<9} {help_}" for name, help_ in sorted(rows, key=lambda r: _ORDER.index(r[0]))]
    lines += ["", "zipai COMMAND --help shows a command's options."]
    return "\n".join(lines)


_ORDER = ("score", "bench", "session", "hand", "players", "data", "train", "eval", "tune", "scan", "deck",
          "app", "serve")


def _group_usage(name: str) -> str:
    g = GROUPS[name]
    lines = [f"usage: zipai {name} {{{','.join(g.commands)}}} [ARGS]", "", f"{name} commands:"]
    lines += [f"  {sub:<10} {help_}" for sub, (_, _, help_) in g.commands.items()]
    if g.default is not None:
        lines += ["", f"With no name, zipai {name} runs zipai {name} {g.default}."]
    lines += [f"zipai {name} NAME --help shows its options."]
    return "\n".join(lines)


def _resolve(name: str, rest: list[str]) -> tuple[str, Entry, list[str]] | int:
    """The subcommand that ``zipai NAME REST`` runs, or the exit code once usage is printed."""
    if name in COMMANDS:
        return name, COMMANDS[name], rest
    g = GROUPS[name]
    if rest and rest[0] in g.commands:
        return f"{name} {rest[0]}", g.commands[rest[0]], rest[1:]
    if rest and rest[0] in ("-h", "--help", "help"):
        print(_group_usage(name))
        return 0
    if g.default is not None and (not rest or rest[0].startswith("-")):
        return f"{name} {g.default}", g.commands[g.default], rest
    what = f"unknown {name} command {rest[0]!r}" if rest else f"{name} needs a command"
    print(f"zipai {name}: {what}\n\n{_group_usage(name)}", file=sys.stderr)
    return 2


def _missing(exc: ImportError) -> str:
    """An ImportError in words, with the extra that installs what is missing where one does."""
    root = (exc.name or "").split(".")[0]
    extra = EXTRAS.get(root)
    return f"{exc}; install it with pip install 'zipai-scorer[{extra}]'" if extra else str(exc)


class _PipeGuard:
    """Standard output that goes quiet once its reader has gone (``zipai session show | head``).

    Python ignores SIGPIPE, so a write to a closed pipe raises BrokenPipeError wherever the
    command happens to print, and some commands would report it as an error. Here the command
    runs to its end instead (a ledger write completes; nothing is lost), the rest of its output
    goes to the null device, and nothing is printed about it."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self._silence()
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if not self.broken:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._silence()

    def _silence(self) -> None:
        """Point the descriptor at the null device, so the interpreter's last flush of the
        buffered text succeeds instead of printing 'Exception ignored … Broken pipe'."""
        self.broken = True
        try:
            fd = self.stream.fileno()
        except (AttributeError, OSError, ValueError):
            return
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def _degrade_encoding() -> None:
    """Text the stream's encoding cannot carry (an ASCII locale, ``PYTHONIOENCODING=latin-1``)
    comes out escaped instead of raising: a command that has committed a write must never fail
    while saying so, or a retry records it twice."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # a detached or closed stream: nothing to print to anyway
            pass


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _degrade_encoding()
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    if argv[0] == "--version":
        from zipai import __version__

        print(__version__)
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS and name not in GROUPS:
        print(f"zipai: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    resolved = _resolve(name, rest)
    if isinstance(resolved, int):
        return resolved
    label, (module, func, _), rest = resolved
    guard = _PipeGuard(sys.stdout)
    sys.stdout = guard  # type: ignore[assignment]
    try:
        try:
            entry = getattr(importlib.import_module(module), func)
        except ImportError as exc:
            print(f"zipai {label}: cannot start, missing dependency: {_missing(exc)}", file=sys.stderr)
            return 2
        code = int(entry(rest) or 0)
        guard.flush()
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # a write that went around the guard (to sys.stdout.buffer)
        guard._silence()
        return 0
    finally:
        if sys.stdout is guard:
            sys.stdout = guard.stream


if __name__ == "__main__":
    sys.exit(main())
