"""The `gamegrammar` command: one subcommand per module in gamegrammar.commands.

Every user mistake surfaces as a GameGrammarError and is printed as one line.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from gamegrammar import __version__
from gamegrammar.errors import GameGrammarError

# Each module defines `register(subparsers)`, which adds its parser and sets `run=`.
COMMANDS = ["games", "generate", "corpus", "sample", "evaluate", "export", "replay", "analyze"]
# These hand the rest of the command line to another parser (LightningCLI).
PASSTHROUGH = {"train": "train GameGPT with the Lightning CLI (fit, validate, ...; --help for its options)"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gamegrammar", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"gamegrammar {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"gamegrammar.commands.{name}").register(sub)
    for name, help_text in PASSTHROUGH.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in PASSTHROUGH:
            return importlib.import_module(f"gamegrammar.commands.{argv[0]}").main(argv[1:]) or 0
        args = build_parser().parse_args(argv)
        return args.run(args) or 0
    except GameGrammarError as err:
        print(f"gamegrammar: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gamegrammar: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
