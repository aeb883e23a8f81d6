"""The ``zipai`` command. Subcommands import their package only when run, so
``zipai score`` starts without torch, Kivy or OpenCV."""

from __future__ import annotations

import importlib
import sys

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
    "app": ("zipai.mobile.main", "main", "start the table app"),
}


def _usage() -> str:
    lines = ["usage: zipai COMMAND [ARGS]", "", "commands:"]
    lines += [f"  {name:<9} {help_}" for name, (_, _, help_) in COMMANDS.items()]
    lines += ["", "zipai COMMAND --help shows a command's options."]
    return "\n".join(lines)


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
    try:
        entry = getattr(importlib.import_module(module), func)
    except ImportError as exc:
        print(f"zipai {name}: cannot start, missing dependency: {exc}", file=sys.stderr)
        return 2
    try:
        return int(entry(rest) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
