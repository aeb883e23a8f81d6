"""``zipai eval``: the models' figures on rendered data, one subcommand each, imported when run."""

from __future__ import annotations

import importlib
import sys

# name -> (module, function, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "decks": ("zipai.models.eval_decks", "main", "untaught against taught on a deck set's scenes"),
}


def _usage() -> str:
    lines = ["usage: zipai eval SUBCOMMAND [ARGS]", "", "subcommands:"]
    lines += [f"  {name:<9} {help_}" for name, (_, _, help_) in SUBCOMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[2:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        print(f"zipai eval: unknown subcommand {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module, func, _ = SUBCOMMANDS[name]
    return int(getattr(importlib.import_module(module), func)(rest) or 0)
