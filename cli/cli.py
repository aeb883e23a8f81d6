"""The ``zipai`` command. Subcommands import their package only when run, so
``zipai score`` starts without torch, Kivy or OpenCV."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, TextIO

# name -> (module, function, one-line help)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "score": ("zipai.engine.cli", "main", "score a layout (JSON, JSON Lines or text notation)"),
    "bench": ("zipai.engine.bench", "main", "measure engine speed on 10,000 seeded layouts"),
    "session": ("zipai.scorer.cli", "session_main", "create, list, show, settle sessions"),
    "hand": ("zipai.scorer.cli", "hand_main", "record a hand in the current session"),
    "players": ("zipai.scorer.cli", "players_main", "the roster of players"),
    "data": ("zipai.datasets.cli", "main", "render and preview synthetic table photos"),
    "train": ("zipai.models.train", "main", "train the card detector and export ONNX"),
    "scan": ("zipai.vision.cli", "main", "read a table photo and score it"),
    "deck": ("zipai.vision.deck_cli", "main", "teach the scanner a deck from one photo of its faces"),
    "app": ("zipai.mobile.main", "main", "start the table app"),
}


def _usage() -> str:
    lines = ["usage: zipai COMMAND [ARGS]", "", "commands:"]
    lines += [f"  {name:<9} {help_}" for name, (_, _, help_) in COMMANDS.items()]
    lines += ["", "zipai COMMAND --help shows a command's options."]
    return "\n".join(lines)


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


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    if argv[0] == "--version":
        from zipai import __version__

        print(__version__)
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"zipai: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module, func, _ = COMMANDS[name]
    guard = _PipeGuard(sys.stdout)
    sys.stdout = guard  # type: ignore[assignment]
    try:
        try:
            entry = getattr(importlib.import_module(module), func)
        except ImportError as exc:
            print(f"zipai {name}: cannot start, missing dependency: {exc}", file=sys.stderr)
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
